/* SPDX-License-Identifier: MIT */
/* What off-CPU time adds per context switch (bench/offcpu/run.sh runs it
 * under PARATRACE_OFFCPU=off, calls and auto). Prints one number: the
 * process's CPU time (user and system) per context switch of it (voluntary
 * and not), both from getrusage. CPU time, not wall time: what tracing
 * adds is work on the CPU (the kernel's switch records, the runtime reading
 * them), while the wall time of a program that blocks all the time follows
 * the machine's load.
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

static long switches(uint64_t *cpu_ns)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	*cpu_ns = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
	          (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: offcpu_bench pingpong|sleep N\n");
		return 2;
	}
	long n = atol(argv[2]);
	uint64_t c0, c1;
	long s0 = switches(&c0);
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
	long s = switches(&c1) - s0;
	printf("%.1f\n", s > 0 ? (double)(c1 - c0) / (double)s : 0.0);
	return 0;
}
