/* SPDX-License-Identifier: MIT */
/* MPI in the Paraver trace (docs/MPI.md, "Analysis"), as Extrae writes it:
 *
 *   every call: its family's type (50000001 point-to-point, 50000002
 *     collective, 50000003 other, 50000004 one-sided, 50000005 I/O) =
 *     the call's number at its begin, 0 at its end; the thread's state
 *     during it is the call's (Waiting a message, Blocking send, Wait/
 *     WaitAll, Group communication...; <paratrace/mpi_calls.h>);
 *   a collective: 50100001 bytes given, 50100002 bytes got, 50100003 1
 *     at the root, 50100004 its communicator;
 *   every message matched (mpi_common.h): a communication record from
 *     the sending thread's row to the receiving one's, logical and
 *     physical times, bytes and tag.
 *
 * Messages whose other end is not in the trace (a rank killed, a log
 * missing or cut short) are counted and said in the summary. */
#define _GNU_SOURCE
#include "mpi_common.h"
#include "pt_dist.h"
#include "pt_fw_mpi.h"
#include "pv.h"
#include "tools.h"

#include <stdio.h>
#include <string.h>

typedef struct mpi_global {
	const pt_trace_ctx *ctx;
	mpi_ranks ranks;
	mpi_comms comms;
	pthread_mutex_t lock; /* below */
	int ready;            /* communicators numbered (first shard_init) */
	mpi_ends sends, recvs;
	uint8_t used[256]; /* calls seen */
	int coll;          /* a collective was seen */
	mpi_match_stats stats;
	int oom;
} mpi_global;

typedef struct mpi_shard {
	mpi_track track;
	uint8_t used[256];
	int coll;
} mpi_shard;

static void *mpi_init(const pt_trace_ctx *ctx)
{
	mpi_global *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->ctx = ctx;
	pthread_mutex_init(&g->lock, NULL);
	if (mpi_ranks_init(&g->ranks, ctx))
		g->oom = 1;
	return g;
}

static void mpi_process_event(void *global, size_t process, const pt_event *ev)
{
	mpi_global *g = global;
	if (!g)
		return;
	mpi_ranks_process_event(&g->ranks, process, ev);
	mpi_comms_process_event(&g->comms, ev);
}

static void *mpi_shard_init(void *global, pv_shard *s)
{
	mpi_global *g = global;
	if (!g || s->info->kind != PT_FILE_THREAD)
		return NULL;
	pthread_mutex_lock(&g->lock);
	if (!g->ready) { /* numbers fixed before any record needs one */
		mpi_comms_number(&g->comms, 0);
		g->ready = 1;
	}
	pthread_mutex_unlock(&g->lock);
	mpi_shard *m = calloc(1, sizeof *m);
	if (m) {
		size_t p = s->info->process;
		mpi_track_init(&m->track, g->ctx, s->info, p < g->ranks.n ? g->ranks.rank[p] : -1);
	}
	return m;
}

static int mpi_event(void *global, void *shard_state, pv_shard *s, const pt_event *ev)
{
	mpi_global *g = global;
	mpi_shard *m = shard_state;
	if (!m)
		return 0;
	mpi_track_event(&m->track, ev);
	unsigned call = ev->rec->arg, family = mpi_call_family(call);
	switch (ev->kind) {
	case PT_REC_MPI_CALL:
		if (!family)
			break;
		m->used[call] = 1;
		pv_event(s, ev->time_ns, PT_MPI_TYPE_BASE + family, call);
		s->base_state = mpi_call_state(call);
		pv_set_state(s, ev->time_ns, s->base_state);
		break;
	case PT_REC_MPI_CALL_END:
		if (!family)
			break;
		pv_event(s, ev->time_ns, PT_MPI_TYPE_BASE + family, 0);
		s->base_state = PV_STATE_RUNNING;
		pv_set_state(s, ev->time_ns, PV_STATE_RUNNING);
		break;
	case PT_REC_MPI_COLL: {
		const pt_rec_mpi_coll *c = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_coll);
		uint32_t types[4] = {PT_MPI_EV_SENDSIZE, PT_MPI_EV_RECVSIZE, PT_MPI_EV_COMM,
		                     PT_MPI_EV_ROOT};
		int64_t values[4] = {(int64_t)c->sent, (int64_t)c->recvd,
		                     mpi_comms_number(&g->comms, c->comm), 1};
		int root = c->root >= 0 && pt_fw_mpi_rank_of(g->ctx, c->root) == m->track.rank;
		pv_events(s, ev->time_ns, root ? 4 : 3, types, values);
		m->coll = 1;
		break;
	}
	default:
		break;
	}
	return 0;
}

static void mpi_shard_exit(void *global, void *shard_state, pv_shard *s)
{
	mpi_global *g = global;
	mpi_shard *m = shard_state;
	if (!m)
		return;
	mpi_track_end(&m->track, s->t0 + s->last);
	/* under the tool's merge lock (pv.h): only this shard writes g now */
	if (mpi_ends_move(&g->sends, &m->track.sends) ||
	    mpi_ends_move(&g->recvs, &m->track.recvs) || m->track.oom)
		g->oom = 1;
	for (size_t i = 0; i < sizeof m->used; i++)
		g->used[i] |= m->used[i];
	g->coll |= m->coll;
	mpi_track_free(&m->track);
	free(m);
}

typedef struct comm_out {
	pv_comm *v;
	size_t n;
} comm_out;

static void one_comm(void *arg, const mpi_end *snd, const mpi_end *rcv)
{
	comm_out *o = arg;
	o->v[o->n++] = (pv_comm){snd->shard,          snd->pt,  rcv->shard, rcv->pt,
	                         (int64_t)snd->bytes, snd->tag, snd->lt,    rcv->lt};
}

static size_t mpi_comms_out(void *global, pv_comm **out)
{
	mpi_global *g = global;
	*out = NULL;
	if (!g || (!g->sends.n && !g->recvs.n))
		return 0;
	size_t most = g->sends.n < g->recvs.n ? g->sends.n : g->recvs.n;
	comm_out o = {malloc((most + 1) * sizeof *o.v), 0};
	if (!o.v) {
		g->oom = 1;
		return 0;
	}
	mpi_match(&g->sends, &g->recvs, one_comm, &o, &g->stats);
	*out = o.v;
	return o.n;
}

static void mpi_write_pcf(void *global, FILE *f)
{
	mpi_global *g = global;
	int any = 0;
	for (unsigned family = PT_MPI_PTOP; g && family <= PT_MPI_IO; family++) {
		int header = 0;
		for (unsigned call = 1; call < 256; call++) {
			if (!g->used[call] || mpi_call_family(call) != family)
				continue;
			if (!header) {
				fprintf(f, "\n\nEVENT_TYPE\n0    %u    %s\nVALUES\n0      End\n",
				        PT_MPI_TYPE_BASE + family, mpi_family_label(family));
				header = any = 1;
			}
			fprintf(f, "%-6u %s\n", call, mpi_call_name(call));
		}
	}
	if (g && g->coll)
		fprintf(f,
		        "\n\nEVENT_TYPE\n"
		        "1    %u    Send Size in MPI Global OP\n"
		        "1    %u    Recv Size in MPI Global OP\n"
		        "1    %u    Root in MPI Global OP\n"
		        "1    %u    Communicator in MPI Global OP\n",
		        PT_MPI_EV_SENDSIZE, PT_MPI_EV_RECVSIZE, PT_MPI_EV_ROOT, PT_MPI_EV_COMM);
	if (any) /* Extrae's colours of the MPI states */
		fputs("\n\nSTATES_COLOR\n3    {255,0,0}\n4    {255,0,174}\n6    {0,255,0}\n"
		      "8    {235,0,0}\n10   {255,0,255}\n11   {100,100,177}\n12   {172,174,41}\n"
		      "13   {255,144,26}\n15   {192,224,0}\n16   {66,66,66}\n",
		      f);
}

static void mpi_print(void *global, FILE *out)
{
	mpi_global *g = global;
	if (!g || !g->ranks.any || g->ctx->quiet)
		return;
	const mpi_match_stats *st = &g->stats;
	fprintf(out, "MPI: %llu messages matched", (unsigned long long)st->matched);
	if (st->unmatched_sends || st->unmatched_recvs)
		fprintf(out,
		        "; unmatched: %llu sends never received, %llu receives never sent "
		        "(a rank killed or its log missing or cut short)",
		        (unsigned long long)st->unmatched_sends,
		        (unsigned long long)st->unmatched_recvs);
	char missing[160];
	if (mpi_ranks_missing(&g->ranks, missing, sizeof missing))
		fprintf(out, "; ranks missing from the trace: %s", missing);
	if (st->clamped) {
		char by[32];
		pt_fmt_dur(by, sizeof by, st->clamped_max_ns);
		fprintf(out,
		        "; %llu received before sent on the synchronised clocks (by up to %s: "
		        "moved to the send)",
		        (unsigned long long)st->clamped, by);
	}
	if (g->oom)
		fputs("; out of memory: some messages are missing", out);
	fputc('\n', out);
}

/* Several analyzer processes: what each one's shards found. */
static void mpi_pack(void *global, pt_buf *b)
{
	mpi_global *g = global;
	pt_buf_u64(b, (uint64_t)g->oom);
	pt_buf_u64(b, (uint64_t)g->coll);
	pt_buf_put(b, g->used, sizeof g->used);
	PT_BUF_VEC(b, g->sends);
	PT_BUF_VEC(b, g->recvs);
}

static int unpack_ends(pt_rbuf *r, mpi_ends *into)
{
	size_t n = pt_rbuf_count(r, sizeof(mpi_end));
	for (size_t i = 0; i < n; i++) {
		mpi_end e;
		pt_rbuf_get(r, &e, sizeof e);
		if (mpi_ends_push(into, &e))
			return -1;
	}
	return r->err ? -1 : 0;
}

static int mpi_unpack(void *global, const void *data, size_t len)
{
	mpi_global *g = global;
	pt_rbuf r = {data, (const char *)data + len, 0};
	g->oom |= (int)pt_rbuf_u64(&r);
	g->coll |= (int)pt_rbuf_u64(&r);
	uint8_t used[sizeof g->used];
	pt_rbuf_get(&r, used, sizeof used);
	for (size_t i = 0; i < sizeof used; i++)
		g->used[i] |= used[i];
	if (unpack_ends(&r, &g->sends) || unpack_ends(&r, &g->recvs) || r.err)
		return -1;
	return 0;
}

/* An MPI trace opens with the MPI calls and their messages (mpi.cfg). */
static const char *mpi_main_view(void *global)
{
	const mpi_global *g = global;
	return g && g->ranks.any ? "mpi.cfg" : NULL;
}

static void mpi_destroy(void *global)
{
	mpi_global *g = global;
	if (!g)
		return;
	mpi_ranks_free(&g->ranks);
	mpi_comms_free(&g->comms);
	mpi_ends_free(&g->sends);
	mpi_ends_free(&g->recvs);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

const pv_family mpi_paraver = {
    .name = "mpi",
    .kind_first = PT_REC_RANGE_MPI_FIRST,
    .kind_last = PT_REC_RANGE_MPI_LAST,
    .init = mpi_init,
    .process_event = mpi_process_event,
    .shard_init = mpi_shard_init,
    .event = mpi_event,
    .shard_exit = mpi_shard_exit,
    .write_pcf = mpi_write_pcf,
    .comms = mpi_comms_out,
    .destroy = mpi_destroy,
    .print_results = mpi_print,
    .pack = mpi_pack,
    .unpack = mpi_unpack,
    .main_view = mpi_main_view,
};
