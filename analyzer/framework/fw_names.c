/* SPDX-License-Identifier: MIT */
/* The names the model gives. Objects (locks): their data symbols, from
 * the module maps of the process logs (pt_fw_object_name). Threads: each
 * thread's name, from the THREAD_NAME records of the process logs
 * that name a thread by its tid: known before any thread's log is read, so
 * that every output labels a thread the same way, the timelines (which
 * describe a thread before its records) included. A tid the kernel gave
 * again to a later thread of the process names the thread that had it
 * then: the one that started last before the record. */
#define _GNU_SOURCE
#include "fw_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fw_name {
	size_t process;
	uint32_t tid;
	uint64_t ns;
	char *name;
} fw_name;

int fw_threads_note(fw *w, size_t process, const pt_event *ev)
{
	uint32_t tid;
	const char *name = pt_event_thread_name(ev, &tid);
	if (!name || !tid)
		return 0;
	if (w->nnames == w->names_cap) {
		size_t cap = w->names_cap ? 2 * w->names_cap : 16;
		fw_name *v = realloc(w->names, cap * sizeof *v);
		if (!v)
			return -1;
		w->names = v;
		w->names_cap = cap;
	}
	char *copy = strdup(name);
	if (!copy)
		return -1;
	w->names[w->nnames++] = (fw_name){process, tid, ev->time_ns, copy};
	return 0;
}

static const fw *sort_w; /* qsort has no context argument */
static int cmp_thread(const void *a, const void *b)
{
	const pt_shard_info *x = &sort_w->shards[*(const size_t *)a];
	const pt_shard_info *y = &sort_w->shards[*(const size_t *)b];
	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->first_ns < y->first_ns ? -1 : x->first_ns > y->first_ns;
}

/* Of by[0..n) (sorted by cmp_thread), the shard of the process's thread
 * `tid` that had it at `ns`; SIZE_MAX when the process has no log of it. */
static size_t shard_of(const fw *w, const size_t *by, size_t n, const fw_name *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) { /* the first of (process, tid) */
		size_t mid = lo + (hi - lo) / 2;
		const pt_shard_info *s = &w->shards[by[mid]];
		if (s->process < name->process ||
		    (s->process == name->process && s->tid < name->tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t best = SIZE_MAX;
	for (size_t k = lo; k < n; k++) {
		const pt_shard_info *s = &w->shards[by[k]];
		if (s->process != name->process || s->tid != name->tid ||
		    (best != SIZE_MAX && s->first_ns > name->ns))
			break;
		best = by[k];
	}
	return best;
}

void fw_threads_assign(fw *w)
{
	size_t *by = malloc((w->nshards + 1) * sizeof *by), n = 0;
	if (!w->threads || !by) {
		free(by);
		return;
	}
	for (size_t i = 0; i < w->nshards; i++)
		if (w->shards[i].kind == PT_FILE_THREAD)
			by[n++] = i;
	sort_w = w;
	qsort(by, n, sizeof *by, cmp_thread);
	/* records of one process are in time order: the last one wins */
	for (size_t k = 0; k < w->nnames; k++) {
		size_t i = shard_of(w, by, n, &w->names[k]);
		if (i != SIZE_MAX)
			w->threads[i].name = w->names[k].name;
	}
	free(by);
}

void fw_threads_free(fw *w)
{
	for (size_t k = 0; k < w->nnames; k++)
		free(w->names[k].name);
	free(w->names);
	free(w->threads);
	w->names = NULL;
	w->threads = NULL;
	w->nnames = w->names_cap = 0;
}

const pt_fw_thread *pt_fw_thread_facts(const pt_trace_ctx *ctx, size_t shard)
{
	static const pt_fw_thread none;
	const fw *w = ctx->framework;
	return w->threads && shard < w->nshards ? &w->threads[shard] : &none;
}

int pt_fw_object_name(const pt_trace_ctx *ctx, uint32_t pid, uint64_t addr, char *buf, size_t len)
{
	const fw *w = ctx->framework;
	for (size_t i = 0; i < w->nprocs; i++) {
		if (w->procs[i].info.pid != pid || !w->procs[i].symtab)
			continue;
		uint64_t off = 0;
		const char *name = pt_symtab_data(w->procs[i].symtab, addr, &off);
		if (!name)
			continue;
		if (off)
			snprintf(buf, len, "%s+0x%llx", name, (unsigned long long)off);
		else
			snprintf(buf, len, "%s", name);
		return 0;
	}
	return -1;
}
