/* SPDX-License-Identifier: MIT */
/* Wait states in the Paraver trace (analyze --waits; docs/ANALYZER.md,
 * "Wait states"), types of their own, 69000000-69000099:
 *
 *   69000000  the wait state a thread is in: its pattern (1 late_sender ..
 *             9 join_wait, 10 gpu_sync_wait), 0 when it ends
 *   69000001  the thread that made it wait: its shard + 1 (labelled "rank R
 *             thread T (pid P tid T)", or "rank R <GPU row> (pid P)" for the
 *             stream a kernel or copy ran on), 0 at the end
 *   69000002  the function that thread was in meanwhile (the values of
 *             60000019), 0 at the end; written for functions the process
 *             logs define
 *   69000010  1 while the thread is on the critical path, 0 when it leaves
 *
 * The records are the report's (waits.h), gathered in the writer's pass
 * and analysed once every shard ended (under several analyzer processes,
 * once the first has every process's): they go into the trace with the
 * communications (pv_family.late_events). */
#define _GNU_SOURCE
#include "pt_framework.h"
#include "pt_text.h"
#include "pv.h"
#include "tools.h"
#include "waits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WS_EV_STATE 69000000u
#define WS_EV_CAUSE 69000001u
#define WS_EV_CAUSE_FUNC 69000002u
#define WS_EV_PATH 69000010u

typedef struct wp_global {
	ws_set set;
	ws_result res;
	int analysed, failed;
	/* what the trace shows, for the .pcf */
	unsigned char pattern_used[WS_NPATTERNS];
	unsigned char *cause_used; /* [nshards] */
	WS_VEC(uint32_t) funcs;
	int path;
} wp_global;

static void *wp_init(const pt_trace_ctx *ctx)
{
	wp_global *g = calloc(1, sizeof *g);
	if (g && ws_set_init(&g->set, ctx)) {
		free(g);
		g = NULL;
	}
	if (g && !(g->cause_used = calloc(ctx->nshards + 1, 1))) {
		ws_set_free(&g->set);
		free(g);
		g = NULL;
	}
	return g;
}

static void wp_process_event(void *global, size_t process, const pt_event *ev)
{
	if (global)
		ws_set_process_event(&((wp_global *)global)->set, process, ev);
}

static void *wp_shard_init(void *global, pv_shard *s)
{
	wp_global *g = global;
	if (!g || (s->info->kind != PT_FILE_THREAD && s->info->kind != PT_FILE_GPU))
		return NULL;
	ws_reader *r = ws_reader_new(&g->set, s->info);
	if (!r)
		g->set.oom = 1;
	return r;
}

static int wp_event(void *global, void *state, pv_shard *s, const pt_event *ev)
{
	(void)global;
	(void)s;
	if (state)
		ws_reader_event(state, ev);
	return 0;
}

static void wp_shard_exit(void *global, void *state, pv_shard *s)
{
	(void)global;
	/* the reader knows its last record's time itself */
	if (state)
		ws_reader_end(state, s->info->first_ns);
}

static void wp_pack(void *global, struct pt_buf *out)
{
	ws_set_pack(&((wp_global *)global)->set, out);
}

static int wp_unpack(void *global, const void *data, size_t len)
{
	return ws_set_unpack(&((wp_global *)global)->set, data, len);
}

static int analyse(wp_global *g)
{
	if (!g->analysed) {
		g->analysed = 1;
		g->failed = ws_analyze(&g->set, &g->res) != 0;
	}
	return g->failed ? -1 : 0;
}

typedef WS_VEC(pv_late) late_vec;

/* A value at a and 0 at b on shard sh: -1 on ENOMEM. */
static int set_between(late_vec *v, size_t sh, uint32_t type, int64_t value, uint64_t a, uint64_t b)
{
	if (WS_PUSH(*v, ((pv_late){sh, a, type, value})))
		return -1;
	return WS_PUSH(*v, ((pv_late){sh, b, type, 0}));
}

static size_t wp_late_events(void *global, pv_late **out)
{
	wp_global *g = global;
	*out = NULL;
	if (!g || analyse(g))
		return 0;
	uint32_t fixed = pt_fw_static_funcs(g->set.ctx);
	late_vec v = {0};
	int oom = 0;
	for (size_t i = 0; i < g->res.inst.n; i++) {
		const ws_inst *x = &g->res.inst.v[i];
		uint32_t f = x->cause != WS_NONE && x->cause_name &&
		                     !(x->cause_name & (WS_NAME_MPI | WS_NAME_GPU)) &&
		                     x->cause_name <= fixed
		                 ? x->cause_name
		                 : 0;
		g->pattern_used[x->pattern] = 1;
		oom |= set_between(&v, x->shard, WS_EV_STATE, x->pattern + 1, x->begin, x->end);
		if (x->cause != WS_NONE) {
			g->cause_used[x->cause] = 1;
			oom |=
			    set_between(&v, x->shard, WS_EV_CAUSE, x->cause + 1, x->begin, x->end);
		}
		if (f) {
			size_t k = 0;
			while (k < g->funcs.n && g->funcs.v[k] != f)
				k++;
			if (k == g->funcs.n)
				oom |= WS_PUSH(g->funcs, f);
			oom |= set_between(&v, x->shard, WS_EV_CAUSE_FUNC, f, x->begin, x->end);
		}
	}
	for (size_t i = 0; i < g->res.spans.n; i++) {
		const ws_span *sp = &g->res.spans.v[i];
		g->path = 1;
		oom |= set_between(&v, sp->shard, WS_EV_PATH, 1, sp->a, sp->b);
	}
	if (oom) {
		free(v.v);
		return 0;
	}
	*out = v.v;
	return v.n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static void wp_write_pcf(void *global, FILE *f)
{
	wp_global *g = global;
	if (!g || !g->analysed || g->failed)
		return;
	const pt_trace_ctx *ctx = g->set.ctx;
	fprintf(f, "\nEVENT_TYPE\n0    %u    Wait state\nVALUES\n0      End\n", WS_EV_STATE);
	/* gpu_sync_wait where the trace has GPU streams: the .pcf of others
	 * stays as it was */
	int gpu = 0;
	for (size_t i = 0; i < ctx->nshards && !gpu; i++)
		gpu = ctx->shards[i].kind == PT_FILE_GPU;
	for (unsigned p = 0; p < WS_NPATTERNS; p++)
		if (p != WS_GPU_SYNC_WAIT || gpu)
			fprintf(f, "%u      %s\n", p + 1, ws_pattern_name(p));
	fprintf(f, "\nEVENT_TYPE\n0    %u    Wait caused by thread\nVALUES\n0      End\n",
	        WS_EV_CAUSE);
	for (size_t i = 0; i < ctx->nshards; i++)
		if (g->cause_used[i]) {
			const ws_thread *t = &g->set.th[i];
			char l[64];
			ws_gpu_label(&g->set, (uint32_t)i, l, sizeof l);
			if (t->gpu)
				fprintf(f, "%zu      rank %d %s (pid %u)\n", i + 1, t->rank, l,
				        ctx->shards[i].pid);
			else
				fprintf(f, "%zu      rank %d thread %u (pid %u tid %u)\n", i + 1,
				        t->rank, t->thread, ctx->shards[i].pid, ctx->shards[i].tid);
		}
	fprintf(f,
	        "\nEVENT_TYPE\n0    %u    Function the causing thread was in\nVALUES\n0      End\n",
	        WS_EV_CAUSE_FUNC);
	pt_qsort(g->funcs.v, g->funcs.n, sizeof *g->funcs.v, cmp_u32);
	for (size_t i = 0; i < g->funcs.n; i++) {
		const pt_func_info *fi = pt_ctx_func_info(ctx, g->funcs.v[i]);
		fprintf(f, "%u      ", g->funcs.v[i]);
		pt_label_put(f, fi ? fi->name : "?");
		fputc('\n', f);
	}
	fprintf(f, "\nEVENT_TYPE\n0    %u    On the critical path\nVALUES\n0      No\n1      Yes\n",
	        WS_EV_PATH);
}

/* The summary under the trace's name: the waits by pattern and rank, the
 * critical path's length and its first functions (the same figures as
 * `report`'s section, from one process or several). */
static void wp_print_results(void *global, FILE *out)
{
	wp_global *g = global;
	if (!g || !g->analysed || g->failed)
		return;
	struct {
		uint32_t pattern;
		int32_t rank;
		uint64_t ns;
	} by[64];
	size_t n = 0;
	for (size_t i = 0; i < g->res.inst.n; i++) {
		const ws_inst *x = &g->res.inst.v[i];
		int32_t rank = g->set.th[x->shard].rank;
		size_t k = 0;
		while (k < n && (by[k].pattern != x->pattern || by[k].rank != rank))
			k++;
		if (k == n) {
			if (n == 64)
				continue;
			by[n].pattern = x->pattern;
			by[n].rank = rank;
			by[n++].ns = 0;
		}
		by[k].ns += x->end - x->begin;
	}
	char d[32];
	fputs("Wait states:", out);
	for (size_t shown = 0; shown < 6 && shown < n; shown++) {
		size_t best = shown;
		for (size_t k = shown + 1; k < n; k++)
			if (by[k].ns > by[best].ns)
				best = k;
		__typeof__(by[0]) x = by[best];
		by[best] = by[shown];
		by[shown] = x;
		pt_fmt_dur(d, sizeof d, x.ns);
		fprintf(out, "%s %s %s (rank %d)", shown ? "," : "", ws_pattern_name(x.pattern), d,
		        x.rank);
	}
	fputs(n ? (n > 6 ? ", ...\n" : "\n") : " none\n", out);
	ws_cp *f = NULL;
	size_t nf = ws_path_functions(&g->res, &f);
	pt_fmt_dur(d, sizeof d, g->res.path_ns);
	fprintf(out, "Critical path: %s", d);
	for (size_t i = 0; i < nf && i < 3; i++) {
		pt_fmt_dur(d, sizeof d, f[i].ns);
		fputs(i ? ", " : ": ", out);
		pt_text_put(out, ws_name(&g->set, f[i].name), 0);
		fprintf(out, " %s (%.1f%%)", d,
		        g->res.path_ns ? 100.0 * (double)f[i].ns / (double)g->res.path_ns : 0.0);
	}
	fputc('\n', out);
	free(f);
}

static void wp_destroy(void *global)
{
	wp_global *g = global;
	if (!g)
		return;
	ws_result_free(&g->res);
	ws_set_free(&g->set);
	free(g->cause_used);
	free(g->funcs.v);
	free(g);
}

const pv_family waits_paraver = {
    .name = "waits",
    .kind_first = 0,
    .kind_last = 0xff,
    .init = wp_init,
    .process_event = wp_process_event,
    .shard_init = wp_shard_init,
    .event = wp_event,
    .shard_exit = wp_shard_exit,
    .write_pcf = wp_write_pcf,
    .print_results = wp_print_results,
    .destroy = wp_destroy,
    .pack = wp_pack,
    .unpack = wp_unpack,
    .option = "waits",
    .late_events = wp_late_events,
};
