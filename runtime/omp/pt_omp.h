/* SPDX-License-Identifier: MIT */
/* Shared by the OpenMP parts: omp.c (code locations, ids, the omp_set_*
 * calls, which runtime records), ompt.c (the OMPT tool, for LLVM's libomp)
 * and gomp*.c (the GOMP_* entry points, for GNU libgomp). docs/OPENMP.md
 * says what each records.
 *
 * One program is recorded by one of the two: when libomp is the runtime
 * (it also serves gcc-compiled code through its own GOMP_* entry points,
 * which raise OMPT callbacks), the GOMP_* wrappers only pass the calls on. */
#ifndef PT_OMP_H
#define PT_OMP_H

#include "pt_interpose.h"

/* The location of a construct (what: PT_OMP_LOC_CONSTRUCT(record kind,
 * arg) of the record that asks) at code address `codeptr`, a return address
 * in the code that encountered it (fn: the outlined body when known, for
 * its name); with codeptr NULL, at the end of body function fn. A number >
 * 0, the same for every call from that place; its OMP_LOC_DEF is written to
 * the process log the first time. 0 when both are NULL or the table is
 * full (4095 locations, warned once). Lock-free, no allocation; one hash
 * and a compare on the common path. */
PT_HIDDEN uint32_t pt_omp_loc(const void *codeptr, const void *fn, uint32_t what);
#define PT_OMP_AT(kind, arg) PT_OMP_LOC_CONSTRUCT(PT_REC_##kind, arg)

/* Where the GOMP_* or __kmpc_* wrapper the runtime is running under was
 * called from, set around the real call: libomp reports that wrapper as
 * the construct's place (the return address it reads is in the wrapper).
 * pt_omp_loc_here uses it when set, else codeptr. */
typedef struct pt_omp_site {
	const void *codeptr, *fn;
} pt_omp_site;
extern PT_HIDDEN __thread pt_omp_site pt_omp_here __attribute__((tls_model("initial-exec")));
PT_HIDDEN uint32_t pt_omp_loc_here(const void *codeptr, uint32_t what);

/* A wrapper's return address, or NULL when it is in libtrace.so itself: a
 * body that ends by tail-calling an entry point (gcc does) returns into our
 * trampoline; the construct is then named by the body the trampoline runs
 * on this thread, pt_omp_body (set by gomp*.c's trampolines). */
PT_HIDDEN const void *pt_omp_caller(const void *ra);
extern PT_HIDDEN __thread const void *pt_omp_body __attribute__((tls_model("initial-exec")));

/* > 0 while a GOMP_* loop wrapper hands out a chunk, which it records
 * itself (gomp_workshare.c): the __kmpc_dispatch_next wrappers libomp may call
 * meanwhile then do not. */
extern PT_HIDDEN __thread int pt_omp_gomp_loop __attribute__((tls_model("initial-exec")));

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

/* dlsym(RTLD_DEFAULT, name), NULL if absent. A failed lookup leaves no
 * error behind: the program's next dlerror() must say what its own dl
 * calls did, not that libtrace.so looked for a symbol. */
PT_HIDDEN void *pt_omp_lookup(const char *name);

/* libomp runs the program but its tool interface is not libtrace.so's (the
 * program has its own ompt_start_tool, OMP_TOOL_LIBRARIES names a tool,
 * OMP_TOOL=disabled): the wrapped entry points record what they can, the
 * GOMP_* ones as under libgomp. Said once on stderr (ompt_elsewhere.c). */
PT_HIDDEN int pt_omp_no_ompt(void);
/* OMP_TOOL_LIBRARIES names a tool of the program's (not libtrace.so):
 * ompt_start_tool declines, so that libomp loads it as without tracing. */
PT_HIDDEN int pt_omp_tool_libraries(void);

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
