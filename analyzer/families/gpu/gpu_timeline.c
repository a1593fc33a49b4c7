/* SPDX-License-Identifier: MIT */
/* GPU on the timelines (tools/timeline/timeline.h): each launch an instant
 * on its host thread that starts a flow to its execution; each stream's
 * kernels and copies as slices on its own row at their device times, one
 * at a time as on its Paraver row (an interval that starts before the
 * previous one ended, in an out-of-order queue, starts at its end); a
 * kernel profiled inside (instrument.so) sets the stream's counters at its
 * start and back to 0 at its end. */
#define _GNU_SOURCE
#include "gpu_common.h"
#include "gpu_prof.h"
#include "timeline.h"

#include <stdlib.h>

typedef struct gpu_tl {
	gpu_names *names; /* kernel names, from the process logs */
	gpu_profs *profs; /* kernel profiles' definitions */
} gpu_tl;

/* A stream's row. */
typedef struct gpu_tl_row {
	uint64_t busy_until; /* end of the last device interval */
	gpu_prof_join *join; /* kernels and their profiles */
} gpu_tl_row;

/* The launch flows' ids: 6 * 2^50 + (pid mod 2^18) * 2^33 + api bit * 2^32
 * + correlation mod 2^32 (timeline.h). */
static uint64_t launch_flow(uint32_t pid, unsigned api, uint64_t correlation)
{
	return (3ull << 51) + ((uint64_t)(pid & 0x3ffff) << 33) + ((uint64_t)(api & 1) << 32) +
	       (correlation & 0xffffffffu);
}

#define LAUNCH_FLOW "GPU launch"

/* A profile's counters, by the encoders' counter index. */
static const char *const counter_names[TL_COUNTERS] = {
	"instructions executed",
	"hot block share %",
	"work-groups",
	"work-group imbalance %",
};

static int tl_gpu_init(const pt_trace_ctx *ctx, void **global)
{
	gpu_tl *g = calloc(1, sizeof *g);
	if (!g || !(g->names = gpu_names_new(ctx->nprocesses)) ||
	    !(g->profs = gpu_profs_new(ctx->nprocesses))) {
		if (g)
			gpu_names_free(g->names);
		free(g);
		return -1;
	}
	*global = g;
	return 0;
}

static void tl_gpu_process_event(void *global, size_t process, const pt_event *ev)
{
	gpu_tl *g = global;
	gpu_names_process_event(g->names, process, ev);
	gpu_profs_process_event(g->profs, process, ev);
}

static const char *kernel_name(const gpu_tl *g, const tl_sel *q, uint32_t local_id)
{
	const char *n = gpu_names_kernel_name(
	    g->names, gpu_names_kernel(g->names, q->o->info->process, local_id));
	return n ? n : "kernel";
}

/* A kernel's profile as the stream's counters over its execution. */
static void profile_counters(const gpu_tl *g, tl_sel *q, const pt_rec_head *h, uint64_t start,
                             uint64_t end)
{
	const pt_rec_gpu_prof *r = PT_REC_PAYLOAD(h, pt_rec_gpu_prof);
	const gpu_prof_def *d = r ? gpu_profs_get(g->profs, q->o->info->process, r->prof) : NULL;
	gpu_launch_prof lp;
	if (!d || gpu_launch_prof_read(d, h, &lp) != 0)
		return;
	gpu_prof_values v;
	gpu_prof_values_of(d, &lp, &v);
	double values[TL_COUNTERS] = {(double)v.instructions, v.hot_share_pct, (double)v.groups,
				      v.imbalance_pct};
	int shown[TL_COUNTERS] = {v.counted, v.counted, 1, v.timed};
	for (unsigned i = 0; i < TL_COUNTERS; i++)
		if (shown[i])
			tl_sel_counter(q, start, end, i, "kernel", counter_names[i], values[i]);
}

/* A kernel launch on the host: the source of the flow to its execution
 * (CUDA: also the nested driver call's id, which device records may carry). */
static int tl_gpu_event(void *global, void **shard, tl_sel *q, const pt_event *ev)
{
	(void)shard;
	const gpu_tl *g = global;
	const pt_rec_gpu_launch *l = ev->kind == PT_REC_GPU_LAUNCH
	                                 ? PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_launch)
	                                 : NULL;
	if (!l)
		return 0;
	char name[256];
	if (l->kernel)
		snprintf(name, sizeof name, "launch %s", kernel_name(g, q, l->kernel));
	else
		snprintf(name, sizeof name, "launch"); /* a graph: its kernels are on the device */
	uint32_t pid = q->o->info->pid;
	tl_sel_flow(q, ev->time_ns, name, 1, launch_flow(pid, ev->rec->arg, l->correlation),
	            LAUNCH_FLOW);
	if (l->correlation2 && l->correlation2 != l->correlation)
		tl_sel_flow(q, ev->time_ns, name, 1, launch_flow(pid, ev->rec->arg, l->correlation2),
		            LAUNCH_FLOW);
	return 0;
}

/* A GPU stream's log: its kernels and copies, at their device times. */
static int tl_gpu_device_event(void *global, void **shard, tl_sel *q, const pt_event *ev)
{
	const gpu_tl *g = global;
	const pt_shard_info *in = q->o->info;
	gpu_tl_row *row = *shard;
	if (!row && !(row = *shard = calloc(1, sizeof *row)))
		return -1;
	uint64_t start, end, flow = 0;
	const char *cat, *name;
	char buf[64];
	if (ev->kind == PT_REC_GPU_KERNEL) {
		const pt_rec_gpu_kernel *k = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_kernel);
		if (!k)
			return 0;
		start = gpu_ticks_ns(in, k->start);
		end = gpu_ticks_ns(in, k->end);
		cat = "kernel";
		name = kernel_name(g, q, k->kernel);
		flow = launch_flow(in->pid, ev->rec->arg, k->correlation);
	} else if (ev->kind == PT_REC_GPU_MEMCPY || ev->kind == PT_REC_GPU_MEMSET) {
		const pt_rec_gpu_copy *c = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_copy);
		if (!c)
			return 0;
		start = gpu_ticks_ns(in, c->start);
		end = gpu_ticks_ns(in, c->end);
		cat = "transfer";
		if (ev->kind == PT_REC_GPU_MEMSET)
			snprintf(buf, sizeof buf, "memset %llu B", (unsigned long long)c->bytes);
		else
			snprintf(buf, sizeof buf, "%s %s %llu B",
			         c->flags & PT_GPU_COPY_F_MAP ? "map" : "copy",
			         gpu_copy_dir_name(c->direction), (unsigned long long)c->bytes);
		name = buf;
	} else if (ev->kind == PT_REC_GPU_PROF) {
		if (!row->join)
			row->join = gpu_prof_join_new();
		if (gpu_prof_join_profile(row->join, ev->rec, &start, &end))
			profile_counters(g, q, ev->rec, start, end);
		return 0;
	} else {
		return 0;
	}
	gpu_one_at_a_time(&row->busy_until, &start, &end);
	tl_sel_device(q, start, end - start, cat, name, flow, LAUNCH_FLOW);
	if (ev->kind == PT_REC_GPU_KERNEL) {
		if (!row->join)
			row->join = gpu_prof_join_new();
		const pt_rec_gpu_kernel *k = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_kernel);
		pt_rec_head *waiting = gpu_prof_join_kernel(row->join, k->correlation, start, end);
		if (waiting)
			profile_counters(g, q, waiting, start, end);
		free(waiting);
	}
	return 0;
}

static int tl_gpu_shard_exit(void *global, void *shard)
{
	(void)global;
	gpu_tl_row *row = shard;
	if (row)
		gpu_prof_join_free(row->join);
	free(row);
	return 0;
}

static void tl_gpu_destroy(void *global)
{
	gpu_tl *g = global;
	if (!g)
		return;
	gpu_names_free(g->names);
	gpu_profs_free(g->profs);
	free(g);
}

const tl_family gpu_timeline = {
	.kind_first = PT_REC_RANGE_GPU_FIRST,
	.kind_last = PT_REC_RANGE_GPU_LAST,
	.init = tl_gpu_init,
	.process_event = tl_gpu_process_event,
	.event = tl_gpu_event,
	.device_event = tl_gpu_device_event,
	.shard_exit = tl_gpu_shard_exit,
	.destroy = tl_gpu_destroy,
};
