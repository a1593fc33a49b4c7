/* SPDX-License-Identifier: MIT */
/* Collectives that fail move nothing: with MPI_ERRORS_RETURN, an MPI_Bcast
 * of 1024 bytes from a root that does not exist and an MPI_Allreduce of a
 * negative count return errors on every rank; one real 4-byte MPI_Bcast
 * and one 8-byte MPI_Allreduce follow. Each rank prints its successful
 * collectives and their bytes ("expect coll RANK CALLS GIVEN GOT") and
 * its errors ("expect error RANK CALL CLASS"). */
#include "mpitest.h"

static void failed(int rank, const char *call, int rc)
{
	int cls = -1;
	MPI_Error_class(rc, &cls);
	printf("expect error %d %s %d\n", rank, call, cls);
}

int main(int argc, char **argv)
{
	int rank, size, v[256] = {0};
	double x = 1, y;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	int rc = MPI_Bcast(v, 256, MPI_INT, size + 5, MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS)
		failed(rank, "MPI_Bcast", rc);
	rc = MPI_Allreduce(&x, &y, -1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS)
		failed(rank, "MPI_Allreduce", rc);
	MT_CHECK(MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD));
	MT_CHECK(MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	printf("expect coll %d 2 %d %d\n", rank, (rank == 0 ? 4 : 0) + 8, (rank == 0 ? 0 : 4) + 8);
	mt_report(rank);
	MPI_Finalize();
	return 0;
}
