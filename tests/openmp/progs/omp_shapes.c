/* SPDX-License-Identifier: MIT */
/* OpenMP constructs of known shapes, for tests/openmp/check_omp.py: built
 * with clang (-fopenmp, the plugin: libomp, OMPT) and with gcc (-fopenmp
 * -finstrument-functions: libgomp, the GOMP_* entry points). Run with
 * OMP_NUM_THREADS=3. What the program knows of itself (its own counts and
 * times) it prints as "key value" lines, which the test compares with the
 * trace; the "@marker" comments name the lines of the constructs.
 *
 *   regions    REGIONS parallel regions of the default team (3 threads)
 *   static     a loop of STATIC_ITERS iterations, schedule(static)
 *   dynamic    a loop of DYN_ITERS iterations, schedule(dynamic, DYN_CHUNK);
 *              the iterations each thread ran
 *   nested     a region of 2 threads, each opening one of 2 threads
 *   tasks      TASKS tasks in a chain of dependences, created by one thread
 *   critical   CRITICAL critical sections and LOCKS omp_set_lock per thread
 *   misc       after omp_set_num_threads(3): two sections, a master, NEST
 *              nest lock acquisitions per thread (each taken twice, the
 *              second time by its owner), an ordered loop of ORDERED
 *              iterations, TW_TASKS tasks and a taskwait in a single
 *   imbalance  a region of 2 threads: thread t works (t + 1) * IMB_MS ms,
 *              then waits at an explicit barrier; each thread's wait there,
 *              measured with omp_get_wtime */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define REGIONS 5
#define STATIC_ITERS 1000
#define DYN_ITERS 999
#define DYN_CHUNK 7
#define TASKS 12
#define CRITICAL 20
#define LOCKS 15
#define NEST 4
#define ORDERED 9
#define TW_TASKS 4
#define IMB_MS 60

static volatile double sink;

static void work(int i)
{
	sink += i * 0.5;
}

/* Sleeps rather than spins: the barrier wait it causes is then what the
 * machine's other load cannot stretch. */
static void busy_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

int main(void)
{
	int counts[64] = {0};

	for (int r = 0; r < REGIONS; r++) {
#pragma omp parallel // @regions
		work(omp_get_thread_num());
	}

#pragma omp parallel // @static_region
	{
#pragma omp for schedule(static) // @static
		for (int i = 0; i < STATIC_ITERS; i++)
			work(i);
	}

#pragma omp parallel // @dynamic_region
	{
#pragma omp for schedule(dynamic, DYN_CHUNK) // @dynamic
		for (int i = 0; i < DYN_ITERS; i++) {
			work(i);
			counts[omp_get_thread_num()]++;
		}
	}
	for (int t = 0; t < 64; t++)
		if (counts[t])
			printf("dynamic_thread %d %d\n", t, counts[t]);

	omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) // @outer
	{
#pragma omp parallel num_threads(2) // @inner
		work(omp_get_thread_num());
	}

	int x = 0;
#pragma omp parallel // @tasks_region
	{
#pragma omp single
		{
			for (int i = 0; i < TASKS; i++) {
#pragma omp task depend(inout : x) // @task
				x++;
			}
		}
	}
	printf("tasks_done %d\n", x);

	omp_lock_t lock;
	omp_init_lock(&lock);
	int crit = 0, locked = 0;
#pragma omp parallel // @critical_region
	{
		for (int i = 0; i < CRITICAL; i++) {
#pragma omp critical // @critical
			crit++;
		}
		for (int i = 0; i < LOCKS; i++) {
			omp_set_lock(&lock);
			locked++;
			omp_unset_lock(&lock);
		}
	}
	omp_destroy_lock(&lock);
	printf("critical %d locked %d\n", crit, locked);

	omp_set_num_threads(3);
	omp_nest_lock_t nest;
	omp_init_nest_lock(&nest);
	int sec1 = 0, sec2 = 0, mastered = 0, nested = 0, ordered = 0, tw = 0;
#pragma omp parallel // @misc_region
	{
#pragma omp sections // @sections
		{
#pragma omp section
			sec1++;
#pragma omp section
			sec2++;
		}
#pragma omp master // @master
		mastered++;
		for (int i = 0; i < NEST; i++) {
			omp_set_nest_lock(&nest);
			omp_set_nest_lock(&nest);
			nested++;
			omp_unset_nest_lock(&nest);
			omp_unset_nest_lock(&nest);
		}
#pragma omp for ordered schedule(dynamic, 1) // @ordered
		for (int i = 0; i < ORDERED; i++) {
#pragma omp ordered
			ordered++;
		}
#pragma omp single
		{
			for (int i = 0; i < TW_TASKS; i++) {
#pragma omp task // @tw_task
				{
#pragma omp atomic
					tw++;
				}
			}
#pragma omp taskwait // @taskwait
		}
	}
	omp_destroy_nest_lock(&nest);
	printf("misc %d %d %d %d %d %d\n", sec1, sec2, mastered, nested, ordered, tw);

	double waited[2] = {0, 0};
#pragma omp parallel num_threads(2) // @imbalance_region
	{
		int t = omp_get_thread_num();
		busy_ms((t + 1) * IMB_MS);
		double t0 = omp_get_wtime();
#pragma omp barrier // @imbalance_barrier
		waited[t] = omp_get_wtime() - t0;
	}
	printf("barrier_wait_ns %.0f %.0f\n", waited[0] * 1e9, waited[1] * 1e9);
	return 0;
}
