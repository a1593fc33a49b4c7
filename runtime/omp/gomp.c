/* SPDX-License-Identifier: MIT */
/* OpenMP programs of GNU libgomp (gcc -fopenmp; GCC 12's libgomp has no
 * OMPT): the GOMP_* entry points gcc compiles OpenMP constructs into are
 * interposed and recorded as the OMPT callbacks of ompt.c would be, with
 * the same records:
 *
 *   GOMP_parallel*            PARALLEL_BEGIN/END on the encountering thread;
 *                             the outlined body is wrapped in a trampoline
 *                             (region_body) that writes IMPLICIT_BEGIN/END
 *                             on every thread of the team; the master's
 *                             wait for its team at the end is an implicit
 *                             barrier (WAIT_BEGIN/END) in its part
 *   GOMP_loop_*_start/next    WORK_BEGIN (loop: schedule, iterations,
 *                             chunk size), OMP_CHUNK for every chunk
 *   GOMP_loop_end*            WORK_END, and the barrier that follows
 *   GOMP_sections*            the same for sections (a chunk per section)
 *   GOMP_single_start         WORK_BEGIN/END (single, executor or other)
 *   GOMP_barrier, taskwait,
 *   GOMP_taskgroup_end        WAIT_BEGIN ... WAIT_END around the call
 *   GOMP_critical*, atomic,
 *   ordered, omp_*_lock       LOCK_REQUEST/ACQUIRED/RELEASED (pt_omp.h)
 *   GOMP_task                 TASK_CREATE; the task's function is wrapped
 *                             (task_run: TASK_SCHEDULE to it and back)
 *   GOMP_taskloop             WORK_BEGIN/END (taskloop)
 *
 * What gcc computes inline is not seen: the iterations of a static
 * schedule (only the barrier after it), atomic updates done with an
 * instruction. The entry points of GCC before 4.9 (GOMP_parallel_start,
 * GOMP_parallel_loop_*_start) and doacross loops are passed on unrecorded.
 *
 * When libomp runs the program (its GOMP_* entry points serve gcc-built
 * code and raise OMPT callbacks), every wrapper here only passes the call
 * on: pt_omp_source().
 *
 * This file holds the parallel regions; the other constructs have a file
 * each (gomp_internal.h lists them). */
#define _GNU_SOURCE
#include "gomp_internal.h"

/* libgomp's own answers, for the team of the running region. */
static int team_size(void)
{
	static void *slot;
	int (*f)(void) = (int (*)(void))pt_real_cached(&slot, "omp_get_num_threads");
	return f ? f() : 1;
}

static int team_index(void)
{
	static void *slot;
	int (*f)(void) = (int (*)(void))pt_real_cached(&slot, "omp_get_thread_num");
	return f ? f() : 0;
}

/* ---- parallel regions -------------------------------------------------------- */
/* What the team's threads need of the region: on the encountering thread's
 * stack, which outlives every thread's part of the region. */
typedef struct region {
	/* first: GOMP_parallel_reductions reads the program's reduction data
	 * from the first word of the data it is given */
	void *head;
	void (*fn)(void *);
	void *data;
	uint64_t id;
	uint32_t loc;
	unsigned flags; /* PT_OMP_PAR_* */
	/* combined constructs: the loop or the sections every thread shares */
	unsigned sched;
	uint64_t count;
	long chunk;
	int64_t incr;
	int quiet; /* libomp runs it (OMPT records): only pt_omp_body is set */
} region;

static void region_body(void *arg)
{
	region *r = arg;
	if (r->quiet) {
		const void *body = pt_omp_body;
		pt_omp_body = (const void *)r->fn;
		if (r->flags & PT_OMP_PAR_LOOP)
			loop_push(r->incr);
		r->fn(r->data);
		pt_omp_body = body;
		return;
	}
	uint64_t outer = pt_gomp_current_task;
	int index = team_index();
	pt_rec_omp_implicit p = {r->id, r->loc, (uint16_t)team_size(), (uint16_t)index};
	pt_omp_emit(PT_REC_OMP_IMPLICIT_BEGIN, 0, &p, sizeof p);
	pt_gomp_current_task = r->id;
	if (r->flags & PT_OMP_PAR_LOOP) {
		work_begin(PT_OMP_WORK_LOOP, r->sched, r->count, r->loc, r->chunk);
		loop_push(r->incr);
	} else if (r->flags & PT_OMP_PAR_SECTIONS) {
		work_begin(PT_OMP_WORK_SECTIONS, 0, r->count, r->loc, 0);
	}
	const void *body = pt_omp_body;
	pt_omp_body = (const void *)r->fn;
	r->fn(r->data);
	pt_omp_body = body;
	pt_gomp_current_task = outer;
	/* The master goes on to wait for the others (in GOMP_parallel_end):
	 * that wait is its part's, as OMPT has it, so its part ends in
	 * region_end, after the wait. The other threads' wait at the end is
	 * not seen. */
	if (index == 0) {
		sync_begin(PT_OMP_SYNC_BARRIER_IMPLICIT_PARALLEL, r->loc);
		return;
	}
	p.team = 0;
	pt_omp_emit(PT_REC_OMP_IMPLICIT_END, 0, &p, sizeof p);
}

static void region_begin(region *r, void (*fn)(void *), void *data, unsigned nthreads,
                         unsigned flags)
{
	r->fn = fn;
	r->data = data;
	r->loc = loc_here(PT_OMP_AT(OMP_PARALLEL_BEGIN, flags));
	r->id = pt_omp_next_id() & ((1ull << PT_OMP_LOC_SHIFT) - 1);
	r->flags = flags;
	pt_rec_omp_parallel p = {r->id, r->loc, (uint16_t)(nthreads > 0xffff ? 0xffff : nthreads),
	                         (uint16_t)flags};
	pt_omp_emit(PT_REC_OMP_PARALLEL_BEGIN, PT_OMP_RUNTIME_GOMP, &p, sizeof p);
}

static void region_end(const region *r)
{
	sync_end(PT_OMP_SYNC_BARRIER_IMPLICIT_PARALLEL);
	pt_rec_omp_implicit m = {r->id, r->loc, 0, 0};
	pt_omp_emit(PT_REC_OMP_IMPLICIT_END, 0, &m, sizeof m);
	pt_rec_omp_parallel p = {r->id, r->loc, 0, 0};
	pt_omp_emit(PT_REC_OMP_PARALLEL_END, PT_OMP_RUNTIME_GOMP, &p, sizeof p);
}

PT_REAL_DECL(GOMP_parallel);
PT_EXPORT void GOMP_parallel(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags)
{
	SITE(fn);
	void (*real)(void (*)(void *), void *, unsigned, unsigned) = PT_REAL(GOMP_parallel);
	if (!recording()) {
		region q = {.fn = fn, .data = data, .quiet = 1};
		real(region_body, &q, nthreads, flags);
		return;
	}
	region r = {0};
	region_begin(&r, fn, data, nthreads, 0);
	real(region_body, &r, nthreads, flags);
	region_end(&r);
}

/* parallel with reduction(task, ...) (GCC 9 on): the team's reductions are
 * registered from the data's first word; returns the team size. */
PT_REAL_DECL(GOMP_parallel_reductions);
PT_EXPORT unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned nthreads,
                                            unsigned flags)
{
	SITE(fn);
	unsigned (*real)(void (*)(void *), void *, unsigned, unsigned) =
	    PT_REAL(GOMP_parallel_reductions);
	void *head = data ? *(void **)data : NULL;
	if (!recording()) {
		region q = {.head = head, .fn = fn, .data = data, .quiet = 1};
		return real(region_body, &q, nthreads, flags);
	}
	region r = {.head = head};
	region_begin(&r, fn, data, nthreads, 0);
	unsigned n = real(region_body, &r, nthreads, flags);
	region_end(&r);
	return n;
}

PT_REAL_DECL(GOMP_parallel_sections);
PT_EXPORT void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned nthreads,
                                      unsigned count, unsigned flags)
{
	SITE(fn);
	void (*real)(void (*)(void *), void *, unsigned, unsigned, unsigned) =
	    PT_REAL(GOMP_parallel_sections);
	if (!recording()) {
		region q = {.fn = fn, .data = data, .quiet = 1};
		real(region_body, &q, nthreads, count, flags);
		return;
	}
	region r = {0};
	region_begin(&r, fn, data, nthreads, PT_OMP_PAR_SECTIONS);
	r.count = count;
	real(region_body, &r, nthreads, count, flags);
	region_end(&r);
}

/* GOMP_parallel_loop_<schedule>(fn, data, nthreads, start, end, incr,
 * chunk, flags); the runtime schedule takes no chunk. */
#define PARALLEL_LOOP(name, sched_)                                                                \
	PT_REAL_DECL(GOMP_parallel_loop_##name);                                                   \
	PT_EXPORT void GOMP_parallel_loop_##name(void (*fn)(void *), void *data,                   \
	                                         unsigned nthreads, long start, long end,          \
	                                         long incr, long chunk_size, unsigned flags)       \
	{                                                                                          \
		SITE(fn);                                                                          \
		void (*real)(void (*)(void *), void *, unsigned, long, long, long, long,           \
		             unsigned) = PT_REAL(GOMP_parallel_loop_##name);                       \
		if (!recording()) {                                                                \
			region q = {.fn = fn,                                                      \
			            .data = data,                                                  \
			            .flags = PT_OMP_PAR_LOOP,                                      \
			            .incr = incr,                                                  \
			            .quiet = 1};                                                   \
			real(region_body, &q, nthreads, start, end, incr, chunk_size, flags);      \
			return;                                                                    \
		}                                                                                  \
		region r = {0};                                                                    \
		region_begin(&r, fn, data, nthreads, PT_OMP_PAR_LOOP);                             \
		r.sched = sched_;                                                                  \
		r.count = iterations(start, end, incr);                                            \
		r.chunk = chunk_size;                                                              \
		r.incr = incr;                                                                     \
		real(region_body, &r, nthreads, start, end, incr, chunk_size, flags);              \
		region_end(&r);                                                                    \
	}
#define PARALLEL_LOOP_RUNTIME(name)                                                                \
	PT_REAL_DECL(GOMP_parallel_loop_##name);                                                   \
	PT_EXPORT void GOMP_parallel_loop_##name(void (*fn)(void *), void *data,                   \
	                                         unsigned nthreads, long start, long end,          \
	                                         long incr, unsigned flags)                        \
	{                                                                                          \
		SITE(fn);                                                                          \
		void (*real)(void (*)(void *), void *, unsigned, long, long, long, unsigned) =     \
		    PT_REAL(GOMP_parallel_loop_##name);                                            \
		if (!recording()) {                                                                \
			region q = {.fn = fn,                                                      \
			            .data = data,                                                  \
			            .flags = PT_OMP_PAR_LOOP,                                      \
			            .incr = incr,                                                  \
			            .quiet = 1};                                                   \
			real(region_body, &q, nthreads, start, end, incr, flags);                  \
			return;                                                                    \
		}                                                                                  \
		region r = {0};                                                                    \
		region_begin(&r, fn, data, nthreads, PT_OMP_PAR_LOOP);                             \
		r.sched = PT_OMP_SCHED_RUNTIME;                                                    \
		r.count = iterations(start, end, incr);                                            \
		r.incr = incr;                                                                     \
		real(region_body, &r, nthreads, start, end, incr, flags);                          \
		region_end(&r);                                                                    \
	}
PARALLEL_LOOP(static, PT_OMP_SCHED_STATIC)
PARALLEL_LOOP(dynamic, PT_OMP_SCHED_DYNAMIC)
PARALLEL_LOOP(guided, PT_OMP_SCHED_GUIDED)
PARALLEL_LOOP(nonmonotonic_dynamic, PT_OMP_SCHED_DYNAMIC)
PARALLEL_LOOP(nonmonotonic_guided, PT_OMP_SCHED_GUIDED)
PARALLEL_LOOP_RUNTIME(runtime)
PARALLEL_LOOP_RUNTIME(nonmonotonic_runtime)
PARALLEL_LOOP_RUNTIME(maybe_nonmonotonic_runtime)

static void gomp_fork_child(void)
{
	pt_gomp_loops.depth = 0;
	pt_gomp_tasks_fork_child();
}

PT_SUBSYSTEM(gomp_part) = {
    .name = "gomp",
    .order = PT_ORDER_INTERPOSE,
    .fork_child = gomp_fork_child,
};
