/* SPDX-License-Identifier: MIT */
/* The MPI implementation of the analyzer's distribution (pt_dist.h):
 * paratrace-mpi.so, the only part of paratrace linked with libmpi, loaded
 * by the CLI when mpirun started it with more than one process. Only the
 * main thread of each analyzer calls MPI (MPI_THREAD_FUNNELED). */
#define _GNU_SOURCE
#include "pt_dist.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Bytes in pieces MPI's int counts can hold. */
#define CHUNK ((size_t)1 << 30)

static int mpi_allgather(pt_dist *d, const void *mine, size_t len, void **all, size_t *lens)
{
	uint64_t l = len, *ls = malloc((size_t)d->size * sizeof *ls);
	if (!ls)
		return -1;
	if (MPI_Allgather(&l, 1, MPI_UINT64_T, ls, 1, MPI_UINT64_T, MPI_COMM_WORLD) != MPI_SUCCESS) {
		free(ls);
		return -1;
	}
	size_t total = 0;
	for (int p = 0; p < d->size; p++) {
		lens[p] = (size_t)ls[p];
		total += lens[p];
	}
	free(ls);
	char *buf = malloc(total ? total : 1);
	if (!buf)
		return -1;
	/* each process's part from it to all, in pieces */
	size_t off = 0;
	for (int p = 0; p < d->size; p++) {
		if (p == d->rank && lens[p])
			memcpy(buf + off, mine, lens[p]);
		for (size_t done = 0; done < lens[p]; done += CHUNK) {
			size_t n = lens[p] - done < CHUNK ? lens[p] - done : CHUNK;
			if (MPI_Bcast(buf + off + done, (int)n, MPI_BYTE, p, MPI_COMM_WORLD) !=
			    MPI_SUCCESS) {
				free(buf);
				return -1;
			}
		}
		off += lens[p];
	}
	*all = buf;
	return 0;
}

static int mpi_barrier(pt_dist *d)
{
	(void)d;
	return MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

static void mpi_close(pt_dist *d)
{
	MPI_Finalize();
	free(d);
}

__attribute__((visibility("default"))) pt_dist *pt_dist_mpi_open(int *argc, char ***argv,
								 char *err, size_t errlen)
{
	int provided;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI_Init_thread failed");
		return NULL;
	}
	pt_dist *d = calloc(1, sizeof *d);
	if (!d) {
		snprintf(err, errlen, "out of memory");
		MPI_Finalize();
		return NULL;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &d->size);
	d->allgather = mpi_allgather;
	d->barrier = mpi_barrier;
	d->close = mpi_close;
	return d;
}
