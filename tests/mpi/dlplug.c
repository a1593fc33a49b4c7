/* SPDX-License-Identifier: MIT */
/* The MPI part of dlhost: started by MPI_Init_thread, a ring of
 * non-blocking messages, MPI_Sendrecv and an MPI_Allreduce; each rank says
 * what it sent ("expect sent", "expect pair"). argv[1]: iterations. */
#include "mpitest.h"

int dlplug_run(int argc, char **argv)
{
	int provided, rank, size;
	if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
		return 3;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int iter = argc > 1 ? atoi(argv[1]) : 5;
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	double sbuf[32] = {0}, rbuf[32];
	for (int i = 0; i < iter; i++) {
		MPI_Request r[2];
		int n = 1 + (i * 3 + rank) % 32;
		MT_CHECK(MPI_Irecv(rbuf, 32, MPI_DOUBLE, prev, 10, MPI_COMM_WORLD, &r[0]));
		MT_CHECK(MPI_Isend(sbuf, n, MPI_DOUBLE, next, 10, MPI_COMM_WORLD, &r[1]));
		mt_sent(8 * n);
		MT_CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
		MT_CHECK(MPI_Sendrecv(sbuf, 2, MPI_DOUBLE, next, 11, rbuf, 32, MPI_DOUBLE, prev, 11,
		                      MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		mt_sent(16);
	}
	double x = rank, y;
	MT_CHECK(MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	if (size > 1)
		printf("expect pair %d %d %lld %lld\n", rank, next, mt_msgs, mt_bytes);
	mt_report(rank);
	return MPI_Finalize();
}
