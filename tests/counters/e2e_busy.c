/* SPDX-License-Identifier: MIT */
/* A busy multithreaded program built with the plugin, for sampling while
 * the hooks run (counters_e2e_sampling_busy): each thread calls two small
 * instrumented functions in a loop, so a sample lands in a hook's fast path,
 * in the rest of a hook, or in the program's code. Prints the number of
 * calls of each function, which the trace must hold exactly.
 *   e2e_busy THREADS CALLS_PER_THREAD */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) static long leaf(long x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) static long mid(long x)
{
	long s = 0;
	for (int i = 0; i < 4; i++)
		s += leaf(x + i);
	return s;
}

static void *work(void *arg)
{
	long n = (long)arg, s = 0;
	for (long i = 0; i < n; i++)
		s += mid(i);
	sink += s;
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 4;
	long per = argc > 2 ? atol(argv[2]) : 500000;
	pthread_t th[64];
	if (nt < 1 || nt > 64)
		return 2;
	for (int i = 0; i < nt; i++)
		if (pthread_create(&th[i], NULL, work, (void *)per) != 0)
			return 3;
	for (int i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	printf("calls mid %ld leaf %ld\n", per * nt, per * nt * 4);
	return 0;
}
