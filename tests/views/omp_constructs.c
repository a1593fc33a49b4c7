/* SPDX-License-Identifier: MIT */
/* The OpenMP constructs the OpenMP view (openmp.cfg) shows: regions, a
 * dynamic loop, a single, a barrier, tasks and a taskwait, a critical
 * section and a lock, on 2 threads. */
#include <omp.h>
#include <stdio.h>

static double work(int i)
{
	double x = 0;
	for (int k = 0; k < 2000 * (i % 4 + 1); k++)
		x += k * 0.5;
	return x;
}

int main(void)
{
	double sum = 0;
	omp_lock_t lock;
	omp_init_lock(&lock);
	for (int rep = 0; rep < 2; rep++) {
#pragma omp parallel num_threads(2)
		{
#pragma omp for schedule(dynamic, 4) reduction(+ : sum)
			for (int i = 0; i < 64; i++)
				sum += work(i);
#pragma omp single
			for (int t = 0; t < 4; t++) {
#pragma omp task
				{
					double v = work(t);
#pragma omp critical
					sum += v;
				}
			}
#pragma omp taskwait
#pragma omp barrier
			omp_set_lock(&lock);
			sum += 1;
			omp_unset_lock(&lock);
		}
	}
	omp_destroy_lock(&lock);
	printf("%.1f\n", sum);
	return 0;
}
