/* SPDX-License-Identifier: MIT */
/* A parallel region with a task reduction (tests/openmp/check_case.py, case
 * task_reduction): gcc makes it a GOMP_parallel_reductions call, which
 * reads the reductions from the first word of the data it is given. Both
 * regions must be in the profile, the tasks in the first. */
#include <stdio.h>

int main(void)
{
	long sum = 0, other = 0;
#pragma omp parallel num_threads(2) reduction(task, + : sum) // @reduction
	{
#pragma omp single
		for (int i = 0; i < 10; i++) {
#pragma omp task in_reduction(+ : sum) // @task
			sum += i;
		}
	}
#pragma omp parallel num_threads(2) reduction(+ : other) // @plain
	other += 1;
	printf("sum=%ld other=%ld\n", sum, other);
	return 0;
}
