/* SPDX-License-Identifier: MIT */
/* Mutex-heavy loop: every thread takes one shared lock SIZE times around a
 * tiny critical section. Tracers that interpose pthread calls pay here. */
#include "wl.h"

static long size;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

WL_NOINLINE void critical(long x)
{
	WL_OPAQUE(x);
	counter += x;
}

WL_NOINLINE void step(long x)
{
	pthread_mutex_lock(&lock);
	critical(x);
	pthread_mutex_unlock(&lock);
}

void *worker(void *arg)
{
	for (long i = 0; i < size; i++)
		step((long)arg + 1);
	return NULL;
}

int main(int argc, char **argv)
{
	long threads;
	wl_args(argc, argv, &threads, &size);
	if (size > 0)
		wl_run_threads(threads, worker);
	if (counter != size * threads * (threads + 1) / 2) {
		fprintf(stderr, "mutex: lost updates\n");
		return 1;
	}
	wl_expect("main", 1);
	wl_expect("worker", size > 0 ? threads : 0);
	wl_expect("step", size > 0 ? threads * size : 0);
	wl_expect("critical", size > 0 ? threads * size : 0);
	return 0;
}
