/* SPDX-License-Identifier: MIT */
/* T threads through P barrier phases: T*P arrivals and departures, and
 * exactly one serial thread (PTHREAD_BARRIER_SERIAL_THREAD) per phase. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t b;
static int phases;
static long serial;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < phases; i++)
		if (pthread_barrier_wait(&b) == PTHREAD_BARRIER_SERIAL_THREAD)
			__atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	int t = 4;
	phases = argc > 1 ? atoi(argv[1]) : 200;
	pthread_barrier_init(&b, NULL, (unsigned)t);
	pthread_t th[4];
	for (int i = 0; i < t; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	if (serial != phases)
		return 1;
	printf("expect count BARRIER_BEGIN == %d obj=%p\n", t * phases, (void *)&b);
	printf("expect count BARRIER_END == %d obj=%p\n", t * phases, (void *)&b);
	printf("expect count BARRIER_END == %ld obj=%p result=%d\n", serial, (void *)&b,
	       PTHREAD_BARRIER_SERIAL_THREAD);
	printf("expect status 0\n");
	return 0;
}
