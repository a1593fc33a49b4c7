/* SPDX-License-Identifier: MIT */
/* GPU synchronisation waits (waits.h): a host call that waits for the
 * device (cudaDeviceSynchronize, cudaStreamSynchronize,
 * cudaEventSynchronize, a synchronous cudaMemcpy, clFinish,
 * clWaitForEvents, a blocking clEnqueueRead/Write/Map) waited from its
 * start until the last kernel or copy it waited for ended: that kernel or
 * copy, on its stream, is the cause.
 *
 * What a call waits for: the work on the stream or queue it names (the
 * stream of its own copy, for a copy); every stream of the process for a
 * device synchronisation or when the call names none (CUDA's records do
 * not say which stream or event). Of that work, what was launched before
 * the call began (or is the call's own copy) and was still running then.
 * The wait ends when the last of it ends. A call that names its streams
 * waited for all of it (a device time a little after the call returned is
 * the clocks' difference: the wait ends with the call); one that does not
 * waited for what ended before it returned, or else for what ended first
 * after that.
 *
 * The thread waits inside such a call (the API's implementation waiting
 * on its own locks and conditions for the device, or for its threads that
 * run a CPU device's kernels) are that wait's: they are left out.
 *
 * The launch links: device work that began after its launch, on a stream
 * idle by then, was started by the launching thread at the launch; the
 * critical path goes from that work back to the host there. */
#define _GNU_SOURCE
#include "gpu_api.h"
#include "pt_fw_util.h"
#include "waits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ws_gpu_label(const ws_set *s, uint32_t sh, char *buf, size_t len)
{
	const ws_thread *t = &s->th[sh];
	const gpu_api *api = t->gpu ? gpu_api_of(t->gpu) : NULL;
	if (api)
		api->stream_label(t->gpu_device, t->gpu_seq, t->gpu_flags, t->gpu_stream, buf, len);
	else if (t->gpu)
		snprintf(buf, len, "GPU-S%llu", (unsigned long long)t->gpu_stream);
	else if (len)
		buf[0] = 0;
}

void ws_where(const ws_set *s, uint32_t sh, char *buf, size_t len)
{
	const ws_thread *t = &s->th[sh];
	if (t->gpu) {
		char l[64];
		ws_gpu_label(s, sh, l, sizeof l);
		snprintf(buf, len, "%d.%s", t->rank, l);
	} else
		snprintf(buf, len, "%d.%u", t->rank, t->thread);
}

/* A launch: the host call that started device work with this correlation. */
typedef struct g_launch {
	uint64_t corr, t;
	uint32_t pid, shard;
} g_launch;

static int cmp_launch(const void *a, const void *b)
{
	const g_launch *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->shard < y->shard ? -1 : x->shard > y->shard;
}

static const g_launch *find_launch(const g_launch *v, size_t n, uint32_t pid, uint64_t corr)
{
	g_launch key = {corr, 0, pid, 0};
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (cmp_launch(&v[m], &key) < 0)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < n && v[lo].pid == pid && v[lo].corr == corr ? &v[lo] : NULL;
}

/* A stream's work (its kernels and copies one at a time, as its row shows
 * them: in the order of both their starts and their ends), for the
 * waits: when each was launched. */
typedef struct g_stream {
	uint64_t *launched; /* [ops.n]: the launch, or the start when not known */
} g_stream;

typedef struct g_ctx {
	const ws_set *s;
	ws_result *r;
	g_launch *launches;
	size_t nl;
	g_stream *st;           /* [nshards] */
	WS_VEC(ws_span) waited; /* the calls that waited */
} g_ctx;

/* The stream's launches and links; -1 on ENOMEM. */
static int stream_init(g_ctx *c, uint32_t sh)
{
	const ws_thread *t = &c->s->th[sh];
	g_stream *g = &c->st[sh];
	size_t n = t->ops.n;
	g->launched = malloc((n + 1) * sizeof *g->launched);
	if (!g->launched)
		return -1;
	uint64_t prev_end = 0;
	for (size_t i = 0; i < n; i++) {
		const ws_op *o = &t->ops.v[i];
		const g_launch *l =
		    o->corr ? find_launch(c->launches, c->nl, t->pid, o->corr) : NULL;
		g->launched[i] = l ? l->t : o->start;
		/* began when it was launched, the stream idle by then: the
		 * launching thread started it */
		if (l && prev_end <= l->t && c->s->th[l->shard].used) {
			uint64_t at = l->t < o->start ? l->t : o->start;
			ws_inst x = {at,       o->start,     at, WS_NPATTERNS, sh, WS_NONE,
			             l->shard, WS_NAME_NONE, 0};
			if (WS_PUSH(c->r->links, x))
				return -1;
		}
		if (o->end > prev_end)
			prev_end = o->end;
	}
	return 0;
}

/* What a call [b, e] waited for on stream sh: the last awaited op ending
 * by e (*before), the first ending after it (*after); -1: none. */
static void awaited(const g_ctx *c, uint32_t sh, const ws_gcall *call, long *before, long *after)
{
	const ws_thread *t = &c->s->th[sh];
	const g_stream *g = &c->st[sh];
	size_t lo = 0, hi = t->ops.n;
	while (lo < hi) { /* the first ending after e */
		size_t m = (lo + hi) / 2;
		if (t->ops.v[m].end <= call->end)
			lo = m + 1;
		else
			hi = m;
	}
	*before = *after = -1;
#define AWAITED(i)                                                                                 \
	(g->launched[i] <= call->begin || (call->corr && t->ops.v[i].corr == call->corr) ||        \
	 (call->corr2 && t->ops.v[i].corr == call->corr2))
	if (lo < t->ops.n) {
		size_t i = lo;
		if (AWAITED(i) && t->ops.v[i].start < call->end)
			*after = (long)i;
	}
	for (size_t i = lo; i-- > 0;) {
		if (t->ops.v[i].end <= call->begin)
			break;
		if (AWAITED(i)) {
			*before = (long)i;
			break;
		}
	}
#undef AWAITED
}

/* The stream of the call's own copy (or WS_NONE): work with its
 * correlation that began within it (or just before: the clocks). */
static uint32_t own_stream(const g_ctx *c, uint32_t pid, const ws_gcall *call)
{
	const ws_set *s = c->s;
	for (size_t i = 0; call->corr && i < s->ctx->nshards; i++) {
		const ws_thread *t = &s->th[i];
		if (!t->used || !t->gpu || t->pid != pid)
			continue;
		size_t lo = 0, hi = t->ops.n; /* one at a time: starts never decrease */
		while (lo < hi) {
			size_t m = (lo + hi) / 2;
			if (t->ops.v[m].start < call->begin)
				lo = m + 1;
			else
				hi = m;
		}
		for (size_t k = lo ? lo - 1 : 0; k < t->ops.n && t->ops.v[k].start <= call->end;
		     k++)
			if (t->ops.v[k].corr == call->corr ||
			    (call->corr2 && t->ops.v[k].corr == call->corr2))
				return (uint32_t)i;
	}
	return WS_NONE;
}

static int cmp_span(const void *a, const void *b)
{
	const ws_span *x = a, *y = b;
	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	return x->a < y->a ? -1 : x->a > y->a;
}

/* Leaves out the thread waits inside the calls that waited for the
 * device (calls[]: their times and threads). */
static void drop_inner(ws_result *r, ws_span *calls, size_t nc)
{
	if (!nc)
		return;
	pt_qsort(calls, nc, sizeof *calls, cmp_span);
	size_t o = 0;
	for (size_t i = 0; i < r->inst.n; i++) {
		const ws_inst *x = &r->inst.v[i];
		if (x->pattern == WS_LOCK_WAIT || x->pattern == WS_COND_WAIT ||
		    x->pattern == WS_JOIN_WAIT || x->pattern == WS_WAIT_AT_BARRIER) {
			/* the latest such call of its thread that began by then */
			ws_span key = {x->begin, 0, x->shard, 0};
			size_t lo = 0, hi = nc;
			while (lo < hi) {
				size_t m = (lo + hi) / 2;
				if (cmp_span(&calls[m], &key) <= 0)
					lo = m + 1;
				else
					hi = m;
			}
			if (lo && calls[lo - 1].shard == x->shard && x->end <= calls[lo - 1].b)
				continue;
		}
		r->inst.v[o++] = *x;
	}
	r->inst.n = o;
}

static void one_call(g_ctx *c, uint32_t host, const ws_gcall *call)
{
	const ws_set *s = c->s;
	const ws_thread *h = &s->th[host];
	uint32_t named = WS_NONE; /* the one stream it waits for */
	int known = call->call == PT_GPU_CALL_DEVICE_SYNC;
	for (size_t i = 0; call->stream && i < s->ctx->nshards; i++)
		if (s->th[i].used && s->th[i].gpu && s->th[i].pid == h->pid &&
		    s->th[i].gpu_stream == call->stream)
			named = (uint32_t)i;
	if (named == WS_NONE && (call->flags & PT_GPU_CALL_F_TRANSFER))
		named = own_stream(c, h->pid, call);
	known |= named != WS_NONE;
	uint32_t best_sh = WS_NONE, after_sh = WS_NONE;
	long best = -1, after = -1;
	for (size_t i = 0; i < s->ctx->nshards; i++) {
		const ws_thread *t = &s->th[i];
		if (!t->used || !t->gpu || t->pid != h->pid || (named != WS_NONE && i != named))
			continue;
		long b, a;
		awaited(c, (uint32_t)i, call, &b, &a);
		if (known && a >= 0)
			b = a; /* it waited for all: the clocks differ */
		if (b >= 0 && (best < 0 || t->ops.v[b].end > s->th[best_sh].ops.v[best].end)) {
			best = b;
			best_sh = (uint32_t)i;
		}
		if (a >= 0 && (after < 0 || t->ops.v[a].end < s->th[after_sh].ops.v[after].end)) {
			after = a;
			after_sh = (uint32_t)i;
		}
	}
	if (best < 0 && after >= 0) {
		best = after;
		best_sh = after_sh;
	}
	if (best < 0)
		return;
	const ws_op *o = &s->th[best_sh].ops.v[best];
	uint64_t end = o->end < call->end ? o->end : call->end;
	if (end <= call->begin)
		return;
	ws_inst x = {call->begin, end,     end, WS_GPU_SYNC_WAIT, host, call->path,
	             best_sh,     o->name, 0};
	if (WS_PUSH(c->r->inst, x) ||
	    WS_PUSH(c->waited, ((ws_span){call->begin, call->end, host, 0})))
		c->r->oom = 1;
}

int ws_gpu_analyze(const ws_set *s, ws_result *r)
{
	size_t ns = s->ctx->nshards;
	int any = 0;
	for (size_t i = 0; i < ns && !any; i++)
		any = s->th[i].used && s->th[i].gpu && s->th[i].ops.n;
	if (!any)
		return 0;
	g_ctx c = {s, r, NULL, 0, calloc(ns, sizeof *c.st), {0}};
	WS_VEC(g_launch) l = {0};
	int rc = c.st ? 0 : -1;
	for (size_t i = 0; i < ns && !rc; i++) {
		const ws_thread *t = &s->th[i];
		for (size_t k = 0; t->used && !t->gpu && k < t->gcalls.n && !rc; k++) {
			const ws_gcall *g = &t->gcalls.v[k];
			rc = WS_PUSH(l, ((g_launch){g->corr, g->begin, t->pid, (uint32_t)i}));
			if (!rc && g->corr2)
				rc = WS_PUSH(l,
				             ((g_launch){g->corr2, g->begin, t->pid, (uint32_t)i}));
		}
	}
	pt_qsort(l.v, l.n, sizeof *l.v, cmp_launch);
	c.launches = l.v;
	c.nl = l.n;
	for (size_t i = 0; i < ns && !rc; i++)
		if (s->th[i].used && s->th[i].gpu)
			rc = stream_init(&c, (uint32_t)i);
	for (size_t i = 0; i < ns && !rc; i++) {
		const ws_thread *t = &s->th[i];
		for (size_t k = 0; t->used && !t->gpu && k < t->gcalls.n; k++) {
			const ws_gcall *g = &t->gcalls.v[k];
			if ((g->flags & (PT_GPU_CALL_F_SYNC | PT_GPU_CALL_F_TRANSFER)) &&
			    g->end > g->begin)
				one_call(&c, (uint32_t)i, g);
		}
	}
	if (!rc)
		drop_inner(r, c.waited.v, c.waited.n);
	free(c.waited.v);
	for (size_t i = 0; c.st && i < ns; i++) {
		free(c.st[i].launched);
	}
	free(c.st);
	free(l.v);
	return rc || r->oom ? -1 : 0;
}
