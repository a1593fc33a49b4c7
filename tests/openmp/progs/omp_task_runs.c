/* SPDX-License-Identifier: MIT */
/* Tasks run once each (tests/openmp/check_case.py, case task_runs): 20
 * final tasks, each with an included child task (the child runs inside its
 * parent, which is switched away from and back), and 20 untied tasks that
 * yield: every construct must show created 20, run 20. */
#include <stdio.h>

int main(void)
{
	long sum = 0, yields = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
	{
		for (int i = 0; i < 20; i++) {
#pragma omp task final(1) // @parent
			{
#pragma omp task // @child
				{
#pragma omp atomic
					sum++;
				}
			}
		}
		for (int i = 0; i < 20; i++) {
#pragma omp task untied // @untied
			{
				for (int k = 0; k < 3; k++) {
#pragma omp taskyield
				}
#pragma omp atomic
				yields++;
			}
		}
	}
	printf("sum=%ld yields=%ld\n", sum, yields);
	return 0;
}
