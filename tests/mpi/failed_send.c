/* SPDX-License-Identifier: MIT */
/* Sends that fail are not messages: with MPI_ERRORS_RETURN, rank 0's
 * MPI_Send to a rank that does not exist and its MPI_Send of a negative
 * count to rank 1 (same tag as the real one) return errors and send
 * nothing; then one real 4-byte message to rank 1. The trace must hold
 * that one message, matched with rank 1's receive (not the failed send
 * before it), and the two errors ("expect error RANK CALL CLASS"). */
#include "mpitest.h"

static void failed(int rank, const char *call, int rc)
{
	int cls = -1;
	MPI_Error_class(rc, &cls);
	printf("expect error %d %s %d\n", rank, call, cls);
}

int main(int argc, char **argv)
{
	int rank, size, v = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (rank == 0) {
		int rc = MPI_Send(&v, 1, MPI_INT, size + 3, 10, MPI_COMM_WORLD);
		if (rc != MPI_SUCCESS)
			failed(rank, "MPI_Send", rc);
		rc = MPI_Send(&v, -1, MPI_INT, 1, 10, MPI_COMM_WORLD);
		if (rc != MPI_SUCCESS)
			failed(rank, "MPI_Send", rc);
		MT_CHECK(MPI_Send(&v, 1, MPI_INT, 1, 10, MPI_COMM_WORLD));
		mt_sent(4);
	} else if (rank == 1) {
		MT_CHECK(MPI_Recv(&v, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	}
	mt_report(rank);
	MPI_Finalize();
	return 0;
}
