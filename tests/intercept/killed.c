/* SPDX-License-Identifier: MIT */
/* SIGKILL mid-run: a worker counts locked increments and, after each
 * unlock, publishes how many it completed in a shared file (argv[1]); the
 * main thread SIGKILLs the process after a while. Every event recorded
 * before the kill must be in the logs: at least as many acquisitions as
 * the completed count, at most one more (the one in flight). */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int fd;

static void *worker(void *arg)
{
	(void)arg;
	for (long i = 1;; i++) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
		char buf[32];
		int n = snprintf(buf, sizeof buf, "%ld\n", i);
		pwrite(fd, buf, (size_t)n, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return 2;
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 2;
	printf("expect status %d\n", 128 + SIGKILL);
	printf("expect countfile LOCK_ACQUIRED %s 1 obj=%p\n", argv[1], (void *)&m);
	printf("expect countfile LOCK_RELEASED %s 1 obj=%p\n", argv[1], (void *)&m);
	printf("expect count THREAD_CREATE == 1\n");
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	usleep(200000);
	kill(getpid(), SIGKILL);
	return 0;
}
