/* SPDX-License-Identifier: MIT */
/* A library that starts MPI from its constructor (libmpi_cxx's
 * constructors call MPI, and programs that hide MPI behind a library do
 * likewise): linked into early_main, it runs before libtrace.so's
 * constructor, so the first MPI calls reach the tracer before it started. */
#include <mpi.h>

static int started;

__attribute__((constructor)) static void early_init(void)
{
	int flag = 0;
	MPI_Initialized(&flag);
	if (!flag)
		started = MPI_Init(NULL, NULL) == MPI_SUCCESS;
}

/* Whether the constructor started MPI (and a reason to link this). */
int early_started(void)
{
	return started;
}
