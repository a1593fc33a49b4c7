/* SPDX-License-Identifier: MIT */
/* A call of each MPI family, for the MPI view (mpi.cfg): point-to-point
 * (blocking and immediate), collectives, "other" (init, rank, finalize),
 * one-sided (a window, a put between fences) and MPI I/O (one file written
 * by every rank at its offset). argv[1]: the file (removed at the end). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int buf[64] = {0}, got[64];
	int peer = rank ^ 1;
	if (peer < size) {
		if (rank == 0) {
			MPI_Send(buf, 64, MPI_INT, peer, 1, MPI_COMM_WORLD);
			MPI_Recv(got, 64, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(got, 64, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, 64, MPI_INT, peer, 2, MPI_COMM_WORLD);
		}
		MPI_Request r[2];
		MPI_Irecv(got, 64, MPI_INT, peer, 3, MPI_COMM_WORLD, &r[0]);
		MPI_Isend(buf, 64, MPI_INT, peer, 3, MPI_COMM_WORLD, &r[1]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	}
	int sum = 0;
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Bcast(buf, 64, MPI_INT, 0, MPI_COMM_WORLD);

	int *win_mem;
	MPI_Win win;
	MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win);
	MPI_Win_fence(0, win);
	MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);

	if (argc > 1) {
		MPI_File f;
		if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY,
		                  MPI_INFO_NULL, &f) == MPI_SUCCESS) {
			MPI_File_write_at(f, (MPI_Offset)rank * sizeof buf, buf, 64, MPI_INT,
			                  MPI_STATUS_IGNORE);
			MPI_File_close(&f);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0)
			MPI_File_delete(argv[1], MPI_INFO_NULL);
	}
	if (rank == 0)
		printf("sum %d\n", sum);
	MPI_Finalize();
	return 0;
}
