/* SPDX-License-Identifier: MIT */
/* Explicit tasks and taskloops under GNU libgomp (gomp.c says what is
 * recorded): GOMP_task is given our copy and task functions, so that each
 * task's run is recorded where libgomp runs it. */
#define _GNU_SOURCE
#include "gomp_internal.h"
#include "pt_spin.h"

#include <string.h>

__thread uint64_t pt_gomp_current_task __attribute__((tls_model("initial-exec")));

/* ---- tasks --------------------------------------------------------------------------------- */
/* libgomp copies a task's data into the task (arg_size bytes, arg_align
 * aligned, by cpyfn or memcpy) and later runs fn on the copy. It also
 * writes into that data itself: a detach clause's event handle goes into
 * the first word of the data it is given, before the copy (gcc puts the
 * event there), and a taskloop writes each task's bounds into the first
 * words of its copy. So libgomp must see the program's data, laid out as
 * gcc laid it out, and the wrapper keeps what it needs when the task runs
 * (the real function, the task's id) beside it, in a table keyed by the
 * address of the copy. libgomp is given our copy function, which copies as
 * the program asked (its cpyfn, or memcpy as libgomp would) and then files
 * the entry for that address, and our task function, task_run, which takes
 * the entry out, records and calls the real function on the same block.
 * libgomp then runs every task on a copy, also an undeferred one without
 * cpyfn that it would have run on the caller's data (a deferred task gets
 * a copy anyway).
 *
 * The table: open addressing under a spin lock (libgomp takes its own
 * team lock to queue and to dequeue each task, so this adds no new
 * serialisation). A place is reserved before the task is handed to
 * libgomp: a task that finds the table full is passed on unwrapped
 * (recorded as created, not as run), so task_run always finds its entry.
 * An entry libgomp never runs (a task cancelled after its copy) stays until
 * a new copy at the same address replaces it. */
#define TASK_SLOTS 16384
#define TASK_LIVE_MAX (TASK_SLOTS / 4 * 3)
typedef struct task_entry {
	void *block; /* the copy libgomp runs the task on; NULL = free */
	void (*fn)(void *);
	uint64_t task;
} task_entry;
static task_entry task_table[TASK_SLOTS];
static pt_spin task_lock = PT_SPIN_INIT;
static int task_live; /* reserved or filed entries */
static int task_full_warned;

/* The task being handed to libgomp by this thread, for task_copy. */
typedef struct task_pending {
	void (*fn)(void *);
	void (*cpyfn)(void *, void *);
	long arg_size;
	uint64_t task;
	int filed;
} task_pending;
static __thread task_pending *pending_task __attribute__((tls_model("initial-exec")));

static size_t task_slot(const void *block)
{
	return (size_t)(((uintptr_t)block >> 3) * 0x9E3779B97F4A7C15ull >> 50) & (TASK_SLOTS - 1);
}

static int task_reserve(void)
{
	if (__atomic_add_fetch(&task_live, 1, __ATOMIC_RELAXED) <= TASK_LIVE_MAX)
		return 1;
	__atomic_sub_fetch(&task_live, 1, __ATOMIC_RELAXED);
	if (!__atomic_exchange_n(&task_full_warned, 1, __ATOMIC_RELAXED))
		pt_warn("more than %d OpenMP tasks waiting to run at once: the runs of the others "
		        "are not recorded",
		        TASK_LIVE_MAX);
	return 0;
}

static void task_file(void *block, void (*fn)(void *), uint64_t task)
{
	pt_spin_lock(&task_lock);
	size_t i = task_slot(block);
	while (task_table[i].block && task_table[i].block != block)
		i = (i + 1) & (TASK_SLOTS - 1);
	if (task_table[i].block) /* a task libgomp dropped after its copy */
		__atomic_sub_fetch(&task_live, 1, __ATOMIC_RELAXED);
	task_table[i] = (task_entry){block, fn, task};
	pt_spin_unlock(&task_lock);
}

/* Takes the entry of `block` out (backward-shift deletion keeps every
 * other entry reachable from its home slot). 0 when there is none. */
static int task_take(void *block, task_entry *out)
{
	pt_spin_lock(&task_lock);
	size_t i = task_slot(block);
	while (task_table[i].block && task_table[i].block != block)
		i = (i + 1) & (TASK_SLOTS - 1);
	if (!task_table[i].block) {
		pt_spin_unlock(&task_lock);
		return 0;
	}
	*out = task_table[i];
	for (size_t j = (i + 1) & (TASK_SLOTS - 1); task_table[j].block;
	     j = (j + 1) & (TASK_SLOTS - 1)) {
		size_t home = task_slot(task_table[j].block);
		/* j's entry may move to i when its home is not in (i, j] */
		if (((j - home) & (TASK_SLOTS - 1)) >= ((j - i) & (TASK_SLOTS - 1))) {
			task_table[i] = task_table[j];
			i = j;
		}
	}
	task_table[i].block = NULL;
	pt_spin_unlock(&task_lock);
	__atomic_sub_fetch(&task_live, 1, __ATOMIC_RELAXED);
	return 1;
}

/* libgomp calls it on the thread in GOMP_task, with the program's data. */
static void task_copy(void *dst, void *src)
{
	task_pending *p = pending_task;
	if (p->cpyfn)
		p->cpyfn(dst, src);
	else if (p->arg_size)
		memcpy(dst, src, (size_t)p->arg_size);
	task_file(dst, p->fn, p->task);
	p->filed = 1;
}

/* The run of a task on this thread: the switch to it, and back at its end. */
typedef struct task_running {
	uint64_t task, prior;
	const void *body;
} task_running;

static task_running task_enter(uint64_t task, void (*fn)(void *))
{
	task_running r = {task, pt_gomp_current_task, pt_omp_body};
	pt_rec_omp_task_schedule s = {r.prior, task};
	pt_omp_emit(PT_REC_OMP_TASK_SCHEDULE, PT_OMP_TASK_SWITCH, &s, sizeof s);
	pt_gomp_current_task = task;
	pt_omp_body = (const void *)fn;
	return r;
}

static void task_leave(const task_running *r)
{
	pt_omp_body = r->body;
	pt_gomp_current_task = r->prior;
	pt_rec_omp_task_schedule s = {r->task, r->prior};
	pt_omp_emit(PT_REC_OMP_TASK_SCHEDULE, PT_OMP_TASK_COMPLETE, &s, sizeof s);
}

static void task_run(void *arg)
{
	task_entry e;
	if (!task_take(arg, &e)) {
		/* not reachable: every block libgomp runs was filed by task_copy */
		pt_warn("an OpenMP task's function could not be found: the task was not run");
		return;
	}
	task_running r = task_enter(e.task, e.fn);
	e.fn(arg);
	task_leave(&r);
}

/* libgomp's GOMP_TASK_FLAG_DEPEND; the depend array's first words give the
 * count (the OpenMP 5.0 form: 0, then the count). */
#define GOMP_FLAG_DEPEND (1u << 3)
#define OMPT_FLAG_EXPLICIT 0x4u
#define OMPT_FLAG_UNDEFERRED 0x8000000u

PT_REAL_DECL(GOMP_task);
PT_EXPORT void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                         long arg_size, long arg_align, bool if_clause, unsigned flags,
                         void **depend, int priority, void *detach)
{
	SITE(fn);
	void (*real)(void (*)(void *), void *, void (*)(void *, void *), long, long, bool, unsigned,
	             void **, int, void *) = PT_REAL(GOMP_task);
	if (!recording() || arg_size < 0 || arg_align <= 0) {
		real(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority,
		     detach);
		return;
	}
	uint32_t loc = loc_here(PT_OMP_AT(OMP_TASK_CREATE, 0));
	uint64_t task = pt_omp_task_id(loc, pt_omp_next_id());
	uint32_t ndeps = 0;
	if ((flags & GOMP_FLAG_DEPEND) && depend)
		ndeps = (uint32_t)(depend[0] ? (uintptr_t)depend[0] : (uintptr_t)depend[1]);
	pt_rec_omp_task_create c = {
	    task, OMPT_FLAG_EXPLICIT | (if_clause ? 0 : OMPT_FLAG_UNDEFERRED), ndeps};
	pt_omp_emit(PT_REC_OMP_TASK_CREATE, 0, &c, sizeof c);
	if (ndeps) {
		pt_rec_omp_task_depend d = {task, ndeps};
		pt_omp_emit(PT_REC_OMP_TASK_DEPEND, 0, &d, sizeof d);
	}
	/* libomp's GOMP_task (libgomp copies every task) runs an if(0) task at
	 * once on the program's data, not on a copy: that one is passed on as
	 * is and its run recorded around the call; and it calls no copy
	 * function for a task without data: that one is passed on as is */
	if (pt_omp_source() != PT_OMP_SOURCE_GOMP && (!arg_size || !if_clause)) {
		task_running r = {0, 0, NULL};
		if (!if_clause)
			r = task_enter(task, fn);
		real(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority,
		     detach);
		if (!if_clause)
			task_leave(&r);
		return;
	}
	if (!task_reserve()) {
		real(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority,
		     detach);
		return;
	}
	task_pending p = {fn, cpyfn, arg_size, task, 0};
	task_pending *outer = pending_task;
	pending_task = &p;
	real(task_run, data, task_copy, arg_size, arg_align, if_clause, flags, depend, priority,
	     detach);
	pending_task = outer;
	if (!p.filed) /* cancelled before its copy: libgomp dropped it */
		__atomic_sub_fetch(&task_live, 1, __ATOMIC_RELAXED);
}

/* taskloop: its tasks are made inside libgomp, not through GOMP_task; the
 * construct is what is seen. */
#define TASKLOOP(name, T)                                                                          \
	PT_REAL_DECL(name);                                                                        \
	PT_EXPORT void name(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),         \
	                    long arg_size, long arg_align, unsigned flags, unsigned long ntasks,   \
	                    int priority, T start, T end, T step)                                  \
	{                                                                                          \
		SITE(fn);                                                                          \
		void (*real)(void (*)(void *), void *, void (*)(void *, void *), long, long,       \
		             unsigned, unsigned long, int, T, T, T) = PT_REAL(name);               \
		if (!recording()) {                                                                \
			real(fn, data, cpyfn, arg_size, arg_align, flags, ntasks, priority, start, \
			     end, step);                                                           \
			return;                                                                    \
		}                                                                                  \
		work_begin(PT_OMP_WORK_TASKLOOP, 0, 0,                                             \
		           loc_here(PT_OMP_AT(OMP_WORK_BEGIN, PT_OMP_WORK_TASKLOOP)), 0);          \
		real(fn, data, cpyfn, arg_size, arg_align, flags, ntasks, priority, start, end,    \
		     step);                                                                        \
		work_end(PT_OMP_WORK_TASKLOOP);                                                    \
	}
TASKLOOP(GOMP_taskloop, long)
TASKLOOP(GOMP_taskloop_ull, unsigned long long)

void pt_gomp_tasks_fork_child(void)
{
	pending_task = NULL;
	pt_spin_reset(&task_lock);
}
