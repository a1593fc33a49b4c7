/* SPDX-License-Identifier: MIT */
/* A small threaded program for the two-runs test: run under libtrace.so
 * twice with one PARATRACE_DIR, it makes two unrelated runs of one program. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *work(void *arg)
{
	for (long i = 0; i < 1000; i++) {
		pthread_mutex_lock(&lock);
		total += (long)arg;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, (void *)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", total);
	return total == 3000 ? 0 : 1;
}
