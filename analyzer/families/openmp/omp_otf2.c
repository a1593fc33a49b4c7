/* SPDX-License-Identifier: MIT */
/* OpenMP in the OTF2 archive (tools/otf2/ot.h), as Score-P writes it: the
 * encountering thread's ThreadFork and ThreadJoin around a parallel
 * region; on every thread of the team ThreadTeamBegin/End around its part
 * of it, a region "!$omp parallel @file:line" (role parallel) entered and
 * left, inside it the work-sharing constructs (loop, sections, single),
 * the explicit tasks the thread runs and its waits in barriers, taskwait
 * and taskgroup, each a region of the OpenMP paradigm, nested with the
 * functions as the records come. Locks, critical sections and ordered are
 * the core's lock events, of this paradigm (lock_paradigm). The thread
 * team of a process is one communicator over its threads. */
#define _GNU_SOURCE
#include "omp_common.h"
#include "ot.h"

#ifdef PT_WITH_OTF2
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct omp_ot {
	omp_names *names;
	ot_tool *tool;
	uint32_t comms; /* the team of process p: comms + p */
} omp_ot;

/* A thread's regions, from its first OpenMP record on. */
typedef struct omp_ot_thread {
	omp_track track;
	uint32_t region[OMP_TRACK_DEPTH]; /* the frame at that depth entered it, 0 none */
	uint8_t team[OMP_TRACK_DEPTH];    /* ... and began a team */
	uint32_t work;                    /* a work-sharing region is open, ... */
	unsigned work_depth;              /* ... opened at this depth */
} omp_ot_thread;

static int ot_omp_init(const pt_trace_ctx *ctx, ot_tool *tool, void **global)
{
	omp_ot *g = calloc(1, sizeof *g);
	if (!g || !(g->names = omp_names_new(ctx))) {
		free(g);
		return -1;
	}
	g->tool = tool;
	g->comms = ot_comm_block(tool);
	*global = g;
	return 0;
}

static void ot_omp_process_event(void *global, size_t process, const pt_event *ev)
{
	omp_ot *g = global;
	omp_names_process_event(g->names, process, ev);
}

static int ot_omp_shard_init(void *global, ot_loc *l, void **shard)
{
	(void)l;
	(void)shard;
	omp_ot *g = global;
	return omp_names_finish(g->names);
}

/* "!$omp parallel @solver.c:42", Score-P's names of constructs. */
static uint32_t region(omp_ot *g, const ot_loc *l, uint32_t loc, const char *what,
                       OTF2_RegionRole role)
{
	const char *place =
	    omp_names_place(g->names, omp_names_value(g->names, l->info->process, loc));
	char buf[512];
	if (place)
		snprintf(buf, sizeof buf, "!$omp %s @%s", what, place);
	else
		snprintf(buf, sizeof buf, "!$omp %s", what);
	return ot_region(g->tool, buf, role, OTF2_PARADIGM_OPENMP);
}

static OTF2_RegionRole work_role(unsigned type)
{
	switch (type) {
	case 1:
		return OTF2_REGION_ROLE_LOOP;
	case 2:
		return OTF2_REGION_ROLE_SECTIONS;
	case 3:
	case 4:
		return OTF2_REGION_ROLE_SINGLE;
	case 5:
		return OTF2_REGION_ROLE_WORKSHARE;
	default:
		return OTF2_REGION_ROLE_CODE;
	}
}

static void close_work(omp_ot_thread *x, ot_loc *l, uint64_t t)
{
	if (x->work)
		ot_leave(l, t, x->work);
	x->work = 0;
}

/* The frame at depth d ended at t. */
static void frame_end(omp_ot *g, omp_ot_thread *x, ot_loc *l, unsigned d, uint64_t t)
{
	if (x->work && x->work_depth > d)
		close_work(x, l, t);
	if (d >= OMP_TRACK_DEPTH)
		return;
	if (x->region[d])
		ot_leave(l, t, x->region[d]);
	if (x->team[d])
		OTF2_EvtWriter_ThreadTeamEnd(l->w, NULL, ot_time(l, t),
		                             g->comms + (OTF2_CommRef)l->info->process);
	x->region[d] = 0;
	x->team[d] = 0;
}

static void frame_begin(omp_ot *g, omp_ot_thread *x, ot_loc *l, const omp_frame *f, uint64_t t)
{
	unsigned d = x->track.depth - 1;
	if (d >= OMP_TRACK_DEPTH)
		return;
	uint32_t r = 0;
	switch (f->kind) {
	case OMP_FR_IMPLICIT:
		OTF2_EvtWriter_ThreadTeamBegin(l->w, NULL, ot_time(l, t),
		                               g->comms + (OTF2_CommRef)l->info->process);
		x->team[d] = 1;
		r = region(g, l, f->loc, "parallel", OTF2_REGION_ROLE_PARALLEL);
		break;
	case OMP_FR_TASK:
		r = region(g, l, f->loc, "task", OTF2_REGION_ROLE_TASK);
		break;
	case OMP_FR_WAIT: {
		const char *what = omp_sync_name(f->arg);
		r = region(g, l, f->loc, what,
		           !strcmp(what, "barrier") ? OTF2_REGION_ROLE_BARRIER
		                                    : OTF2_REGION_ROLE_TASK_WAIT);
		break;
	}
	default: /* fork/join: the records' own events; locks: the core's */
		break;
	}
	if (r)
		ot_enter(l, t, r);
	x->region[d] = r;
}

static int ot_omp_event(void *global, void **shard, ot_loc *l, const pt_event *ev)
{
	omp_ot *g = global;
	omp_ot_thread *x = *shard;
	if (!x && !(x = *shard = calloc(1, sizeof *x)))
		return -1;
	if (ev->kind == PT_REC_OMP_LOC_DEF)
		return 0;
	uint64_t t = ev->time_ns;
	omp_step step;
	omp_track_event(&x->track, ev, &step);
	for (unsigned d = step.pop_from; d-- > step.pop_to;)
		frame_end(g, x, l, d, t);
	switch (ev->kind) {
	case PT_REC_OMP_PARALLEL_BEGIN: {
		const pt_rec_omp_parallel *p = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_parallel);
		OTF2_EvtWriter_ThreadFork(l->w, NULL, ot_time(l, t), OTF2_PARADIGM_OPENMP,
		                          p ? p->requested : 0);
		break;
	}
	case PT_REC_OMP_PARALLEL_END:
		OTF2_EvtWriter_ThreadJoin(l->w, NULL, ot_time(l, t), OTF2_PARADIGM_OPENMP);
		break;
	default:
		break;
	}
	if (step.pushed)
		frame_begin(g, x, l, step.pushed, t);
	switch (ev->kind) {
	case PT_REC_OMP_WORK_BEGIN: {
		const pt_rec_omp_work *w = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_work);
		if (!w)
			break;
		close_work(x, l, t);
		unsigned type = ev->rec->arg & 15;
		x->work = region(g, l, w->loc, omp_work_name(type), work_role(type));
		x->work_depth = x->track.depth;
		ot_enter(l, t, x->work);
		break;
	}
	case PT_REC_OMP_WORK_END:
		close_work(x, l, t);
		break;
	default:
		break;
	}
	return 0;
}

static void ot_omp_shard_end(void *global, void *shard, ot_loc *l, uint64_t last)
{
	omp_ot_thread *x = shard;
	if (!x)
		return;
	close_work(x, l, last);
	for (unsigned d = OMP_TRACK_DEPTH; d-- > 0;)
		frame_end(global, x, l, d, last);
}

static int ot_omp_shard_exit(void *global, void *shard)
{
	(void)global;
	free(shard);
	return 0;
}

/* Each process's team: its threads (those with OpenMP records or not). */
static int ot_omp_defs(void *global, ot_defs *d)
{
	omp_ot *g = global;
	if (!omp_names_any(g->names))
		return 0;
	return ot_thread_comms(d, OTF2_PARADIGM_OPENMP, g->comms, "OpenMP team");
}

static void ot_omp_destroy(void *global)
{
	omp_ot *g = global;
	if (!g)
		return;
	omp_names_free(g->names);
	free(g);
}

/* From a thread's first OpenMP record, all its records: its nesting
 * (omp_track) follows locks, waits and joins too. */
const ot_family openmp_otf2 = {
    .kind_first = PT_REC_RANGE_OPENMP_FIRST,
    .kind_last = PT_REC_RANGE_OPENMP_LAST,
    .all_after_first = 1,
    .lock_paradigm = OTF2_PARADIGM_OPENMP,
    .init = ot_omp_init,
    .process_event = ot_omp_process_event,
    .shard_init = ot_omp_shard_init,
    .event = ot_omp_event,
    .shard_end = ot_omp_shard_end,
    .shard_exit = ot_omp_shard_exit,
    .defs = ot_omp_defs,
    .destroy = ot_omp_destroy,
};
#endif
