/* SPDX-License-Identifier: MIT */
/* The Paraver part of counters, call stacks and samples: the events
 * themselves are made by counters_prv.c (pt_counters_prv_*), shared with
 * the report's counters section; this file plugs them into the writer. */
#include "counters.h"
#include "pv.h"

static void *ext_init(const pt_trace_ctx *ctx)
{
	return pt_counters_prv_new(ctx);
}

static void ext_process_event(void *global, size_t process, const pt_event *ev)
{
	pt_counters_prv *c = global;
	if (c)
		pt_counters_prv_process_event(c, process, ev);
}

static void *ext_shard_init(void *global, pv_shard *s)
{
	return global ? pt_counters_prv_shard_new(global, s->info) : NULL;
}

static void emit(void *arg, uint64_t time_ns, uint32_t type, int64_t value)
{
	pv_event(arg, time_ns, type, value);
}

static int ext_event(void *global, void *shard_state, pv_shard *s, const pt_event *ev)
{
	(void)global;
	if (shard_state)
		pt_counters_prv_event(shard_state, ev, emit, s);
	return 0;
}

static void ext_shard_exit(void *global, void *shard_state, pv_shard *s)
{
	(void)global;
	(void)s;
	pt_counters_prv_shard_free(shard_state);
}

static void ext_write_pcf(void *global, FILE *pcf)
{
	if (global)
		pt_counters_prv_pcf(global, pcf);
}

static int ext_renumber(void *global, const uint32_t *func_value, uint32_t nfunc)
{
	return global ? pt_counters_prv_renumber(global, func_value, nfunc) : 0;
}

static int ext_final_value(void *global, uint32_t type, int64_t *value)
{
	return global ? pt_counters_prv_final_value(global, type, value) : 0;
}

static void ext_destroy(void *global)
{
	pt_counters_prv_free(global);
}

/* From THREAD_CREATE on: the sync records a CALLSTACK attaches to, the
 * counter records (15, 16) and the sampling range. */
const pv_family counters_paraver = {
	.name = "counters",
	.kind_first = PT_REC_THREAD_CREATE,
	.kind_last = PT_REC_RANGE_SAMPLING_LAST,
	.init = ext_init,
	.process_event = ext_process_event,
	.shard_init = ext_shard_init,
	.event = ext_event,
	.shard_exit = ext_shard_exit,
	.write_pcf = ext_write_pcf,
	.destroy = ext_destroy,
	.renumber = ext_renumber,
	.final_value = ext_final_value,
};
