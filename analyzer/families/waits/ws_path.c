/* SPDX-License-Identifier: MIT */
/* The critical path of the run (waits.h): from the end of the main thread
 * that ended last, back in time. Where the thread waited for another (a wait
 * instance with a cause), the path goes over to the cause at the time it
 * let the waiter go (the send began, the last rank reached the
 * collective, the lock was released, the condition signalled, the joined
 * thread ended); at the start of a created thread, to its creator at the
 * creation (the time until the new thread's first record is the
 * creator's); at device work that a launch started, to the launching
 * thread at the launch (ws_gpu.c). Every stretch of the path is charged to what its thread was
 * doing (its segments: function or MPI call), on its rank. Nothing on the
 * path could have been shorter without the run being shorter. */
#define _GNU_SOURCE
#include "pt_fw_util.h"
#include "waits.h"

#include <stdlib.h>
#include <string.h>

/* The path's time by (name, rank): a few names, many stretches. */
typedef struct cp_vec {
	WS_VEC(ws_cp) v;
	uint32_t *slot; /* index + 1, 0 empty */
	size_t nslot;
} cp_vec;

static size_t cp_hash(uint32_t name, int32_t rank, size_t nslot)
{
	return (size_t)pt_mix64((uint64_t)name << 32 | (uint32_t)rank) & (nslot - 1);
}

static int cp_add(cp_vec *c, uint32_t name, int32_t rank, uint64_t ns)
{
	if ((c->v.n + 1) * 2 > c->nslot) {
		size_t n = c->nslot ? 2 * c->nslot : 64;
		uint32_t *slot = calloc(n, sizeof *slot);
		if (!slot)
			return -1;
		for (size_t i = 0; i < c->v.n; i++) {
			size_t j = cp_hash(c->v.v[i].name, c->v.v[i].rank, n);
			while (slot[j])
				j = (j + 1) & (n - 1);
			slot[j] = (uint32_t)i + 1;
		}
		free(c->slot);
		c->slot = slot;
		c->nslot = n;
	}
	size_t j = cp_hash(name, rank, c->nslot);
	for (; c->slot[j]; j = (j + 1) & (c->nslot - 1)) {
		ws_cp *x = &c->v.v[c->slot[j] - 1];
		if (x->name == name && x->rank == rank) {
			x->ns += ns;
			return 0;
		}
	}
	if (WS_PUSH(c->v, ((ws_cp){name, rank, ns, NULL})))
		return -1;
	c->slot[j] = (uint32_t)c->v.n;
	return 0;
}

/* [a, b) of shard sh into v, by name, and into the path's stretches. */
static int charge_span(const ws_set *s, uint32_t sh, uint64_t a, uint64_t b, cp_vec *v,
                       ws_result *r)
{
	const ws_thread *t = &s->th[sh];
	if (b <= a)
		return 0;
	if (r->spans.n && r->spans.v[r->spans.n - 1].shard == sh &&
	    r->spans.v[r->spans.n - 1].a == b)
		r->spans.v[r->spans.n - 1].a = a;
	else if (WS_PUSH(r->spans, ((ws_span){a, b, sh, 0})))
		return -1;
	size_t lo = ws_seg_at(t, a);
	if (!t->segs.n || t->segs.v[0].t > a) {
		uint64_t to = t->segs.n && t->segs.v[0].t < b ? t->segs.v[0].t : b;
		if (cp_add(v, WS_NAME_NONE, t->rank, to - a))
			return -1;
	}
	for (size_t i = lo; i < t->segs.n && t->segs.v[i].t < b; i++) {
		uint64_t from = t->segs.v[i].t > a ? t->segs.v[i].t : a;
		uint64_t to = i + 1 < t->segs.n && t->segs.v[i + 1].t < b ? t->segs.v[i + 1].t : b;
		if (to > from && cp_add(v, t->segs.v[i].name, t->rank, to - from))
			return -1;
	}
	return 0;
}

static int cmp_jump(const void *a, const void *b)
{
	const ws_inst *x = *(const ws_inst *const *)a, *y = *(const ws_inst *const *)b;
	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static int cmp_cp(const void *a, const void *b)
{
	const ws_cp *x = a, *y = b;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int cmp_cp_ns(const void *a, const void *b)
{
	const ws_cp *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	int c = strcmp(x->name_str, y->name_str);
	if (c)
		return c;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return cmp_cp(a, b);
}

/* The latest jump of shard sh ending at or before t (NULL: none). */
static const ws_inst *jump_before(const ws_inst **j, size_t n, uint32_t sh, uint64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (j[m]->shard < sh || (j[m]->shard == sh && j[m]->end <= t))
			lo = m + 1;
		else
			hi = m;
	}
	while (lo > 0 && j[lo - 1]->shard == sh) {
		const ws_inst *x = j[lo - 1];
		if (x->begin < t)
			return x;
		lo--;
	}
	return NULL;
}

/* The creator of shard sh and when it created it: 0, or -1 if none. */
static int creator(const ws_set *s, uint32_t sh, uint32_t *who, uint64_t *when)
{
	const ws_thread *t = &s->th[sh];
	if (!t->start_seq)
		return -1;
	for (size_t i = 0; i < s->creates.n; i++)
		if (s->creates.v[i].pid == t->pid && s->creates.v[i].seq == t->start_seq &&
		    s->creates.v[i].shard != sh) {
			*who = s->creates.v[i].shard;
			*when = s->creates.v[i].t;
			return 0;
		}
	return -1;
}

int ws_critical_path(ws_set *s, ws_result *r)
{
	size_t ns = s->ctx->nshards;
	/* the main thread that ended last: a process ends with its main
	 * thread, and a library's service threads (MPI's progress threads)
	 * may outlive it doing nothing the program waits for */
	uint32_t cur = WS_NONE;
	for (int mains = 1; mains >= 0 && cur == WS_NONE; mains--)
		for (size_t i = 0; i < ns; i++)
			if (s->th[i].used && !s->th[i].gpu && (!mains || s->th[i].thread == 0) &&
			    (cur == WS_NONE || s->th[i].last > s->th[cur].last))
				cur = (uint32_t)i;
	if (cur == WS_NONE)
		return 0;
	const ws_inst **j = malloc((r->inst.n + r->links.n + 1) * sizeof *j);
	if (!j)
		return -1;
	/* A thread in which no traced function ran, waited for by one in which
	 * some did, is a library's (MPI's progress thread, joined in
	 * MPI_Finalize): the path stays on the program's threads. */
	unsigned char *traced = calloc(ns + 1, 1);
	if (!traced) {
		free(j);
		return -1;
	}
	for (size_t i = 0; i < ns; i++) {
		traced[i] = s->th[i].gpu != 0; /* a GPU stream runs the program's kernels */
		for (size_t k = 0; k < s->th[i].segs.n && !traced[i]; k++)
			traced[i] = s->th[i].segs.v[k].name != WS_NAME_NONE &&
			            !(s->th[i].segs.v[k].name & WS_NAME_MPI);
	}
	size_t nj = 0;
	for (size_t i = 0; i < r->inst.n + r->links.n; i++) {
		const ws_inst *x = i < r->inst.n ? &r->inst.v[i] : &r->links.v[i - r->inst.n];
		if (x->cause != WS_NONE && x->cause != x->shard && s->th[x->cause].used &&
		    (traced[x->cause] || !traced[x->shard] || s->th[x->shard].gpu))
			j[nj++] = x;
	}
	free(traced);
	pt_qsort(j, nj, sizeof *j, cmp_jump);
	cp_vec v = {0};
	uint64_t t = s->th[cur].last;
	r->path_end = t;
	int rc = 0;
	/* each step goes back in time or over to another thread at the same
	 * time; the bound only guards against hand-offs at one instant that
	 * go round in a circle */
	for (size_t steps = 0; steps < 2 * (nj + ns) + 16 && !rc; steps++) {
		const ws_inst *x = jump_before(j, nj, cur, t);
		if (x) {
			rc = charge_span(s, cur, x->end, t, &v, r) |
			     charge_span(s, cur, x->release, x->end, &v, r);
			cur = x->cause;
			t = x->release;
			continue;
		}
		uint64_t first = s->th[cur].first < t ? s->th[cur].first : t;
		rc = charge_span(s, cur, first, t, &v, r);
		uint32_t who;
		uint64_t when;
		if (creator(s, cur, &who, &when) || when > first || !s->th[who].used) {
			t = first;
			break;
		}
		/* from the creation to the thread's first record: the creator's */
		rc |= charge_span(s, who, when, first, &v, r);
		cur = who;
		t = when;
	}
	free(j);
	r->path_begin = t;
	for (size_t i = 0; i < v.v.n; i++)
		r->path_ns += v.v.v[i].ns;
	for (size_t i = 0; i < v.v.n; i++)
		v.v.v[i].name_str = ws_name(s, v.v.v[i].name);
	pt_qsort(v.v.v, v.v.n, sizeof *v.v.v, cmp_cp_ns);
	free(v.slot);
	r->path.v = v.v.v;
	r->path.n = v.v.n;
	r->path.cap = v.v.cap;
	return rc ? -1 : 0;
}

/* The critical path by function (all ranks together), most first. */
size_t ws_path_functions(const ws_result *res, ws_cp **out)
{
	ws_cp *v = malloc((res->path.n + 1) * sizeof *v);
	size_t n = 0;
	if (!v)
		return 0;
	for (size_t i = 0; i < res->path.n; i++) {
		size_t k = 0;
		while (k < n && v[k].name != res->path.v[i].name)
			k++;
		if (k == n)
			v[n++] = (ws_cp){res->path.v[i].name, -1, 0, res->path.v[i].name_str};
		v[k].ns += res->path.v[i].ns;
	}
	for (size_t i = 1; i < n; i++) /* few names: insertion, most first, stable */
		for (size_t k = i; k > 0 && v[k].ns > v[k - 1].ns; k--) {
			ws_cp x = v[k];
			v[k] = v[k - 1];
			v[k - 1] = x;
		}
	*out = v;
	return n;
}
