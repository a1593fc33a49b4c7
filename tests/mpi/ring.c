/* SPDX-License-Identifier: MIT */
/* A ring: each rank sends to the next and receives from the previous with
 * MPI_Isend/MPI_Irecv completed by MPI_Waitall (statuses ignored), then
 * with MPI_Sendrecv, then with persistent requests started ITER times
 * (MPI_Startall) and completed by MPI_Test loops and MPI_Waitall. The loops
 * sleep 20 us between tests: with more ranks than cores a spinning rank
 * otherwise makes 200,000 MPI_Test calls under MPICH while its peer waits for
 * a core (giving the core away with sched_yield still left 10,000), and every
 * later step (the trace, its .prv, the checks) pays for them; a few test the
 * same thing. With
 * "coll" after ITER, then collectives on MPI_COMM_WORLD, each rank printing
 * its calls and the bytes it gives and gets ("expect coll", as coll.c). With
 * "local=N", then N calls of MPI_Comm_rank in each rank: a trace of a known
 * size that costs no waiting (the distributed analysis needs one of several
 * megabytes to share out). */
#include "mpitest.h"

#include <string.h>
#include <unistd.h>

static void collectives(int rank, int size)
{
	long long calls = 0, sent = 0, recvd = 0;
	int ibuf[64] = {0}, ibuf2[64];
	double dbuf[8] = {0}, dbuf2[8];
	MT_CHECK(MPI_Allreduce(dbuf, dbuf2, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	calls++, sent += 64, recvd += 64;
	MT_CHECK(MPI_Bcast(ibuf, 16, MPI_INT, 0, MPI_COMM_WORLD));
	calls++, sent += rank == 0 ? 64 : 0, recvd += rank == 0 ? 0 : 64;
	MT_CHECK(MPI_Reduce(ibuf, ibuf2, 3, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD));
	calls++, sent += 12, recvd += rank == size - 1 ? 12 : 0;
	MT_CHECK(MPI_Allgather(ibuf, 2, MPI_INT, ibuf2, 2, MPI_INT, MPI_COMM_WORLD));
	calls++, sent += 8, recvd += 8 * size;
	MT_CHECK(MPI_Barrier(MPI_COMM_WORLD));
	calls++;
	printf("expect coll %d %lld %lld %lld\n", rank, calls, sent, recvd);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int iter = argc > 1 ? atoi(argv[1]) : 5;
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	double sbuf[128] = {0}, rbuf[128];
	for (int i = 0; i < iter; i++) {
		MPI_Request r[2];
		int n = 1 + (i * 7 + rank) % 128;
		MT_CHECK(MPI_Irecv(rbuf, 128, MPI_DOUBLE, prev, 20, MPI_COMM_WORLD, &r[0]));
		MT_CHECK(MPI_Isend(sbuf, n, MPI_DOUBLE, next, 20, MPI_COMM_WORLD, &r[1]));
		mt_sent(n * 8);
		MT_CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
	}
	for (int i = 0; i < iter; i++) {
		MT_CHECK(MPI_Sendrecv(sbuf, 3, MPI_DOUBLE, next, 21, rbuf, 128, MPI_DOUBLE, prev,
		                      21, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		mt_sent(24);
	}
	MPI_Request p[2];
	MT_CHECK(MPI_Recv_init(rbuf, 128, MPI_DOUBLE, prev, 22, MPI_COMM_WORLD, &p[0]));
	MT_CHECK(MPI_Send_init(sbuf, 16, MPI_DOUBLE, next, 22, MPI_COMM_WORLD, &p[1]));
	for (int i = 0; i < iter; i++) {
		MT_CHECK(MPI_Startall(2, p));
		mt_sent(128);
		if (i % 2) {
			int done = 0;
			for (;;) {
				MT_CHECK(MPI_Test(&p[0], &done, MPI_STATUS_IGNORE));
				if (done)
					break;
				usleep(20);
			}
			MT_CHECK(MPI_Wait(&p[1], MPI_STATUS_IGNORE));
		} else {
			MPI_Status st[2];
			MT_CHECK(MPI_Waitall(2, p, st));
		}
	}
	MPI_Request_free(&p[0]);
	MPI_Request_free(&p[1]);
	for (int a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "coll"))
			collectives(rank, size);
		else if (!strncmp(argv[a], "local=", 6))
			for (int i = atoi(argv[a] + 6), r; i > 0; i--)
				MT_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
	}
	mt_report(rank);
	MPI_Finalize();
	return 0;
}
