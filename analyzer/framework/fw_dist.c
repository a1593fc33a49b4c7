/* SPDX-License-Identifier: MIT */
/* The framework's part of the analyzer under MPI (pt_dist.h): which
 * shards this process runs, and what the processes tell each other once
 * their shards are done. Every step is collective: a process that failed
 * still takes part, so that every process stops with the same error. */
#define _GNU_SOURCE
#include "fw_internal.h"

#include <stdlib.h>
#include <string.h>

void pt_dist_assign(const pt_shard_info *shards, size_t nshards, int nprocs, int *owner)
{
	size_t *order = malloc((nshards + 1) * sizeof *order);
	uint64_t *load = calloc((size_t)nprocs + 1, sizeof *load);
	if (!order || !load) { /* fall back to a fixed round robin */
		for (size_t i = 0; i < nshards; i++)
			owner[i] = (int)(i % (size_t)nprocs);
		free(order);
		free(load);
		return;
	}
	for (size_t i = 0; i < nshards; i++)
		order[i] = i;
	/* biggest first (insertion sort: shards are thousands at most here
	 * when it matters, and the order must not depend on qsort's) */
	for (size_t i = 1; i < nshards; i++) {
		size_t x = order[i], j = i;
		while (j > 0 && (shards[order[j - 1]].bytes < shards[x].bytes ||
				 (shards[order[j - 1]].bytes == shards[x].bytes && order[j - 1] > x))) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = x;
	}
	for (size_t k = 0; k < nshards; k++) {
		int best = 0;
		for (int p = 1; p < nprocs; p++)
			if (load[p] < load[best])
				best = p;
		owner[order[k]] = best;
		load[best] += shards[order[k]].bytes + 4096; /* a file costs even when small */
	}
	free(order);
	free(load);
}

void fw_dist_select(fw *w)
{
	const pt_dist *d = w->o->dist;
	if (!d || d->size <= 1)
		return;
	int *owner = malloc((w->nshards + 1) * sizeof *owner);
	if (!owner) {
		fw_failf(w, "out of memory");
		w->nrun = 0;
		return;
	}
	pt_dist_assign(w->shards, w->nshards, d->size, owner);
	size_t k = 0;
	for (size_t i = 0; i < w->nshards; i++)
		if (owner[w->order[i]] == d->rank)
			w->order[k++] = w->order[i];
	w->nrun = k;
	free(owner);
}

/* What a process says after its shards: failed, function ids made while
 * shards ran (code addresses named on demand: their numbering would differ
 * between processes), events, damaged logs, logs read and logs not closed,
 * then each shard's last time. */
int fw_dist_after_shards(fw *w, int failed)
{
	pt_dist *d = w->o->dist;
	pt_buf b = {0};
	pt_buf_u64(&b, (uint64_t)failed);
	pt_buf_str(&b, failed && w->error ? w->error : "");
	pt_buf_u64(&b, fw_func_count(w) != w->static_funcs);
	pt_buf_u64(&b, w->events);
	pt_buf_u64(&b, w->data_errors - w->errors_shared);
	pt_buf_u64(&b, w->logs - w->logs_shared);
	pt_buf_u64(&b, w->unclosed - w->unclosed_shared);
	pt_buf_u64(&b, w->nrun);
	for (size_t i = 0; i < w->nrun && w->last_ns; i++) {
		pt_buf_u64(&b, w->order[i]);
		pt_buf_u64(&b, w->last_ns[w->order[i]]);
	}
	void *all = NULL;
	size_t *lens = calloc((size_t)d->size, sizeof *lens);
	if (b.oom || !lens || d->allgather(d, b.d, b.len, &all, lens)) {
		free(b.d);
		free(lens);
		free(all);
		fw_failf(w, "the analyzer processes could not exchange their results");
		return -1;
	}
	free(b.d);
	/* the scan's and pre-pass's damage counts are the same in every
	 * process: counted once, the shards' ones from each */
	uint64_t events = 0, errors = w->errors_shared;
	uint64_t logs = w->logs_shared, unclosed = w->unclosed_shared;
	int any_failed = 0, addresses = 0;
	const char *off = all;
	for (int p = 0; p < d->size; p++) {
		pt_rbuf r = {off, off + lens[p], 0};
		off += lens[p];
		int f = (int)pt_rbuf_u64(&r);
		char *msg = pt_rbuf_str(&r);
		addresses |= (int)pt_rbuf_u64(&r);
		events += pt_rbuf_u64(&r);
		errors += pt_rbuf_u64(&r);
		logs += pt_rbuf_u64(&r);
		unclosed += pt_rbuf_u64(&r);
		uint64_t n = pt_rbuf_u64(&r);
		for (uint64_t i = 0; i < n && !r.err; i++) {
			uint64_t s = pt_rbuf_u64(&r), last = pt_rbuf_u64(&r);
			if (s < w->nshards && w->last_ns)
				w->last_ns[s] = last;
		}
		if ((f || r.err) && !any_failed) {
			any_failed = 1;
			pthread_mutex_lock(&w->lock);
			free(w->error);
			w->error = NULL;
			if (asprintf(&w->error, "analyzer process %d: %s", p,
				     msg && *msg ? msg : "failed") < 0)
				w->error = NULL;
			pthread_mutex_unlock(&w->lock);
		}
		free(msg);
	}
	free(all);
	free(lens);
	w->events = events;
	w->data_errors = (unsigned)errors;
	w->logs = (unsigned)logs;
	w->unclosed = (unsigned)unclosed;
	if (any_failed)
		return -1;
	if (addresses) {
		fw_failf(w, "this trace names functions by code address (a -finstrument-functions "
			    "build, samples, call stacks): their numbering would differ between "
			    "analyzer processes; analyze it with one process");
		return -1;
	}
	return 0;
}
