/* SPDX-License-Identifier: MIT */
/* Communications of the Paraver trace: thread creation (tag 1) and fork
 * (tag 2) from the creating thread to the first record of the thread or
 * process it created, and the links families ask for (GPU launch ->
 * execution, tags 3..; MPI messages, their own tag). In the same run, in
 * time order with them, the events families know only at the end
 * (pv_family.late_events: wait states). */
#define _GNU_SOURCE
#include "pv_internal.h"

#include <stdio.h>

typedef struct comm {
	uint64_t ts, tr; /* physical send and receive */
	size_t from, to;
	int tag;
	int64_t size;
	uint64_t ls, lr; /* logical ones: ls <= ts */
} comm;

typedef VEC(comm) comms;

static int cmp_link(const void *a, const void *b)
{
	const pv_link_end *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

static int cmp_comm(const void *a, const void *b)
{
	const comm *x = a, *y = b;
	if (x->ls != y->ls)
		return x->ls < y->ls ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->tr < y->tr ? -1 : x->tr > y->tr;
}

/* Each THREAD_CREATE to the THREAD_START of the same (pid, create_seq). */
static int link_creations(pv_tool *pv, comms *cs)
{
	pv_found *f = &pv->found;
	pt_qsort(f->creates.v, f->creates.n, sizeof *f->creates.v, cmp_link);
	pt_qsort(f->starts.v, f->starts.n, sizeof *f->starts.v, cmp_link);
	size_t j = 0;
	for (size_t i = 0; i < f->creates.n; i++) {
		const pv_link_end *c = &f->creates.v[i];
		while (j < f->starts.n && cmp_link(&f->starts.v[j], c) < 0 &&
		       (f->starts.v[j].pid < c->pid ||
		        (f->starts.v[j].pid == c->pid && f->starts.v[j].seq < c->seq)))
			j++;
		if (j < f->starts.n && f->starts.v[j].pid == c->pid &&
		    f->starts.v[j].seq == c->seq &&
		    VEC_PUSH(*cs, ((comm){c->time, f->starts.v[j].time, c->shard,
		                          f->starts.v[j].shard, 1, 0, c->time, f->starts.v[j].time})))
			return -1;
	}
	return 0;
}

/* Each FORK to the first record of the child's first thread. */
static int link_forks(pv_tool *pv, comms *cs)
{
	const pt_trace_ctx *ctx = pv->ctx;
	for (size_t i = 0; i < pv->found.forks.n; i++) {
		const pv_link_end *f = &pv->found.forks.v[i];
		for (size_t p = 0; p < ctx->nprocesses; p++) {
			const pt_process_info *pi = &ctx->processes[p];
			if (pi->pid != f->seq || !pi->nshards)
				continue;
			const pt_shard_info *to = &ctx->shards[pi->first_shard];
			uint64_t tr = to->first_ns > ctx->t0_ns ? to->first_ns : ctx->t0_ns;
			if (VEC_PUSH(*cs, ((comm){f->time, tr, f->shard, to->index, 2, 0, f->time, tr})))
				return -1;
			break;
		}
	}
	return 0;
}

static int link_families(pv_tool *pv, comms *cs)
{
	const pt_trace_ctx *ctx = pv->ctx;
	for (size_t k = 0; k < pt_nfamilies(); k++) {
		pv_comm *ec = NULL;
		size_t m = pv_ext(k)->comms ? pv_ext(k)->comms(pv->ext[k], &ec) : 0;
		for (size_t i = 0; i < m; i++) {
			uint64_t ts = ec[i].send_ns > ctx->t0_ns ? ec[i].send_ns : ctx->t0_ns;
			uint64_t tr = ec[i].recv_ns > ctx->t0_ns ? ec[i].recv_ns : ctx->t0_ns;
			uint64_t ls = ts, lr = tr;
			if (ec[i].lsend_ns)
				ls = ec[i].lsend_ns > ctx->t0_ns ? ec[i].lsend_ns : ctx->t0_ns;
			if (ec[i].lrecv_ns)
				lr = ec[i].lrecv_ns > ctx->t0_ns ? ec[i].lrecv_ns : ctx->t0_ns;
			if (ec[i].from >= ctx->nshards || ec[i].to >= ctx->nshards)
				continue;
			if (VEC_PUSH(*cs, ((comm){ts, tr, ec[i].from, ec[i].to, ec[i].tag, ec[i].size,
			                          ls < ts ? ls : ts, lr}))) {
				free(ec);
				return -1;
			}
		}
		free(ec);
	}
	return 0;
}

/* ---- events the families know only at the end (pv_family.late_events) */
typedef VEC(pv_late) lates;

static int cmp_late(const void *a, const void *b)
{
	const pv_late *x = a, *y = b;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

/* Those of rows and times written, sorted. */
static int gather_lates(pv_tool *pv, lates *ls)
{
	const pt_trace_ctx *ctx = pv->ctx;
	for (size_t k = 0; k < pt_nfamilies(); k++) {
		pv_late *v = NULL;
		size_t m = pv_ext(k)->late_events && pv->ext[k]
		               ? pv_ext(k)->late_events(pv->ext[k], &v)
		               : 0;
		for (size_t i = 0; i < m; i++)
			if (v[i].shard < ctx->nshards && pv->row[v[i].shard] &&
			    v[i].time_ns >= pv->origin && v[i].time_ns <= pv->win_hi &&
			    VEC_PUSH(*ls, v[i])) {
				free(v);
				return -1;
			}
		free(v);
	}
	pt_qsort(ls->v, ls->n, sizeof *ls->v, cmp_late);
	return 0;
}

/* The late events before `until` (relative ns), one line per (row, time):
 * of one type at one time, the last value sorted (the largest) is
 * written, so a wait that begins where another ends shows the new one. */
static void write_lates(pv_tool *pv, pv_stream *out, const lates *ls, size_t *k, uint64_t until)
{
	while (*k < ls->n && ls->v[*k].time_ns - pv->origin <= until) {
		const pv_late *e = &ls->v[*k];
		size_t sh = e->shard, j = *k;
		uint64_t t = e->time_ns - pv->origin;
		char *start = pv_stream_reserve(out, t), *p = start;
		p += sprintf(p, "2:%u:1:%u:%u:", pv_cpu(pv, sh), pv->task[sh], pv->thread[sh]);
		p = pv_u64(p, t);
		for (; j < ls->n && ls->v[j].time_ns == e->time_ns && ls->v[j].shard == sh; j++)
			if (j + 1 == ls->n || ls->v[j + 1].time_ns != e->time_ns ||
			    ls->v[j + 1].shard != sh || ls->v[j + 1].type != ls->v[j].type)
				p += sprintf(p, ":%u:%lld", ls->v[j].type,
				             (long long)ls->v[j].value);
		*p++ = '\n';
		pv_stream_commit(out, (size_t)(p - start));
		if (t > pv->max_time)
			pv->max_time = t;
		*k = j;
	}
}

int pv_write_comms(pv_tool *pv, pv_stream *out, char *err, size_t errlen)
{
	comms cs = {0};
	lates late = {0};
	size_t k = 0;
	if (link_creations(pv, &cs) || link_forks(pv, &cs) || link_families(pv, &cs) ||
	    gather_lates(pv, &late)) {
		free(cs.v);
		free(late.v);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pt_qsort(cs.v, cs.n, sizeof *cs.v, cmp_comm);
	for (size_t i = 0; i < cs.n; i++) {
		const comm *c = &cs.v[i];
		/* both ends must be written: rows selected, times in the window */
		int in_a = pv->row[c->from] && c->ts >= pv->origin && c->ts <= pv->win_hi;
		int in_b = pv->row[c->to] && c->tr >= pv->origin && c->tr <= pv->win_hi;
		if (!in_a || !in_b) {
			pv->comms_left += in_a || in_b;
			continue;
		}
		uint64_t ts = c->ts - pv->origin, tr = c->tr - pv->origin;
		uint64_t ls = c->ls > pv->origin ? c->ls - pv->origin : 0;
		uint64_t lr = c->lr > pv->origin ? c->lr - pv->origin : 0;
		write_lates(pv, out, &late, &k, ls);
		char *start = pv_stream_reserve(out, ls), *p = start;
		p += sprintf(p, "3:%u:1:%u:%u:", pv_cpu(pv, c->from), pv->task[c->from],
		             pv->thread[c->from]);
		p = pv_u64(p, ls);
		*p++ = ':';
		p = pv_u64(p, ts);
		p += sprintf(p, ":%u:1:%u:%u:", pv_cpu(pv, c->to), pv->task[c->to], pv->thread[c->to]);
		p = pv_u64(p, lr);
		*p++ = ':';
		p = pv_u64(p, tr);
		p += sprintf(p, ":%lld:%d\n", (long long)c->size, c->tag);
		pv_stream_commit(out, (size_t)(p - start));
		if (tr > pv->max_time)
			pv->max_time = tr;
	}
	write_lates(pv, out, &late, &k, UINT64_MAX);
	free(cs.v);
	free(late.v);
	return 0;
}
