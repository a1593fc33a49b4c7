/* SPDX-License-Identifier: MIT */
/* What the MPI test programs share: each rank counts what it sends and
 * prints "expect <what> <rank> <values...>" lines that check_mpi.py sums
 * and compares with the trace. Every tag a test uses is >= 10, so that
 * MPI messages are told apart from the trace's thread-creation links. */
#ifndef MPITEST_H
#define MPITEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long long mt_msgs, mt_bytes;

/* A message this rank sends (counted once, by its sender). */
static inline void mt_sent(long long bytes)
{
	mt_msgs++;
	mt_bytes += bytes;
}

static inline void mt_report(int rank)
{
	printf("expect sent %d %lld %lld\n", rank, mt_msgs, mt_bytes);
	fflush(stdout);
}

#define MT_CHECK(call)                                                                             \
	do {                                                                                       \
		if ((call) != MPI_SUCCESS) {                                                       \
			fprintf(stderr, "%s failed\n", #call);                                     \
			MPI_Abort(MPI_COMM_WORLD, 3);                                              \
		}                                                                                  \
	} while (0)

#endif
