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
 * on: pt_omp_source(). */
#define _GNU_SOURCE
#include "pt_omp.h"
#include "pt_spin.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

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

static uint32_t loc_here(uint32_t what)
{
	return pt_omp_loc(pt_omp_here.codeptr, pt_omp_here.fn, what);
}

static uint32_t sync_loc(unsigned kind)
{
	return loc_here(PT_OMP_AT(OMP_WAIT_BEGIN, kind));
}

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

/* The task this thread runs: its region's id (implicit task) or an
 * explicit task's id, for TASK_SCHEDULE. */
static __thread uint64_t current_task __attribute__((tls_model("initial-exec")));

/* Increments of the loops this thread is in (a nested region's loop runs
 * inside an outer one's chunk), to count the iterations of each chunk. */
#define LOOP_DEPTH 8
static __thread struct {
	int64_t incr[LOOP_DEPTH];
	unsigned depth;
} loops __attribute__((tls_model("initial-exec")));

static void loop_push(int64_t incr)
{
	if (loops.depth < LOOP_DEPTH)
		loops.incr[loops.depth] = incr;
	loops.depth++;
}

static void loop_pop(void)
{
	if (loops.depth)
		loops.depth--;
}

static int64_t loop_incr(void)
{
	unsigned d = loops.depth;
	return d && d <= LOOP_DEPTH ? loops.incr[d - 1] : 1;
}

/* Iterations of start, start + incr, ... before end (exclusive). */
static uint64_t iterations(int64_t start, int64_t end, int64_t incr)
{
	if (incr > 0 && end > start)
		return ((uint64_t)end - (uint64_t)start + (uint64_t)incr - 1) / (uint64_t)incr;
	if (incr < 0 && end < start)
		return ((uint64_t)start - (uint64_t)end + (uint64_t)-incr - 1) / (uint64_t)-incr;
	return 0;
}

static uint64_t iterations_ull(bool up, uint64_t start, uint64_t end, uint64_t incr)
{
	if (up)
		return end > start && incr ? (end - start + incr - 1) / incr : 0;
	uint64_t step = (uint64_t)0 - incr; /* incr is negative, as gcc passes it */
	return start > end && step ? (start - end + step - 1) / step : 0;
}

/* ---- records ----------------------------------------------------------------- */
static void work_begin(unsigned type, unsigned sched, uint64_t count, uint32_t loc, long chunk)
{
	pt_rec_omp_work w = {count, loc, chunk > 0 && chunk <= UINT32_MAX ? (uint32_t)chunk : 0};
	pt_omp_emit(PT_REC_OMP_WORK_BEGIN, type | sched << 4, &w, sizeof w);
}

static void work_end(unsigned type)
{
	pt_omp_emit(PT_REC_OMP_WORK_END, type, NULL, 0);
}

static void chunk(int64_t first, uint64_t count)
{
	if (!count)
		return;
	pt_rec_omp_chunk c = {first, count};
	pt_omp_emit(PT_REC_OMP_CHUNK, 0, &c, sizeof c);
}

static void sync_begin(unsigned kind, uint32_t loc)
{
	pt_rec_omp_sync s = {loc, 0};
	pt_omp_emit(PT_REC_OMP_WAIT_BEGIN, kind, &s, sizeof s);
}

static void sync_end(unsigned kind)
{
	pt_omp_emit(PT_REC_OMP_WAIT_END, kind, NULL, 0);
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
	uint64_t outer = current_task;
	int index = team_index();
	pt_rec_omp_implicit p = {r->id, r->loc, (uint16_t)team_size(), (uint16_t)index};
	pt_omp_emit(PT_REC_OMP_IMPLICIT_BEGIN, 0, &p, sizeof p);
	current_task = r->id;
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
	current_task = outer;
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

/* ---- loops ---------------------------------------------------------------------- */
/* GOMP_loop_<schedule>_start(start, end, incr, chunk, istart, iend): the
 * loop begins on this thread, with its first chunk when it returns true;
 * _next: the next chunk. */
static bool loop_started(bool got, unsigned sched, long start, long end, long incr, long chunk_size,
                         const long *istart, const long *iend)
{
	work_begin(PT_OMP_WORK_LOOP, sched, iterations(start, end, incr),
	           loc_here(PT_OMP_AT(OMP_WORK_BEGIN, PT_OMP_WORK_LOOP)), chunk_size);
	loop_push(incr);
	if (got)
		chunk(*istart, iterations(*istart, *iend, incr));
	return got;
}

static bool loop_next(bool got, const long *istart, const long *iend)
{
	if (got)
		chunk(*istart, iterations(*istart, *iend, loop_incr()));
	return got;
}

/* The start of a loop libomp runs: its first chunk (libomp_chunks). */
static bool loop_passed(bool got, long incr, const long *istart, const long *iend)
{
	loop_push(incr);
	if (got)
		chunk(*istart, iterations(*istart, *iend, incr));
	return got;
}

#define LOOP(name, sched_)                                                                         \
	PT_REAL_DECL(GOMP_loop_##name##_start);                                                    \
	PT_REAL_DECL(GOMP_loop_##name##_next);                                                     \
	PT_EXPORT bool GOMP_loop_##name##_start(long start, long end, long incr, long chunk_size,  \
	                                        long *istart, long *iend)                          \
	{                                                                                          \
		SITE(NULL);                                                                        \
		bool (*real)(long, long, long, long, long *, long *) =                             \
		    PT_REAL(GOMP_loop_##name##_start);                                             \
		if (!recording()) {                                                                \
			int pass = libomp_chunks();                                                \
			pt_omp_gomp_loop += pass;                                                  \
			bool got = real(start, end, incr, chunk_size, istart, iend);               \
			pt_omp_gomp_loop -= pass;                                                  \
			return pass ? loop_passed(got, incr, istart, iend) : got;                  \
		}                                                                                  \
		bool got = real(start, end, incr, chunk_size, istart, iend);                       \
		return loop_started(got, sched_, start, end, incr, chunk_size, istart, iend);      \
	}                                                                                          \
	PT_EXPORT bool GOMP_loop_##name##_next(long *istart, long *iend)                           \
	{                                                                                          \
		bool (*real)(long *, long *) = PT_REAL(GOMP_loop_##name##_next);                   \
		int rec = recording(), pass = !rec && libomp_chunks();                             \
		pt_omp_gomp_loop++;                                                                \
		bool got = real(istart, iend);                                                     \
		pt_omp_gomp_loop--;                                                                \
		return rec || pass ? loop_next(got, istart, iend) : got;                           \
	}
#define LOOP_RUNTIME(name)                                                                         \
	PT_REAL_DECL(GOMP_loop_##name##_start);                                                    \
	PT_REAL_DECL(GOMP_loop_##name##_next);                                                     \
	PT_EXPORT bool GOMP_loop_##name##_start(long start, long end, long incr, long *istart,     \
	                                        long *iend)                                        \
	{                                                                                          \
		SITE(NULL);                                                                        \
		bool (*real)(long, long, long, long *, long *) =                                   \
		    PT_REAL(GOMP_loop_##name##_start);                                             \
		if (!recording()) {                                                                \
			int pass = libomp_chunks();                                                \
			pt_omp_gomp_loop += pass;                                                  \
			bool got = real(start, end, incr, istart, iend);                           \
			pt_omp_gomp_loop -= pass;                                                  \
			return pass ? loop_passed(got, incr, istart, iend) : got;                  \
		}                                                                                  \
		bool got = real(start, end, incr, istart, iend);                                   \
		return loop_started(got, PT_OMP_SCHED_RUNTIME, start, end, incr, 0, istart, iend); \
	}                                                                                          \
	PT_EXPORT bool GOMP_loop_##name##_next(long *istart, long *iend)                           \
	{                                                                                          \
		bool (*real)(long *, long *) = PT_REAL(GOMP_loop_##name##_next);                   \
		int rec = recording(), pass = !rec && libomp_chunks();                             \
		pt_omp_gomp_loop++;                                                                \
		bool got = real(istart, iend);                                                     \
		pt_omp_gomp_loop--;                                                                \
		return rec || pass ? loop_next(got, istart, iend) : got;                           \
	}
LOOP(static, PT_OMP_SCHED_STATIC)
LOOP(dynamic, PT_OMP_SCHED_DYNAMIC)
LOOP(guided, PT_OMP_SCHED_GUIDED)
LOOP(nonmonotonic_dynamic, PT_OMP_SCHED_DYNAMIC)
LOOP(nonmonotonic_guided, PT_OMP_SCHED_GUIDED)
LOOP(ordered_static, PT_OMP_SCHED_STATIC)
LOOP(ordered_dynamic, PT_OMP_SCHED_DYNAMIC)
LOOP(ordered_guided, PT_OMP_SCHED_GUIDED)
LOOP_RUNTIME(runtime)
LOOP_RUNTIME(nonmonotonic_runtime)
LOOP_RUNTIME(maybe_nonmonotonic_runtime)
LOOP_RUNTIME(ordered_runtime)

/* GOMP_loop_start / GOMP_loop_ordered_start (GCC 9 on: reductions, any
 * schedule): sched is libgomp's GFS_* value (runtime 0, static 1, dynamic
 * 2, guided 3, auto 4) with modifier bits above. */
static unsigned gfs_sched(long sched)
{
	switch (sched & 0xff) {
	case 1:
		return PT_OMP_SCHED_STATIC;
	case 2:
		return PT_OMP_SCHED_DYNAMIC;
	case 3:
		return PT_OMP_SCHED_GUIDED;
	default:
		return PT_OMP_SCHED_RUNTIME;
	}
}

/* istart NULL: only the reductions were set up, no chunk handed out. */
#define LOOP_START_V5(fn)                                                                          \
	PT_REAL_DECL(fn);                                                                          \
	PT_EXPORT bool fn(long start, long end, long incr, long sched, long chunk_size,            \
	                  long *istart, long *iend, uintptr_t *reductions, void **mem)             \
	{                                                                                          \
		SITE(NULL);                                                                        \
		bool (*real)(long, long, long, long, long, long *, long *, uintptr_t *, void **) = \
		    PT_REAL(fn);                                                                   \
		if (!recording())                                                                  \
			return real(start, end, incr, sched, chunk_size, istart, iend, reductions, \
			            mem);                                                          \
		bool got =                                                                         \
		    real(start, end, incr, sched, chunk_size, istart, iend, reductions, mem);      \
		return loop_started(got && istart, gfs_sched(sched), start, end, incr, chunk_size, \
		                    istart, iend) &&                                               \
		       got;                                                                        \
	}
LOOP_START_V5(GOMP_loop_start)
LOOP_START_V5(GOMP_loop_ordered_start)

/* unsigned long long loops: GOMP_loop_ull_<schedule>_start(up, start,
 * end, incr, chunk, istart, iend). */
static bool loop_ull_started(bool got, unsigned sched, bool up, uint64_t start, uint64_t end,
                             uint64_t incr, uint64_t chunk_size, const uint64_t *istart,
                             const uint64_t *iend)
{
	work_begin(PT_OMP_WORK_LOOP, sched, iterations_ull(up, start, end, incr),
	           loc_here(PT_OMP_AT(OMP_WORK_BEGIN, PT_OMP_WORK_LOOP)), (long)chunk_size);
	loop_push(up ? (int64_t)incr : -(int64_t)((uint64_t)0 - incr));
	if (got)
		chunk((int64_t)*istart, iterations_ull(up, *istart, *iend, incr));
	return got;
}

static bool loop_ull_next(bool got, const uint64_t *istart, const uint64_t *iend)
{
	if (got) {
		int64_t incr = loop_incr();
		chunk((int64_t)*istart, incr >= 0
		                            ? iterations_ull(1, *istart, *iend, (uint64_t)incr)
		                            : iterations_ull(0, *istart, *iend, (uint64_t)incr));
	}
	return got;
}

typedef unsigned long long ull;
#define LOOP_ULL(name, sched_)                                                                     \
	PT_REAL_DECL(GOMP_loop_ull_##name##_start);                                                \
	PT_REAL_DECL(GOMP_loop_ull_##name##_next);                                                 \
	PT_EXPORT bool GOMP_loop_ull_##name##_start(bool up, ull start, ull end, ull incr,         \
	                                            ull chunk_size, ull *istart, ull *iend)        \
	{                                                                                          \
		SITE(NULL);                                                                        \
		bool (*real)(bool, ull, ull, ull, ull, ull *, ull *) =                             \
		    PT_REAL(GOMP_loop_ull_##name##_start);                                         \
		if (!recording())                                                                  \
			return real(up, start, end, incr, chunk_size, istart, iend);               \
		bool got = real(up, start, end, incr, chunk_size, istart, iend);                   \
		return loop_ull_started(got, sched_, up, start, end, incr, chunk_size,             \
		                        (uint64_t *)istart, (uint64_t *)iend);                     \
	}                                                                                          \
	PT_EXPORT bool GOMP_loop_ull_##name##_next(ull *istart, ull *iend)                         \
	{                                                                                          \
		bool (*real)(ull *, ull *) = PT_REAL(GOMP_loop_ull_##name##_next);                 \
		pt_omp_gomp_loop++;                                                                \
		bool got = real(istart, iend);                                                     \
		pt_omp_gomp_loop--;                                                                \
		return recording() ? loop_ull_next(got, (uint64_t *)istart, (uint64_t *)iend)      \
		                   : got;                                                          \
	}
LOOP_ULL(static, PT_OMP_SCHED_STATIC)
LOOP_ULL(dynamic, PT_OMP_SCHED_DYNAMIC)
LOOP_ULL(guided, PT_OMP_SCHED_GUIDED)
LOOP_ULL(nonmonotonic_dynamic, PT_OMP_SCHED_DYNAMIC)
LOOP_ULL(nonmonotonic_guided, PT_OMP_SCHED_GUIDED)
LOOP_ULL(ordered_static, PT_OMP_SCHED_STATIC)
LOOP_ULL(ordered_dynamic, PT_OMP_SCHED_DYNAMIC)
LOOP_ULL(ordered_guided, PT_OMP_SCHED_GUIDED)

/* The end of a loop or of sections: WORK_END, then (not _nowait) the
 * barrier every thread of the team waits at. */
#define WORK_END_BARRIER(fn, R, type, pop)                                                         \
	PT_REAL_DECL(fn);                                                                          \
	PT_EXPORT R fn(void)                                                                       \
	{                                                                                          \
		SITE(NULL);                                                                        \
		R (*real)(void) = PT_REAL(fn);                                                     \
		if (!recording())                                                                  \
			return real();                                                             \
		work_end(type);                                                                    \
		pop;                                                                               \
		sync_begin(PT_OMP_SYNC_BARRIER_IMPLICIT_WORKSHARE,                                 \
		           sync_loc(PT_OMP_SYNC_BARRIER_IMPLICIT_WORKSHARE));                      \
		R r = real();                                                                      \
		sync_end(PT_OMP_SYNC_BARRIER_IMPLICIT_WORKSHARE);                                  \
		return r;                                                                          \
	}
#define WORK_END_VOID(fn, type, pop, barrier)                                                      \
	PT_REAL_DECL(fn);                                                                          \
	PT_EXPORT void fn(void)                                                                    \
	{                                                                                          \
		SITE(NULL);                                                                        \
		void (*real)(void) = PT_REAL(fn);                                                  \
		if (!recording()) {                                                                \
			if (libomp_chunks())                                                       \
				pop;                                                               \
			real();                                                                    \
			return;                                                                    \
		}                                                                                  \
		work_end(type);                                                                    \
		pop;                                                                               \
		if (barrier)                                                                       \
			sync_begin(PT_OMP_SYNC_BARRIER_IMPLICIT_WORKSHARE,                         \
			           sync_loc(PT_OMP_SYNC_BARRIER_IMPLICIT_WORKSHARE));              \
		real();                                                                            \
		if (barrier)                                                                       \
			sync_end(PT_OMP_SYNC_BARRIER_IMPLICIT_WORKSHARE);                          \
	}
WORK_END_VOID(GOMP_loop_end, PT_OMP_WORK_LOOP, loop_pop(), 1)
WORK_END_VOID(GOMP_loop_end_nowait, PT_OMP_WORK_LOOP, loop_pop(), 0)
WORK_END_BARRIER(GOMP_loop_end_cancel, bool, PT_OMP_WORK_LOOP, loop_pop())
WORK_END_VOID(GOMP_sections_end, PT_OMP_WORK_SECTIONS, (void)0, 1)
WORK_END_VOID(GOMP_sections_end_nowait, PT_OMP_WORK_SECTIONS, (void)0, 0)
WORK_END_BARRIER(GOMP_sections_end_cancel, bool, PT_OMP_WORK_SECTIONS, (void)0)

/* ---- sections, single ------------------------------------------------------------- */
static unsigned sections_started(unsigned first, unsigned count)
{
	work_begin(PT_OMP_WORK_SECTIONS, 0, count,
	           loc_here(PT_OMP_AT(OMP_WORK_BEGIN, PT_OMP_WORK_SECTIONS)), 0);
	chunk(first, first != 0);
	return first;
}

PT_REAL_DECL(GOMP_sections_start);
PT_EXPORT unsigned GOMP_sections_start(unsigned count)
{
	SITE(NULL);
	unsigned (*real)(unsigned) = PT_REAL(GOMP_sections_start);
	unsigned first = real(count);
	return recording() ? sections_started(first, count) : first;
}

PT_REAL_DECL(GOMP_sections2_start);
PT_EXPORT unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
	SITE(NULL);
	unsigned (*real)(unsigned, uintptr_t *, void **) = PT_REAL(GOMP_sections2_start);
	unsigned first = real(count, reductions, mem);
	return recording() ? sections_started(first, count) : first;
}

PT_REAL_DECL(GOMP_sections_next);
PT_EXPORT unsigned GOMP_sections_next(void)
{
	unsigned (*real)(void) = PT_REAL(GOMP_sections_next);
	unsigned next = real();
	if (next && recording())
		chunk(next, 1);
	return next;
}

/* single has no end call: the construct is recorded where it is entered,
 * for the thread that runs it and for the others. */
static void single(int executor)
{
	unsigned type = executor ? PT_OMP_WORK_SINGLE_EXECUTOR : PT_OMP_WORK_SINGLE_OTHER;
	work_begin(type, 0, 1, loc_here(PT_OMP_AT(OMP_WORK_BEGIN, PT_OMP_WORK_SINGLE_EXECUTOR)), 0);
	work_end(type);
}

PT_REAL_DECL(GOMP_single_start);
PT_EXPORT bool GOMP_single_start(void)
{
	SITE(NULL);
	bool (*real)(void) = PT_REAL(GOMP_single_start);
	bool mine = real();
	if (recording())
		single(mine);
	return mine;
}

PT_REAL_DECL(GOMP_single_copy_start);
PT_EXPORT void *GOMP_single_copy_start(void)
{
	SITE(NULL);
	void *(*real)(void) = PT_REAL(GOMP_single_copy_start);
	void *r = real();
	if (recording())
		single(r == NULL);
	return r;
}

/* ---- barriers, task waits ------------------------------------------------------------ */

/* A call that waits: WAIT_BEGIN before, WAIT_END after. GOMP_barrier is an explicit barrier or the
 * one after a static loop or a single: gcc calls it for both. */
#define SYNCED(fn, kind, params, args)                                                             \
	PT_REAL_DECL(fn);                                                                          \
	PT_EXPORT void fn params                                                                   \
	{                                                                                          \
		SITE(NULL);                                                                        \
		void(*real) params = PT_REAL(fn);                                                  \
		if (!recording()) {                                                                \
			real args;                                                                 \
			return;                                                                    \
		}                                                                                  \
		sync_begin(kind, sync_loc(kind));                                                  \
		real args;                                                                         \
		sync_end(kind);                                                                    \
	}
SYNCED(GOMP_barrier, PT_OMP_SYNC_BARRIER, (void), ())
SYNCED(GOMP_taskwait, PT_OMP_SYNC_TASKWAIT, (void), ())
SYNCED(GOMP_taskwait_depend, PT_OMP_SYNC_TASKWAIT, (void **depend), (depend))
SYNCED(GOMP_taskgroup_end, PT_OMP_SYNC_TASKGROUP, (void), ())

PT_REAL_DECL(GOMP_barrier_cancel);
PT_EXPORT bool GOMP_barrier_cancel(void)
{
	SITE(NULL);
	bool (*real)(void) = PT_REAL(GOMP_barrier_cancel);
	if (!recording())
		return real();
	sync_begin(PT_OMP_SYNC_BARRIER, sync_loc(PT_OMP_SYNC_BARRIER));
	bool r = real();
	sync_end(PT_OMP_SYNC_BARRIER);
	return r;
}

/* ---- mutual exclusion ------------------------------------------------------------------- */
/* The unnamed critical section, atomic and ordered have no object of their
 * own that we can see: one stand-in address each. */
static const char unnamed_critical, atomic_lock, ordered_lock;
#define LOCKED(start, end, type, obj)                                                              \
	PT_REAL_DECL(start);                                                                       \
	PT_REAL_DECL(end);                                                                         \
	PT_EXPORT void start(void)                                                                 \
	{                                                                                          \
		void (*real)(void) = PT_REAL(start);                                               \
		if (!recording()) {                                                                \
			real();                                                                    \
			return;                                                                    \
		}                                                                                  \
		pt_omp_acquire();                                                                  \
		real();                                                                            \
		pt_omp_acquired(type, obj, 1);                                                     \
	}                                                                                          \
	PT_EXPORT void end(void)                                                                   \
	{                                                                                          \
		void (*real)(void) = PT_REAL(end);                                                 \
		if (recording())                                                                   \
			pt_omp_released(type, obj);                                                \
		real();                                                                            \
	}
LOCKED(GOMP_critical_start, GOMP_critical_end, PT_LOCK_OMP_CRITICAL, pt_ptr(&unnamed_critical))
LOCKED(GOMP_atomic_start, GOMP_atomic_end, PT_LOCK_OMP_ATOMIC, pt_ptr(&atomic_lock))
LOCKED(GOMP_ordered_start, GOMP_ordered_end, PT_LOCK_OMP_ORDERED, pt_ptr(&ordered_lock))

/* critical(name): the object is the name's pointer, one per name. */
PT_REAL_DECL(GOMP_critical_name_start);
PT_EXPORT void GOMP_critical_name_start(void **pptr)
{
	void (*real)(void **) = PT_REAL(GOMP_critical_name_start);
	if (!recording()) {
		real(pptr);
		return;
	}
	pt_omp_acquire();
	real(pptr);
	pt_omp_acquired(PT_LOCK_OMP_CRITICAL_NAMED, pt_ptr(pptr), 1);
}

PT_REAL_DECL(GOMP_critical_name_end);
PT_EXPORT void GOMP_critical_name_end(void **pptr)
{
	void (*real)(void **) = PT_REAL(GOMP_critical_name_end);
	if (recording())
		pt_omp_released(PT_LOCK_OMP_CRITICAL_NAMED, pt_ptr(pptr));
	real(pptr);
}

/* The omp_*_lock API. libgomp exports each twice, the OMP_3.0 version
 * that programs link against and an OMP_1.0 one with another lock layout:
 * look up the current one by its version, as cond.c does. libomp (OMPT
 * reports its locks) is passed on as is. */
static void *lock_real(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_RELAXED);
	if (pt_likely(p != NULL))
		return p;
	p = dlvsym(RTLD_NEXT, name, "OMP_3.0");
	if (!p) { /* libomp has no such version: its own, and no error left behind */
		(void)dlerror();
		p = pt_real(name);
	}
	__atomic_store_n(slot, p, __ATOMIC_RELAXED);
	return p;
}

#define OMP_LOCK(suffix, type)                                                                     \
	static void *slot_set_##suffix, *slot_unset_##suffix, *slot_test_##suffix;                 \
	PT_EXPORT void omp_set_##suffix(void *lock)                                                \
	{                                                                                          \
		void (*real)(void *) =                                                             \
		    (void (*)(void *))lock_real(&slot_set_##suffix, "omp_set_" #suffix);           \
		if (!real)                                                                         \
			return;                                                                    \
		if (!recording()) {                                                                \
			real(lock);                                                                \
			return;                                                                    \
		}                                                                                  \
		pt_omp_acquire();                                                                  \
		real(lock);                                                                        \
		pt_omp_acquired(type, pt_ptr(lock), 1);                                            \
	}                                                                                          \
	PT_EXPORT void omp_unset_##suffix(void *lock)                                              \
	{                                                                                          \
		void (*real)(void *) =                                                             \
		    (void (*)(void *))lock_real(&slot_unset_##suffix, "omp_unset_" #suffix);       \
		if (!real)                                                                         \
			return;                                                                    \
		if (recording())                                                                   \
			pt_omp_released(type, pt_ptr(lock));                                       \
		real(lock);                                                                        \
	}                                                                                          \
	PT_EXPORT int omp_test_##suffix(void *lock)                                                \
	{                                                                                          \
		int (*real)(void *) =                                                              \
		    (int (*)(void *))lock_real(&slot_test_##suffix, "omp_test_" #suffix);          \
		if (!real)                                                                         \
			return 0;                                                                  \
		if (!recording())                                                                  \
			return real(lock);                                                         \
		pt_omp_acquire();                                                                  \
		int r = real(lock);                                                                \
		pt_omp_acquired(type, pt_ptr(lock), r != 0);                                       \
		return r;                                                                          \
	}
OMP_LOCK(lock, PT_LOCK_OMP_LOCK)

/* Nest locks are recorded as OMPT reports them (ompt.c): the owner's first
 * acquisition and last release only, not its acquisitions of a lock it
 * holds. The depths this thread holds its nest locks at are kept here
 * (locks held at once are few; a lock that finds no free slot is recorded
 * at every call, as a plain lock). */
#define NEST_SLOTS 8
typedef struct nest_held {
	const void *lock;
	int depth;
} nest_held;
static __thread nest_held nest_table[NEST_SLOTS] __attribute__((tls_model("initial-exec")));

static nest_held *nest_find(const void *lock)
{
	for (int i = 0; i < NEST_SLOTS; i++)
		if (nest_table[i].lock == lock)
			return &nest_table[i];
	return NULL;
}

/* Records that this thread now holds `lock` at `depth` (> 0). */
static void nest_note(const void *lock, int depth)
{
	nest_held *h = nest_find(lock);
	if (!h)
		h = nest_find(NULL);
	if (h)
		*h = (nest_held){lock, depth};
}

static void *slot_set_nest, *slot_unset_nest, *slot_test_nest;

PT_EXPORT void omp_set_nest_lock(void *lock)
{
	void (*real)(void *) = (void (*)(void *))lock_real(&slot_set_nest, "omp_set_nest_lock");
	if (!real)
		return;
	nest_held *h = NULL;
	if (!recording() || ((h = nest_find(lock)) && h->depth > 0)) {
		real(lock);
		if (h && recording())
			h->depth++;
		return;
	}
	pt_omp_acquire();
	real(lock);
	pt_omp_acquired(PT_LOCK_OMP_NEST_LOCK, pt_ptr(lock), 1);
	nest_note(lock, 1);
}

PT_EXPORT void omp_unset_nest_lock(void *lock)
{
	void (*real)(void *) = (void (*)(void *))lock_real(&slot_unset_nest, "omp_unset_nest_lock");
	if (!real)
		return;
	if (recording()) {
		nest_held *h = nest_find(lock);
		if (h && h->depth > 1) {
			h->depth--;
		} else {
			if (h)
				*h = (nest_held){NULL, 0};
			pt_omp_released(PT_LOCK_OMP_NEST_LOCK, pt_ptr(lock));
		}
	}
	real(lock);
}

/* omp_test_nest_lock returns the new depth: 1 is the first acquisition. */
PT_EXPORT int omp_test_nest_lock(void *lock)
{
	int (*real)(void *) = (int (*)(void *))lock_real(&slot_test_nest, "omp_test_nest_lock");
	if (!real)
		return 0;
	if (!recording())
		return real(lock);
	pt_omp_acquire();
	int r = real(lock);
	if (r <= 1)
		pt_omp_acquired(PT_LOCK_OMP_NEST_LOCK, pt_ptr(lock), r != 0);
	if (r > 0)
		nest_note(lock, r);
	return r;
}

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
	task_running r = {task, current_task, pt_omp_body};
	pt_rec_omp_task_schedule s = {r.prior, task};
	pt_omp_emit(PT_REC_OMP_TASK_SCHEDULE, PT_OMP_TASK_SWITCH, &s, sizeof s);
	current_task = task;
	pt_omp_body = (const void *)fn;
	return r;
}

static void task_leave(const task_running *r)
{
	pt_omp_body = r->body;
	current_task = r->prior;
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

static void gomp_fork_child(void)
{
	loops.depth = 0;
	pending_task = NULL;
	pt_spin_reset(&task_lock);
}

PT_SUBSYSTEM(gomp_part) = {
    .name = "gomp",
    .order = PT_ORDER_INTERPOSE,
    .fork_child = gomp_fork_child,
};
