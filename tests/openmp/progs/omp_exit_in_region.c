/* SPDX-License-Identifier: MIT */
/* A program that exits from inside a parallel region (tests/openmp/
 * check_case.py, case exit_region): the region it was in still counts, one
 * execution open at the end, as open function frames do. Exit status 7. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
#pragma omp parallel num_threads(2) // @region
	{
		if (omp_get_thread_num() == 1) {
			printf("exiting from region\n");
			fflush(stdout);
			exit(7);
		}
		sleep(2);
	}
	return 0;
}
