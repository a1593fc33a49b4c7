/* SPDX-License-Identifier: MIT */
/* Recursive fib: deep call stacks and short functions, each thread computes
 * fib(DEPTH) SIZE times. fib(n) makes 2*F(n+1)-1 calls of fib. */
#include "wl.h"

#define DEPTH 20

static long size;
volatile long sink;

WL_NOINLINE long fib(long n)
{
	WL_OPAQUE(n);
	if (n < 2)
		return n;
	/* The barrier keeps the optimizer from turning one of the two calls
	 * into a loop (accumulator recursion elimination), which it does in
	 * builds without entry/exit hooks and would make builds differ. */
	long r = fib(n - 1) + fib(n - 2);
	WL_OPAQUE(r);
	return r;
}

void *worker(void *arg)
{
	long acc = (long)arg;
	for (long i = 0; i < size; i++)
		acc += fib(DEPTH);
	sink = acc;
	return NULL;
}

int main(int argc, char **argv)
{
	long threads;
	wl_args(argc, argv, &threads, &size);
	if (size > 0)
		wl_run_threads(threads, worker);
	long long a = 0, b = 1; /* F(0), F(1): iterate to F(DEPTH + 1) */
	for (int i = 0; i < DEPTH + 1; i++) {
		long long c = a + b;
		a = b;
		b = c;
	}
	long long per_fib = 2 * a - 1;
	wl_expect("main", 1);
	wl_expect("worker", size > 0 ? threads : 0);
	wl_expect("fib", size > 0 ? threads * size * per_fib : 0);
	return 0;
}
