/* SPDX-License-Identifier: MIT */
/* The plot tool (plot.h): `paratrace plot` and `paratrace report --html`.
 *
 * Per thread, the framework's call-stack tracker (pt_callstack.h) says
 * what the calls are, as for the profile; each change of the innermost
 * frame puts the time since the last change into the row's bins
 * (plot_bins.h) and into that frame's own time; each call ending adds its
 * time to its node of the call-path tree (plot_flame.h) and its own time
 * to its function's exclusive time (the legend). A call cut by lost data
 * adds neither (the profile leaves it out of every time too), though the
 * row shows what it did until the gap, and marks the gap. Device rows
 * (GPU streams): what their families say (pl_family: kernels and copies
 * at their device times, one at a time as on their Paraver row). Memory:
 * PL_BINS bins per drawn row and at most PL_MAX_NODES call-path nodes per
 * running thread and in all.
 *
 * Options: "png" (plot: also NAME.png), "html" (the HTML report: the
 * profile and the families' HTML sections (report.h) run inside this one,
 * in the same pass, for their JSON; nest.h), "model" (no file and no rows:
 * the call-path tree only, for a tool that runs this one inside and reads
 * it with pl_tool_model, as `report --tree` does). */
#define _GNU_SOURCE
#include "plot.h"

#include "nest.h"
#include "pt_callstack.h"
#include "pt_func_lookup.h"
#include "pt_waits.h"
#include "report.h"
#include "row_label.h"
#include "tools.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>


typedef struct pl_tool {
	pl_model m;
	int png, html, model_only;
	char *svg_path, *png_path;
	size_t nfam; /* families whose part is made (m.fam) */
	pthread_mutex_t lock;
	uint64_t *fexcl; /* exclusive time per function id, all threads */
	size_t nfexcl;
	pl_time *gexcl; /* families' labels' time */
	size_t ngexcl;
	/* Per shard its call-path tree, merged in shard order at the end: the
	 * tree's node numbers, the order of equal-width boxes and what folds
	 * into "other" do not depend on which shard finished first (-j). */
	pf_tree *trees;
	int oom;
	/* html: the profile (inner tool 0) and the families' sections (inner
	 * tool i + 1 for part[i]) */
	pt_nest inner;
	const pf_html *part[PT_NEST_MAX];
	size_t nparts;
	char inner_err[256];
} pl_tool;

typedef struct pl_shard {
	pl_tool *tool;
	const pt_shard_info *info;
	pt_func_lookup fl;
	pt_callstack cs; /* frames' aux: their node in tree (pf_child's result) */
	pf_tree tree;
	pb_row row;   /* row.bins NULL: a row not drawn */
	uint32_t top; /* label on top since top_t (0: none) */
	uint64_t top_t;
	size_t top_frame; /* its frame (index as in cs), when a function is on top */
	uint64_t *own;    /* per frame (index as in cs): time it was the innermost */
	size_t nown;
	uint64_t *fexcl;
	size_t nfexcl;
	pl_time *gexcl;
	size_t ngexcl;
	pt_waits waits;
	pr_map range;   /* html: the slices of the page's range selection */
	pr_front front; /* in front of it for the functions */
	int ranged;
	pl_page_facts facts;        /* html: this thread's part (no unclosed) */
	uint64_t seq, join_seq;     /* its THREAD_START's create_seq; the join's */
	void *fam[PT_MAX_FAMILIES]; /* device rows: the families' states */
	char *name;                 /* THREAD_NAME of its own log, for its label */
	pt_nest_shard inner;
	int oom;
	char err[128];
} pl_shard;

/* ---- exclusive time per label ------------------------------------------ */

static int grow_u64(uint64_t **v, size_t *n, size_t need)
{
	size_t m = *n ? *n : 256;
	while (m <= need)
		m *= 2;
	uint64_t *x = realloc(*v, m * sizeof *x);
	if (!x)
		return -1;
	memset(x + *n, 0, (m - *n) * sizeof *x);
	*v = x;
	*n = m;
	return 0;
}

static int add_time(pl_time **v, size_t *n, uint32_t label, uint64_t ns)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].label == label) {
			(*v)[i].ns += ns;
			return 0;
		}
	pl_time *x = realloc(*v, (*n + 1) * sizeof *x);
	if (!x)
		return -1;
	x[*n] = (pl_time){label, ns};
	*v = x;
	(*n)++;
	return 0;
}

static void excl_time(pl_shard *s, uint32_t label, uint64_t ns)
{
	if (label < PL_FAMILY_LABELS) {
		if (label >= s->nfexcl && grow_u64(&s->fexcl, &s->nfexcl, label))
			s->oom = 1;
		else
			s->fexcl[label] += ns;
	} else if (add_time(&s->gexcl, &s->ngexcl, label, ns)) {
		s->oom = 1;
	}
}

/* The innermost frame changes at t: the old one ran until then. */
static inline void top_until(pl_shard *s, uint64_t t)
{
	if (t <= s->top_t)
		return;
	if (s->top) {
		if (s->row.bins)
			pb_add(&s->row, s->top, s->top_t, t);
		s->own[s->top_frame] += t - s->top_t;
		if (s->ranged && s->top < PL_FAMILY_LABELS &&
		    pr_front_span(&s->front, s->top, s->top_t, t))
			s->oom = 1;
	}
	s->top_t = t;
}

static inline void top_is(pl_shard *s)
{
	s->top = s->cs.depth ? s->cs.ids[s->cs.depth - 1] : 0;
	s->top_frame = s->cs.depth - 1;
}

/* ---- calls ---------------------------------------------------------------- */

/* The innermost frame began at t: its node in the tree. */
static void frame_begins(pl_shard *s, pt_callstack *cs, uint64_t t)
{
	top_until(s, t);
	size_t d = cs->depth;
	if (d > s->nown && grow_u64(&s->own, &s->nown, d)) {
		s->oom = 1; /* the analysis stops after this record */
		cs->at[d - 1].aux = PF_NESTED;
		s->top = 0;
		return;
	}
	s->own[d - 1] = 0;
	uint32_t parent = d >= 2 ? (uint32_t)cs->at[d - 2].aux : 0;
	uint64_t node = pf_child(&s->tree, parent, cs->ids[d - 1]);
	if (node == UINT64_MAX) {
		s->oom = 1;
		node = PF_NESTED; /* counts nowhere */
	} else if (!(node & PF_NESTED)) {
		s->tree.n[node].calls++;
	}
	if (s->ranged && pr_front_count(&s->front, cs->ids[d - 1], t))
		s->oom = 1;
	cs->at[d - 1].aux = node;
	top_is(s);
}

/* Frames depth .. depth + n - 1 ended at t. */
static void frames_end(pl_shard *s, pt_callstack *cs, size_t n, uint64_t t, enum pt_call_end how)
{
	top_until(s, t);
	if (how != PT_CALL_CUT)
		for (size_t i = cs->depth; i < cs->depth + n; i++) {
			const pt_frame_at *at = &cs->at[i];
			if (!(at->aux & PF_NESTED) && t > at->t)
				s->tree.n[(uint32_t)at->aux].incl += t - at->t;
			if (i < s->nown && s->own[i])
				excl_time(s, cs->ids[i], s->own[i]);
		}
	top_is(s);
}

static void calls_push(void *arg, pt_callstack *cs)
{
	frame_begins(arg, cs, cs->at[cs->depth - 1].t);
}

static void calls_pop(void *arg, pt_callstack *cs, size_t n, uint64_t t, enum pt_call_end how)
{
	frames_end(arg, cs, n, t, how);
}

static const pt_callstack_ops pl_calls = {calls_push, calls_pop};

static void func_record(pl_shard *s, uint32_t id, int enter, uint64_t t)
{
	pt_callstack *cs = &s->cs;
	if (enter == PT_STEP_ENTER) {
		if (pt_callstack_enter_fast(cs, id, t)) {
			frame_begins(s, cs, t);
			return;
		}
	} else if (enter == PT_STEP_EXIT && pt_callstack_exit_fast(cs, id, t)) {
		frames_end(s, cs, 1, t, PT_CALL_RETURNED);
		return;
	}
	pt_callstack_func(cs, id, enter, t, &pl_calls, s);
}

/* ---- waits and GPU streams -------------------------------------------------- */

static void wait_max(pl_wait_max *x, const pl_shard *s, const pt_wait *w)
{
	uint64_t d = w->end - w->begin, t0 = s->tool->m.ctx->t0_ns;
	if (d > x->ns)
		*x = (pl_wait_max){.ns = d,
		                   .begin = w->begin > t0 ? w->begin - t0 : 0,
		                   .object = w->object,
		                   .kind = w->kind,
		                   .shard = s->info->index,
		                   .joined = w->kind == PT_WAIT_JOIN ? s->join_seq : 0};
}

/* A wait ended; `counted`: as the profile counts it (not one still open
 * at the end of a log never closed). */
static void wait_ended(pl_shard *s, const pt_wait *w, int counted)
{
	if (w->begun && s->row.bins)
		pb_wait(&s->row, w->begin, w->end);
	if (!s->ranged || !counted)
		return;
	pr_map *r = &s->range;
	uint32_t lock = PR_LOCK(s->info->process);
	if (w->begun) {
		/* the longest as the profile's "max wait": of waits that got what
		 * they waited for */
		if (!w->failed)
			wait_max(&s->facts.wait, s, w);
		if (!w->failed && w->kind != PT_WAIT_JOIN)
			wait_max(&s->facts.sync, s, w);
		if (pr_span(r, PR_WAIT(w->kind), s->info->index, w->begin, w->end) ||
		    (w->kind != PT_WAIT_JOIN && pr_span(r, lock, w->object, w->begin, w->end)))
			s->oom = 1;
	}
	if (w->kind != PT_WAIT_JOIN && !w->failed && pr_count(r, lock, w->object, w->end))
		s->oom = 1;
}

void pl_device_busy(pl_device *s, uint32_t label, uint64_t start, uint64_t end)
{
	if (end > start) {
		if (s->row.bins)
			pb_add(&s->row, label, start, end);
		excl_time(s, label, end - start);
	}
}

/* A device row's record: what its families make of it. */
static void device_record(pl_shard *s, const pt_event *ev)
{
	pl_tool *pl = s->tool;
	for (size_t i = 0; i < pl->nfam; i++) {
		const pl_family *f = pt_families[i]->plot;
		if (f && f->device_event && ev->kind >= f->kind_first && ev->kind <= f->kind_last &&
		    f->device_event(pl->m.fam[i], &s->fam[i], s, s->info, ev))
			s->oom = 1;
	}
}

static void thread_record(pl_shard *s, const pt_event *ev, uint64_t before)
{
	uint64_t t = ev->time_ns;
	switch (ev->kind) {
	case PT_REC_THREAD_NAME: {
		uint32_t tid;
		const char *n = pt_event_thread_name(ev, &tid);
		if (n && !tid) {
			free(s->name);
			s->name = strdup(n);
		}
		break;
	}
	case PT_REC_THREAD_START: {
		const pt_rec_thread_start *x = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_start);
		s->seq = x ? x->create_seq : 0;
		break;
	}
	case PT_REC_THREAD_JOIN_BEGIN: {
		const pt_rec_thread_join *x = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_join);
		s->join_seq = x ? x->create_seq : 0;
		break;
	}
	case PT_REC_LOST: {
		const pt_rec_lost *l = PT_REC_PAYLOAD(ev->rec, pt_rec_lost);
		/* the tracker cut the calls at `before`; nothing is known until t */
		if (l && l->reason != PT_LOST_REENTRANT && s->row.bins && t > before)
			pb_lost(&s->row, before, t);
		if (l && l->reason != PT_LOST_REENTRANT) {
			s->facts.lost++;
			s->facts.lost_limit += l->reason == PT_LOST_LIMIT;
			s->facts.lost_ns += t > before ? t - before : 0;
		}
		if (l && l->reason != PT_LOST_REENTRANT && t > s->top_t)
			s->top_t = t;
		break;
	}
	default:
		break;
	}
	pt_wait w;
	if (pt_waits_record(&s->waits, ev, &w) == PT_WAITS_ENDED)
		wait_ended(s, &w, 1);
}

/* ---- callbacks -------------------------------------------------------------- */

static void pl_destroy(void *tool);

static void add_section(void *arg, const pf_section *sec)
{
	pl_tool *pl = arg;
	if (!pl->inner_err[0] && pt_nest_add(&pl->inner, sec->tool(), pl->m.ctx, "json",
	                                     pl->inner_err, sizeof pl->inner_err) == 0)
		pl->part[pl->nparts++] = sec->html;
}

static void *pl_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	pl_tool *pl = calloc(1, sizeof *pl);
	if (!pl) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&pl->lock, NULL);
	pl->m.ctx = ctx;
	pl->png = options && strstr(options, "png");
	pl->html = options && strstr(options, "html");
	pl->model_only = options && strstr(options, "model");
	pl->m.nrows = ctx->nshards < PL_MAX_ROWS ? ctx->nshards : PL_MAX_ROWS;
	if (pl->model_only)
		pl->m.nrows = 0;
	pl->m.rows = calloc(pl->m.nrows + 1, sizeof *pl->m.rows);
	pl->trees = calloc(ctx->nshards + 1, sizeof *pl->trees);
	const char *out = ctx->output ? ctx->output : pl->html ? "report.html" : "trace.svg";
	pl->svg_path = strdup(out);
	int oom = 0;
	for (; !oom && pl->nfam < pt_nfamilies(); pl->nfam++) {
		const pl_family *f = pt_families[pl->nfam]->plot;
		oom = f && f->init && f->init(ctx, &pl->m.fam[pl->nfam]);
	}
	if (oom || !pl->m.rows || !pl->trees || !pl->svg_path ||
	    pf_tree_init(&pl->m.flame, PL_MAX_NODES)) {
		snprintf(err, errlen, "out of memory");
		pl_destroy(pl);
		return NULL;
	}
	if (pl->png) {
		size_t n = strlen(out);
		if (n > 4 && !strcmp(out + n - 4, ".svg"))
			n -= 4;
		if (asprintf(&pl->png_path, "%.*s.png", (int)n, out) < 0) {
			pl->png_path = NULL;
			snprintf(err, errlen, "out of memory");
			pl_destroy(pl);
			return NULL;
		}
		/* say it now, not after reading the whole trace */
		if (pl_png_available(err, errlen)) {
			pl_destroy(pl);
			return NULL;
		}
	}
	if (pl->html && (pr_init(&pl->m.range, ctx->t0_ns, ctx->t0_ns) ||
	                 !(pl->m.facts.unclosed = calloc(ctx->nshards + 1, 1)) ||
	                 !(pl->m.facts.seq = calloc(ctx->nshards + 1, sizeof(uint64_t))) ||
	                 !(pl->m.facts.end = calloc(ctx->nshards + 1, sizeof *pl->m.facts.end)))) {
		snprintf(err, errlen, "out of memory");
		pl_destroy(pl);
		return NULL;
	}
	if (pl->html && pt_nest_add(&pl->inner, pt_tool_profile(), ctx, "json", err, errlen)) {
		pl_destroy(pl);
		return NULL;
	}
	if (pl->html)
		pt_report_sections(PF_IN_HTML, add_section, pl);
	if (pl->inner_err[0]) {
		snprintf(err, errlen, "%s", pl->inner_err);
		pl_destroy(pl);
		return NULL;
	}
	return pl;
}

static int pl_process_event(void *tool, size_t process, const pt_event *ev)
{
	pl_tool *pl = tool;
	for (size_t i = 0; i < pl->nfam; i++) {
		const pl_family *f = pt_families[i]->plot;
		if (f && f->process_event)
			f->process_event(pl->m.fam[i], process, ev);
	}
	return pt_nest_process_event(&pl->inner, process, ev);
}

static void shard_free(pl_shard *s)
{
	for (size_t i = 0; i < s->tool->nfam; i++) {
		const pl_family *f = pt_families[i]->plot;
		if (f && f->shard_free && s->fam[i])
			f->shard_free(s->tool->m.fam[i], s->fam[i]);
	}
	pt_func_lookup_free(&s->fl);
	pt_callstack_free(&s->cs);
	pf_tree_free(&s->tree);
	pb_row_free(&s->row);
	pr_front_free(&s->front);
	pr_free(&s->range);
	free(s->fexcl);
	free(s->gexcl);
	free(s->own);
	free(s->name);
	free(s);
}

/* A time the run reaches (plot_range.h: pr_init): its processes' exits,
 * known once the process logs are read (from the first shard on). */
static uint64_t end_hint(const pt_trace_ctx *ctx)
{
	uint64_t end = ctx->t0_ns;
	for (size_t i = 0; i < ctx->nprocesses; i++)
		if (ctx->processes[i].exit_ns > end)
			end = ctx->processes[i].exit_ns;
	return end;
}

static void *pl_shard_init(void *tool, const pt_shard_info *info, char *err, size_t errlen)
{
	pl_tool *pl = tool;
	pl_shard *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->tool = pl;
	s->info = info;
	pt_func_lookup_init(&s->fl, pl->m.ctx, info->process);
	pt_callstack_init(&s->cs, info->header);
	s->top_t = info->first_ns;
	if (pf_tree_init(&s->tree, PL_MAX_NODES / 4) ||
	    (info->index < pl->m.nrows && pb_row_init(&s->row, pl->m.ctx->t0_ns, PL_BINS))) {
		snprintf(err, errlen, "out of memory");
		shard_free(s);
		return NULL;
	}
	s->ranged = pl->html && info->kind == PT_FILE_THREAD;
	pr_front_init(&s->front, &s->range);
	if (s->ranged && pr_init(&s->range, pl->m.ctx->t0_ns, end_hint(pl->m.ctx))) {
		snprintf(err, errlen, "out of memory");
		shard_free(s);
		return NULL;
	}
	if (pt_nest_shard_init(&pl->inner, &s->inner, info, err, errlen)) {
		shard_free(s);
		return NULL;
	}
	return s;
}

static int shard_event(void *st, const pt_event *ev)
{
	pl_shard *s = st;
	if (pt_nest_shard_event(&s->tool->inner, &s->inner, ev))
		return -1;
	if (s->info->kind == PT_FILE_GPU) {
		device_record(s, ev);
	} else if (s->info->kind == PT_FILE_THREAD) {
		int enter;
		uint32_t id = pt_event_func(ev, &s->fl, &enter);
		if (id) {
			func_record(s, id, enter, ev->time_ns);
		} else {
			uint64_t before = s->cs.last_t;
			pt_callstack_record(&s->cs, ev, &pl_calls, s);
			thread_record(s, ev, before);
		}
	}
	if (s->oom || s->cs.oom) {
		snprintf(s->err, sizeof s->err, "out of memory");
		return -1;
	}
	return 0;
}

static const char *pl_shard_error(void *st)
{
	pl_shard *s = st;
	const char *inner = s->err[0] ? NULL : pt_nest_shard_error(&s->tool->inner, &s->inner);
	return inner ? inner : s->err;
}

/* A device row's label: its family's, else the core's. */
static void device_label(pl_tool *pl, pl_shard *s, char *buf, size_t len)
{
	for (size_t i = 0; i < pl->nfam; i++) {
		const pl_family *f = pt_families[i]->plot;
		if (f && f->row_label &&
		    f->row_label(pl->m.fam[i], s->fam[i], s->info, buf, len) == 0)
			return;
	}
	pt_device_row_label(pl->m.ctx, s->info, buf, len);
}

/* Of equal waits the first shard's, whichever shard ended first (-j). */
static void longer_wait(pl_wait_max *to, const pl_wait_max *x)
{
	if (x->ns > to->ns || (x->ns && x->ns == to->ns && x->shard < to->shard))
		*to = *x;
}

/* A finished shard's part of the page's data (under the tool's lock). */
static int facts_merge(pl_tool *pl, pl_shard *s, int unclosed)
{
	pl_page_facts *f = &pl->m.facts, *x = &s->facts;
	f->unclosed[s->info->index] = (uint8_t)unclosed;
	f->seq[s->info->index] = s->seq;
	longer_wait(&f->wait, &x->wait);
	longer_wait(&f->sync, &x->sync);
	f->lost += x->lost;
	f->lost_limit += x->lost_limit;
	f->lost_ns += x->lost_ns;
	return pr_merge(&pl->m.range, &s->range);
}

/* What a finished shard gives the whole picture (under the tool's lock). */
static int shard_merge(pl_tool *pl, pl_shard *s)
{
	const pt_shard_info *in = s->info;
	pf_tree_shrink(&s->tree);
	pl->trees[in->index] = s->tree; /* the tree moves to the tool */
	memset(&s->tree, 0, sizeof s->tree);
	if (s->nfexcl > pl->nfexcl && grow_u64(&pl->fexcl, &pl->nfexcl, s->nfexcl - 1))
		return -1;
	for (size_t i = 0; i < s->nfexcl; i++)
		pl->fexcl[i] += s->fexcl[i];
	for (size_t i = 0; i < s->ngexcl; i++)
		if (add_time(&pl->gexcl, &pl->ngexcl, s->gexcl[i].label, s->gexcl[i].ns))
			return -1;
	if (in->kind == PT_FILE_GPU)
		pl->m.nstreams++;
	else
		pl->m.nthreads++;
	if (in->index >= pl->m.nrows)
		return 0;
	pl_row *r = &pl->m.rows[in->index];
	char label[512];
	if (in->kind != PT_FILE_GPU)
		pt_thread_row_label(pl->m.ctx, in, s->name, label, sizeof label);
	else
		device_label(pl, s, label, sizeof label);
	r->label = strdup(label);
	r->device = in->kind == PT_FILE_GPU;
	r->bins = s->row; /* the row's bins move to the model */
	memset(&s->row, 0, sizeof s->row);
	return r->label ? 0 : -1;
}

static int pl_shard_exit(void *st, uint64_t last_ns, int complete)
{
	pl_shard *s = st;
	pl_tool *pl = s->tool;
	int rc = 0;
	if (pt_nest_shard_exit(&pl->inner, &s->inner, last_ns, complete))
		rc = -1;
	/* as the profile: the waits still open in a log never closed last
	 * until its process's last record (unclosed_waits) */
	const pt_process_info *proc = &pl->m.ctx->processes[s->info->process];
	int unclosed = !complete && !proc->exited;
	struct pl_shard_end end = {.last = last_ns};
	pt_wait w;
	for (int k = 0; k < PT_WAIT_KINDS; k++)
		if (pt_waits_close(&s->waits, k, last_ns, &w)) {
			wait_ended(s, &w, !unclosed);
			if (unclosed && w.begun)
				end.open[k] = w.begin ? w.begin : 1;
		}
	pt_callstack_end(&s->cs, last_ns, &pl_calls, s);
	top_until(s, last_ns);
	/* the root: every thread's lifetime, as the profile's total */
	if (s->info->kind == PT_FILE_THREAD && last_ns >= s->info->first_ns)
		s->tree.n[0].incl += last_ns - s->info->first_ns;
	if (s->ranged && pr_front_flush(&s->front))
		s->oom = 1;
	pthread_mutex_lock(&pl->lock);
	if (s->ranged)
		pl->m.facts.end[s->info->index] = end;
	if (s->oom || shard_merge(pl, s) || (s->ranged && facts_merge(pl, s, unclosed)))
		pl->oom = rc = -1;
	pthread_mutex_unlock(&pl->lock);
	shard_free(s);
	return rc;
}

static int cmp_time(const void *a, const void *b)
{
	const pl_time *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->label < y->label ? -1 : x->label > y->label;
}

/* The waits open in the logs never closed of a process that never
 * recorded its end went on until the process's last record (the profile's
 * rule: its threads' figures are the page's whole-run ones). */
static int unclosed_waits(pl_model *m)
{
	const pt_trace_ctx *ctx = m->ctx;
	const pl_page_facts *f = &m->facts;
	for (size_t p = 0; p < ctx->nprocesses; p++) {
		const pt_process_info *pi = &ctx->processes[p];
		size_t i0 = pi->first_shard, i1 = pi->first_shard + pi->nshards;
		uint64_t end = 0;
		for (size_t i = i0; i < i1; i++)
			if (f->end[i].last > end)
				end = f->end[i].last;
		for (size_t i = i0; i < i1; i++)
			for (int k = 0; f->unclosed[i] && k < PT_WAIT_KINDS; k++)
				if (f->end[i].open[k] &&
				    pr_span(&m->range, PR_WAIT(k), i, f->end[i].open[k], end))
					return -1;
	}
	return 0;
}

/* The shards' trees merged in shard order; every row on one bin width;
 * the labels by exclusive time. */
static int model_finish(pl_tool *pl)
{
	pl_model *m = &pl->m;
	for (size_t i = 0; i < m->ctx->nshards; i++) {
		int rc = pl->trees[i].n ? pf_tree_merge(&m->flame, &pl->trees[i]) : 0;
		pf_tree_free(&pl->trees[i]);
		if (rc)
			return -1;
	}
	m->t0 = m->ctx->t0_ns;
	m->t_end = m->ctx->t_end_ns > m->t0 ? m->ctx->t_end_ns : m->t0 + 1;
	uint64_t span = m->t_end - m->t0;
	unsigned shift = 0;
	while (((span - 1) >> shift) >= PL_BINS)
		shift++;
	for (size_t i = 0; i < m->nrows; i++)
		if (m->rows[i].bins.bins && m->rows[i].bins.shift > shift)
			shift = m->rows[i].bins.shift;
	for (size_t i = 0; i < m->nrows; i++)
		if (m->rows[i].bins.bins)
			pb_row_coarsen_to(&m->rows[i].bins, shift);
	m->shift = shift;
	m->nbins = (size_t)((span - 1) >> shift) + 1;
	if (pl->html && unclosed_waits(m))
		return -1;
	unsigned rs = m->range.shift;
	while (((span - 1) >> rs) >= PR_SLICES)
		rs++;
	if (pl->html && pr_coarsen_to(&m->range, rs))
		return -1;
	size_t n = 0;
	for (size_t i = 1; i < pl->nfexcl; i++)
		n += pl->fexcl[i] != 0;
	m->excl = malloc((n + pl->ngexcl + 1) * sizeof *m->excl);
	if (!m->excl)
		return -1;
	for (size_t i = 1; i < pl->nfexcl; i++)
		if (pl->fexcl[i])
			m->excl[m->nexcl++] = (pl_time){(uint32_t)i, pl->fexcl[i]};
	for (size_t i = 0; i < pl->ngexcl; i++)
		m->excl[m->nexcl++] = pl->gexcl[i];
	pt_qsort(m->excl, m->nexcl, sizeof *m->excl, cmp_time);
	/* the colours: the legend's labels get the palette's slots */
	uint32_t top[PLP_TOP];
	char names[PLP_TOP][512];
	const char *np[PLP_TOP];
	size_t ntop = m->nexcl < PLP_TOP ? m->nexcl : PLP_TOP;
	for (size_t i = 0; i < ntop; i++) {
		top[i] = m->excl[i].label;
		np[i] = pl_label_name(m, top[i], names[i], sizeof names[i]);
	}
	pl_palette_init(&m->pal, top, np, ntop);
	return 0;
}

typedef struct html_args {
	const pl_model *m;
	const char *json;
	pl_html_part parts[PT_NEST_MAX];
	size_t nparts;
} html_args;

static int write_svg(FILE *f, void *arg)
{
	return pl_svg_file(f, arg);
}

static int write_html(FILE *f, void *arg)
{
	html_args *a = arg;
	return pl_html_report(f, a->m, a->json, a->parts, a->nparts);
}

static int pl_finish(void *tool, char *err, size_t errlen)
{
	pl_tool *pl = tool;
	if (pl->oom || model_finish(pl)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (pl->model_only)
		return 0;
	int rc;
	if (pl->html) {
		if (pt_nest_finish(&pl->inner, err, errlen))
			return -1;
		/* the profile's JSON as `report --json` prints it; the sections'
		 * (empty for a trace without what they show) */
		html_args a = {.m = &pl->m, .nparts = pl->nparts};
		char *json = pt_nest_print(&pl->inner, 0, err, errlen);
		rc = json ? 0 : -1;
		for (size_t i = 0; !rc && i < pl->nparts; i++) {
			a.parts[i].html = pl->part[i];
			if (!(a.parts[i].json = pt_nest_print(&pl->inner, i + 1, err, errlen)))
				rc = -1;
		}
		if (!rc) {
			a.json = json;
			rc = pl_write_file(pl->svg_path, write_html, &a, err, errlen);
		}
		free(json);
		for (size_t i = 0; i < pl->nparts; i++)
			free(a.parts[i].json);
	} else {
		rc = pl_write_file(pl->svg_path, write_svg, &pl->m, err, errlen);
		/* the drawing takes well under a second (bounded by rows x bins and
		 * the tree's nodes): no progress of its own */
		if (!rc && pl->png)
			rc = pl_svg_to_png(pl->svg_path, pl->png_path, err, errlen);
	}
	return rc;
}

static int pl_print(void *tool, FILE *out)
{
	pl_tool *pl = tool;
	if (pl->m.ctx->quiet || pl->model_only)
		return 0;
	fprintf(out, "%s: %s", pl->html ? "HTML report" : "plot", pl->svg_path);
	if (pl->png_path)
		fprintf(out, ", %s", pl->png_path);
	fprintf(out, " (%zu rows%s)\n", pl->m.nrows,
	        pl->m.nrows < pl->m.ctx->nshards ? ", the first of more" : "");
	return 0;
}

static void pl_destroy(void *tool)
{
	pl_tool *pl = tool;
	pt_nest_destroy(&pl->inner);
	for (size_t i = 0; pl->m.rows && i < pl->m.nrows; i++) {
		free(pl->m.rows[i].label);
		pb_row_free(&pl->m.rows[i].bins);
	}
	free(pl->m.rows);
	for (size_t i = 0; pl->trees && i < pl->m.ctx->nshards; i++)
		pf_tree_free(&pl->trees[i]);
	free(pl->trees);
	free(pl->m.excl);
	pr_free(&pl->m.range);
	free(pl->m.facts.unclosed);
	free(pl->m.facts.seq);
	free(pl->m.facts.end);
	pf_tree_free(&pl->m.flame);
	for (size_t i = 0; i < pl->nfam; i++) {
		const pl_family *f = pt_families[i]->plot;
		if (f && f->destroy)
			f->destroy(pl->m.fam[i]);
	}
	free(pl->fexcl);
	free(pl->gexcl);
	free(pl->svg_path);
	free(pl->png_path);
	pthread_mutex_destroy(&pl->lock);
	free(pl);
}

static const pt_tool plot_tool = {
    .api_version = PT_TOOL_API_VERSION,
    .name = "plot",
    .description = "timeline and flame graph as SVG (PNG, HTML report)",
    .init = pl_init,
    .process_event = pl_process_event,
    .shard_init = pl_shard_init,
    .shard_event = shard_event,
    .shard_exit = pl_shard_exit,
    .shard_error = pl_shard_error,
    .finish = pl_finish,
    .print_results = pl_print,
    .destroy = pl_destroy,
};

const pt_tool *pt_tool_plot(void)
{
	return &plot_tool;
}

const pl_model *pl_tool_model(const void *state)
{
	return &((const pl_tool *)state)->m;
}
