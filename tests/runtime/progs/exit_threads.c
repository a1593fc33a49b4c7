/* SPDX-License-Identifier: MIT */
/* exit() from main while threads are still running instrumented code. */
#include <paratrace.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile long sink;

__attribute__((noinline)) static void work(long i)
{
	PT_FUNCTION();
	sink += i;
}

static void *spin(void *arg)
{
	(void)arg;
	for (long i = 0;; i++)
		work(i);
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	struct timespec ts = {0, 100 * 1000 * 1000};
	nanosleep(&ts, NULL);
	work(-1);
	exit(3);
}
