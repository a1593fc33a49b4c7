/* SPDX-License-Identifier: MIT */
/* Locks the outputs can name by symbol, for check_lock_names.py: a global
 * mutex (result_mu), one inside a global struct at offset 0x28 (q+0x28),
 * and one on the heap, which no symbol names (its address is shown).
 * Prints the heap lock's address. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

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

int main(void)
{
	heap_mu = malloc(sizeof *heap_mu);
	pthread_mutex_init(heap_mu, NULL);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%p\n", (void *)heap_mu);
	return total == 1200 ? 0 : 1;
}
