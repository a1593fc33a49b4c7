/* SPDX-License-Identifier: MIT */
/* The analyzer spread over several processes (docs/MPI.md, "The analyzer
 * under MPI"): `mpirun -np M paratrace analyze DIR` runs M analyzers, each
 * with its workers. Every one builds the model and reads the process logs;
 * the thread logs are shared out (each shard to one process, the biggest
 * first to the least loaded); the tools exchange what they found, and the
 * Paraver writer's merge writes its time partitions from every process
 * into one file: byte for byte what one process writes.
 *
 * The paratrace executable does not link libmpi: the MPI implementation of
 * this interface is a plugin (paratrace-mpi.so, analyzer/mpi/) that the CLI
 * loads when it finds it was started by mpirun with more than one process
 * (cli/dist.c). */
#ifndef PT_DIST_H
#define PT_DIST_H

#include <paratrace/tool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct pt_dist pt_dist;
struct pt_dist {
	int rank, size;
	/* Every process's `len` bytes, concatenated in rank order, to every
	 * process: *all (malloc'ed, freed by the caller) and lens[size]. 0,
	 * or -1 (the job cannot go on). */
	int (*allgather)(pt_dist *d, const void *mine, size_t len, void **all, size_t *lens);
	/* Everyone waits for everyone. 0 or -1. */
	int (*barrier)(pt_dist *d);
	/* The end: the MPI library is finished. */
	void (*close)(pt_dist *d);
	void *impl;
};

/* The plugin's entry point (analyzer/mpi/dist_mpi.c): NULL + err when MPI
 * cannot be started. */
#define PT_DIST_ENTRY "pt_dist_mpi_open"
typedef pt_dist *(*pt_dist_open_fn)(int *argc, char ***argv, char *err, size_t errlen);

/* Shard i runs on process owner[i]: the biggest shards first, each to the
 * process with the fewest bytes so far (the lowest rank on ties), the same
 * in every process. owner: nshards entries. */
void pt_dist_assign(const pt_shard_info *shards, size_t nshards, int nprocs, int *owner);

/* ---- a byte buffer for what processes exchange ----------------------- */
typedef struct pt_buf {
	char *d;
	size_t len, cap;
	int oom;
} pt_buf;

static inline void pt_buf_put(pt_buf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t ncap = b->cap ? b->cap : 4096;
		while (ncap < b->len + n)
			ncap *= 2;
		char *d = realloc(b->d, ncap);
		if (!d) {
			b->oom = 1;
			return;
		}
		b->d = d;
		b->cap = ncap;
	}
	if (n)
		memcpy(b->d + b->len, p, n);
	b->len += n;
}
static inline void pt_buf_u64(pt_buf *b, uint64_t v)
{
	pt_buf_put(b, &v, sizeof v);
}
static inline void pt_buf_str(pt_buf *b, const char *s)
{
	uint64_t n = s ? strlen(s) + 1 : 0;
	pt_buf_u64(b, n);
	pt_buf_put(b, s, n);
}

/* An array: its count n, then its n elements of `size` bytes (read back
 * with pt_rbuf_count and its elements). */
static inline void pt_buf_array(pt_buf *b, const void *v, size_t n, size_t size)
{
	pt_buf_u64(b, n);
	pt_buf_put(b, v, n * size);
}
/* A vector's elements (v, n) as such an array. */
#define PT_BUF_VEC(b, vec) pt_buf_array(b, (vec).v, (vec).n, sizeof *(vec).v)

/* Reading it back: every get fails (err set, zeros) past the end. */
typedef struct pt_rbuf {
	const char *p, *end;
	int err;
} pt_rbuf;

static inline int pt_rbuf_get(pt_rbuf *r, void *out, size_t n)
{
	if (r->err || (size_t)(r->end - r->p) < n) {
		r->err = 1;
		memset(out, 0, n);
		return -1;
	}
	memcpy(out, r->p, n);
	r->p += n;
	return 0;
}
static inline uint64_t pt_rbuf_u64(pt_rbuf *r)
{
	uint64_t v;
	pt_rbuf_get(r, &v, sizeof v);
	return v;
}
/* The count of an array put with pt_buf_array, whose elements come next:
 * 0 with err set when fewer bytes are left than that many elements take,
 * so that a damaged count never makes a reader allocate or loop on it. */
static inline size_t pt_rbuf_count(pt_rbuf *r, size_t size)
{
	uint64_t n = pt_rbuf_u64(r);
	if (!r->err && n > (uint64_t)(r->end - r->p) / size)
		r->err = 1;
	return r->err ? 0 : (size_t)n;
}
/* A string put with pt_buf_str, malloc'ed (NULL for NULL or on error). */
static inline char *pt_rbuf_str(pt_rbuf *r)
{
	uint64_t n = pt_rbuf_u64(r);
	if (!n || r->err || (uint64_t)(r->end - r->p) < n || r->p[n - 1]) {
		if (n)
			r->err = 1;
		return NULL;
	}
	char *s = strdup(r->p);
	r->p += n;
	return s;
}

#endif
