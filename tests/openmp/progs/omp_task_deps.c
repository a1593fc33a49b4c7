/* SPDX-License-Identifier: MIT */
/* Task dependences (tests/openmp/check_case.py, case task_deps): three task
 * constructs with 1, 2 and 2 depend items, 50 tasks each, must show 50, 100
 * and 100 dependences in the profile and 62000010 = 1, 2, 2 in the .prv,
 * whichever runtime; the taskloop is named by its line in this file. */
#include <stdio.h>

int main(void)
{
	int a = 0, b = 0, c = 0;
	long sum = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
	{
		for (int i = 0; i < 50; i++) {
#pragma omp task depend(out : a) // @one
			a++;
#pragma omp task depend(in : a) depend(out : b) // @two
			b += a;
#pragma omp task depend(in : b) depend(inout : c) // @three
			c += b;
		}
#pragma omp taskwait
#pragma omp taskloop num_tasks(8) reduction(+ : sum) // @taskloop
		for (int i = 0; i < 100; i++)
			sum += i;
	}
	printf("%d %d %d %ld\n", a, b, c, sum);
	return 0;
}
