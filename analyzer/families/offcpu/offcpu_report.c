/* SPDX-License-Identifier: MIT */
/* The report's off-CPU section: each thread's time and each function's
 * exclusive time split into running, waiting and off-CPU.
 *
 *   waiting   inside a lock request, condition wait, join or barrier (the
 *             waits every output shows, pt_waits.h)
 *   off-CPU   in an OFFCPU stretch, less what of it was inside a wait
 *             (a wait that blocks is off the CPU too: it counts as waiting)
 *   running   the rest
 * A function's share is the time it was the innermost traced frame
 * (exclusive time); a stretch goes to the functions that were innermost
 * while it lasted. Its record may come after later records (a preemption
 * the runtime learned of late): the last OC_HIST changes of the innermost
 * frame are kept to look back, and what is older than them counts for
 * the thread only. Threads whose log has no OFFCPU_SOURCE
 * (traced with PARATRACE_OFFCPU=off, or by an older runtime) are listed
 * as such, not as never off the CPU. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "pt_fw_util.h"
#include "offcpu.h"

#include "pt_callstack.h"
#include "pt_func_lookup.h"
#include "pt_text.h"
#include "pt_waits.h"
#include "row_label.h"
#include "tools.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OC_RECENT 8  /* ended waits a late stretch is checked against */
#define OC_HIST 1024 /* the last changes of the innermost frame, for late stretches */

static const pt_callstack_ops oc_no_ops; /* frames are only read */

typedef struct oc_split {
	uint64_t total, wait, off;
} oc_split;

typedef struct oc_thread {
	oc_split t;
	uint64_t preempted; /* of off: switched out while it could have run */
	uint64_t lost;      /* switches the kernel lost */
	uint64_t stretches;
	int source; /* PT_OFFCPU_SOURCE_*, 0: no record (off, or an older runtime) */
} oc_thread;

typedef struct oc_tool {
	const pt_trace_ctx *ctx;
	int json;
	unsigned top;
	pthread_mutex_t lock; /* below */
	oc_thread *threads;   /* per shard */
	oc_split *f;          /* per function id; 0: outside any traced function */
	size_t nf;
} oc_tool;

typedef struct oc_shard {
	oc_tool *tool;
	const pt_shard_info *info;
	pt_func_lookup fl;
	pt_callstack cs;
	pt_waits ws;
	uint64_t last; /* the previous record's time: exclusive time runs from it */
	int started;
	/* the wait in progress (its begin), and the last ones that ended */
	int waiting;
	uint64_t wait_begin;
	uint64_t recent[OC_RECENT][2];
	unsigned nrecent;
	/* from hist[k].t on, function hist[k].id was innermost (a ring) */
	struct {
		uint64_t t;
		uint32_t id;
	} hist[OC_HIST];
	uint64_t nhist;
	oc_split *f;
	size_t nf;
	oc_thread th;
	char err[128];
} oc_shard;

static void *oc_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	oc_tool *t = calloc(1, sizeof *t);
	if (!t || !(t->threads = calloc(ctx->nshards ? ctx->nshards : 1, sizeof *t->threads))) {
		free(t);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->ctx = ctx;
	t->top = 10;
	t->json = options && !strncmp(options, "json", 4);
	const char *top = options ? strstr(options, "top=") : NULL;
	if (top && atoi(top + 4) > 0)
		t->top = (unsigned)atoi(top + 4);
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

static void *oc_shard_init(void *tool, const pt_shard_info *in, char *err, size_t errlen)
{
	oc_tool *t = tool;
	if (in->kind != PT_FILE_THREAD)
		return calloc(1, sizeof(oc_shard)); /* a device row: nothing to split */
	oc_shard *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->tool = t;
	s->info = in;
	pt_func_lookup_init(&s->fl, t->ctx, in->process);
	pt_callstack_init(&s->cs, in->header);
	pt_waits_init(&s->ws);
	return s;
}

static oc_split *fn_at(oc_shard *s, uint32_t id)
{
	if (id >= s->nf) {
		size_t n;
		oc_split *f = pt_grow_zeroed(s->f, s->nf, id, sizeof *f, 64, &n);
		if (!f)
			return NULL;
		s->f = f;
		s->nf = n;
	}
	return &s->f[id];
}

static uint32_t innermost(const oc_shard *s)
{
	return s->cs.depth ? s->cs.ids[s->cs.depth - 1] : 0;
}

static uint64_t overlap(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t lo = a > c ? a : c, hi = b < d ? b : d;
	return hi > lo ? hi - lo : 0;
}

/* What of [a, b] no wait of the thread covers. */
static uint64_t outside_waits(const oc_shard *s, uint64_t a, uint64_t b, uint64_t now)
{
	uint64_t in = 0;
	if (s->waiting)
		in += overlap(a, b, s->wait_begin, now);
	unsigned n = s->nrecent < OC_RECENT ? s->nrecent : OC_RECENT;
	for (unsigned i = 0; i < n; i++)
		in += overlap(a, b, s->recent[i][0], s->recent[i][1]);
	return b - a > in ? b - a - in : 0;
}

static void note_innermost(oc_shard *s, uint64_t now)
{
	uint32_t id = innermost(s);
	if (s->nhist && s->hist[(s->nhist - 1) % OC_HIST].id == id)
		return;
	s->hist[s->nhist % OC_HIST].t = now;
	s->hist[s->nhist % OC_HIST].id = id;
	s->nhist++;
}

/* `off` ns of the stretch [a, b] to the functions that were innermost in
 * it, in proportion, as far back as the ring of changes goes; what is
 * older goes to no function (id 0: the thread's figure only). -1: out of
 * memory. */
static int share_off(oc_shard *s, uint64_t a, uint64_t b, uint64_t off)
{
	uint64_t len = b - a, given = 0, end = UINT64_MAX;
	uint64_t n = s->nhist < OC_HIST ? s->nhist : OC_HIST;
	uint32_t id = len ? 0 : innermost(s);
	for (uint64_t i = 0; i < n && len; i++) {
		uint64_t k = (s->nhist - 1 - i) % OC_HIST;
		uint64_t o = overlap(a, b, s->hist[k].t, end);
		if (o) {
			uint64_t part = (uint64_t)((unsigned __int128)off * o / len);
			oc_split *f = fn_at(s, s->hist[k].id);
			if (!f)
				return -1;
			f->off += part;
			given += part;
		}
		if (s->hist[k].t <= a) {
			id = s->hist[k].id; /* the rounding's few ns */
			break;
		}
		end = s->hist[k].t;
	}
	oc_split *f = fn_at(s, id);
	if (!f)
		return -1;
	f->off += off - given;
	return 0;
}

static int oc_fail(oc_shard *s)
{
	snprintf(s->err, sizeof s->err, "out of memory");
	return -1;
}

static int oc_event(void *state, const pt_event *ev)
{
	oc_shard *s = state;
	if (!s->tool)
		return 0;
	uint64_t now = ev->time_ns;
	if (ev->kind == PT_REC_TIME)
		return 0;
	if (!s->started) {
		s->started = 1;
		s->last = now;
	}
	/* the time since the previous record was the innermost frame's */
	oc_split *f = fn_at(s, innermost(s));
	if (!f)
		return oc_fail(s);
	if (now > s->last)
		f->total += now - s->last;
	s->last = now > s->last ? now : s->last;

	int enter = 0;
	uint32_t id = pt_event_func(ev, &s->fl, &enter);
	if (pt_rec_is_func(ev->kind) || pt_rec_is_func_pc(ev->kind) ||
	    ev->kind == PT_REC_FUNC_LANDED) {
		if (!pt_callstack_step(&s->cs, id, enter, now))
			pt_callstack_func(&s->cs, id, enter, now, &oc_no_ops, NULL);
		note_innermost(s, now);
		return 0;
	}
	pt_callstack_record(&s->cs, ev, &oc_no_ops, NULL);
	note_innermost(s, now); /* a frame a landing left open may have closed */

	pt_wait w;
	switch (pt_waits_record(&s->ws, ev, &w)) {
	case PT_WAITS_BEGAN:
		s->waiting = 1;
		s->wait_begin = w.begin;
		return 0;
	case PT_WAITS_ENDED:
		s->waiting = 0;
		if (w.begun && w.end > w.begin) {
			f->wait += w.end - w.begin;
			s->th.t.wait += w.end - w.begin;
			s->recent[s->nrecent++ % OC_RECENT][0] = w.begin;
			s->recent[(s->nrecent - 1) % OC_RECENT][1] = w.end;
		}
		return 0;
	default:
		break;
	}

	if (ev->kind == PT_REC_OFFCPU_SOURCE) {
		const pt_rec_offcpu_source *src = PT_REC_PAYLOAD(ev->rec, pt_rec_offcpu_source);
		s->th.source = ev->rec->arg;
		s->th.lost += src ? src->lost : 0;
		return 0;
	}
	uint64_t out, in;
	if (oc_stretch(s->info, ev, &out, &in))
		return 0;
	uint64_t off = outside_waits(s, out, in, now);
	if (share_off(s, out, in, off))
		return oc_fail(s);
	s->th.t.off += off;
	s->th.stretches++;
	if (pt_offcpu_cause(ev->rec->arg) == PT_OFFCPU_PREEMPTED)
		s->th.preempted += off;
	return 0;
}

static int oc_shard_exit(void *state, uint64_t last_ns, int complete)
{
	(void)complete;
	oc_shard *s = state;
	oc_tool *t = s->tool;
	if (t) {
		/* the log's end: the innermost frame ran until then */
		oc_split *f = fn_at(s, innermost(s));
		if (f && last_ns > s->last)
			f->total += last_ns - s->last;
		/* a wait still open at the end lasted until then */
		if (s->waiting && last_ns > s->wait_begin) {
			if (f)
				f->wait += last_ns - s->wait_begin;
			s->th.t.wait += last_ns - s->wait_begin;
		}
		s->th.t.total = last_ns > s->info->first_ns ? last_ns - s->info->first_ns : 0;
		pthread_mutex_lock(&t->lock);
		t->threads[s->info->index] = s->th;
		if (s->nf > t->nf) {
			oc_split *g = realloc(t->f, s->nf * sizeof *g);
			if (g) {
				memset(g + t->nf, 0, (s->nf - t->nf) * sizeof *g);
				t->f = g;
				t->nf = s->nf;
			}
		}
		for (size_t i = 0; i < s->nf && i < t->nf; i++) {
			t->f[i].total += s->f[i].total;
			t->f[i].wait += s->f[i].wait;
			t->f[i].off += s->f[i].off;
		}
		pthread_mutex_unlock(&t->lock);
		pt_callstack_free(&s->cs);
		pt_func_lookup_free(&s->fl);
		free(s->f);
	}
	free(s);
	return 0;
}

static const char *oc_shard_error(void *state)
{
	return ((oc_shard *)state)->err;
}

static uint64_t running(const oc_split *x)
{
	uint64_t not_running = x->wait + x->off;
	return x->total > not_running ? x->total - not_running : 0;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Functions by off-CPU time, then waiting, then time, the most first;
 * then by name: ids follow which worker met a function first, and the
 * order must not change with -j. */
static const oc_split *sort_base;
static const pt_trace_ctx *sort_ctx;
static int by_off(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const oc_split *x = &sort_base[i], *y = &sort_base[j];
	if (x->off != y->off)
		return x->off < y->off ? 1 : -1;
	if (x->wait != y->wait)
		return x->wait < y->wait ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	const pt_func_info *fi = pt_ctx_func_info(sort_ctx, i), *fj = pt_ctx_func_info(sort_ctx, j);
	int c = strcmp(fi ? fi->name : "", fj ? fj->name : "");
	if (c)
		return c;
	return i < j ? -1 : i > j;
}

/* Function ids with any time, sorted (malloc'ed; *n of them). */
static uint32_t *sorted_functions(const oc_tool *t, size_t *n)
{
	uint32_t *ids = malloc((t->nf ? t->nf : 1) * sizeof *ids);
	*n = 0;
	if (!ids)
		return NULL;
	for (size_t i = 1; i < t->nf; i++)
		if (t->f[i].total || t->f[i].off || t->f[i].wait)
			ids[(*n)++] = (uint32_t)i;
	sort_base = t->f;
	sort_ctx = t->ctx;
	pt_qsort(ids, *n, sizeof *ids, by_off);
	return ids;
}

static const char *source_name(int source)
{
	return source == PT_OFFCPU_SOURCE_SWITCHES ? "switches"
	       : source == PT_OFFCPU_SOURCE_CALLS  ? "calls"
	                                           : "none";
}

static int any_source(const oc_tool *t)
{
	for (size_t i = 0; i < t->ctx->nshards; i++)
		if (t->threads[i].source)
			return 1;
	return 0;
}

/* One row of a table: a name (the trace's bytes, escaped and cut to 30
 * columns: at its start for a thread, whose name ends its label), then
 * time, running, waiting, off-CPU, off%. */
static void text_row(FILE *o, const char *name, int keep_end, const oc_split *x)
{
	char a[24], b[24], c[24], d[24], fit[160];
	pt_text_fit(fit, sizeof fit, name, 30, keep_end);
	size_t cols = pt_text_cols(fit);
	pt_fmt_dur(a, sizeof a, x->total);
	pt_fmt_dur(b, sizeof b, running(x));
	pt_fmt_dur(c, sizeof c, x->wait);
	pt_fmt_dur(d, sizeof d, x->off);
	fprintf(o, "  %s%*s %9s %9s %9s %9s %5.1f%%", fit, (int)(cols < 30 ? 30 - cols : 0), "", a,
	        b, c, d, pct(x->off, x->total));
}

/* Within 100 columns: the lost switches get a line of their own. */
static void print_text(oc_tool *t, FILE *o)
{
	const pt_trace_ctx *ctx = t->ctx;
	char a[24], label[256];
	fputs("\nOff-CPU time (waiting: in locks, conditions, joins, barriers)\n", o);
	fprintf(o, "  %-30s %9s %9s %9s %9s %6s %9s  %s\n", "thread", "time", "running", "waiting",
	        "off-CPU", "off%", "preempted", "from");
	for (size_t i = 0; i < ctx->nshards; i++) {
		const oc_thread *th = &t->threads[i];
		if (ctx->shards[i].kind != PT_FILE_THREAD)
			continue;
		pt_thread_row_label(ctx, &ctx->shards[i], NULL, label, sizeof label);
		text_row(o, label, 1, &th->t);
		pt_fmt_dur(a, sizeof a, th->preempted);
		fprintf(o, " %9s  %s\n", a, source_name(th->source));
	}
	for (size_t i = 0; i < ctx->nshards; i++)
		if (t->threads[i].lost)
			fprintf(o, "  thread %u: %llu context switches lost (its ring was full)\n",
			        ctx->shards[i].tid, (unsigned long long)t->threads[i].lost);
	size_t n;
	uint32_t *ids = sorted_functions(t, &n);
	if (ids && n) {
		fprintf(o, "  %-30s %9s %9s %9s %9s %6s\n", "function (exclusive time)", "time",
		        "running", "waiting", "off-CPU", "off%");
		for (size_t k = 0; k < n && k < t->top; k++) {
			const pt_func_info *fi = pt_ctx_func_info(ctx, ids[k]);
			text_row(o, fi ? fi->name : "?", 0, &t->f[ids[k]]);
			fputc('\n', o);
		}
	}
	free(ids);
}

static void print_json(oc_tool *t, FILE *o)
{
	const pt_trace_ctx *ctx = t->ctx;
	char label[256];
	fputs(",\n \"offcpu\": {\"threads\": [", o);
	int first = 1;
	for (size_t i = 0; i < ctx->nshards; i++) {
		const oc_thread *th = &t->threads[i];
		if (ctx->shards[i].kind != PT_FILE_THREAD)
			continue;
		pt_thread_row_label(ctx, &ctx->shards[i], NULL, label, sizeof label);
		fprintf(o, "%s\n  {\"pid\": %u, \"tid\": %u, \"name\": ", first ? "" : ",",
		        ctx->shards[i].pid, ctx->shards[i].tid);
		pt_json_str(o, label);
		fprintf(o,
		        ", \"source\": \"%s\", \"time_ns\": %llu, \"running_ns\": %llu, "
		        "\"waiting_ns\": %llu, \"offcpu_ns\": %llu, \"preempted_ns\": %llu, "
		        "\"stretches\": %llu, \"lost_switches\": %llu}",
		        source_name(th->source), (unsigned long long)th->t.total,
		        (unsigned long long)running(&th->t), (unsigned long long)th->t.wait,
		        (unsigned long long)th->t.off, (unsigned long long)th->preempted,
		        (unsigned long long)th->stretches, (unsigned long long)th->lost);
		first = 0;
	}
	fputs("\n ], \"functions\": [", o);
	size_t n;
	uint32_t *ids = sorted_functions(t, &n);
	for (size_t k = 0; ids && k < n; k++) {
		const oc_split *x = &t->f[ids[k]];
		const pt_func_info *fi = pt_ctx_func_info(ctx, ids[k]);
		fprintf(o, "%s\n  {\"name\": ", k ? "," : "");
		pt_json_str(o, fi ? fi->name : "?");
		fprintf(o,
		        ", \"excl_ns\": %llu, \"running_ns\": %llu, \"waiting_ns\": %llu, "
		        "\"offcpu_ns\": %llu}",
		        (unsigned long long)x->total, (unsigned long long)running(x),
		        (unsigned long long)x->wait, (unsigned long long)x->off);
	}
	free(ids);
	fputs("\n ]}", o);
}

static int oc_print(void *tool, FILE *o)
{
	oc_tool *t = tool;
	if (t->json)
		print_json(t, o);
	else if (any_source(t))
		print_text(t, o);
	return 0;
}

static void oc_destroy(void *tool)
{
	oc_tool *t = tool;
	pthread_mutex_destroy(&t->lock);
	free(t->threads);
	free(t->f);
	free(t);
}

const pt_tool *pt_tool_offcpu(void)
{
	static const pt_tool tool = {
	    .api_version = PT_TOOL_API_VERSION,
	    .name = "offcpu",
	    .description = "running, waiting and off-CPU time per thread and function",
	    .init = oc_init,
	    .shard_init = oc_shard_init,
	    .shard_event = oc_event,
	    .shard_exit = oc_shard_exit,
	    .shard_error = oc_shard_error,
	    .print_results = oc_print,
	    .destroy = oc_destroy,
	};
	return &tool;
}
