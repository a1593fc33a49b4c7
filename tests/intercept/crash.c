/* SPDX-License-Identifier: MIT */
/* Fatal signals with the program's default action: a worker thread that
 * dereferences NULL after K locked increments (or, with "abort", calls
 * abort(); with "term", is sent SIGTERM). The process must die of the same
 * signal as untraced (exit status 128+signo to the shell), and the logs
 * must hold every event up to the crash, the SIGNAL record and the EXIT.
 * "term-inside": the SIGTERM (process-directed, as in "term") comes while
 * the main thread is inside the runtime: in this program's malloc, which
 * the runtime's pthread_create wrapper calls inside its region, held there
 * until the signal kills it. The SIGNAL must be in the trace all the same. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int k;
static const char *mode = "segv";
static pid_t main_tid;
static atomic_int hold_main, main_inside;

extern void *__libc_malloc(size_t);

void *malloc(size_t n)
{
	if (atomic_load(&hold_main) && gettid() == main_tid) {
		atomic_store(&main_inside, 1);
		for (;;)
			pause();
	}
	return __libc_malloc(n);
}

/* The worker of "term-inside": SIGTERM blocked here, so the main thread
 * takes it. */
static void term_main_inside(void)
{
	sigset_t term;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, NULL);
	while (!atomic_load(&main_inside))
		usleep(1000);
	kill(getpid(), SIGTERM);
	for (;;)
		pause();
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < k; i++) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
	if (strcmp(mode, "term-inside") == 0)
		term_main_inside();
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
	int sig = strcmp(mode, "abort") == 0      ? SIGABRT
	          : strncmp(mode, "term", 4) == 0 ? SIGTERM
	                                          : SIGSEGV;
	printf("expect status %d\n", 128 + sig);
	printf("expect count LOCK_ACQUIRED == %d obj=%p\n", k, (void *)&m);
	printf("expect count LOCK_RELEASED == %d obj=%p\n", k, (void *)&m);
	printf("expect count SIGNAL == 1 signo=%d\n", sig);
	printf("expect count EXIT == 1 status=%d how=%s\n", sig, sig == SIGABRT ? "abort" : "signal");
	if (sig == SIGSEGV)
		printf("expect count SIGNAL == 1 signo=%d addr=0x0\n", sig);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	if (strcmp(mode, "term-inside") == 0) {
		main_tid = gettid();
		atomic_store(&hold_main, 1);
		pthread_create(&t, NULL, worker, NULL); /* never returns */
	}
	pthread_join(t, NULL);
	return 0;
}
