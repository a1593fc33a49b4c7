/* SPDX-License-Identifier: MIT */
/* Fatal signals with the program's default action: a worker thread that
 * dereferences NULL after K locked increments (or, with "abort", calls
 * abort(); with "term", is sent SIGTERM). The process must die of the same
 * signal as untraced (exit status 128+signo to the shell), and the logs
 * must hold every event up to the crash, the SIGNAL record and the EXIT. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int k;
static const char *mode = "segv";

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < k; i++) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
	if (strcmp(mode, "abort") == 0)
		abort();
	if (strcmp(mode, "term") == 0) {
		kill(getpid(), SIGTERM);
		for (;;)
			pause();
	}
	volatile int *p = NULL;
	return (void *)(long)*p;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1)
		mode = argv[1];
	k = argc > 2 ? atoi(argv[2]) : 1000;
	int sig = strcmp(mode, "abort") == 0 ? SIGABRT : strcmp(mode, "term") == 0 ? SIGTERM : SIGSEGV;
	printf("expect status %d\n", 128 + sig);
	printf("expect count LOCK_ACQUIRED == %d obj=%p\n", k, (void *)&m);
	printf("expect count LOCK_RELEASED == %d obj=%p\n", k, (void *)&m);
	printf("expect count SIGNAL == 1 signo=%d\n", sig);
	printf("expect count EXIT == 1 status=%d how=%s\n", sig, sig == SIGABRT ? "abort" : "signal");
	if (sig == SIGSEGV)
		printf("expect count SIGNAL == 1 signo=%d addr=0x0\n", sig);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
