/* SPDX-License-Identifier: MIT */
/* Started by mpirun but without MPI (as a program whose MPI library is
 * linked statically looks from outside): the run must say that its ranks
 * made no MPI call that was traced, and that no MPI library was loaded. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	const char *rank = getenv("OMPI_COMM_WORLD_RANK");
	printf("expect untraced %s no_library\n", rank ? rank : "?");
	return 0;
}
