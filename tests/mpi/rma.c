/* SPDX-License-Identifier: MIT */
/* One-sided communication on a window of a communicator whose ranks run
 * backwards (its rank i is world rank size-1-i): MPI_Win_create, a fence,
 * from every rank an MPI_Put of 16 bytes and an MPI_Get of 8 to the next
 * rank of the window and an MPI_Accumulate of 4 ints to its rank 0, a
 * fence, MPI_Win_free. Each rank prints its calls ("expect ev RANK TYPE
 * VALUE COUNT", Extrae's values under 50000004), their bytes ("expect
 * call RANK NAME CALLS BYTES") and the world rank each operation targets
 * ("expect rma RANK CALL TARGET"). */
#include "mpitest.h"

#include <string.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm rev;
	MT_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &rev));
	int r;
	MPI_Comm_rank(rev, &r);
	int mem[16], get[2], acc[4] = {1, 2, 3, 4};
	memset(mem, 0, sizeof mem);
	MPI_Win win;
	MT_CHECK(MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, rev, &win));
	MT_CHECK(MPI_Win_fence(0, win));
	int next = (r + 1) % size;
	MT_CHECK(MPI_Put(acc, 16, MPI_BYTE, next, 0, 16, MPI_BYTE, win));
	MT_CHECK(MPI_Get(get, 8, MPI_BYTE, next, 32, 8, MPI_BYTE, win));
	MT_CHECK(MPI_Accumulate(acc, 4, MPI_INT, 0, 12, 4, MPI_INT, MPI_SUM, win));
	MT_CHECK(MPI_Win_fence(0, win));
	MT_CHECK(MPI_Win_free(&win));
	MT_CHECK(MPI_Comm_free(&rev));

	mt_report(rank);
	printf("expect ev %d 50000004 63 1\nexpect ev %d 50000004 68 2\n"
	       "expect ev %d 50000004 65 1\nexpect ev %d 50000004 66 1\n"
	       "expect ev %d 50000004 67 1\nexpect ev %d 50000004 64 1\n",
	       rank, rank, rank, rank, rank, rank);
	printf("expect call %d MPI_Put 1 16\nexpect call %d MPI_Get 1 8\n"
	       "expect call %d MPI_Accumulate 1 16\n",
	       rank, rank, rank);
	/* the window's rank k is world rank size-1-k */
	printf(
	    "expect rma %d MPI_Put %d\nexpect rma %d MPI_Get %d\nexpect rma %d MPI_Accumulate %d\n",
	    rank, size - 1 - next, rank, size - 1 - next, rank, size - 1);
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
