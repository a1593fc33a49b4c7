/* SPDX-License-Identifier: MIT */
/* Rank 0 receives K messages from every other rank without naming the
 * source or the tag: MPI_Recv(ANY_SOURCE, ANY_TAG), MPI_Irecv + MPI_Waitany,
 * MPI_Probe + MPI_Recv, MPI_Irecv + MPI_Waitsome. Rank r sends message i
 * with tag 10 + r * 100 + i and r + i bytes. */
#include "mpitest.h"

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int k = argc > 1 ? atoi(argv[1]) : 8;
	char buf[4096] = {0};
	if (rank) {
		for (int i = 0; i < k; i++) {
			MT_CHECK(MPI_Send(buf, rank + i, MPI_BYTE, 0, 10 + rank * 100 + i,
			                  MPI_COMM_WORLD));
			mt_sent(rank + i);
		}
	} else {
		int total = k * (size - 1), got = 0;
		while (got < total) {
			MPI_Status st;
			switch (got % 4) {
			case 0:
				MT_CHECK(MPI_Recv(buf, sizeof buf, MPI_BYTE, MPI_ANY_SOURCE,
				                  MPI_ANY_TAG, MPI_COMM_WORLD, &st));
				got++;
				break;
			case 1: {
				MPI_Request r;
				int idx;
				MT_CHECK(MPI_Irecv(buf, sizeof buf, MPI_BYTE, MPI_ANY_SOURCE,
				                   MPI_ANY_TAG, MPI_COMM_WORLD, &r));
				MT_CHECK(MPI_Waitany(1, &r, &idx, MPI_STATUS_IGNORE));
				got++;
				break;
			}
			case 2:
				MT_CHECK(
				    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
				MT_CHECK(MPI_Recv(buf, sizeof buf, MPI_BYTE, st.MPI_SOURCE,
				                  st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
				got++;
				break;
			default: {
				MPI_Request r;
				int out, idx;
				MT_CHECK(MPI_Irecv(buf, sizeof buf, MPI_BYTE, MPI_ANY_SOURCE,
				                   MPI_ANY_TAG, MPI_COMM_WORLD, &r));
				MT_CHECK(MPI_Waitsome(1, &r, &out, &idx, MPI_STATUSES_IGNORE));
				got += out;
				break;
			}
			}
		}
	}
	mt_report(rank);
	MPI_Finalize();
	return 0;
}
