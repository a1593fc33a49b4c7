/* SPDX-License-Identifier: MIT */
/* MPI I/O: every rank opens one file (argv[1]) with MPI_File_open,
 * writes 64 bytes at its own offset with MPI_File_write_at, reads them
 * back with two MPI_File_read_at of 32, and closes it. Each rank prints
 * its calls ("expect ev RANK TYPE VALUE COUNT", Extrae's values under
 * 50000005) and their bytes ("expect call RANK NAME CALLS BYTES"). */
#include "mpitest.h"

#include <string.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2) {
		fprintf(stderr, "mpiio: a file name, please\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	char out[64], in[64];
	memset(out, 'a' + rank, sizeof out);
	MPI_File fh;
	MT_CHECK(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR,
	                       MPI_INFO_NULL, &fh));
	MPI_Offset at = (MPI_Offset)rank * 64;
	MT_CHECK(MPI_File_write_at(fh, at, out, 64, MPI_BYTE, MPI_STATUS_IGNORE));
	MT_CHECK(MPI_File_read_at(fh, at, in, 32, MPI_BYTE, MPI_STATUS_IGNORE));
	MT_CHECK(MPI_File_read_at(fh, at + 32, in + 32, 32, MPI_BYTE, MPI_STATUS_IGNORE));
	MT_CHECK(MPI_File_close(&fh));
	if (memcmp(in, out, sizeof in)) {
		fprintf(stderr, "mpiio: rank %d read back other bytes\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	mt_report(rank);
	printf("expect ev %d 50000005 141 1\nexpect ev %d 50000005 149 1\n"
	       "expect ev %d 50000005 147 2\nexpect ev %d 50000005 142 1\n",
	       rank, rank, rank, rank);
	printf("expect call %d MPI_File_write_at 1 64\nexpect call %d MPI_File_read_at 2 64\n",
	       rank, rank);
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
