/* SPDX-License-Identifier: MIT */
/* Shared by the peer-benchmark workloads: argument parsing and the "expect"
 * lines the driver uses to check each tracer's recorded share.
 *
 * Every workload is `prog THREADS SIZE` and prints, on stdout, one line
 *     expect <function> <calls>
 * for each function its own source file defines (main included), with the
 * exact number of times the run called it. The counts are derived from the
 * parameters, never measured, so they can be compared with what each
 * tracer's own reader says it recorded. SIZE 0 does no work: it is the
 * start-up measurement (the driver's "empty main"). */
#ifndef BENCH_PEERS_WL_H
#define BENCH_PEERS_WL_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* Keeps a call from being inlined or removed while adding no work of its
 * own beyond the call: the benchmark measures the cost per call. */
#define WL_NOINLINE __attribute__((noinline))
#define WL_OPAQUE(x) __asm__ volatile("" : "+r"(x))
/* Harness code is not part of what is measured: no tracer sees it. */
#define WL_HARNESS __attribute__((no_instrument_function, xray_never_instrument))

WL_HARNESS static inline void wl_args(int argc, char **argv, long *threads, long *size)
{
	if (argc != 3 || (*threads = strtol(argv[1], NULL, 10)) < 1 || *threads > 64 ||
	    (*size = strtol(argv[2], NULL, 10)) < 0) {
		fprintf(stderr, "usage: %s THREADS(1..64) SIZE(>=0)\n", argv[0]);
		exit(2);
	}
}

WL_HARNESS static inline void wl_expect(const char *func, long long calls)
{
	printf("expect %s %lld\n", func, calls);
}

/* Starts `threads` threads on fn (argument: thread index) and joins them. */
WL_HARNESS static inline void wl_run_threads(long threads, void *(*fn)(void *))
{
	pthread_t t[64];
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)i) != 0) {
			perror("pthread_create");
			exit(1);
		}
	for (long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
}

#endif
