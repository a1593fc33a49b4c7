/* SPDX-License-Identifier: MIT */
/* What off-CPU time adds per context switch (bench/offcpu/run.sh runs it
 * under PARATRACE_OFFCPU=off, calls and auto). Prints one number: the
 * nanoseconds of wall time per context switch of the process (voluntary
 * and not, from getrusage).
 *   offcpu_bench pingpong N   two threads hand a token back and forth N
 *                             times through a mutex and a condition
 *                             variable: each hand-over blocks one of them
 *   offcpu_bench sleep N      one thread sleeps 1 us, N times (nanosleep):
 *                             a switch out and in per call */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long turn, rounds;

static void *player(void *arg)
{
	long me = (long)arg;
	pthread_mutex_lock(&mu);
	for (long i = 0; i < rounds; i++) {
		while (turn % 2 != me)
			pthread_cond_wait(&cv, &mu);
		turn++;
		pthread_cond_signal(&cv);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long switches(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: offcpu_bench pingpong|sleep N\n");
		return 2;
	}
	long n = atol(argv[2]);
	long s0 = switches();
	uint64_t t0 = now_ns();
	if (!strcmp(argv[1], "pingpong")) {
		rounds = n;
		pthread_t a, b;
		pthread_create(&a, NULL, player, (void *)0L);
		pthread_create(&b, NULL, player, (void *)1L);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
	} else if (!strcmp(argv[1], "sleep")) {
		struct timespec one = {0, 1000};
		for (long i = 0; i < n; i++)
			nanosleep(&one, NULL);
	} else {
		fprintf(stderr, "offcpu_bench: unknown mode %s\n", argv[1]);
		return 2;
	}
	uint64_t t = now_ns() - t0;
	long s = switches() - s0;
	printf("%.1f\n", s > 0 ? (double)t / (double)s : 0.0);
	return 0;
}
