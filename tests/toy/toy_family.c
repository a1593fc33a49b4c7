/* SPDX-License-Identifier: MIT */
/* The toy family's analyzer side: what each output shows of nice calls
 * (TOY_NICE, TOY_NICE_END; toy_format.h).
 *   paraver   event TOY_EV_NICE: the increment asked at the call, 0
 *             at its return; its .pcf section
 *   report    a section after the profile's: calls, increments asked,
 *             time spent in them
 *   timeline  one slice "nice" (category "toy") per call
 * Only thread logs hold these records. */
#include "pt_family.h"
#include "pv.h"
#include "report.h"
#include "timeline.h"

#include <stdlib.h>

#define TOY_EV_NICE 69000001u /* ours: nice's argument, 0 = returned */

typedef struct toy_totals {
	uint64_t calls, inc, ns; /* ns: from each call to its return */
	uint64_t open_ns;         /* a shard's: the call in progress began */
	int open;
} toy_totals;

static const pt_rec_toy_nice *toy_nice(const pt_event *ev)
{
	return PT_REC_PAYLOAD(ev->rec, pt_rec_toy_nice);
}

/* A record into a shard's totals: 1 when it is a TOY_NICE, 2 a
 * TOY_NICE_END that ends one, 0 otherwise (a damaged or lone one). */
static int toy_step(toy_totals *t, const pt_event *ev)
{
	if (ev->kind == PT_REC_TOY_NICE && toy_nice(ev)) {
		t->calls++;
		t->inc += (uint64_t)toy_nice(ev)->inc;
		t->open = 1;
		t->open_ns = ev->time_ns;
		return 1;
	}
	if (ev->kind == PT_REC_TOY_NICE_END && t->open) {
		t->ns += ev->time_ns - t->open_ns;
		t->open = 0;
		return 2;
	}
	return 0;
}

static void toy_add(toy_totals *to, const toy_totals *from)
{
	to->calls += from->calls;
	to->inc += from->inc;
	to->ns += from->ns;
}

/* ---- paraver ---------------------------------------------------------- */
static void *toy_pv_init(const pt_trace_ctx *ctx)
{
	(void)ctx;
	return calloc(1, sizeof(toy_totals));
}

static void *toy_pv_shard_init(void *global, pv_shard *s)
{
	(void)s;
	return global ? calloc(1, sizeof(toy_totals)) : NULL;
}

static int toy_pv_event(void *global, void *state, pv_shard *s, const pt_event *ev)
{
	(void)global;
	if (!state)
		return 0;
	int step = toy_step(state, ev);
	if (step == 1)
		pv_event(s, ev->time_ns, TOY_EV_NICE, toy_nice(ev)->inc);
	else if (step == 2)
		pv_event(s, ev->time_ns, TOY_EV_NICE, 0);
	return 0;
}

static void toy_pv_shard_exit(void *global, void *state, pv_shard *s)
{
	(void)s;
	if (state)
		toy_add(global, state);
	free(state);
}

static void toy_pv_pcf(void *global, FILE *pcf)
{
	const toy_totals *g = global;
	if (!g || !g->calls)
		return;
	fprintf(pcf, "\n\nEVENT_TYPE\n0    %u    nice (increment asked)\n", TOY_EV_NICE);
	fputs("VALUES\n0      End\n", pcf);
}

static const pv_family toy_paraver = {
	.name = "toy",
	.kind_first = PT_REC_TOY_NICE,
	.kind_last = PT_REC_TOY_NICE_END,
	.init = toy_pv_init,
	.shard_init = toy_pv_shard_init,
	.event = toy_pv_event,
	.shard_exit = toy_pv_shard_exit,
	.write_pcf = toy_pv_pcf,
	.destroy = free,
};

/* ---- report ----------------------------------------------------------- */
static int toy_pf_init(const pt_trace_ctx *ctx, void **global)
{
	(void)ctx;
	return (*global = calloc(1, sizeof(toy_totals))) ? 0 : -1;
}

static int toy_pf_event(void *global, void **shard, const pt_shard_info *in, const pt_event *ev)
{
	(void)global, (void)in;
	if (!*shard && !(*shard = calloc(1, sizeof(toy_totals))))
		return -1;
	toy_step(*shard, ev);
	return 0;
}

static int toy_pf_shard_exit(void *global, void *shard, const pt_shard_info *in, pf_thread *t,
                             uint64_t last_ns)
{
	(void)in, (void)t, (void)last_ns;
	if (shard)
		toy_add(global, shard);
	free(shard);
	return 0;
}

static void toy_pf_text(void *global, unsigned name_width, int short_form, unsigned top, FILE *o)
{
	(void)name_width, (void)short_form, (void)top;
	const toy_totals *g = global;
	if (!g->calls)
		return;
	fprintf(o, "\nnice (toy family)\n  calls %llu  asked %llu  in the calls %llu ns\n",
	        (unsigned long long)g->calls, (unsigned long long)g->inc,
	        (unsigned long long)g->ns);
}

static const pf_family toy_report = {
	.kind_first = PT_REC_TOY_NICE,
	.kind_last = PT_REC_TOY_NICE_END,
	.init = toy_pf_init,
	.event = toy_pf_event,
	.shard_exit = toy_pf_shard_exit,
	.print_text = toy_pf_text,
	.destroy = free,
};

/* ---- timeline --------------------------------------------------------- */
static int toy_tl_shard_init(void *global, const pt_shard_info *info, void **shard)
{
	(void)global, (void)info;
	return (*shard = calloc(1, sizeof(toy_totals))) ? 0 : -1;
}

static int toy_tl_event(void *global, void **shard, tl_sel *q, const pt_event *ev)
{
	(void)global;
	toy_totals *t = *shard;
	int was_open = t->open;
	int step = toy_step(t, ev);
	if (step == 1) {
		if (was_open) /* a begin without its end (lost data): closes there */
			tl_sel_span_end(q, ev->time_ns);
		t->open = tl_sel_span_begin(q, ev->time_ns, "toy", "nice");
	} else if (step == 2) {
		tl_sel_span_end(q, ev->time_ns);
	}
	return 0;
}

static void toy_tl_shard_end(void *global, void *shard, tl_sel *q, uint64_t last_ns)
{
	(void)global;
	toy_totals *t = shard;
	if (!t)
		return;
	if (t->open)
		tl_sel_span_end(q, last_ns);
	t->open = 0;
}

static int toy_tl_shard_exit(void *global, void *shard)
{
	(void)global;
	free(shard);
	return 0;
}

static const tl_family toy_timeline = {
	.kind_first = PT_REC_TOY_NICE,
	.kind_last = PT_REC_TOY_NICE_END,
	.shard_init = toy_tl_shard_init,
	.event = toy_tl_event,
	.shard_end = toy_tl_shard_end,
	.shard_exit = toy_tl_shard_exit,
};

const pt_family pt_family_toy = {
	.name = "toy",
	.paraver = &toy_paraver,
	.report = &toy_report,
	.timeline = &toy_timeline,
};
