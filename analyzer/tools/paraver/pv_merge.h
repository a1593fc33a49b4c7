/* SPDX-License-Identifier: MIT */
/* Private to the Paraver merge (pv_merge.c merges; pv_partition.c finds
 * where each partition starts in each run). */
#ifndef PT_PV_MERGE_H
#define PT_PV_MERGE_H

#include "pt_workers.h"
#include "pv_codec.h"

#include <pthread.h>

/* Where a partition starts in a stream: offset, text bytes before it and
 * the key before it. */
typedef struct cut {
	uint64_t off, text, prev;
} cut;

/* A partition q after a run's first that holds records of the run, and
 * where they start: the run also starts there in every partition since the
 * one before (none of them holds a record of it). */
typedef struct cut_ent {
	uint32_t q;
	cut c;
} cut_ent;

/* Run s's first record is in partition p_lo[s]: it starts in every
 * partition up to that one (cut 0). Then ents[s] lists the partitions
 * that hold more of its records, ascending; past the last it has ended.
 * So a short thread's runs need no entry or one (a row's "Not created"
 * state begins at 0, its other states where the thread lived), whatever
 * the number of partitions (cut_at). The runs with records in partition p
 * are in[in_first[p] .. in_first[p + 1]), in run order (which breaks ties
 * between equal keys). */
#define PART_RUNS 1000
typedef struct merge {
	const pv_run *runs;
	size_t n;
	size_t nparts;
	uint64_t *bounds; /* nparts + 1: [0] = 0, [nparts] = max */
	uint32_t *p_lo;
	cut_ent **ents;
	uint32_t *nents;
	size_t *in_first;
	uint32_t *in;
	uint64_t most;     /* records of the longest run */
	uint64_t max_key;  /* of all runs */
	size_t next_cut;   /* atomic: next stream for find_cuts */
	size_t cut_failed; /* a stream whose cuts could not be found */
	int cut_errno;     /* its errno; 0: none failed (set under lock) */
	uint64_t *out_off; /* per partition, in the output */
	int fd;
	int gz;
	size_t next; /* atomic */
	/* gz: partitions are written in order by whoever completes the next one */
	pthread_mutex_t lock;
	size_t next_write;
	uint64_t write_off;
	char **gzbuf;
	size_t *gzlen;
	pv_gz_members *members; /* several processes: members go there, in any order */
	int error;        /* errno */
	uint64_t written; /* atomic: text bytes merged, for progress */
	int *fds;         /* per stream, shared by the workers (pread); -1: open per refill */
	pt_workers_done done;
	/* several analyzer processes: this one merges partitions p with
	 * p % sel_n == sel_k (pv_merge_part) */
	unsigned sel_k, sel_n;
} merge;

/* Where partition p starts in stream s. */
static inline cut cut_at(const merge *m, size_t p, size_t s)
{
	const pv_run *st = &m->runs[s];
	if (p <= m->p_lo[s])
		return (cut){0, 0, 0};
	const cut_ent *e = m->ents[s];
	size_t lo = 0, hi = m->nents[s]; /* the first entry with q >= p */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (e[mid].q < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->nents[s])
		return e[lo].c;
	return (cut){st->off, st->text, st->last_key};
}

/* pv_partition.c: 0, or -1 (ENOMEM) */
int place_runs(merge *m);
/* 0, or -1 with m->cut_failed and m->cut_errno set. */
int find_cuts(merge *m, unsigned nworkers);
int list_partition_runs(merge *m);
int text_before(const merge *m, uint64_t *t);

#endif
