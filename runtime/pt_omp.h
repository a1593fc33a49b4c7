/* Shared by the OpenMP parts: omp.c (code locations, ids, the omp_set_*
 * calls, which runtime records), ompt.c (the OMPT tool, for LLVM's libomp)
 * and gomp.c (the GOMP_* entry points, for GNU libgomp). docs/OPENMP.md
 * says what each records.
 *
 * One program is recorded by one of the two: when libomp is the runtime
 * (it also serves gcc-compiled code through its own GOMP_* entry points,
 * which raise OMPT callbacks), the GOMP_* wrappers only pass the calls on. */
#ifndef PT_OMP_H
#define PT_OMP_H

#include "pt_interpose.h"

/* The location of a construct at code address `codeptr` (a return address
 * in the code that encountered it; fn: the outlined body when known, for
 * its name; what: PT_OMP_LOC_CONSTRUCT(record kind, arg) of the record
 * that asks): a number > 0, the same for every call from that place; its
 * OMP_LOC_DEF is written to the process log the first time. 0 when codeptr
 * is 0 or the table is full (4095 locations, warned once). Lock-free, no
 * allocation; one hash and a compare on the common path. */
PT_HIDDEN uint32_t pt_omp_loc(const void *codeptr, const void *fn, uint32_t what);
#define PT_OMP_AT(kind, arg) PT_OMP_LOC_CONSTRUCT(PT_REC_##kind, arg)

/* Process-unique ids: parallel region instances, explicit tasks (the
 * sequence part of an explicit task's id, pt_omp_task_id). */
PT_HIDDEN uint64_t pt_omp_next_id(void);
static inline uint64_t pt_omp_task_id(uint32_t loc, uint64_t seq)
{
	return PT_OMP_TASK_EXPLICIT | (uint64_t)loc << PT_OMP_LOC_SHIFT |
	       (seq & ((1ull << PT_OMP_LOC_SHIFT) - 1));
}

/* PARATRACE_OPENMP and tracing on: the OpenMP parts record. Initialises the
 * runtime if it was not (libomp may ask for its tool from a constructor
 * that runs before libtrace.so's). */
PT_HIDDEN int pt_omp_wanted(void);

/* Who records this program's OpenMP constructs. */
enum pt_omp_source {
	PT_OMP_SOURCE_UNKNOWN = 0,
	PT_OMP_SOURCE_GOMP = 1,  /* the GOMP_* wrappers (GNU libgomp is the runtime) */
	PT_OMP_SOURCE_OTHER = 2, /* OMPT, or nothing (libomp runs the program) */
};
/* Decided at the first GOMP_* call: libomp (or another runtime with
 * __kmpc_fork_call) loaded means OTHER. */
PT_HIDDEN int pt_omp_source(void);

/* One record of `kind` with the payload, on this thread, if tracing. */
static inline void pt_omp_emit(unsigned kind, unsigned arg, const void *payload, size_t len)
{
	pt_thread *t = pt_enter();
	if (!t)
		return;
	pt_emit(t, kind, arg, payload, len);
	pt_leave(t);
}

/* The mutual exclusion records shared by OMPT and GOMP_*: the acquisition
 * begins (its time is kept), it is done (LOCK_REQUEST at the kept time and
 * LOCK_ACQUIRED now, or LOCK_FAILED for a test that did not get it), the
 * lock is released. */
PT_HIDDEN void pt_omp_acquire(void);
PT_HIDDEN void pt_omp_acquired(unsigned type, uint64_t obj, int acquired);
PT_HIDDEN void pt_omp_released(unsigned type, uint64_t obj);

#endif /* PT_OMP_H */
