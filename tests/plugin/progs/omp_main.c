/* SPDX-License-Identifier: MIT */
/* OpenMP constructs whose outlined bodies instrument.so must instrument and
 * name "<function> [omp <construct> at omp_main.c:<line>]". Each pragma
 * line carries a marker comment ("@name") that tests/plugin/omp.py turns
 * into the line it expects in the name. Every body calls its own leaf
 * function, so the test also checks that the leaf's calls are nested in
 * the body's frame. Counts come from the arguments:
 *   omp_main NREG ITERS NTASKS NINNER NLOOPTASKS   (run with OMP_NUM_THREADS) */
#include <stdio.h>
#include <stdlib.h>

#include "leaf.h"

LEAF(par_leaf)
LEAF(for_leaf)
LEAF(task_leaf)
LEAF(inner_leaf)
LEAF(taskloop_leaf)
LEAF(section_a)
LEAF(section_b)
LEAF(serial_leaf)
LEAF(nested_leaf)
LEAF(undeferred_leaf)

__attribute__((noinline)) int target_leaf(int i)
{
	__atomic_fetch_add(&sink, i, __ATOMIC_RELAXED);
	return i + 1;
}

__attribute__((noinline)) void regions(int n)
{
	for (int r = 0; r < n; r++) {
#pragma omp parallel // @regions
		par_leaf(r);
	}
}

__attribute__((noinline)) long loop(int iters)
{
	long sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum) // @loop
	for (int i = 0; i < iters; i++) {
		for_leaf(i);
		sum += i;
	}
	return sum;
}

__attribute__((noinline)) void tasks(int ntasks, int ninner)
{
#pragma omp parallel // @tasks
#pragma omp single
	for (int t = 0; t < ntasks; t++) {
#pragma omp task firstprivate(t) // @outer
		{
			task_leaf(t);
			for (int k = 0; k < ninner; k++) {
#pragma omp task firstprivate(k) // @inner
				inner_leaf(k);
			}
#pragma omp taskwait
		}
	}
}

__attribute__((noinline)) void taskloops(int iters, int ntasks)
{
#pragma omp parallel // @taskloop_team
#pragma omp single
	{
#pragma omp taskloop num_tasks(ntasks) // @taskloop
		for (int i = 0; i < iters; i++)
			taskloop_leaf(i);
	}
}

__attribute__((noinline)) void sections(void)
{
#pragma omp parallel sections // @sections
	{
#pragma omp section
		section_a(1);
#pragma omp section
		section_b(2);
	}
}

/* `if` false at run time: the region runs serialised on the calling thread,
 * through a direct call of its body. */
__attribute__((noinline)) void serial(int n)
{
#pragma omp parallel if (n > 1000) // @serial
	serial_leaf(n);
}

/* The inner region is inactive (one active level): each thread of the
 * outer team runs it alone, once. */
__attribute__((noinline)) void nested(void)
{
#pragma omp parallel // @outerpar
	{
#pragma omp parallel // @innerpar
		nested_leaf(1);
	}
}

/* No offload device: the region runs on the host, called directly. */
__attribute__((noinline)) int offload(int x)
{
#pragma omp target map(tofrom : x) // @target
	x = target_leaf(x);
	return x;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: omp_main NREG ITERS NTASKS NINNER NLOOPTASKS\n");
		return 2;
	}
	int nreg = atoi(argv[1]), iters = atoi(argv[2]), ntasks = atoi(argv[3]);
	int ninner = atoi(argv[4]), nlooptasks = atoi(argv[5]);
	regions(nreg);
	long sum = loop(iters);
	tasks(ntasks, ninner);
	taskloops(iters, nlooptasks);
	sections();
	serial(argc);
	nested();
	int x = offload(argc);
	/* An undeferred task: run at once by the encountering thread. */
#pragma omp task if (0) // @undeferred
	undeferred_leaf(argc);
	printf("sum %ld x %d sink %d\n", sum, x, sink);
	return 0;
}
