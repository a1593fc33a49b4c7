/* SPDX-License-Identifier: MIT */
/* Interposition cost: one measurement per run, printed as a number.
 *   locks_bench mutex N    ns per uncontended pthread_mutex_lock+unlock pair
 *   locks_bench mutex-mt N the same in a process that has started a thread:
 *                          glibc skips the atomic instructions of a mutex
 *                          while a process is single-threaded (not the
 *                          wrapper's trylock), so `mutex` overstates the
 *                          added cost for the programs locks matter in
 *   locks_bench spin N     ns per uncontended pthread_spin_lock+unlock pair
 *   locks_bench create N   us per pthread_create+pthread_join of an empty thread
 *   locks_bench clock N    ns per rdtsc (x86) or CLOCK_MONOTONIC read: the floor of
 *                          any timestamped record on this machine
 * run.sh runs it plain and under libtrace.so, several times each, and prints
 * the medians side by side. A single thread: no contention, so the figures
 * are the wrappers' own cost (clock reads and record writes). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* CPU time of the process, not wall time: on a shared 2-core machine a
 * loop is descheduled for long stretches, which says nothing about the
 * cost of the code. Includes the kernel time the runtime causes (page
 * faults on the log mapping) and, for create+join, the threads' own. */
static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *empty(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: locks_bench mutex|mutex-mt|spin|create|clock N\n");
		return 2;
	}
	long n = atol(argv[2]);
	if (strcmp(argv[1], "mutex-mt") == 0) {
		pthread_t t; /* from here on glibc treats the process as multithreaded */
		if (pthread_create(&t, NULL, empty, NULL) != 0 || pthread_join(t, NULL) != 0)
			return 1;
		argv[1] = "mutex";
	}
	if (strcmp(argv[1], "mutex") == 0) {
		pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
		for (long i = 0; i < n / 10; i++) { /* warm-up: resolve, map the log */
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
		double t0 = now_ns();
		for (long i = 0; i < n; i++) {
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
		printf("%.2f\n", (now_ns() - t0) / (double)n);
	} else if (strcmp(argv[1], "spin") == 0) {
		pthread_spinlock_t s;
		pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE);
		for (long i = 0; i < n / 10; i++) {
			pthread_spin_lock(&s);
			pthread_spin_unlock(&s);
		}
		double t0 = now_ns();
		for (long i = 0; i < n; i++) {
			pthread_spin_lock(&s);
			pthread_spin_unlock(&s);
		}
		printf("%.2f\n", (now_ns() - t0) / (double)n);
	} else if (strcmp(argv[1], "create") == 0) {
		pthread_t t;
		double t0 = now_ns();
		for (long i = 0; i < n; i++) {
			if (pthread_create(&t, NULL, empty, NULL) != 0)
				return 1;
			pthread_join(t, NULL);
		}
		printf("%.2f\n", (now_ns() - t0) / (double)n / 1000.0);
	} else if (strcmp(argv[1], "clock") == 0) {
		unsigned long long sum = 0;
		double t0 = now_ns();
		for (long i = 0; i < n; i++) {
#if defined(__x86_64__) || defined(__i386__)
			sum += __rdtsc();
#else
			sum += (unsigned long long)now_ns();
#endif
		}
		printf("%.2f\n", (now_ns() - t0) / (double)n + (double)(sum & 0) );
	} else {
		return 2;
	}
	return 0;
}
