/* SPDX-License-Identifier: MIT */
/* What the timeline export writes of a shard (timeline.h, tl_sel): the
 * selection's rows, its time window (a thread's calls open when the
 * window opens begin there, those open when it closes end there; waits
 * and device intervals are clipped; instants outside are dropped), and its
 * calls (pt_thin.h): while a call's fate is undecided, what comes after
 * it waits in a queue, so the output stays in time order; what was left
 * out becomes "calls left out" instants. A family's calls (tl_sel_call)
 * are left out by the same threshold, decided at once (they are written
 * when they end), and summarised in instants of the family's own
 * (tl_left_def) beside the calls' ones. */
#define _GNU_SOURCE
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

enum { IT_ENTER, IT_EXIT, IT_WAIT, IT_FLOW, IT_SPAN_BEGIN, IT_SPAN_END, IT_CALL, IT_LEFT };

struct tl_item {
	uint64_t t, dur, obj;
	uint32_t id; /* IT_ENTER: function; IT_EXIT: frames; IT_LEFT: family */
	uint8_t kind, out;
	const char *what; /* IT_WAIT, IT_SPAN_BEGIN, IT_CALL (the category),
	                   * IT_FLOW (the flow's name): a static string */
	char *name;       /* IT_FLOW, IT_SPAN_BEGIN, IT_CALL, IT_WAIT (NULL: no
	                   * name): owned */
	/* IT_LEFT: the call's tallies (tl_left_def) */
	uint64_t tally[TL_TALLY_MAX];
};

static const tl_left_def *left_def(unsigned fam)
{
	const tl_family *f = fam < pt_nfamilies() ? pt_families[fam]->timeline : NULL;
	return f ? f->left : NULL;
}

/* ---- straight to the encoder --------------------------------------------- */
static void emit_enter(void *arg, uint64_t t, uint32_t id)
{
	tl_sel *q = arg;
	q->enc->slice_begin(q->o, t, id);
	q->events++;
}

static void emit_exit(void *arg, uint64_t t, uint32_t id, int cut)
{
	(void)id;
	(void)cut;
	tl_sel *q = arg;
	q->enc->slice_end(q->o, t);
	q->events++;
}

static void emit_summary(void *arg, uint64_t t, uint64_t calls, uint64_t ns, uint64_t sync,
                         uint64_t wait)
{
	(void)sync; /* the export leaves out calls only */
	(void)wait;
	tl_sel *q = arg;
	const char *keys[2 + TL_TALLY_MAX] = {"calls", "ns"};
	uint64_t v[2 + TL_TALLY_MAX] = {calls, ns};
	if (calls) {
		q->enc->left_out(q->o, t, "calls left out", 2, keys, v);
		q->events++;
	}
	for (unsigned f = 0; q->fam_pending && f < PT_MAX_FAMILIES; f++) {
		if (!(q->fam_pending & 1u << f))
			continue;
		const tl_left_def *d = left_def(f);
		tl_fam_left *x = &q->fam_left[f];
		v[0] = x->n;
		v[1] = x->ns;
		for (size_t i = 0; i < d->ntally; i++) {
			keys[2 + i] = d->tally[i];
			v[2 + i] = x->tally[i];
		}
		q->enc->left_out(q->o, t, d->name, 2 + d->ntally, keys, v);
		q->events++;
		memset(x, 0, sizeof *x);
		q->fam_pending &= ~(1u << f);
	}
}

static const pt_thin_ops emit_ops = {emit_enter, emit_exit, emit_summary};

static void emit_item(tl_sel *q, const tl_item *it)
{
	if (it->kind == IT_WAIT)
		q->enc->wait(q->o, it->t, it->dur, it->what, it->obj, it->name);
	else if (it->kind == IT_SPAN_BEGIN)
		q->enc->span_begin(q->o, it->t, it->what, it->name);
	else if (it->kind == IT_SPAN_END)
		q->enc->slice_end(q->o, it->t);
	else if (it->kind == IT_CALL)
		q->enc->device(q->o, it->t, it->dur, it->what, it->name, 0, NULL);
	else
		q->enc->flow_point(q->o, it->t, it->name, it->out, it->obj, it->what);
	q->events++;
}

/* ---- the queue --------------------------------------------------------------- */
/* What waits for the oldest undecided call, written as decisions come. */
static void drain(tl_sel *q)
{
	while (q->qn) {
		tl_item *it = &q->q[q->qhead];
		switch (it->kind) {
		case IT_ENTER: {
			int d = pt_thin_in_decision(&q->in, q->seq_out);
			if (d == PT_THIN_UNDECIDED)
				return;
			pt_thin_out_enter(&q->out, it->t, it->id, d == PT_THIN_KEEP);
			pt_thin_in_release(&q->in, ++q->seq_out);
			break;
		}
		case IT_EXIT:
			pt_thin_out_exit(&q->out, it->t, it->id, it->out);
			break;
		case IT_LEFT: { /* counted in the summary due (emit_summary) */
			tl_fam_left *x = &q->fam_left[it->id];
			const tl_left_def *d = left_def(it->id);
			x->n++;
			x->ns += it->dur;
			for (size_t i = 0; i < d->ntally; i++)
				x->tally[i] += it->tally[i];
			q->fam_pending |= 1u << it->id;
			pt_thin_out_left_own(&q->out, it->t + it->dur);
			break;
		}
		default:
			pt_thin_out_other(&q->out, it->t);
			emit_item(q, it);
			free(it->name);
		}
		q->qhead = (q->qhead + 1) & (q->qcap - 1);
		q->qn--;
	}
}

static void push(tl_sel *q, tl_item it)
{
	if (q->qn == q->qcap) {
		size_t ncap = q->qcap ? 2 * q->qcap : 256;
		tl_item *n = malloc(ncap * sizeof *n);
		if (!n) {
			q->oom = 1;
			free(it.name);
			return;
		}
		for (size_t i = 0; i < q->qn; i++)
			n[i] = q->q[(q->qhead + i) & (q->qcap - 1)];
		free(q->q);
		q->q = n;
		q->qcap = ncap;
		q->qhead = 0;
	}
	q->q[(q->qhead + q->qn++) & (q->qcap - 1)] = it;
}

/* ---- what timeline.c calls ------------------------------------------------------ */
void tl_sel_init(tl_sel *q, tl_out *o, const tl_encoder *enc, const pt_select *sel)
{
	memset(q, 0, sizeof *q);
	q->o = o;
	q->enc = enc;
	q->lo = 0;
	q->hi = UINT64_MAX;
	q->open = 1;
	q->skip = !pt_select_shard(sel, o->info);
	if (pt_select_window(sel)) {
		q->lo = sel->win_lo;
		q->hi = sel->win_hi;
		q->open = 0;
		q->edge = o->info->kind == PT_FILE_THREAD ? q->lo : UINT64_MAX;
		q->window = 1;
	} else
		q->edge = UINT64_MAX;
	q->thin = pt_select_calls(sel) && o->info->kind == PT_FILE_THREAD;
	if (q->thin) {
		pt_thin_in_init(&q->in, sel->min_ns, sel, o->ctx);
		pt_thin_out_init(&q->out, &emit_ops, q);
	}
}

void tl_sel_free(tl_sel *q)
{
	for (size_t i = 0; i < q->qn; i++)
		free(q->q[(q->qhead + i) & (q->qcap - 1)].name);
	free(q->q);
	if (q->thin) {
		pt_thin_in_free(&q->in);
		pt_thin_out_free(&q->out);
	}
}

void tl_sel_enter(tl_sel *q, uint64_t t, uint32_t id)
{
	if (q->skip || !q->open)
		return;
	if (!q->thin) {
		emit_enter(q, t, id);
		return;
	}
	pt_thin_in_enter(&q->in, t, id);
	push(q, (tl_item){.t = t, .id = id, .kind = IT_ENTER});
	drain(q);
}

void tl_sel_exit(tl_sel *q, uint64_t t, size_t n, int cut)
{
	if (q->skip || !q->open || !n)
		return;
	if (!q->thin) {
		while (n--)
			emit_exit(q, t, 0, cut);
		return;
	}
	pt_thin_in_exit(&q->in, t, n, cut);
	push(q, (tl_item){.t = t, .id = (uint32_t)n, .kind = IT_EXIT, .out = (uint8_t)cut});
	drain(q);
}

/* [t, t + dur] clipped to the window; 0 if nothing of it is left. */
static int clip(const tl_sel *q, uint64_t *t, uint64_t *dur)
{
	uint64_t b = *t, e = *t + *dur;
	if (q->skip || e < q->lo || b > q->hi)
		return 0;
	if (b < q->lo)
		b = q->lo;
	if (e > q->hi)
		e = q->hi;
	*t = b;
	*dur = e - b;
	return 1;
}

static void other(tl_sel *q, tl_item it, uint64_t end)
{
	if (!q->thin) {
		emit_item(q, &it);
		free(it.name);
		return;
	}
	pt_thin_in_other(&q->in, end);
	push(q, it);
	drain(q);
}

void tl_sel_wait(tl_sel *q, uint64_t t, uint64_t dur, const char *what, uint64_t obj,
                 const char *obj_name)
{
	if (!clip(q, &t, &dur))
		return;
	if (!q->thin) { /* written now: no copy */
		q->enc->wait(q->o, t, dur, what, obj, obj_name);
		q->events++;
		return;
	}
	char *copy = obj_name ? strdup(obj_name) : NULL;
	if (obj_name && !copy) {
		q->oom = 1;
		return;
	}
	tl_item it = {.t = t, .dur = dur, .obj = obj, .kind = IT_WAIT, .what = what, .name = copy};
	other(q, it, t + dur);
}

void tl_sel_flow(tl_sel *q, uint64_t t, const char *name, int out, uint64_t flow,
                 const char *flow_name)
{
	if (q->skip || t < q->lo || t > q->hi)
		return;
	char *copy = strdup(name);
	if (!copy) {
		q->oom = 1;
		return;
	}
	other(q,
	      (tl_item){.t = t,
	                .obj = flow,
	                .kind = IT_FLOW,
	                .out = (uint8_t)out,
	                .what = flow_name,
	                .name = copy},
	      t);
}

/* The spans are not clipped to a window as calls are (tl_sel_cross knows
 * only the calls): with a window they are left out. */
int tl_sel_span_begin(tl_sel *q, uint64_t t, const char *cat, const char *name)
{
	if (q->skip || q->window || !q->enc->span_begin)
		return 0;
	char *copy = strdup(name);
	if (!copy) {
		q->oom = 1;
		return 0;
	}
	other(q, (tl_item){.t = t, .kind = IT_SPAN_BEGIN, .what = cat, .name = copy}, t);
	return 1;
}

void tl_sel_span_end(tl_sel *q, uint64_t t)
{
	other(q, (tl_item){.t = t, .kind = IT_SPAN_END}, t);
}

void tl_sel_device(tl_sel *q, uint64_t t, uint64_t dur, const char *cat, const char *name,
                   uint64_t flow, const char *flow_name)
{
	uint64_t t0 = t;
	if (!clip(q, &t, &dur))
		return;
	/* a flow ends where the interval began: not if that was cut off */
	q->enc->device(q->o, t, dur, cat, name, t == t0 ? flow : 0, flow_name);
	q->events++;
}

void tl_sel_call(tl_sel *q, uint64_t t, uint64_t dur, const char *cat, const char *name,
                 const uint64_t *tally)
{
	if (!q->thin) {
		tl_sel_device(q, t, dur, cat, name, 0, NULL);
		return;
	}
	if (!clip(q, &t, &dur))
		return;
	const tl_left_def *d = left_def(q->fam_now);
	if (d && dur < q->in.min_ns) {
		tl_item it = {.t = t, .dur = dur, .id = q->fam_now, .kind = IT_LEFT};
		memcpy(it.tally, tally, d->ntally * sizeof *tally);
		pt_thin_in_other(&q->in, t + dur);
		push(q, it);
		drain(q);
		return;
	}
	char *copy = strdup(name);
	if (!copy) {
		q->oom = 1;
		return;
	}
	other(q, (tl_item){.t = t, .dur = dur, .kind = IT_CALL, .what = cat, .name = copy},
	      t + dur);
}

void tl_sel_counter(tl_sel *q, uint64_t start, uint64_t end, unsigned index, const char *cat,
                    const char *name, double value)
{
	uint64_t dur = end - start;
	if (!q->enc->counter || !clip(q, &start, &dur))
		return;
	q->enc->counter(q->o, start, index, cat, name, value);
	q->enc->counter(q->o, start + dur, index, cat, name, 0);
	q->events += 2;
}

void tl_sel_cross(tl_sel *q, uint64_t t, const pt_callstack *cs)
{
	if (!q->open && !q->closed && t >= q->lo) {
		/* the window opens: the calls open then begin there */
		q->open = 1;
		for (size_t i = 0; i < cs->depth; i++)
			tl_sel_enter(q, q->lo, cs->ids[i]);
		q->edge = q->hi == UINT64_MAX ? UINT64_MAX : q->hi + 1;
	}
	if (q->open && t > q->hi) {
		/* it closes: the calls still open end there */
		tl_sel_exit(q, q->hi, cs->depth, 0);
		q->open = 0;
		q->closed = 1;
		q->edge = UINT64_MAX;
	}
}

void tl_sel_end(tl_sel *q)
{
	if (!q->thin)
		return;
	pt_thin_in_end(&q->in);
	drain(q);
	pt_thin_out_end(&q->out);
}
