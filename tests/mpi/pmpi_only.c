/* SPDX-License-Identifier: MIT */
/* MPI that never reaches the tracer's MPI functions, as with an MPI library
 * linked statically: every call is made through the PMPI_* entry points
 * (a ring and a reduction). The run must say that no MPI call was traced
 * and why: rank 0's runtime once at the end, the analysis for every rank. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, v = 0, sum = 0;
	PMPI_Init(&argc, &argv);
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &size);
	PMPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 10, &v, 1, MPI_INT,
	              (rank + size - 1) % size, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	PMPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	printf("expect untraced %d bypassed\n", rank);
	PMPI_Finalize();
	return 0;
}
