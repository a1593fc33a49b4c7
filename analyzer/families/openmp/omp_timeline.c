/* SPDX-License-Identifier: MIT */
/* OpenMP on the timelines (tools/timeline/timeline.h): on every thread of a team a slice
 * for its part of each region ("parallel @ solver.c:42 in main"), inside it
 * the work-sharing constructs ("loop @ solver.c:44 dynamic,4"), the
 * explicit tasks the thread runs ("task @ solver.c:50") and the time it
 * waits in barriers, taskwait and taskgroup ("wait omp barrier"), nested
 * with the function slices as the records come. Lock and critical waits
 * are the timeline's own lock waits. */
#define _GNU_SOURCE
#include "omp_common.h"
#include "timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A thread's slices, from its first OpenMP record on. */
typedef struct tl_omp {
	omp_track track;
	uint8_t spanned[OMP_TRACK_DEPTH]; /* the frame at that depth has a slice open */
	int work_open;                    /* a work-sharing slice is open, ... */
	unsigned work_depth;              /* ... opened at this depth */
} tl_omp;

static void end_span(tl_sel *q, uint64_t t)
{
	tl_sel_span_end(q, t);
}

static const char *label(const omp_names *names, const tl_sel *q, uint32_t loc, const char *what,
                         char *buf, size_t len)
{
	const char *l = omp_names_label(names, omp_names_value(names, q->o->info->process, loc));
	snprintf(buf, len, "%s", l ? l : what);
	return buf;
}

static void close_work(tl_omp *x, tl_sel *q, uint64_t t)
{
	if (x->work_open) {
		x->work_open = 0;
		end_span(q, t);
	}
}

static int tl_omp_init(const pt_trace_ctx *ctx, void **global)
{
	return (*global = omp_names_new(ctx)) ? 0 : -1;
}

static void tl_omp_process_event(void *global, size_t process, const pt_event *ev)
{
	omp_names_process_event(global, process, ev);
}

/* The pre-pass is over: every location gets its name. */
static int tl_omp_shard_init(void *global, const pt_shard_info *info, void **shard)
{
	(void)info;
	(void)shard;
	return omp_names_finish(global);
}

static int tl_omp_event(void *global, void **shard, tl_sel *q, const pt_event *ev)
{
	const omp_names *names = global;
	tl_omp *x = *shard;
	if (!x) {
		if (!(x = *shard = calloc(1, sizeof *x)))
			return -1;
	}
	if (ev->kind == PT_REC_OMP_LOC_DEF)
		return 0;
	uint64_t t = ev->time_ns;
	omp_step step;
	omp_track_event(&x->track, ev, &step);
	/* what ended, innermost first; a work-sharing slice opened inside it
	 * ends before it */
	for (unsigned d = step.pop_from; d-- > step.pop_to;) {
		if (x->work_open && x->work_depth > d)
			close_work(x, q, t);
		if (d < OMP_TRACK_DEPTH && x->spanned[d]) {
			x->spanned[d] = 0;
			end_span(q, t);
		}
	}
	char buf[512];
	if (step.pushed) {
		unsigned d = x->track.depth - 1;
		const omp_frame *f = step.pushed;
		const char *name = NULL, *cat = "openmp";
		switch (f->kind) {
		case OMP_FR_IMPLICIT:
			name = label(names, q, f->loc, "parallel", buf, sizeof buf);
			break;
		case OMP_FR_TASK:
			name = label(names, q, f->loc, "task", buf, sizeof buf);
			break;
		case OMP_FR_WAIT:
			snprintf(buf, sizeof buf, "wait omp %s", omp_sync_name(f->arg));
			name = buf;
			cat = "wait";
			break;
		default: /* fork/join: the region is on the threads; locks: lock waits */
			break;
		}
		if (name && d < OMP_TRACK_DEPTH)
			x->spanned[d] = (uint8_t)tl_sel_span_begin(q, t, cat, name);
	}
	switch (ev->kind) {
	case PT_REC_OMP_WORK_BEGIN: {
		const pt_rec_omp_work *w = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_work);
		if (!w)
			break;
		close_work(x, q, t);
		char l[400];
		label(names, q, w->loc, omp_work_name(ev->rec->arg & 15), l, sizeof l);
		const char *sched = omp_sched_name(ev->rec->arg >> 4);
		if (*sched && w->chunk)
			snprintf(buf, sizeof buf, "%s %s,%u", l, sched, w->chunk);
		else
			snprintf(buf, sizeof buf, "%s%s%s", l, *sched ? " " : "", sched);
		x->work_open = tl_sel_span_begin(q, t, "openmp", buf);
		x->work_depth = x->track.depth;
		break;
	}
	case PT_REC_OMP_WORK_END:
		close_work(x, q, t);
		break;
	default:
		break;
	}
	return 0;
}

static void tl_omp_shard_end(void *global, void *shard, tl_sel *q, uint64_t last)
{
	(void)global;
	tl_omp *x = shard;
	if (!x)
		return;
	close_work(x, q, last);
	for (unsigned d = OMP_TRACK_DEPTH; d-- > 0;)
		if (x->spanned[d])
			end_span(q, last);
}

static int tl_omp_shard_exit(void *global, void *shard)
{
	(void)global;
	free(shard);
	return 0;
}

static void tl_omp_destroy(void *global)
{
	omp_names_free(global);
}

/* From a thread's first OpenMP record, all its records: its nesting
 * (omp_track) follows locks, waits and joins too. */
const tl_family openmp_timeline = {
	.kind_first = PT_REC_RANGE_OPENMP_FIRST,
	.kind_last = PT_REC_RANGE_OPENMP_LAST,
	.all_after_first = 1,
	.init = tl_omp_init,
	.process_event = tl_omp_process_event,
	.shard_init = tl_omp_shard_init,
	.event = tl_omp_event,
	.shard_end = tl_omp_shard_end,
	.shard_exit = tl_omp_shard_exit,
	.destroy = tl_omp_destroy,
};
