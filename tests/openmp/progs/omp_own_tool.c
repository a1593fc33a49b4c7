/* SPDX-License-Identifier: MIT */
/* A program with its own OMPT tool (tests/openmp/check_case.py, case
 * own_tool): libomp gives OMPT to the program's ompt_start_tool, not to
 * libtrace.so's. The program's tool must still be initialised, tracing must
 * say once on stderr that OpenMP is recorded only from the entry points it
 * wraps, and what those show must be recorded: the dynamic loop, its 100
 * iterations in chunks of 5, and the taskloop. Built as a shared object
 * with -DTOOL_LIBRARY, the same tool is the one OMP_TOOL_LIBRARIES names;
 * with -DNO_OWN_TOOL, the program has none. */
#include <omp-tools.h>
#include <omp.h>
#include <stdio.h>

static int inited;

#ifndef NO_OWN_TOOL
static int my_init(ompt_function_lookup_t lookup, int dev, ompt_data_t *data)
{
	(void)lookup;
	(void)dev;
	(void)data;
	inited = 1;
#ifdef TOOL_LIBRARY
	printf("tool library initialised\n");
#endif
	return 1;
}

static void my_fini(ompt_data_t *data)
{
	(void)data;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime)
{
	(void)version;
	(void)runtime;
	static ompt_start_tool_result_t r = {my_init, my_fini, {0}};
	return &r;
}
#endif

#ifndef TOOL_LIBRARY
int main(void)
{
	long sum = 0, loop = 0, tl = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
	{
		sum += 1;
#pragma omp for schedule(dynamic, 5) reduction(+ : loop) // @loop
		for (int i = 0; i < 100; i++)
			loop += i;
#pragma omp single
#pragma omp taskloop num_tasks(4) reduction(+ : tl) // @taskloop
		for (int i = 0; i < 40; i++)
			tl += i;
	}
	printf("sum=%ld loop=%ld taskloop=%ld own tool initialised=%d\n", sum, loop, tl, inited);
	return 0;
}
#endif
