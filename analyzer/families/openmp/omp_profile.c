/* SPDX-License-Identifier: MIT */
/* The profile's OpenMP section (tools/report/report.h; docs/OPENMP.md): parallel regions by
 * location, work-sharing constructs, barriers and task waits, explicit
 * tasks, and each thread's OpenMP time. Gathered per shard from the
 * thread's nesting (omp_common.h), merged at shard exit; the parts of one
 * region instance found in several shards (its team's threads) meet in a
 * table keyed by (pid, region id).
 *
 *   regions: executions, total and mean time (on the encountering
 *     thread, fork to join), mean team size, busy time (in the region, not
 *     waiting: summed over the team), load imbalance (per execution the
 *     team's largest busy time over its mean; here the sum of the largest
 *     over the sum of the means, so long executions weigh more), barrier
 *     and lock waits summed over the team and per thread, explicit tasks
 *     run inside and their time;
 *   work-sharing: per construct, the threads that entered it, chunks and
 *     iterations they got, the least and most iterations of a thread;
 *   waits: per barrier/taskwait/taskgroup, arrivals, wait total and max;
 *   tasks: per task construct, created, run (tasks whose body ended, once
 *     each however often the thread switched away from it), time (total,
 *     mean, max per task), dependences (the TASK_DEPEND counts);
 *   threads: busy, barrier, task wait, lock, fork/join, idle (a worker
 *     between regions), serial.
 * The thread summary of the profile counts a thread's waits in barriers,
 * taskwait and taskgroup, and a worker's idle time (waiting at the fork
 * barrier for the next region), as barrier time; an other wait inside
 * those (the runtime sleeping on a condition variable after spinning)
 * moves there from its own category, so nothing counts twice. */
#define _GNU_SOURCE
#include "omp_profile.h"
#include "pt_fw_util.h"
#include "pt_text.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

/* Tasks this thread switched away from before their end, with the time
 * they ran so far: a task's longest time is its whole run. A task that
 * resumes on another thread (untied) leaves its part here (its time still
 * counts in the total). */
#define SUSPENDED 16
typedef struct suspended {
	uint64_t task, ns;
} suspended;

struct pf_omp_shard {
	omp_track track;
	suspended susp[SUSPENDED];
	unsigned nsusp;
	size_t process;
	uint32_t pid;
	struct {
		part *v;
		size_t n, cap;
	} parts;
	loc_stats ls;
	/* the work-sharing construct this thread is in: its iterations */
	uint32_t work_value;
	uint64_t work_iters;
	int work_open;
	uint32_t sync_value;
	int oom;
};

static int omp_report_init(const pt_trace_ctx *ctx, void **global)
{
	pf_omp *g = calloc(1, sizeof *g);
	if (!g)
		return -1;
	g->ctx = ctx;
	if (!(g->names = omp_names_new(ctx))) {
		free(g);
		return -1;
	}
	*global = g;
	return 0;
}

static void loc_stats_free(loc_stats *l)
{
	free(l->work);
	free(l->sync);
	free(l->task);
	memset(l, 0, sizeof *l);
}

static void omp_report_destroy(void *global)
{
	pf_omp *g = global;
	if (!g)
		return;
	omp_names_free(g->names);
	free(g->parts);
	loc_stats_free(&g->ls);
	free(g->threads);
	free(g);
}

static void omp_report_process_event(void *global, size_t process, const pt_event *ev)
{
	pf_omp *g = global;
	omp_names_process_event(g->names, process, ev);
}

static int loc_grow(loc_stats *l, uint32_t v)
{
	if (v < l->n)
		return 0;
	size_t n = l->n ? l->n : 16;
	while (n <= v)
		n *= 2;
	work_stat *w = realloc(l->work, n * sizeof *w);
	if (w)
		l->work = w;
	sync_stat *s = realloc(l->sync, n * sizeof *s);
	if (s)
		l->sync = s;
	task_stat *t = realloc(l->task, n * sizeof *t);
	if (t)
		l->task = t;
	if (!w || !s || !t)
		return -1;
	memset(l->work + l->n, 0, (n - l->n) * sizeof *w);
	memset(l->sync + l->n, 0, (n - l->n) * sizeof *s);
	memset(l->task + l->n, 0, (n - l->n) * sizeof *t);
	l->n = n;
	return 0;
}

static void add_part(pf_omp_shard *o, part p)
{
	if (o->parts.n == o->parts.cap) {
		size_t cap = o->parts.cap ? o->parts.cap * 2 : 64;
		part *v = realloc(o->parts.v, cap * sizeof *v);
		if (!v) {
			o->oom = 1;
			return;
		}
		o->parts.v = v;
		o->parts.cap = cap;
	}
	o->parts.v[o->parts.n++] = p;
}

static uint32_t value_of(const pf_omp *g, const pf_omp_shard *o, uint32_t loc)
{
	return omp_names_value(g->names, o->process, loc);
}

/* Time a task ran before this stretch (taken out of the list), or, when
 * the task goes on later, the stretch added to it (0 returned). */
static uint64_t suspended_time(pf_omp_shard *o, uint64_t task, uint64_t dur, int ended)
{
	unsigned i = 0;
	while (i < o->nsusp && o->susp[i].task != task)
		i++;
	if (ended) {
		if (i == o->nsusp)
			return 0;
		uint64_t ns = o->susp[i].ns;
		o->susp[i] = o->susp[--o->nsusp];
		return ns;
	}
	if (i < o->nsusp) {
		o->susp[i].ns += dur;
	} else {
		if (o->nsusp == SUSPENDED) /* the oldest goes */
			memmove(o->susp, o->susp + 1, --o->nsusp * sizeof *o->susp);
		o->susp[o->nsusp++] = (suspended){task, dur};
	}
	return 0;
}

/* A frame ended (a task's body too when `ended`; else the thread switched
 * away from it): what it says of its region, task, wait. open: the thread's
 * log ended inside it. */
static void frame_ended(pf_omp *g, pf_omp_shard *o, const omp_frame *f, uint64_t now, int ended,
                        int open)
{
	uint32_t v = value_of(g, o, f->loc);
	uint64_t dur = now > f->t ? now - f->t : 0;
	switch (f->kind) {
	case OMP_FR_IMPLICIT:
	case OMP_FR_FORK: {
		part p = {o->pid,
		          f->id,
		          v,
		          0,
		          0,
		          0,
		          0,
		          0,
		          0,
		          f->team,
		          f->kind == OMP_FR_FORK ? PART_MASTER : PART_THREAD,
		          (uint8_t)open};
		if (f->kind == OMP_FR_IMPLICIT) {
			p.busy = f->cat[OMP_CAT_WORK];
			p.barrier = f->cat[OMP_CAT_BARRIER] + f->cat[OMP_CAT_TASKWAIT];
			p.lock = f->cat[OMP_CAT_LOCK];
		} else {
			p.dur = dur;
		}
		add_part(o, p);
		break;
	}
	case OMP_FR_TASK: {
		uint32_t tv = value_of(g, o, pt_omp_task_loc(f->id));
		if (loc_grow(&o->ls, tv)) {
			o->oom = 1;
			break;
		}
		task_stat *t = &o->ls.task[tv];
		t->time += dur;
		uint64_t whole = dur + suspended_time(o, f->id, dur, ended);
		if (ended) {
			t->run++;
			if (whole > t->time_max)
				t->time_max = whole;
		}
		/* counted for the region it ran in (this thread's innermost part) */
		const omp_frame *im = omp_track_find(&o->track, OMP_FR_IMPLICIT);
		if (im)
			add_part(o, (part){o->pid, im->id, value_of(g, o, im->loc), 0, 0, 0,
			                   (uint64_t)(ended != 0), dur, 0, 0, PART_TASK, 0});
		break;
	}
	case OMP_FR_WAIT:
		if (o->sync_value && !loc_grow(&o->ls, o->sync_value)) {
			sync_stat *s = &o->ls.sync[o->sync_value];
			uint64_t w = f->cat[OMP_CAT_BARRIER] + f->cat[OMP_CAT_TASKWAIT];
			s->arrivals++;
			s->wait += w;
			if (w > s->wait_max)
				s->wait_max = w;
		}
		break;
	default:
		break;
	}
}

static void work_done(pf_omp_shard *o)
{
	if (!o->work_open)
		return;
	o->work_open = 0;
	if (!o->work_value || loc_grow(&o->ls, o->work_value))
		return;
	work_stat *w = &o->ls.work[o->work_value];
	if (!w->thread_min || o->work_iters < w->thread_min)
		w->thread_min = o->work_iters + 1; /* +1: 0 means none yet */
	if (o->work_iters > w->thread_max)
		w->thread_max = o->work_iters;
}

/* A TASK_SCHEDULE away from a task whose body is over (not a yield or a
 * switch to a task it includes). */
static int task_body_ended(const pt_event *ev)
{
	if (ev->kind != PT_REC_OMP_TASK_SCHEDULE)
		return 0;
	unsigned status = ev->rec->arg;
	return status == PT_OMP_TASK_COMPLETE || status == PT_OMP_TASK_CANCEL ||
	       status == PT_OMP_TASK_DETACH;
}

/* Every record of a thread log but function records, from the thread's
 * first OpenMP record on (*shard is made then). */
static int omp_report_event(void *global, void **shard, const pt_shard_info *in,
                            const pt_event *ev)
{
	pf_omp *g = global;
	pf_omp_shard *o = *shard;
	if (!o) {
		if (!(o = *shard = calloc(1, sizeof *o)))
			return -1;
		o->process = in->process;
		o->pid = in->pid;
		if (omp_names_finish(g->names))
			o->oom = 1;
	}
	if (ev->kind == PT_REC_OMP_LOC_DEF)
		return 0;
	omp_step step;
	omp_track_event(&o->track, ev, &step);
	if (step.popped && step.popped->kind == OMP_FR_IMPLICIT)
		work_done(o);
	if (step.popped)
		frame_ended(g, o, step.popped, ev->time_ns, task_body_ended(ev), 0);
	switch (ev->kind) {
	case PT_REC_OMP_WORK_BEGIN: {
		const pt_rec_omp_work *w = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_work);
		if (!w)
			break;
		work_done(o);
		uint32_t v = value_of(g, o, w->loc);
		if (!v) {
			/* a construct the runtime gave no place (libomp's workers in gcc's
			 * combined parallel loops): its region's */
			const omp_frame *im = omp_track_find(&o->track, OMP_FR_IMPLICIT);
			v = im ? value_of(g, o, im->loc) : 0;
		}
		o->work_open = 1;
		o->work_value = v;
		o->work_iters = 0;
		if (!v || loc_grow(&o->ls, v))
			break;
		work_stat *s = &o->ls.work[v];
		s->entered++;
		s->sched = ev->rec->arg >> 4;
		s->chunk_size = w->chunk;
		break;
	}
	case PT_REC_OMP_CHUNK: {
		const pt_rec_omp_chunk *c = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_chunk);
		if (c && !o->work_open) {
			/* a loop this thread did not see begin (libomp running gcc's
			 * combined parallel loop tells one thread): its region's */
			const omp_frame *im = omp_track_find(&o->track, OMP_FR_IMPLICIT);
			o->work_open = im != NULL;
			o->work_value = im ? value_of(g, o, im->loc) : 0;
			o->work_iters = 0;
		}
		if (!c || !o->work_open || !o->work_value || loc_grow(&o->ls, o->work_value))
			break;
		o->ls.work[o->work_value].chunks++;
		o->ls.work[o->work_value].iters += c->count;
		o->work_iters += c->count;
		break;
	}
	case PT_REC_OMP_WORK_END:
		work_done(o);
		break;
	case PT_REC_OMP_WAIT_BEGIN: {
		const pt_rec_omp_sync *y = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_sync);
		o->sync_value = y ? value_of(g, o, y->loc) : 0;
		break;
	}
	case PT_REC_OMP_TASK_CREATE: {
		const pt_rec_omp_task_create *c = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_task_create);
		uint32_t v = c ? value_of(g, o, pt_omp_task_loc(c->task)) : 0;
		if (!v || loc_grow(&o->ls, v))
			break;
		o->ls.task[v].created++;
		break;
	}
	case PT_REC_OMP_TASK_DEPEND: {
		/* how many (OMPT's TASK_CREATE only says whether it has any) */
		const pt_rec_omp_task_depend *d = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_task_depend);
		uint32_t v = d && ev->rec->arg == 0 ? value_of(g, o, pt_omp_task_loc(d->a)) : 0;
		if (!v || loc_grow(&o->ls, v))
			break;
		o->ls.task[v].deps += d->b;
		break;
	}
	default:
		break;
	}
	if (o->oom)
		return -1;
	return 0;
}

/* The thread summary's categories (report.h PF_W_*) from the OpenMP time. */
static void fix_waits(const omp_track *t, pf_thread *ts)
{
	static const int core_w[4] = {PF_W_LOCK, PF_W_COND, PF_W_JOIN, PF_W_BARRIER};
	for (int b = 0; b < 4; b++) {
		uint64_t m = t->moved[b];
		uint64_t *w = &ts->wait[core_w[b]];
		*w = *w > m ? *w - m : 0;
	}
	ts->wait[PF_W_BARRIER] +=
	    t->cat[OMP_CAT_BARRIER] + t->cat[OMP_CAT_TASKWAIT] + t->cat[OMP_CAT_IDLE];
}

static void merge_loc(loc_stats *dst, const loc_stats *src, int *oom)
{
	for (uint32_t v = 0; v < src->n; v++) {
		const work_stat *w = &src->work[v];
		const sync_stat *s = &src->sync[v];
		const task_stat *t = &src->task[v];
		if (!w->entered && !s->arrivals && !t->created && !t->run)
			continue;
		if (loc_grow(dst, v)) {
			*oom = 1;
			return;
		}
		work_stat *dw = &dst->work[v];
		if (w->entered) {
			dw->entered += w->entered;
			dw->chunks += w->chunks;
			dw->iters += w->iters;
			dw->sched = w->sched;
			dw->chunk_size = w->chunk_size;
			if (w->thread_min && (!dw->thread_min || w->thread_min < dw->thread_min))
				dw->thread_min = w->thread_min;
			if (w->thread_max > dw->thread_max)
				dw->thread_max = w->thread_max;
		}
		sync_stat *ds = &dst->sync[v];
		ds->arrivals += s->arrivals;
		ds->wait += s->wait;
		if (s->wait_max > ds->wait_max)
			ds->wait_max = s->wait_max;
		task_stat *dt = &dst->task[v];
		dt->created += t->created;
		dt->run += t->run;
		dt->time += t->time;
		dt->deps += t->deps;
		if (t->time_max > dt->time_max)
			dt->time_max = t->time_max;
	}
}

/* Merges and frees the thread's part, and moves its OpenMP waits into
 * ts's categories. */
static int omp_report_shard_exit(void *global, void *shard, const pt_shard_info *in,
                                 pf_thread *ts, uint64_t last_ns)
{
	pf_omp *g = global;
	pf_omp_shard *o = shard;
	if (!o)
		return 0;
	int rc = 0;
	work_done(o);
	/* what is still open ends at the log's last record, as open function
	 * frames do (a program that exits inside a region) */
	omp_track_advance(&o->track, last_ns);
	unsigned depth = o->track.depth < OMP_TRACK_DEPTH ? o->track.depth : OMP_TRACK_DEPTH;
	for (unsigned d = depth; d-- > 0;) {
		o->track.depth = d + 1; /* the frames around it, for a task's region */
		omp_frame f = o->track.f[d];
		frame_ended(g, o, &f, last_ns, 1, 1);
	}
	omp_track_end(&o->track, last_ns);
	if (o->track.active) {
		fix_waits(&o->track, ts);
		if (g->nthreads == g->capthreads) {
			size_t cap = g->capthreads ? g->capthreads * 2 : 16;
			thread_row *r = realloc(g->threads, cap * sizeof *r);
			if (r) {
				g->threads = r;
				g->capthreads = cap;
			}
		}
		if (g->nthreads < g->capthreads) {
			thread_row *r = &g->threads[g->nthreads++];
			r->shard = in->index;
			memcpy(r->cat, o->track.cat, sizeof r->cat);
		} else {
			rc = -1;
		}
	}
	if (o->parts.n) {
		if (g->nparts + o->parts.n > g->capparts) {
			size_t cap = g->capparts ? g->capparts : 256;
			while (cap < g->nparts + o->parts.n)
				cap *= 2;
			part *p = realloc(g->parts, cap * sizeof *p);
			if (p) {
				g->parts = p;
				g->capparts = cap;
			}
		}
		if (g->nparts + o->parts.n <= g->capparts) {
			memcpy(g->parts + g->nparts, o->parts.v, o->parts.n * sizeof *o->parts.v);
			g->nparts += o->parts.n;
		} else {
			rc = -1;
		}
	}
	int oom = 0;
	merge_loc(&g->ls, &o->ls, &oom);
	if (oom || o->oom)
		rc = -1;
	free(o->parts.v);
	loc_stats_free(&o->ls);
	free(o);
	return rc;
}

const pf_family openmp_report = {
	.kind_first = PT_REC_RANGE_OPENMP_FIRST,
	.kind_last = PT_REC_RANGE_OPENMP_LAST,
	.all_after_first = 1,
	.init = omp_report_init,
	.process_event = omp_report_process_event,
	.event = omp_report_event,
	.shard_exit = omp_report_shard_exit,
	.print_text = omp_report_text,
	.print_csv = omp_report_csv,
	.print_json = omp_report_json,
	.destroy = omp_report_destroy,
};
