/* SPDX-License-Identifier: MIT */
/* Performance counters in the OTF2 archive (tools/otf2/ot.h), as Score-P
 * writes PAPI metrics: each counter a metric member of its own metric
 * class (named by its PAPI preset where it has one, "PAPI_TOT_INS", else
 * as the user named it), recorded on the thread as a Metric event with the
 * count since the thread's counters were opened, right after the function
 * or sync event its COUNTERS record follows (accumulated from start,
 * synchronous); a manual counter (PT_COUNTER) as its absolute value at the
 * point it was read. Counters of the same name share one metric. */
#define _GNU_SOURCE
#include "counters.h"
#include "ot.h"

#ifdef PT_WITH_OTF2
#include <stdlib.h>
#include <string.h>

/* The metrics are the export's (ot_metric), which defines them. */
typedef struct ctr_ot {
	ot_tool *tool;
} ctr_ot;

/* A thread's counters: its set's metrics, their running totals. */
#define CTR_OT_MAX 64
typedef struct ctr_ot_thread {
	uint32_t metric[CTR_OT_MAX]; /* by index in the thread's set; UINT32_MAX: none */
	uint64_t total[CTR_OT_MAX];
} ctr_ot_thread;

static int ctr_ot_init(const pt_trace_ctx *ctx, ot_tool *tool, void **global)
{
	(void)ctx;
	ctr_ot *g = calloc(1, sizeof *g);
	if (!g)
		return -1;
	g->tool = tool;
	*global = g;
	return 0;
}

static int ctr_ot_shard_init(void *global, ot_loc *l, void **shard)
{
	(void)global;
	if (l->info->kind != PT_FILE_THREAD)
		return 0;
	ctr_ot_thread *x = malloc(sizeof *x);
	if (!x)
		return -1;
	memset(x->metric, 0xff, sizeof x->metric);
	memset(x->total, 0, sizeof x->total);
	*shard = x;
	return 0;
}

static void metric(ot_loc *l, uint64_t t, uint32_t ref, uint64_t value)
{
	OTF2_Type type = OTF2_TYPE_UINT64;
	OTF2_MetricValue v = {.unsigned_int = value};
	OTF2_EvtWriter_Metric(l->w, NULL, ot_time(l, t), ref, 1, &type, &v);
}

static int ctr_ot_event(void *global, void **shard, ot_loc *l, const pt_event *ev)
{
	ctr_ot *g = global;
	ctr_ot_thread *x = *shard;
	unsigned arg = ev->rec->arg;
	if (!x)
		return 0;
	switch (ev->kind) {
	case PT_REC_COUNTER_DEF: {
		const pt_rec_counter_def *d = PT_REC_PAYLOAD(ev->rec, pt_rec_counter_def);
		const char *name = d ? pt_event_string(ev, sizeof *d) : NULL;
		if (!name || arg >= CTR_OT_MAX)
			return 0;
		const char *papi = NULL;
		pt_counters_prv_type(d->type, d->config, name, &papi);
		x->metric[arg] = ot_metric(g->tool, papi ? papi : name, papi != NULL,
		                           (d->flags & PT_COUNTER_MANUAL) != 0);
		x->total[arg] = 0;
		return x->metric[arg] == UINT32_MAX ? -1 : 0; /* out of memory */
	}
	case PT_REC_COUNTERS: {
		const uint64_t *delta = (const uint64_t *)(ev->rec + 1);
		size_t have = (pt_rec_size(ev->rec) - sizeof *ev->rec) / sizeof *delta;
		for (unsigned i = 0; i < arg && i < have && i < CTR_OT_MAX; i++) {
			x->total[i] += delta[i];
			if (x->metric[i] != UINT32_MAX)
				metric(l, ev->time_ns, x->metric[i], x->total[i]);
		}
		return 0;
	}
	case PT_REC_COUNTER_VALUE: {
		const pt_rec_counter_value *v = PT_REC_PAYLOAD(ev->rec, pt_rec_counter_value);
		if (v && arg < CTR_OT_MAX && x->metric[arg] != UINT32_MAX)
			metric(l, ev->time_ns, x->metric[arg], v->value);
		return 0;
	}
	default:
		return 0;
	}
}

static int ctr_ot_shard_exit(void *global, void *shard)
{
	(void)global;
	free(shard);
	return 0;
}

static void ctr_ot_destroy(void *global)
{
	free(global);
}

/* COUNTER_DEF and COUNTERS are core kinds, COUNTER_VALUE a sampling one:
 * the range holds them (and others, passed over). */
const ot_family counters_otf2 = {
    .kind_first = PT_REC_COUNTER_DEF,
    .kind_last = PT_REC_COUNTER_VALUE,
    .init = ctr_ot_init,
    .shard_init = ctr_ot_shard_init,
    .event = ctr_ot_event,
    .shard_exit = ctr_ot_shard_exit,
    .destroy = ctr_ot_destroy,
};
#endif
