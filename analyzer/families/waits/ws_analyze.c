/* SPDX-License-Identifier: MIT */
/* The wait instances of a set (waits.h): each wait of a thread or rank,
 * the pattern it follows, and what caused it. */
#define _GNU_SOURCE
#include "pt_fw_util.h"
#include "waits.h"

#include <stdlib.h>
#include <string.h>

uint32_t ws_busiest(const ws_set *s, uint32_t sh, uint64_t a, uint64_t b)
{
	const ws_thread *t = sh < s->ctx->nshards ? &s->th[sh] : NULL;
	if (!t || !t->segs.n)
		return WS_NAME_NONE;
	size_t lo = ws_seg_at(t, a);
	if (b <= a)
		return t->segs.v[lo].t <= a ? t->segs.v[lo].name : WS_NAME_NONE;
	struct {
		uint32_t name;
		uint64_t ns;
	} tally[32];
	size_t nt = 0;
	for (size_t i = lo; i < t->segs.n && t->segs.v[i].t < b; i++) {
		uint64_t from = t->segs.v[i].t > a ? t->segs.v[i].t : a;
		uint64_t to = i + 1 < t->segs.n && t->segs.v[i + 1].t < b ? t->segs.v[i + 1].t : b;
		if (to <= from)
			continue;
		uint32_t name = t->segs.v[i].name;
		size_t k = 0;
		while (k < nt && tally[k].name != name)
			k++;
		if (k == nt) {
			if (nt == 32)
				continue; /* a wait spanning more names: the first 32 decide */
			tally[nt].name = name;
			tally[nt++].ns = 0;
		}
		tally[k].ns += to - from;
	}
	uint32_t best = WS_NAME_NONE;
	uint64_t most = 0;
	for (size_t k = 0; k < nt; k++)
		if (tally[k].ns > most) {
			most = tally[k].ns;
			best = tally[k].name;
		}
	return best;
}

typedef struct ctx {
	ws_set *s;
	ws_result *r;
} actx;

static void charge(actx *c, unsigned pattern, uint32_t sh, uint32_t path, uint64_t b, uint64_t e,
                   uint32_t cause, uint64_t release)
{
	if (e <= b)
		return;
	/* a cause that let go before the wait began did not make it wait (a
	 * thread joined after it had ended): the wait is the waiter's own */
	if (release < b)
		cause = WS_NONE;
	if (release > e || cause == WS_NONE)
		release = e;
	ws_inst x = {b, e, release, pattern, sh, path, cause, WS_NAME_NONE, 0};
	if (cause != WS_NONE)
		x.cause_name = ws_busiest(c->s, cause, b, release);
	if (WS_PUSH(c->r->inst, x))
		c->r->oom = 1;
}

/* The path of shard sh's MPI call that began at t. */
static uint32_t call_path(const ws_set *s, uint32_t sh, uint64_t t)
{
	if (sh >= s->ctx->nshards)
		return WS_NONE;
	const ws_thread *th = &s->th[sh];
	size_t lo = 0, hi = th->calls.n;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (th->calls.v[m].begin < t)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < th->calls.n && th->calls.v[lo].begin == t ? th->calls.v[lo].path : WS_NONE;
}

/* ---- point to point ------------------------------------------------------ */
static void one_msg(void *arg, const mpi_end *snd, const mpi_end *rcv)
{
	actx *c = arg;
	/* the receive's call began before the send did: it waited until then */
	if (snd->lt > rcv->cb)
		charge(c, WS_LATE_SENDER, rcv->shard, call_path(c->s, rcv->shard, rcv->cb), rcv->cb,
		       snd->lt < rcv->pt ? snd->lt : rcv->pt, snd->shard, snd->lt);
	/* a send still in its call when the receive was posted, which it
	 * began after the send: the send waited for it */
	if (rcv->lt > snd->lt && snd->pt > rcv->lt)
		charge(c, WS_LATE_RECEIVER, snd->shard, call_path(c->s, snd->shard, snd->lt),
		       snd->lt, rcv->lt, rcv->shard, rcv->lt);
}

/* ---- collectives --------------------------------------------------------- */
typedef struct coll_ref {
	uint64_t comm, seq, begin;
	int32_t rank;
	uint32_t shard;
	const ws_call *call;
} coll_ref;

static int cmp_rank_comm(const void *a, const void *b)
{
	const coll_ref *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->shard < y->shard ? -1 : x->shard > y->shard;
}

static int cmp_instance(const void *a, const void *b)
{
	const coll_ref *x = a, *y = b;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

enum { C_NONE, C_BARRIER, C_NXN, C_ONE_TO_N, C_N_TO_ONE };

static int coll_kind(unsigned call)
{
	static const struct {
		const char *name;
		int kind;
	} k[] = {{"MPI_Barrier", C_BARRIER},
	         {"MPI_Allreduce", C_NXN},
	         {"MPI_Allgather", C_NXN},
	         {"MPI_Allgatherv", C_NXN},
	         {"MPI_Alltoall", C_NXN},
	         {"MPI_Alltoallv", C_NXN},
	         {"MPI_Alltoallw", C_NXN},
	         {"MPI_Reduce_scatter", C_NXN},
	         {"MPI_Reduce_scatter_block", C_NXN},
	         {"MPI_Bcast", C_ONE_TO_N},
	         {"MPI_Scatter", C_ONE_TO_N},
	         {"MPI_Scatterv", C_ONE_TO_N},
	         {"MPI_Reduce", C_N_TO_ONE},
	         {"MPI_Gather", C_N_TO_ONE},
	         {"MPI_Gatherv", C_N_TO_ONE}};
	const char *n = mpi_call_name(call);
	for (size_t i = 0; n && i < sizeof k / sizeof k[0]; i++)
		if (!strcmp(n, k[i].name))
			return k[i].kind;
	return C_NONE;
}

/* One instance of a collective: g[0..n), one per rank. */
static void one_coll(actx *c, const coll_ref *g, size_t n)
{
	int kind = coll_kind(g[0].call->call);
	if (kind == C_NONE || n < 2)
		return;
	size_t last = 0, root = n;
	for (size_t i = 0; i < n; i++) {
		if (g[i].rank == g[i].call->root)
			root = i;
		if (g[i].begin > g[last].begin)
			last = i;
	}
	if (kind == C_BARRIER || kind == C_NXN) {
		for (size_t i = 0; i < n; i++)
			charge(c, kind == C_BARRIER ? WS_WAIT_AT_BARRIER : WS_WAIT_AT_NXN,
			       g[i].shard, g[i].call->path, g[i].begin,
			       g[last].begin < g[i].call->end ? g[last].begin : g[i].call->end,
			       g[last].shard, g[last].begin);
	} else if (root < n && kind == C_ONE_TO_N) {
		const coll_ref *r = &g[root];
		for (size_t i = 0; i < n; i++)
			if (i != root)
				charge(c, WS_LATE_BROADCAST, g[i].shard, g[i].call->path,
				       g[i].begin,
				       r->begin < g[i].call->end ? r->begin : g[i].call->end,
				       r->shard, r->begin);
	} else if (root < n) {
		size_t l = root == 0 ? 1 : 0;
		for (size_t i = 0; i < n; i++)
			if (i != root && g[i].begin > g[l].begin)
				l = i;
		const coll_ref *r = &g[root];
		charge(c, WS_EARLY_REDUCE, r->shard, r->call->path, r->begin,
		       g[l].begin < r->call->end ? g[l].begin : r->call->end, g[l].shard,
		       g[l].begin);
	}
}

static int collectives(actx *c)
{
	const ws_set *s = c->s;
	WS_VEC(coll_ref) v = {0};
	for (size_t i = 0; i < s->ctx->nshards; i++)
		for (size_t k = 0; k < s->th[i].calls.n; k++) {
			const ws_call *cl = &s->th[i].calls.v[k];
			if (cl->coll && WS_PUSH(v, ((coll_ref){cl->comm, 0, cl->begin,
			                                       s->th[i].rank, (uint32_t)i, cl})))
				goto oom;
		}
	/* the k-th collective of a rank on a communicator is the k-th of
	 * every other rank on it (MPI orders them so) */
	pt_qsort(v.v, v.n, sizeof *v.v, cmp_rank_comm);
	for (size_t i = 0; i < v.n; i++)
		v.v[i].seq = i && v.v[i - 1].rank == v.v[i].rank && v.v[i - 1].comm == v.v[i].comm
		                 ? v.v[i - 1].seq + 1
		                 : 0;
	pt_qsort(v.v, v.n, sizeof *v.v, cmp_instance);
	for (size_t i = 0, j; i < v.n; i = j) {
		for (j = i + 1; j < v.n && v.v[j].comm == v.v[i].comm && v.v[j].seq == v.v[i].seq;
		     j++)
			;
		one_coll(c, &v.v[i], j - i);
	}
	free(v.v);
	return 0;
oom:
	free(v.v);
	return -1;
}

/* ---- threads ------------------------------------------------------------- */
static int cmp_mark(const void *a, const void *b)
{
	const ws_mark *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->shard < y->shard ? -1 : x->shard > y->shard;
}

/* The latest mark of (pid, object) at or before t, from a shard other
 * than `self`, not before `not_before`; NULL if none. */
static const ws_mark *latest(const ws_mark *v, size_t n, uint32_t pid, uint64_t object, uint64_t t,
                             uint32_t self, uint64_t not_before)
{
	ws_mark key = {t, object, UINT32_MAX, pid};
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (cmp_mark(&v[m], &key) <= 0)
			lo = m + 1;
		else
			hi = m;
	}
	while (lo > 0) {
		const ws_mark *m = &v[--lo];
		if (m->pid != pid || m->object != object || m->t < not_before)
			return NULL;
		if (m->shard != self)
			return m;
	}
	return NULL;
}

typedef struct bar_ref {
	uint32_t pid, shard;
	uint64_t object, begin;
} bar_ref;

static int cmp_bar(const void *a, const void *b)
{
	const bar_ref *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->shard < y->shard ? -1 : x->shard > y->shard;
}

static int threads(actx *c)
{
	ws_set *s = c->s;
	size_t ns = s->ctx->nshards;
	pt_qsort(s->releases.v, s->releases.n, sizeof *s->releases.v, cmp_mark);
	pt_qsort(s->signals.v, s->signals.n, sizeof *s->signals.v, cmp_mark);
	WS_VEC(bar_ref) bars = {0};
	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < s->th[i].waits.n; k++) {
			const ws_wait *w = &s->th[i].waits.v[k];
			if (w->kind == WS_W_BARRIER &&
			    WS_PUSH(bars,
			            ((bar_ref){s->th[i].pid, (uint32_t)i, w->object, w->begin}))) {
				free(bars.v);
				return -1;
			}
		}
	pt_qsort(bars.v, bars.n, sizeof *bars.v, cmp_bar);
	for (size_t i = 0; i < ns; i++) {
		const ws_thread *t = &s->th[i];
		uint32_t sh = (uint32_t)i;
		for (size_t k = 0; k < t->waits.n; k++) {
			const ws_wait *w = &t->waits.v[k];
			const ws_mark *m;
			switch (w->kind) {
			case WS_W_LOCK:
				m = latest(s->releases.v, s->releases.n, t->pid, w->object, w->end,
				           sh, w->begin);
				charge(c, WS_LOCK_WAIT, sh, w->path, w->begin, w->end,
				       m ? m->shard : WS_NONE, m ? m->t : w->end);
				break;
			case WS_W_COND:
				m = latest(s->signals.v, s->signals.n, t->pid, w->object, w->end,
				           sh, w->begin);
				charge(c, WS_COND_WAIT, sh, w->path, w->begin, w->end,
				       m ? m->shard : WS_NONE, m ? m->t : w->end);
				break;
			case WS_W_JOIN: {
				uint32_t who = WS_NONE;
				for (size_t j = 0; w->object && j < ns && who == WS_NONE; j++)
					if (s->th[j].used && s->th[j].pid == t->pid &&
					    s->th[j].start_seq == w->object)
						who = (uint32_t)j;
				charge(c, WS_JOIN_WAIT, sh, w->path, w->begin, w->end, who,
				       who != WS_NONE ? s->th[who].last : w->end);
				break;
			}
			case WS_W_BARRIER: {
				/* the last to arrive before this one left */
				bar_ref key = {t->pid, UINT32_MAX, w->object, w->end};
				size_t lo = 0, hi = bars.n;
				while (lo < hi) {
					size_t mid = (lo + hi) / 2;
					if (cmp_bar(&bars.v[mid], &key) <= 0)
						lo = mid + 1;
					else
						hi = mid;
				}
				const bar_ref *l = lo ? &bars.v[lo - 1] : NULL;
				if (l && l->pid == t->pid && l->object == w->object &&
				    l->shard != sh && l->begin > w->begin)
					charge(c, WS_WAIT_AT_BARRIER, sh, w->path, w->begin,
					       l->begin, l->shard, l->begin);
				break;
			}
			default:
				break;
			}
		}
	}
	free(bars.v);
	return 0;
}

static int cmp_inst(const void *a, const void *b)
{
	const ws_inst *x = a, *y = b;
	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->pattern < y->pattern ? -1 : x->pattern > y->pattern;
}

int ws_analyze(ws_set *s, ws_result *r)
{
	memset(r, 0, sizeof *r);
	actx c = {s, r};
	mpi_match_stats st;
	memset(&st, 0, sizeof st);
	if (s->oom || mpi_match(&s->sends, &s->recvs, one_msg, &c, &st) || collectives(&c) ||
	    threads(&c) || ws_gpu_analyze(s, r) || r->oom)
		return -1;
	pt_qsort(r->inst.v, r->inst.n, sizeof *r->inst.v, cmp_inst);
	return ws_critical_path(s, r);
}

void ws_result_free(ws_result *r)
{
	free(r->inst.v);
	free(r->links.v);
	free(r->path.v);
	free(r->spans.v);
	memset(r, 0, sizeof *r);
}
