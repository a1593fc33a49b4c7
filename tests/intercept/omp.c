/* SPDX-License-Identifier: MIT */
/* OpenMP parallel-for (clang -fopenmp, libomp): the runtime's worker pool
 * is created through pthread_create, so its threads appear, linked to the
 * thread that created them, and each worker's share of the loop runs on
 * one of them. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int threads = 0;
	long sum = 0;
#pragma omp parallel for reduction(+ : sum)
	for (long i = 1; i <= n; i++) {
		sum += i;
		if (i == 1)
			threads = omp_get_num_threads();
	}
	if (sum != n * (n + 1) / 2 || threads < 2)
		return 1;
	/* libomp creates threads-1 workers; the initial thread is the main one. */
	printf("expect count THREAD_CREATE >= %d result=0\n", threads - 1);
	printf("expect linked-threads >= %d\n", threads - 1);
	printf("expect count THREAD_START >= %d\n", threads);
	printf("expect status 0\n");
	return 0;
}
