/* SPDX-License-Identifier: MIT */
/* OpenMP and futex tracing cost: one measurement per run, printed as ns
 * per operation (wall time, the team's threads run meanwhile).
 *   omp_bench region N   an empty parallel region (fork, join), N times
 *   omp_bench barrier N  N barriers in one region
 *   omp_bench chunk N    dynamic loops of chunk size 1, N chunks per thread: per
 *                        chunk a thread takes
 *   omp_bench task N     N tasks with 32 bytes of data each, made by one thread
 *                        of the team and run by any: per task (made, run, waited)
 *   omp_bench futex-wake N   FUTEX_WAKE with nobody waiting
 *   omp_bench futex-wait N   FUTEX_WAIT on a value that changed (EAGAIN at once)
 * The N operations run in batches of BATCH; the figure printed is the
 * median batch's time per operation, so that the moments another process
 * takes one of the team's cores (a spinning team is slowed by any) weigh
 * as one batch each, not on the whole run. Built with clang (libomp: OMPT)
 * and gcc (libgomp: GOMP_* wrappers) by run.sh, which runs each untraced,
 * traced with PARATRACE_OPENMP=0 and traced, and prints the medians side by
 * side. OMP_NUM_THREADS sets the team (run.sh: 2). */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BATCH 200

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static volatile long sink;

/* One batch of BATCH operations of mode m; returns its ns per operation. */
static double batch(const char *m)
{
	double t0 = now_ns();
	if (!strcmp(m, "region")) {
		for (long i = 0; i < BATCH; i++) {
#pragma omp parallel
			sink += 1;
		}
	} else if (!strcmp(m, "barrier")) {
#pragma omp parallel
		for (long i = 0; i < BATCH; i++) {
#pragma omp barrier
		}
		/* the region's own fork and join, measured apart and taken off */
		double f0 = now_ns();
#pragma omp parallel
		sink += 1;
		t0 += now_ns() - f0;
	} else if (!strcmp(m, "chunk")) {
		/* BATCH chunks per thread, less the region and loop around them,
		 * measured with an empty loop */
		int threads = omp_get_max_threads();
		long n = (long)BATCH * threads;
#pragma omp parallel for schedule(dynamic, 1)
		for (long i = 0; i < n; i++)
			sink += i;
		double f0 = now_ns();
#pragma omp parallel for schedule(dynamic, 1)
		for (long i = 0; i < threads; i++)
			sink += i;
		t0 += now_ns() - f0;
	} else if (!strcmp(m, "task")) {
		/* less the region and single around them, measured empty */
#pragma omp parallel
#pragma omp single
		{
			for (long i = 0; i < BATCH; i++) {
				long d[4] = {i, i + 1, i + 2, i + 3};
#pragma omp task firstprivate(d)
				sink += d[0] + d[3];
			}
#pragma omp taskwait
		}
		double f0 = now_ns();
#pragma omp parallel
#pragma omp single
		sink += 1;
		t0 += now_ns() - f0;
	} else {
		int word = 0, wait = !strcmp(m, "futex-wait");
		for (long i = 0; i < BATCH; i++)
			syscall(SYS_futex, &word,
			        (wait ? FUTEX_WAIT : FUTEX_WAKE) | FUTEX_PRIVATE_FLAG,
			        wait ? 1 : INT_MAX, NULL, NULL, 0);
	}
	return (now_ns() - t0) / BATCH;
}

int main(int argc, char **argv)
{
	static const char *modes[] = {"region",     "barrier",    "chunk",
	                              "task",       "futex-wake", "futex-wait"};
	const char *m = argc == 3 ? argv[1] : "";
	int known = 0;
	for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
		known |= !strcmp(m, modes[i]);
	long n = argc == 3 ? atol(argv[2]) / BATCH : 0;
	if (!known || n < 1) {
		fprintf(stderr,
		        "usage: omp_bench region|barrier|chunk|task|futex-wake|futex-wait N "
		        "(N >= %d)\n",
		        BATCH);
		return 2;
	}
	double *per = malloc((size_t)n * sizeof *per);
	if (!per)
		return 1;
		/* warm up: the team exists before the clock starts */
#pragma omp parallel
	sink += omp_get_thread_num();
	for (long i = 0; i < n; i++)
		per[i] = batch(m);
	qsort(per, (size_t)n, sizeof *per, by_value);
	printf("%.1f\n", per[n / 2]);
	free(per);
	return 0;
}
