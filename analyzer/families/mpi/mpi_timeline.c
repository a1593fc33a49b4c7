/* SPDX-License-Identifier: MIT */
/* MPI on the timelines (tools/timeline/timeline.h): each call a slice of
 * its own on its thread ("MPI_Send"); each matched message (mpi_common.h)
 * a flow from its send (when the send began) to its receive (when it
 * completed), written once every thread's messages are known, per thread
 * row in time order, after the shards' files. */
#define _GNU_SOURCE
#include "mpi_common.h"
#include "pt_fw_util.h"
#include "timeline.h"

#include <stdlib.h>

typedef struct mpi_tl {
	const pt_trace_ctx *ctx;
	mpi_ranks ranks;
	mpi_ends sends, recvs; /* every thread's (under the tool's lock) */
} mpi_tl;

/* A thread's calls and messages. */
typedef struct mpi_tl_thread {
	mpi_track track;
	unsigned call; /* the open call: a slice at its end */
	uint64_t begin;
} mpi_tl_thread;

#define MESSAGE "MPI message"

/* The messages' flow ids: 5 * 2^50 + the message's number, in the order of
 * sends (timeline.h). */
static uint64_t message_flow(uint64_t k)
{
	return (5ull << 50) + (k & ((1ull << 50) - 1));
}

static int tl_mpi_init(const pt_trace_ctx *ctx, void **global)
{
	mpi_tl *g = calloc(1, sizeof *g);
	if (!g || mpi_ranks_init(&g->ranks, ctx)) {
		if (g)
			mpi_ranks_free(&g->ranks);
		free(g);
		return -1;
	}
	g->ctx = ctx;
	*global = g;
	return 0;
}

static void tl_mpi_process_event(void *global, size_t process, const pt_event *ev)
{
	mpi_tl *g = global;
	mpi_ranks_process_event(&g->ranks, process, ev);
}

static int tl_mpi_shard_init(void *global, const pt_shard_info *info, void **shard)
{
	mpi_tl *g = global;
	if (info->kind != PT_FILE_THREAD)
		return 0;
	mpi_tl_thread *m = calloc(1, sizeof *m);
	if (!m)
		return -1;
	mpi_track_init(&m->track, g->ctx, info,
	               info->process < g->ranks.n ? g->ranks.rank[info->process] : -1);
	*shard = m;
	return 0;
}

static int tl_mpi_event(void *global, void **shard, tl_sel *q, const pt_event *ev)
{
	(void)global;
	mpi_tl_thread *m = *shard;
	if (!m)
		return 0;
	switch (ev->kind) {
	case PT_REC_MPI_CALL:
		mpi_track_event(&m->track, ev);
		m->call = ev->rec->arg;
		m->begin = ev->time_ns;
		break;
	case PT_REC_MPI_CALL_END: {
		mpi_track_event(&m->track, ev);
		const char *name = mpi_call_name(m->call);
		if (m->call && name)
			tl_sel_device(q, m->begin, ev->time_ns - m->begin, "mpi", name, 0, NULL);
		m->call = 0;
		break;
	}
	case PT_REC_MPI_SEND:
	case PT_REC_MPI_RECV: mpi_track_event(&m->track, ev); break;
	default: break;
	}
	return 0;
}

static void tl_mpi_shard_end(void *global, void *shard, tl_sel *q, uint64_t last_ns)
{
	(void)global;
	(void)q;
	mpi_tl_thread *m = shard;
	if (m)
		mpi_track_end(&m->track, last_ns);
}

static int tl_mpi_shard_exit(void *global, void *shard)
{
	mpi_tl *g = global;
	mpi_tl_thread *m = shard;
	if (!m)
		return 0;
	int rc = mpi_ends_move(&g->sends, &m->track.sends) ||
	                 mpi_ends_move(&g->recvs, &m->track.recvs) || m->track.oom
	             ? -1
	             : 0;
	mpi_track_free(&m->track);
	free(m);
	return rc;
}

/* Each row's flow points, gathered from the matched messages. */
typedef struct flow_pts {
	tl_flow_pt *v;
	size_t n, cap;
} flow_pts;
typedef struct flows {
	flow_pts *per; /* per shard */
	uint64_t k;
	int oom;
} flows;

static void flow_push(flows *f, uint32_t shard, uint64_t t, int out, uint64_t flow)
{
	flow_pts *p = &f->per[shard];
	if (p->n == p->cap) {
		size_t ncap = p->cap ? 2 * p->cap : 16;
		tl_flow_pt *v = realloc(p->v, ncap * sizeof *v);
		if (!v) {
			f->oom = 1;
			return;
		}
		p->v = v;
		p->cap = ncap;
	}
	p->v[p->n++] = (tl_flow_pt){t, flow, out};
}

static void one_flow(void *arg, const mpi_end *snd, const mpi_end *rcv)
{
	flows *f = arg;
	uint64_t id = message_flow(f->k++);
	flow_push(f, snd->shard, snd->lt, 1, id);
	flow_push(f, rcv->shard, rcv->pt, 0, id);
}

static int cmp_flow_pt(const void *a, const void *b)
{
	const tl_flow_pt *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

static int tl_mpi_finish(void *global, tl_late *w)
{
	mpi_tl *g = global;
	size_t nshards = g->ctx->nshards;
	if (!g->sends.n || !g->recvs.n)
		return 0;
	flows f = {calloc(nshards + 1, sizeof *f.per), 0, 0};
	if (!f.per)
		return -1;
	mpi_match_stats st;
	mpi_match(&g->sends, &g->recvs, one_flow, &f, &st);
	for (size_t i = 0; i < nshards && !f.oom; i++) {
		flow_pts *p = &f.per[i];
		if (!p->n)
			continue;
		pt_qsort(p->v, p->n, sizeof *p->v, cmp_flow_pt);
		if (tl_late_flows(w, i, MESSAGE, p->v, p->n))
			f.oom = 1;
	}
	for (size_t i = 0; i < nshards; i++)
		free(f.per[i].v);
	free(f.per);
	return f.oom ? -1 : 0;
}

static void tl_mpi_destroy(void *global)
{
	mpi_tl *g = global;
	if (!g)
		return;
	mpi_ranks_free(&g->ranks);
	mpi_ends_free(&g->sends);
	mpi_ends_free(&g->recvs);
	free(g);
}

const tl_family mpi_timeline = {
	.kind_first = PT_REC_RANGE_MPI_FIRST,
	.kind_last = PT_REC_RANGE_MPI_LAST,
	.init = tl_mpi_init,
	.process_event = tl_mpi_process_event,
	.shard_init = tl_mpi_shard_init,
	.event = tl_mpi_event,
	.shard_end = tl_mpi_shard_end,
	.shard_exit = tl_mpi_shard_exit,
	.finish = tl_mpi_finish,
	.destroy = tl_mpi_destroy,
};
