/* SPDX-License-Identifier: MIT */
/* Collectives on MPI_COMM_WORLD, on halves made by MPI_Comm_split (even
 * and odd ranks) and on a duplicate of MPI_COMM_WORLD. Each rank prints
 * its collective calls and the bytes it gives and gets (docs/MPI.md:
 * what the call reads from its send buffer, writes into its receive
 * buffer), and which half it is in. */
#include "mpitest.h"

static long long calls, sent, recvd;

static void note(long long s, long long r)
{
	calls++;
	sent += s;
	recvd += r;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm half, dup;
	MT_CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
	MT_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	int hr, hs;
	MPI_Comm_rank(half, &hr);
	MPI_Comm_size(half, &hs);
	int ibuf[64] = {0}, ibuf2[64];
	double dbuf[8] = {0}, dbuf2[8];

	MT_CHECK(MPI_Bcast(ibuf, 10, MPI_INT, 0, half));
	note(hr == 0 ? 40 : 0, hr == 0 ? 0 : 40);
	MT_CHECK(MPI_Reduce(dbuf, dbuf2, 5, MPI_DOUBLE, MPI_SUM, hs - 1, half));
	note(40, hr == hs - 1 ? 40 : 0);
	MT_CHECK(MPI_Allreduce(ibuf, ibuf2, 3, MPI_INT, MPI_MAX, half));
	note(12, 12);
	MT_CHECK(MPI_Gather(ibuf, 2, MPI_INT, ibuf2, 2, MPI_INT, 0, half));
	note(8, hr == 0 ? 8 * hs : 0);
	MT_CHECK(MPI_Scatter(ibuf, 2, MPI_INT, ibuf2, 2, MPI_INT, hs - 1, half));
	note(hr == hs - 1 ? 8 * hs : 0, 8);
	MT_CHECK(MPI_Allgather(ibuf, 1, MPI_INT, ibuf2, 1, MPI_INT, half));
	note(4, 4 * hs);
	MT_CHECK(MPI_Alltoall(ibuf, 1, MPI_INT, ibuf2, 1, MPI_INT, half));
	note(4 * hs, 4 * hs);
	MT_CHECK(MPI_Barrier(half));
	note(0, 0);
	MT_CHECK(MPI_Allreduce(ibuf, ibuf2, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	note(16, 16);
	MT_CHECK(MPI_Alltoall(ibuf, 2, MPI_INT, ibuf2, 2, MPI_INT, MPI_COMM_WORLD));
	note(8 * size, 8 * size);
	MT_CHECK(MPI_Bcast(ibuf, 1, MPI_INT, size - 1, dup));
	note(rank == size - 1 ? 4 : 0, rank == size - 1 ? 0 : 4);
	MT_CHECK(MPI_Barrier(MPI_COMM_WORLD));
	note(0, 0);

	printf("expect coll %d %lld %lld %lld\n", rank, calls, sent, recvd);
	printf("expect half %d %d\n", rank, rank % 2);
	fflush(stdout);
	MPI_Comm_free(&half);
	MPI_Comm_free(&dup);
	MPI_Finalize();
	return 0;
}
