/* SPDX-License-Identifier: MIT */
/* Locks the outputs can name by symbol, for check_lock_names.py: a global
 * mutex (result_mu), one inside a global struct at offset 0x28 (q+0x28),
 * and one on the heap, which no symbol names (its address is shown).
 * Each is first waited for once for sure (a thread asks for it while main
 * holds it until the thread sleeps in the request), so that the timelines
 * have a wait slice of each. Prints the heap lock's address. */
#define _GNU_SOURCE
#include "asleep.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t result_mu = PTHREAD_MUTEX_INITIALIZER;
struct queue {
	char head[0x28];
	pthread_mutex_t mu;
} q = {.mu = PTHREAD_MUTEX_INITIALIZER};
static pthread_mutex_t *heap_mu;
static long total;

static void *work(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++) {
		pthread_mutex_t *m[3] = {&result_mu, &q.mu, heap_mu};
		for (int k = 0; k < 3; k++) {
			pthread_mutex_lock(m[k]);
			total++;
			pthread_mutex_unlock(m[k]);
		}
	}
	return NULL;
}

static volatile pid_t asker;

static void *ask(void *arg)
{
	asker = gettid();
	pthread_mutex_lock(arg);
	pthread_mutex_unlock(arg);
	return NULL;
}

static int contend(pthread_mutex_t *m)
{
	pthread_t t;
	pthread_mutex_lock(m);
	asker = 0;
	if (pthread_create(&t, NULL, ask, m))
		return -1;
	wait_asleep(&asker);
	pthread_mutex_unlock(m);
	return pthread_join(t, NULL);
}

int main(void)
{
	heap_mu = malloc(sizeof *heap_mu);
	pthread_mutex_init(heap_mu, NULL);
	if (contend(&result_mu) || contend(&q.mu) || contend(heap_mu))
		return 1;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%p\n", (void *)heap_mu);
	return total == 1200 ? 0 : 1;
}
