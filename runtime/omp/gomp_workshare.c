/* SPDX-License-Identifier: MIT */
/* The work a team shares, under GNU libgomp (gomp.c says what is
 * recorded): loops (GOMP_loop_*: WORK_BEGIN, a CHUNK per chunk handed
 * out, WORK_END and the barrier after), sections (a chunk per section)
 * and single. */
#define _GNU_SOURCE
#include "gomp_internal.h"

__thread pt_gomp_loop_stack pt_gomp_loops __attribute__((tls_model("initial-exec")));

static uint64_t iterations_ull(bool up, uint64_t start, uint64_t end, uint64_t incr)
{
	if (up)
		return end > start && incr ? (end - start + incr - 1) / incr : 0;
	uint64_t step = (uint64_t)0 - incr; /* incr is negative, as gcc passes it */
	return start > end && step ? (start - end + step - 1) / step : 0;
}

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

/* Both kinds of loop (schedule given or read at run time) take their next
 * chunk the same way. */
#define LOOP_NEXT(name)                                                                            \
	PT_EXPORT bool GOMP_loop_##name##_next(long *istart, long *iend)                           \
	{                                                                                          \
		bool (*real)(long *, long *) = PT_REAL(GOMP_loop_##name##_next);                   \
		int rec = recording(), pass = !rec && libomp_chunks();                             \
		pt_omp_gomp_loop++;                                                                \
		bool got = real(istart, iend);                                                     \
		pt_omp_gomp_loop--;                                                                \
		return rec || pass ? loop_next(got, istart, iend) : got;                           \
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
	LOOP_NEXT(name)
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
	LOOP_NEXT(name)
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
/* inline: as the wrappers were when they shared one file with the parallel
 * regions (the compiler inlined it then, and no longer does on its own) */
static inline unsigned sections_started(unsigned first, unsigned count)
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
