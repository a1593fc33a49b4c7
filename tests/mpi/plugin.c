/* SPDX-License-Identifier: MIT */
/* Built with the Clang plugin: the program's functions and its MPI calls
 * on one timeline (a halo exchange between neighbours, each step in a
 * function of its own). */
#include "mpitest.h"

static int rank, size;

__attribute__((noinline)) static void exchange(double *halo, int n)
{
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	MT_CHECK(MPI_Sendrecv(halo, n, MPI_DOUBLE, next, 40, halo + n, n, MPI_DOUBLE, prev, 40,
	                      MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	mt_sent(8 * n);
}

__attribute__((noinline)) static double compute(double *v, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += v[i] * 0.5;
	return s;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	double v[64] = {0}, sum = 0;
	for (int step = 0; step < 5; step++) {
		sum += compute(v, 64);
		exchange(v, 16);
	}
	double all;
	MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	mt_report(rank);
	MPI_Finalize();
	return 0;
}
