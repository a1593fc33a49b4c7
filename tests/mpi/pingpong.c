/* SPDX-License-Identifier: MIT */
/* Ping-pong between ranks 0 and 1 (others idle): ITER round trips of SIZE
 * bytes out and SIZE/2 back, then one empty message; argv: ITER SIZE
 * [kill], where "kill" makes rank 1 kill itself (SIGKILL) half-way. */
#include "mpitest.h"

#include <signal.h>
#include <string.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int iter = argc > 1 ? atoi(argv[1]) : 10, n = argc > 2 ? atoi(argv[2]) : 64;
	int kill_half = argc > 3 && !strcmp(argv[3], "kill");
	char *buf = calloc(1, (size_t)n + 1);
	for (int i = 0; i < iter && rank < 2; i++) {
		if (kill_half && rank == 1 && i == iter / 2) {
			mt_report(rank);
			raise(SIGKILL);
		}
		if (rank == 0) {
			MT_CHECK(MPI_Send(buf, n, MPI_BYTE, 1, 10, MPI_COMM_WORLD));
			mt_sent(n);
			MT_CHECK(
			    MPI_Recv(buf, n, MPI_BYTE, 1, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		} else {
			MT_CHECK(
			    MPI_Recv(buf, n, MPI_BYTE, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			MT_CHECK(MPI_Send(buf, n / 2, MPI_BYTE, 0, 11, MPI_COMM_WORLD));
			mt_sent(n / 2);
		}
	}
	if (rank == 0) {
		MT_CHECK(MPI_Send(NULL, 0, MPI_BYTE, 1, 12, MPI_COMM_WORLD));
		mt_sent(0);
	} else if (rank == 1) {
		MT_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	}
	mt_report(rank);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	free(buf);
	return 0;
}
