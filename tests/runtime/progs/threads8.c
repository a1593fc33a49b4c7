/* SPDX-License-Identifier: MIT */
/* 8 threads x N user events with values 0..N-1: every event must be in the
 * trace exactly once and in order. */
#include <paratrace.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long n_events = 1000000;

static void *worker(void *arg)
{
	char name[32];
	snprintf(name, sizeof name, "worker-%ld", (long)arg);
	PT_THREAD_NAME(name);
	for (long i = 0; i < n_events; i++)
		PT_EVENT("seq", i);
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 8;
	if (argc > 2)
		n_events = atol(argv[2]);
	pthread_t t[64];
	for (long i = 0; i < nthreads && i < 64; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < nthreads && i < 64; i++)
		pthread_join(t[i], NULL);
	return 0;
}
