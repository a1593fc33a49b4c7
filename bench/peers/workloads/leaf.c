/* SPDX-License-Identifier: MIT */
/* Hot leaf-call loop: each thread calls leaf() SIZE times. The smallest
 * traced call there is, so the figure is the tracer's per-call floor. */
#include "wl.h"

static long size;
volatile long sink;

WL_NOINLINE long leaf(long x)
{
	WL_OPAQUE(x);
	return x + 1;
}

void *worker(void *arg)
{
	long acc = (long)arg;
	for (long i = 0; i < size; i++)
		acc = leaf(acc);
	sink = acc;
	return NULL;
}

int main(int argc, char **argv)
{
	long threads;
	wl_args(argc, argv, &threads, &size);
	if (size > 0)
		wl_run_threads(threads, worker);
	wl_expect("main", 1);
	wl_expect("worker", size > 0 ? threads : 0);
	wl_expect("leaf", size > 0 ? threads * size : 0);
	return 0;
}
