/* SPDX-License-Identifier: MIT */
/* Who made whom wait, on a real run (test_waits_mpi.py; built with the
 * plugin, so that compute is a traced function): rank 1 computes COMPUTE_MS
 * before each of ITER sends that rank 0 is already waiting for (late
 * senders), then rank 0 computes BARRIER_MS before a barrier rank 1 reached
 * at once (wait at barrier). argv: ITER COMPUTE_MS BARRIER_MS. */
#include "mpitest.h"

#include <time.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Busy for ms of wall time: the same length however loaded the machine. */
__attribute__((noinline)) static void compute(double ms)
{
	double end = now_ms() + ms;
	while (now_ms() < end)
		;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, iter = argc > 1 ? atoi(argv[1]) : 10;
	double ms = argc > 2 ? atof(argv[2]) : 4, barrier_ms = argc > 3 ? atof(argv[3]) : 30;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int v = 0, one = 1, all;
	/* the ranks leave MPI_Init far apart on a loaded machine: start
	 * together, so that rank 0's receives wait for rank 1's computing */
	MT_CHECK(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	for (int i = 0; i < iter && rank < 2; i++) {
		if (rank == 1) {
			compute(ms);
			MT_CHECK(MPI_Send(&v, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
			mt_sent(sizeof v);
		} else
			MT_CHECK(
			    MPI_Recv(&v, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	}
	if (rank == 0)
		compute(barrier_ms);
	MT_CHECK(MPI_Barrier(MPI_COMM_WORLD));
	mt_report(rank);
	MPI_Finalize();
	return 0;
}
