/* SPDX-License-Identifier: MIT */
/* Cost of tracing MPI calls (bench/mpi/run.sh runs it untraced and under
 * libtrace.so). Rank 0 times BLOCKS blocks of ITER operations and prints
 * each block's nanoseconds per operation, one line each: wall time, then
 * the CPU time of its process (all its threads, the tracer's helper's
 * too), which other work on the machine inflates far less. Modes:
 *   pingpong   0-byte MPI_Send/MPI_Recv round trip between ranks 0 and 1
 *              (the others wait in the final barrier)
 *   self       0-byte MPI_Send to itself and its MPI_Recv, on every rank:
 *              a real message with no other process in its path
 *   iself      the same message non-blocking: MPI_Irecv, MPI_Isend and
 *              MPI_Waitall of the two (the request bookkeeping's cost)
 *   allreduce  MPI_Allreduce of one double over MPI_COMM_WORLD
 *   barrier    MPI_Barrier of MPI_COMM_WORLD
 *   rank       MPI_Comm_rank: a call that does no communication, so what
 *              tracing adds is the wrapper alone
 * usage: mpi_bench MODE ITER BLOCKS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 4) {
		if (!rank)
			fprintf(stderr, "usage: %s pingpong|self|iself|allreduce|barrier|rank ITER BLOCKS\n",
			        argv[0]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	const char *mode = argv[1];
	long iter = atol(argv[2]), blocks = atol(argv[3]);
	double x = rank, y;
	int r;
	for (long b = 0; b <= blocks; b++) { /* block 0 warms up, not printed */
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
		if (!strcmp(mode, "pingpong")) {
			for (long i = 0; i < iter && rank < 2 && size > 1; i++) {
				if (rank == 0) {
					MPI_Send(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
					MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD,
					         MPI_STATUS_IGNORE);
				} else {
					MPI_Recv(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
					         MPI_STATUS_IGNORE);
					MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
				}
			}
		} else if (!strcmp(mode, "self")) {
			for (long i = 0; i < iter; i++) {
				MPI_Send(NULL, 0, MPI_BYTE, rank, 2, MPI_COMM_WORLD);
				MPI_Recv(NULL, 0, MPI_BYTE, rank, 2, MPI_COMM_WORLD,
				         MPI_STATUS_IGNORE);
			}
		} else if (!strcmp(mode, "iself")) {
			for (long i = 0; i < iter; i++) {
				MPI_Request q[2];
				MPI_Irecv(NULL, 0, MPI_BYTE, rank, 3, MPI_COMM_WORLD, &q[0]);
				MPI_Isend(NULL, 0, MPI_BYTE, rank, 3, MPI_COMM_WORLD, &q[1]);
				MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
			}
		} else if (!strcmp(mode, "allreduce")) {
			for (long i = 0; i < iter; i++)
				MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		} else if (!strcmp(mode, "barrier")) {
			for (long i = 0; i < iter; i++)
				MPI_Barrier(MPI_COMM_WORLD);
		} else {
			for (long i = 0; i < iter; i++)
				MPI_Comm_rank(MPI_COMM_WORLD, &r);
		}
		double c = now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0, t = now_ns(CLOCK_MONOTONIC) - t0;
		if (rank == 0 && b > 0)
			printf("%.1f %.1f\n", t / (double)iter, c / (double)iter);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
