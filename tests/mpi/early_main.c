/* SPDX-License-Identifier: MIT */
/* MPI already started by a library's constructor (early.c): a ring of
 * non-blocking and blocking messages and an MPI_Allreduce, counted by the
 * independent counter (mpicount.c) and by the program ("expect sent"). */
#include "mpitest.h"

int early_started(void);

int main(void)
{
	int rank, size;
	if (!early_started())
		return 2;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int sbuf[64] = {0}, rbuf[64];
	for (int i = 0; i < 6; i++) {
		MPI_Request r[2];
		int n = 1 + (i * 5 + rank) % 64;
		MT_CHECK(MPI_Irecv(rbuf, 64, MPI_INT, prev, 10, MPI_COMM_WORLD, &r[0]));
		MT_CHECK(MPI_Isend(sbuf, n, MPI_INT, next, 10, MPI_COMM_WORLD, &r[1]));
		mt_sent(4 * n);
		MT_CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
	}
	for (int i = 0; i < 3; i++) {
		if (rank % 2 == 0) {
			MT_CHECK(MPI_Send(sbuf, 8, MPI_INT, next, 11, MPI_COMM_WORLD));
			MT_CHECK(MPI_Recv(rbuf, 64, MPI_INT, prev, 11, MPI_COMM_WORLD,
			                  MPI_STATUS_IGNORE));
		} else {
			MT_CHECK(MPI_Recv(rbuf, 64, MPI_INT, prev, 11, MPI_COMM_WORLD,
			                  MPI_STATUS_IGNORE));
			MT_CHECK(MPI_Send(sbuf, 8, MPI_INT, next, 11, MPI_COMM_WORLD));
		}
		mt_sent(32);
	}
	int total = 0;
	MT_CHECK(MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	mt_report(rank);
	MPI_Finalize();
	return 0;
}
