/* SPDX-License-Identifier: MIT */
/* Requests completed long after the calls that started them (2 ranks):
 * rank 0 sends 4 MB with MPI_Isend that rank 1 receives only after a
 * pause (a message that large waits for its receive), and completes it
 * with MPI_Wait; both ranks start an MPI_Iallreduce, pause and complete it
 * with MPI_Waitall, then an MPI_Ibarrier completed by an MPI_Test loop.
 * The trace must say the completions happened in the Wait and Test calls
 * (tests/otf2: MpiIsendComplete, NonBlockingCollectiveComplete there). */
#include "mpitest.h"

#include <time.h>

#define BIG (4 << 20)

static void pause_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		fprintf(stderr, "late_complete: needs 2 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	char *buf = calloc(1, BIG);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		MPI_Request s;
		MT_CHECK(MPI_Isend(buf, BIG, MPI_BYTE, 1, 30, MPI_COMM_WORLD, &s));
		mt_sent(BIG);
		MT_CHECK(MPI_Wait(&s, MPI_STATUS_IGNORE));
	} else {
		pause_ms(100);
		MT_CHECK(MPI_Recv(buf, BIG, MPI_BYTE, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	}
	int x = rank + 1, sum = 0;
	MPI_Request c[1];
	MT_CHECK(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &c[0]));
	pause_ms(20);
	MT_CHECK(MPI_Waitall(1, c, MPI_STATUSES_IGNORE));
	if (sum != 3)
		MPI_Abort(MPI_COMM_WORLD, 4);
	MPI_Request b;
	int done = 0;
	MT_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &b));
	for (;;) {
		MT_CHECK(MPI_Test(&b, &done, MPI_STATUS_IGNORE));
		if (done)
			break;
		pause_ms(1);
	}
	mt_report(rank);
	free(buf);
	MPI_Finalize();
	return 0;
}
