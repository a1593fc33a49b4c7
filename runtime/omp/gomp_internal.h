/* SPDX-License-Identifier: MIT */
/* Private to the GOMP_* wrappers (GNU libgomp's entry points; gomp.c says
 * what each records). One file per kind of construct, so that each reads
 * on its own:
 *   gomp.c            parallel regions (the trampoline every thread of the
 *                     team runs the body through), and the part itself
 *   gomp_workshare.c  loops, sections, single: the work a team shares
 *   gomp_sync.c       barriers, task waits, critical sections, atomic,
 *                     ordered, the omp_*_lock API
 *   gomp_tasks.c      explicit tasks and taskloops
 * What they share is here: whether to record, where the construct is, the
 * records they write, the thread's loop stack and current task. The
 * helpers are static inline, as they were static when the wrappers were
 * one file: a wrapper costs what it did. */
#ifndef PT_GOMP_INTERNAL_H
#define PT_GOMP_INTERNAL_H

#include "pt_omp.h"

#include <stdbool.h>
#include <stdint.h>

/* GNU libgomp runs the program, or libomp does without our OMPT tool
 * (pt_omp_no_ompt): the wrappers record. */
static inline int recording(void)
{
	return pt_tracing() && pt_config_get()->openmp &&
	       (pt_omp_source() == PT_OMP_SOURCE_GOMP || pt_omp_no_ompt());
}

/* libomp runs the program and records it through OMPT, but the chunks of
 * a gcc-built loop, which libomp's GOMP_loop_* hand out without a
 * callback, are recorded here. */
static inline int libomp_chunks(void)
{
	return pt_tracing() && pt_config_get()->openmp && pt_omp_source() == PT_OMP_SOURCE_OTHER &&
	       !pt_omp_no_ompt();
}

/* Where the construct is (pt_omp.h): set by every wrapper that enters one,
 * for its own records and, when libomp runs the program, for the OMPT
 * callbacks the real call raises; the previous one is back when the
 * wrapper returns. fnp: the outlined body or task function, if any. */
static inline void site_restore(pt_omp_site *old)
{
	pt_omp_here = *old;
}
static inline pt_omp_site site_of(const void *ra, const void *fn)
{
	const void *c = pt_omp_caller(ra);
	return (pt_omp_site){c, c || fn ? fn : pt_omp_body};
}
#define SITE(fnp)                                                                                  \
	pt_omp_site site_saved_ __attribute__((cleanup(site_restore))) = pt_omp_here;              \
	pt_omp_here = site_of(__builtin_return_address(0), (const void *)(fnp))

static inline uint32_t loc_here(uint32_t what)
{
	return pt_omp_loc(pt_omp_here.codeptr, pt_omp_here.fn, what);
}

static inline uint32_t sync_loc(unsigned kind)
{
	return loc_here(PT_OMP_AT(OMP_WAIT_BEGIN, kind));
}

/* The task this thread runs: its region's id (implicit task) or an
 * explicit task's id, for TASK_SCHEDULE (gomp_tasks.c). */
extern PT_HIDDEN __thread uint64_t pt_gomp_current_task __attribute__((tls_model("initial-exec")));

/* Increments of the loops this thread is in (a nested region's loop runs
 * inside an outer one's chunk), to count the iterations of each chunk
 * (gomp_workshare.c). */
#define LOOP_DEPTH 8
typedef struct pt_gomp_loop_stack {
	int64_t incr[LOOP_DEPTH];
	unsigned depth;
} pt_gomp_loop_stack;
extern PT_HIDDEN __thread pt_gomp_loop_stack pt_gomp_loops
    __attribute__((tls_model("initial-exec")));

static inline void loop_push(int64_t incr)
{
	if (pt_gomp_loops.depth < LOOP_DEPTH)
		pt_gomp_loops.incr[pt_gomp_loops.depth] = incr;
	pt_gomp_loops.depth++;
}

static inline void loop_pop(void)
{
	if (pt_gomp_loops.depth)
		pt_gomp_loops.depth--;
}

static inline int64_t loop_incr(void)
{
	unsigned d = pt_gomp_loops.depth;
	return d && d <= LOOP_DEPTH ? pt_gomp_loops.incr[d - 1] : 1;
}

/* Iterations of start, start + incr, ... before end (exclusive). */
static inline uint64_t iterations(int64_t start, int64_t end, int64_t incr)
{
	if (incr > 0 && end > start)
		return ((uint64_t)end - (uint64_t)start + (uint64_t)incr - 1) / (uint64_t)incr;
	if (incr < 0 && end < start)
		return ((uint64_t)start - (uint64_t)end + (uint64_t)-incr - 1) / (uint64_t)-incr;
	return 0;
}

/* ---- records ----------------------------------------------------------------- */
static inline void work_begin(unsigned type, unsigned sched, uint64_t count, uint32_t loc,
                              long chunk)
{
	pt_rec_omp_work w = {count, loc, chunk > 0 && chunk <= UINT32_MAX ? (uint32_t)chunk : 0};
	pt_omp_emit(PT_REC_OMP_WORK_BEGIN, type | sched << 4, &w, sizeof w);
}

static inline void work_end(unsigned type)
{
	pt_omp_emit(PT_REC_OMP_WORK_END, type, NULL, 0);
}

static inline void chunk(int64_t first, uint64_t count)
{
	if (!count)
		return;
	pt_rec_omp_chunk c = {first, count};
	pt_omp_emit(PT_REC_OMP_CHUNK, 0, &c, sizeof c);
}

static inline void sync_begin(unsigned kind, uint32_t loc)
{
	pt_rec_omp_sync s = {loc, 0};
	pt_omp_emit(PT_REC_OMP_WAIT_BEGIN, kind, &s, sizeof s);
}

static inline void sync_end(unsigned kind)
{
	pt_omp_emit(PT_REC_OMP_WAIT_END, kind, NULL, 0);
}

/* A fork child's only thread hands no task to libgomp, and the task
 * table's lock may have been held by another thread of the parent. */
PT_HIDDEN void pt_gomp_tasks_fork_child(void);

#endif
