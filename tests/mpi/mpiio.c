/* SPDX-License-Identifier: MIT */
/* MPI I/O: every rank opens one file (argv[1]) with MPI_File_open,
 * writes 64 bytes at its own offset with MPI_File_write_at and 64 more
 * after them with MPI_File_iwrite_at, reads the first back with two
 * MPI_File_read_at of 32 and MPI_File_read_at_all, the second with
 * MPI_File_iread_at_all, and closes it. Each rank prints its calls
 * ("expect ev RANK TYPE VALUE COUNT", Extrae's values under 50000005,
 * paratrace's own for the MPI-3.1 calls), their bytes ("expect call RANK
 * NAME CALLS BYTES") and what the report's MPI I/O table must say of it
 * ("expect io RANK CALLS READ WRITTEN"). */
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
	char out[128], in[128];
	memset(out, 'a' + rank, sizeof out);
	MPI_File fh;
	MT_CHECK(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR,
	                       MPI_INFO_NULL, &fh));
	MPI_Offset at = (MPI_Offset)rank * 128;
	MPI_Request rq;
	MT_CHECK(MPI_File_write_at(fh, at, out, 64, MPI_BYTE, MPI_STATUS_IGNORE));
	MT_CHECK(MPI_File_iwrite_at(fh, at + 64, out + 64, 16, MPI_INT, &rq));
	MT_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	MT_CHECK(MPI_File_read_at(fh, at, in, 32, MPI_BYTE, MPI_STATUS_IGNORE));
	MT_CHECK(MPI_File_read_at(fh, at + 32, in + 32, 32, MPI_BYTE, MPI_STATUS_IGNORE));
	MT_CHECK(MPI_File_read_at_all(fh, at, in, 64, MPI_BYTE, MPI_STATUS_IGNORE));
	MT_CHECK(MPI_File_iread_at_all(fh, at + 64, in + 64, 8, MPI_DOUBLE, &rq));
	MT_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	MT_CHECK(MPI_File_close(&fh));
	if (memcmp(in, out, sizeof in)) {
		fprintf(stderr, "mpiio: rank %d read back other bytes\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	mt_report(rank);
	printf("expect ev %d 50000005 141 1\nexpect ev %d 50000005 149 1\n"
	       "expect ev %d 50000005 147 2\nexpect ev %d 50000005 142 1\n"
	       "expect ev %d 50000005 226 1\nexpect ev %d 50000005 148 1\n"
	       "expect ev %d 50000005 247 1\n",
	       rank, rank, rank, rank, rank, rank, rank);
	printf("expect call %d MPI_File_write_at 1 64\nexpect call %d MPI_File_read_at 2 64\n"
	       "expect call %d MPI_File_iwrite_at 1 64\nexpect call %d MPI_File_read_at_all 1 64\n"
	       "expect call %d MPI_File_iread_at_all 1 64\n",
	       rank, rank, rank, rank, rank);
	printf("expect io %d 6 192 128\n", rank);
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
