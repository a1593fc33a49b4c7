/* SPDX-License-Identifier: MIT */
/* The Paraver part of OpenMP: Extrae's OpenMP events and
 * states on every thread, from the OMP_* records and the lock records of
 * OpenMP locks, so that BSC's OpenMP configurations work:
 *
 *   60000001 parallel (3 region, 1 parallel loop, 2 parallel sections; 0)
 *            on the encountering thread, which is in "Scheduling and
 *            Fork/Join" (7) until its own part of the region begins and
 *            from its end to the region's end
 *   60000018 / 60000118 the region each thread runs (its location), Running
 *   60000002 work-sharing (4 loop, 5 sections, 6 single), 6000005x OMPT's
 *            construct types, ours 62000001.. the loop's iterations,
 *            schedule, chunk size, and every chunk (first, iterations)
 *   60000005 barrier, 60000022 taskwait, 60000025 taskgroup: the waiting
 *            part, spinning included, is Synchronization (5)
 *   60000021 / 60000024 task creation, 60000023 / 60000028 the task a
 *            thread runs (Running, also inside a barrier)
 *   60000006 / 60000007 / 60000033 / 60000050 / 60000051 locks, critical,
 *            ordered, atomic: 3 acquiring (Synchronization), 6 held, 0
 *   60000030 / 62000009 omp_set_num_threads
 * A worker thread outside the regions it runs is Idle (0), whatever the
 * runtime does meanwhile (spinning, sleeping on its own condition variable).
 * The state is the one the thread's OpenMP nesting says (omp_common.h),
 * from its first OpenMP record on; before that the core's. */
#include "omp_common.h"
#include "pt_fw_util.h"
#include "pt_text.h"
#include "pv.h"

#include <stdlib.h>
#include <string.h>

typedef struct omp_shard {
	omp_track track;
	int used;
	int no_names; /* omp_names_finish failed: the first OpenMP record fails */
} omp_shard;

typedef struct omp_global {
	omp_names *names;
	int used; /* some row had OpenMP records: the .pcf gets the types */
} omp_global;

static void *ext_init(const pt_trace_ctx *ctx)
{
	omp_global *g = calloc(1, sizeof *g);
	if (g && !(g->names = omp_names_new(ctx))) {
		free(g);
		g = NULL;
	}
	return g;
}

static void ext_process_event(void *global, size_t process, const pt_event *ev)
{
	omp_global *g = global;
	if (g)
		omp_names_process_event(g->names, process, ev);
}

static void *ext_shard_init(void *global, pv_shard *s)
{
	omp_global *g = global;
	if (!g || s->info->kind != PT_FILE_THREAD)
		return NULL;
	omp_shard *o = calloc(1, sizeof *o);
	if (o)
		o->no_names = omp_names_finish(g->names) != 0;
	return o;
}

static uint32_t lock_name(const pv_shard *s, uint64_t addr)
{
	uint32_t id = (uint32_t)(pt_mix64(addr ^ ((uint64_t)s->info->pid << 48)) & 0x7fffffff);
	return id ? id : 1;
}

/* A line of n events at t. */
#define EVENTS(s, t, ...)                                                                          \
	do {                                                                                       \
		const uint32_t types_[] = {__VA_ARGS__};                                           \
		pv_events(s, t, sizeof types_ / sizeof types_[0], types_, values_);                \
	} while (0)

static void lock_events(pv_shard *s, const pt_event *ev)
{
	unsigned type = ev->rec->arg;
	pt_rec_lock lk;
	const pt_rec_lock *l = pt_rec_lock_get(ev->rec, &lk);
	if (!l)
		return;
	int64_t v = ev->kind == PT_REC_LOCK_REQUEST    ? OMP_LOCK_ACQUIRING
	            : ev->kind == PT_REC_LOCK_ACQUIRED ? OMP_LOCK_HELD
	                                               : OMP_LOCK_FREE;
	int64_t on = v != OMP_LOCK_FREE;
	uint64_t t = ev->time_ns;
	switch (type) {
	case PT_LOCK_OMP_CRITICAL: {
		const int64_t values_[] = {v, on};
		EVENTS(s, t, OMP_EV_UNNAMED_LOCK, OMP_EV_OMPT_CRITICAL);
		break;
	}
	case PT_LOCK_OMP_CRITICAL_NAMED: {
		const int64_t values_[] = {v, on ? lock_name(s, l->object) : 0, on};
		EVENTS(s, t, OMP_EV_NAMED_LOCK, OMP_EV_LOCK_NAME, OMP_EV_OMPT_CRITICAL);
		break;
	}
	case PT_LOCK_OMP_ATOMIC: {
		const int64_t values_[] = {on};
		EVENTS(s, t, OMP_EV_OMPT_ATOMIC);
		break;
	}
	case PT_LOCK_OMP_ORDERED: {
		const int64_t values_[] = {v};
		EVENTS(s, t, OMP_EV_ORDERED);
		break;
	}
	default: { /* omp_set_lock, omp_set_nest_lock */
		const int64_t values_[] = {v, on ? lock_name(s, l->object) : 0};
		EVENTS(s, t, OMP_EV_NAMED_LOCK, OMP_EV_LOCK_NAME);
		break;
	}
	}
}

static void work_events(pv_shard *s, uint64_t t, unsigned type, const pt_rec_omp_work *w,
                        uint32_t where)
{
	int on = w != NULL;
	uint32_t types[8];
	int64_t values[8];
	size_t n = 0;
#define ADD(ty, val) (types[n] = (ty), values[n++] = (val))
	switch (type) {
	case PT_OMP_WORK_LOOP:
		ADD(OMP_EV_WORKSHARING, on ? 4 : 0);
		ADD(OMP_EV_OMPT_LOOP, on);
		if (on) {
			if (w->count)
				ADD(OMP_EV_LOOP_ITERATIONS, (int64_t)w->count);
			if (w->chunk)
				ADD(OMP_EV_CHUNK_SIZE, w->chunk);
		} else {
			ADD(OMP_EV_CHUNK_ITERATIONS, 0);
		}
		break;
	case PT_OMP_WORK_SECTIONS:
		ADD(OMP_EV_WORKSHARING, on ? 5 : 0);
		ADD(OMP_EV_OMPT_SECTIONS, on);
		if (!on)
			ADD(OMP_EV_CHUNK_ITERATIONS, 0);
		break;
	case PT_OMP_WORK_SINGLE_EXECUTOR:
		ADD(OMP_EV_WORKSHARING, on ? 6 : 0);
		ADD(OMP_EV_OMPT_SINGLE, on);
		break;
	case PT_OMP_WORK_SINGLE_OTHER:
		ADD(OMP_EV_OMPT_SINGLE, on);
		break;
	case PT_OMP_WORK_MASKED:
		ADD(OMP_EV_OMPT_MASTER, on);
		break;
	case PT_OMP_WORK_WORKSHARE:
		ADD(OMP_EV_OMPT_WORKSHARE, on);
		break;
	case PT_OMP_WORK_TASKLOOP:
		ADD(OMP_EV_TASKLOOP, on);
		break;
	default:
		break;
	}
	ADD(OMP_EV_CONSTRUCT, on ? where : 0);
#undef ADD
	pv_events(s, t, n, types, values);
}

static void sync_events(pv_shard *s, uint64_t t, unsigned kind, int on, uint32_t where)
{
	uint32_t type = kind == PT_OMP_SYNC_TASKWAIT    ? OMP_EV_TASKWAIT
	                : kind == PT_OMP_SYNC_TASKGROUP ? OMP_EV_TASKGROUP
	                : kind == PT_OMP_SYNC_REDUCTION ? 0
	                                                : OMP_EV_BARRIER;
	int64_t v = !on ? 0 : kind == PT_OMP_SYNC_TASKGROUP ? 2 : 1;
	if (type)
		pv_events(s, t, 2, (uint32_t[]){type, OMP_EV_CONSTRUCT},
		          (int64_t[]){v, on ? where : 0});
	else
		pv_event(s, t, OMP_EV_CONSTRUCT, on ? where : 0);
}

static void omp_record(omp_global *g, pv_shard *s, const pt_event *ev)
{
	uint64_t t = ev->time_ns;
	size_t proc = s->info->process;
	const omp_names *nm = g->names;
	switch (ev->kind) {
	case PT_REC_OMP_PARALLEL_BEGIN: {
		const pt_rec_omp_parallel *p = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_parallel);
		if (!p)
			break;
		int64_t v = p->flags & PT_OMP_PAR_LOOP ? 1 : p->flags & PT_OMP_PAR_SECTIONS ? 2 : 3;
		pv_events(s, t, 2, (uint32_t[]){OMP_EV_PARALLEL, OMP_EV_REQUESTED},
		          (int64_t[]){v, p->requested});
		break;
	}
	case PT_REC_OMP_PARALLEL_END:
		pv_event(s, t, OMP_EV_PARALLEL, 0);
		break;
	case PT_REC_OMP_IMPLICIT_BEGIN: {
		const pt_rec_omp_implicit *p = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_implicit);
		if (!p)
			break;
		int64_t v = omp_names_value(nm, proc, p->loc);
		const int64_t values_[] = {v, v, p->team, (int64_t)p->index + 1};
		EVENTS(s, t, OMP_EV_OUTLINED, OMP_EV_OUTLINED_LINE, OMP_EV_TEAM_SIZE,
		       OMP_EV_THREAD_NUM);
		break;
	}
	case PT_REC_OMP_IMPLICIT_END: {
		const int64_t values_[] = {0, 0, 0};
		EVENTS(s, t, OMP_EV_OUTLINED, OMP_EV_OUTLINED_LINE, OMP_EV_THREAD_NUM);
		break;
	}
	case PT_REC_OMP_WORK_BEGIN: {
		const pt_rec_omp_work *w = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_work);
		if (!w)
			break;
		work_events(s, t, ev->rec->arg & 15, w, omp_names_value(nm, proc, w->loc));
		unsigned sched = ev->rec->arg >> 4;
		if (sched)
			pv_event(s, t, OMP_EV_SCHEDULE, sched);
		break;
	}
	case PT_REC_OMP_WORK_END:
		work_events(s, t, ev->rec->arg & 15, NULL, 0);
		break;
	case PT_REC_OMP_CHUNK: {
		const pt_rec_omp_chunk *c = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_chunk);
		if (c)
			pv_events(s, t, 2,
			          (uint32_t[]){OMP_EV_CHUNK_FIRST, OMP_EV_CHUNK_ITERATIONS},
			          (int64_t[]){c->first, (int64_t)c->count});
		break;
	}
	case PT_REC_OMP_WAIT_BEGIN: {
		const pt_rec_omp_sync *y = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_sync);
		sync_events(s, t, ev->rec->arg, 1, y ? omp_names_value(nm, proc, y->loc) : 0);
		break;
	}
	case PT_REC_OMP_WAIT_END:
		sync_events(s, t, ev->rec->arg, 0, 0);
		break;
	case PT_REC_OMP_TASK_CREATE: {
		const pt_rec_omp_task_create *c = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_task_create);
		if (!c)
			break;
		int64_t v = omp_names_value(nm, proc, pt_omp_task_loc(c->task));
		const int64_t values_[] = {1, v, v, 0, 0, 0};
		EVENTS(s, t, OMP_EV_TASK, OMP_EV_TASK_INST, OMP_EV_TASK_INST_LINE, OMP_EV_TASK,
		       OMP_EV_TASK_INST, OMP_EV_TASK_INST_LINE);
		break;
	}
	case PT_REC_OMP_TASK_DEPEND: {
		/* the count, on the creating thread after the creation (OMPT's
		 * TASK_CREATE only says whether there are any) */
		const pt_rec_omp_task_depend *d = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_task_depend);
		if (d && ev->rec->arg == 0)
			pv_event(s, t, OMP_EV_TASK_DEPS,
			         (int64_t)(d->b > INT64_MAX ? INT64_MAX : d->b));
		break;
	}
	case PT_REC_OMP_TASK_SCHEDULE: {
		const pt_rec_omp_task_schedule *x =
		    PT_REC_PAYLOAD(ev->rec, pt_rec_omp_task_schedule);
		if (!x || ev->rec->arg == PT_OMP_TASK_EARLY_FULFILL ||
		    ev->rec->arg == PT_OMP_TASK_LATE_FULFILL)
			break;
		uint32_t types[6];
		int64_t values[6];
		size_t n = 0;
		if (x->prior & PT_OMP_TASK_EXPLICIT) {
			types[n] = OMP_EV_TASK_FUNC, values[n++] = 0;
			types[n] = OMP_EV_TASK_FUNC_LINE, values[n++] = 0;
			types[n] = OMP_EV_TASK_ID, values[n++] = 0;
		}
		if (x->next & PT_OMP_TASK_EXPLICIT) {
			int64_t v = omp_names_value(nm, proc, pt_omp_task_loc(x->next));
			types[n] = OMP_EV_TASK_FUNC, values[n++] = v;
			types[n] = OMP_EV_TASK_FUNC_LINE, values[n++] = v;
			types[n] = OMP_EV_TASK_ID;
			values[n++] = (int64_t)(x->next & ((1ull << PT_OMP_LOC_SHIFT) - 1));
		}
		if (n)
			pv_events(s, t, n, types, values);
		break;
	}
	case PT_REC_OMP_CONTROL: {
		const pt_rec_omp_control *c = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_control);
		if (c && ev->rec->arg == PT_OMP_SET_NUM_THREADS) {
			const int64_t values_[] = {1, c->value, 0};
			EVENTS(s, t, OMP_EV_SET_NUM_THREADS, OMP_EV_NUM_THREADS,
			       OMP_EV_SET_NUM_THREADS);
		}
		break;
	}
	default:
		break;
	}
}

static int ext_event(void *global, void *shard_state, pv_shard *s, const pt_event *ev)
{
	omp_shard *o = shard_state;
	if (!o || ev->kind == PT_REC_OMP_LOC_DEF)
		return 0;
	omp_step step;
	omp_track_event(&o->track, ev, &step);
	if (!o->track.active)
		return 0;
	if (o->no_names)
		return pv_fail(s, "out of memory");
	o->used = 1;
	if (ev->kind >= PT_REC_RANGE_OPENMP_FIRST)
		omp_record(global, s, ev);
	else if (ev->kind >= PT_REC_LOCK_REQUEST && ev->kind <= PT_REC_LOCK_RELEASED &&
	         pt_lock_is_omp(ev->rec->arg))
		lock_events(s, ev);
	/* after the core's own state change for this record, if it made one */
	unsigned state = omp_track_state(&o->track);
	if (state != s->state)
		pv_set_state(s, ev->time_ns, state);
	return 0;
}

static void ext_shard_exit(void *global, void *shard_state, pv_shard *s)
{
	(void)s;
	omp_global *g = global;
	omp_shard *o = shard_state;
	if (o && o->used)
		g->used = 1;
	free(o);
}

static void pcf_values(FILE *f, const omp_global *g, int place)
{
	fputs("VALUES\n0      End\n", f);
	for (uint32_t v = 1; v <= omp_names_count(g->names); v++) {
		const char *l = place ? omp_names_place(g->names, v) : omp_names_label(g->names, v);
		fprintf(f, "%u      ", v);
		pt_label_put(f, l);
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void ext_write_pcf(void *global, FILE *f)
{
	omp_global *g = global;
	if (!g || !g->used)
		return;
	fputs(
	    "EVENT_TYPE\n0    60000001    Parallel (OMP)\nVALUES\n0      close\n1      DO (open)\n"
	    "2      SECTIONS (open)\n3      REGION (open)\n\n"
	    "EVENT_TYPE\n0    60000002    Worksharing (OMP)\nVALUES\n0      End\n4      DO\n"
	    "5      SECTIONS\n6      SINGLE\n\n"
	    "EVENT_TYPE\n0    60000005    OpenMP barrier\n0    60000022    OMP task wait\n"
	    "0    60000029    OMP taskloop\n0    60000030    OpenMP set num threads\n"
	    "0    60000050    OMP critical\n0    60000051    OMP atomic\n0    60000052    OMP "
	    "loop\n"
	    "0    60000053    OMP workshare\n0    60000054    OMP sections\n"
	    "0    60000055    OMP single\n0    60000056    OMP master\n0    60000021    OMP task "
	    "creation\n"
	    "VALUES\n0      End\n1      Begin\n\n"
	    "EVENT_TYPE\n0    60000006    OpenMP named-Lock\n0    60000007    OpenMP unnamed-Lock\n"
	    "VALUES\n0      Unlocked status\n3      Lock\n5      Unlock\n6      Locked status\n\n"
	    "EVENT_TYPE\n0    60000032    OpenMP named-Lock address name\n\n"
	    "EVENT_TYPE\n0    60000033    OpenMP ordered section\nVALUES\n0      Outside ordered\n"
	    "3      Waiting to enter ordered\n6      Inside ordered\n\n"
	    "EVENT_TYPE\n0    60000025    Taskgroup calls\nVALUES\n0      Outside\n1      Start\n"
	    "2      End\n\n"
	    "EVENT_TYPE\n0    60000028    Task Identifier\n\n"
	    "EVENT_TYPE\n0    62000001    OpenMP loop iterations\n"
	    "0    62000003    OpenMP loop chunk size\n0    62000004    OpenMP chunk first "
	    "iteration\n"
	    "0    62000005    OpenMP chunk iterations\n0    62000006    OpenMP team size\n"
	    "0    62000007    OpenMP thread number in team (+1)\n"
	    "0    62000008    OpenMP threads requested\n0    62000009    OpenMP num threads set\n"
	    "0    62000010    OpenMP task dependences\n\n"
	    "EVENT_TYPE\n0    62000002    OpenMP loop schedule\nVALUES\n1      static\n2      "
	    "dynamic\n"
	    "3      guided\n4      runtime\n\n",
	    f);
	fputs("EVENT_TYPE\n0    60000018    Executed OpenMP parallel function\n"
	      "0    60000023    Executed OpenMP task function\n"
	      "0    60000024    Instantiated OpenMP task function\n"
	      "0    62000011    OpenMP construct\n",
	      f);
	pcf_values(f, g, 0);
	fputs("EVENT_TYPE\n0    60000118    Executed OpenMP parallel function line and file\n"
	      "0    60000123    Executed OpenMP task function line and file\n"
	      "0    60000124    Instantiated OpenMP task function line and file\n",
	      f);
	pcf_values(f, g, 1);
}

static void ext_destroy(void *global)
{
	omp_global *g = global;
	if (!g)
		return;
	omp_names_free(g->names);
	free(g);
}

/* From THREAD_JOIN_BEGIN on: the other waits (joins, locks, conditions,
 * futexes, barriers) whose end the core turns to Running, which an OpenMP
 * wait or idle time must override; the lock records of OpenMP locks; the
 * OpenMP range. */
const pv_family openmp_paraver = {
    .name = "openmp",
    .kind_first = PT_REC_THREAD_JOIN_BEGIN,
    .kind_last = PT_REC_RANGE_OPENMP_LAST,
    .init = ext_init,
    .process_event = ext_process_event,
    .shard_init = ext_shard_init,
    .event = ext_event,
    .shard_exit = ext_shard_exit,
    .write_pcf = ext_write_pcf,
    .destroy = ext_destroy,
};
