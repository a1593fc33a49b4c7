/* SPDX-License-Identifier: MIT */
/* paratrace log format, records of OpenMP (PT_REC_RANGE_OPENMP). This family's
 * rows of the record schema (PT_REC_ROWS_OMP), payload structs, their dump
 * fields and constants. <paratrace/format.h> includes it: include that, not
 * this. */
#ifndef PARATRACE_FORMAT_OMP_H
#define PARATRACE_FORMAT_OMP_H

#ifndef PARATRACE_FORMAT_H
#error "include <paratrace/format.h>, not <paratrace/format/omp.h>"
#endif

#define PT_REC_ROWS_OMP(X) \
	/* OpenMP (PT_REC_RANGE_OPENMP; see "OpenMP" below). */ \
	X(OMP_LOC_DEF, 0x60, pt_rec_omp_loc, sizeof(pt_rec_omp_loc), 0, "process", "–", "") \
	X(OMP_PARALLEL_BEGIN, 0x61, pt_rec_omp_parallel, sizeof(pt_rec_omp_parallel), 0, \
	  "thread (the encountering one)", "runtime", "") \
	X(OMP_PARALLEL_END, 0x62, pt_rec_omp_parallel, sizeof(pt_rec_omp_parallel), 0, \
	  "thread (the encountering one)", "runtime", "") \
	X(OMP_IMPLICIT_BEGIN, 0x63, pt_rec_omp_implicit, sizeof(pt_rec_omp_implicit), 0, "thread", \
	  "–", "") \
	X(OMP_IMPLICIT_END, 0x64, pt_rec_omp_implicit, sizeof(pt_rec_omp_implicit), 0, "thread", \
	  "–", "") \
	X(OMP_WORK_BEGIN, 0x65, pt_rec_omp_work, sizeof(pt_rec_omp_work), 0, "thread", \
	  "construct + 16 × schedule", "") \
	X(OMP_WORK_END, 0x66, void, 0, 0, "thread", "construct", "none") \
	X(OMP_CHUNK, 0x67, pt_rec_omp_chunk, sizeof(pt_rec_omp_chunk), 0, "thread", "–", "") \
	X(OMP_WAIT_BEGIN, 0x6a, pt_rec_omp_sync, sizeof(pt_rec_omp_sync), 0, "thread", \
	  "sync kind", "") \
	X(OMP_WAIT_END, 0x6b, void, 0, 0, "thread", "sync kind", "none") \
	X(OMP_TASK_CREATE, 0x6c, pt_rec_omp_task_create, sizeof(pt_rec_omp_task_create), 0, \
	  "thread", "–", "") \
	X(OMP_TASK_SCHEDULE, 0x6d, pt_rec_omp_task_schedule, sizeof(pt_rec_omp_task_schedule), \
	  0, "thread", "prior task's status", "") \
	X(OMP_TASK_DEPEND, 0x6e, pt_rec_omp_task_depend, sizeof(pt_rec_omp_task_depend), 0, \
	  "thread", "0 count, 1 edge", "") \
	X(OMP_CONTROL, 0x6f, pt_rec_omp_control, sizeof(pt_rec_omp_control), 0, "thread", "what", \
	  "")

/* OpenMP, inside PT_REC_RANGE_OPENMP. docs/FORMAT.md "OpenMP
 * records" and docs/OPENMP.md describe them. Written from OMPT callbacks
 * (LLVM's libomp) or from the GOMP_* wrappers (GNU libgomp), never both for
 * one program. Code locations are numbered per process: OMP_LOC_DEF (process
 * log) gives location `loc` its code address, once, before or after the
 * records that use it; 0 = unknown. A parallel region instance is a process-
 * unique id; an explicit task is PT_OMP_TASK_EXPLICIT | loc << 40 | a
 * process-unique sequence number, so a thread that runs it knows where it
 * was created; an implicit task (a thread of a region's team) is its
 * region's id, 0 the initial task. */
enum pt_omp_runtime {
	PT_OMP_RUNTIME_OMPT = 1, /* OMPT tool interface (LLVM libomp, Intel) */
	PT_OMP_RUNTIME_GOMP = 2, /* GOMP_* entry points interposed (GNU libgomp) */
};
#define PT_OMP_TASK_EXPLICIT (1ull << 63)
#define PT_OMP_LOC_SHIFT 40
#define PT_OMP_LOC_MAX 0x7fffffu /* the largest location a task id holds */
static inline uint32_t pt_omp_task_loc(uint64_t task)
{
	return (uint32_t)(task >> PT_OMP_LOC_SHIFT) & PT_OMP_LOC_MAX;
}

typedef struct pt_rec_omp_loc {
	uint32_t loc;     /* 1..PT_OMP_LOC_MAX */
	uint32_t flags;   /* PT_OMP_LOC_*, and the construct: PT_OMP_LOC_CONSTRUCT */
	uint64_t codeptr; /* where the construct is: a return address in its code */
	uint64_t fn;      /* its outlined body (GOMP_*: the function the runtime runs), 0 if unknown */
} pt_rec_omp_loc;
#define PT_OMP_LOC_RETURN_ADDRESS 0x1 /* codeptr is a return address (look up codeptr - 1) */
/* What construct is there, as the first record that used the location
 * says: that record's kind in bits 8..15 (OMP_PARALLEL_BEGIN,
 * OMP_WORK_BEGIN, OMP_WAIT_BEGIN, OMP_TASK_CREATE) and its arg (the
 * construct, the sync kind) in bits 16..23. */
#define PT_OMP_LOC_CONSTRUCT(kind, arg) ((uint32_t)(kind) << 8 | ((uint32_t)(arg)&0xff) << 16)
static inline unsigned pt_omp_loc_kind(uint32_t flags)
{
	return flags >> 8 & 0xff;
}
static inline unsigned pt_omp_loc_arg(uint32_t flags)
{
	return flags >> 16 & 0xff;
}
#define PT_FIELDS_OMP_LOC_DEF(T, F, A, S, C) \
	F(T, U, "loc", loc, "") C(omp_loc_flags, "construct= [return_address]") \
	F(T, PC, "code", codeptr, "") F(T, PC, "fn", fn, "")

/* OMP_PARALLEL_BEGIN/END, on the thread that encounters the region (the
 * master of its team). */
typedef struct pt_rec_omp_parallel {
	uint64_t id;        /* process-unique, > 0 */
	uint32_t loc;
	uint16_t requested; /* BEGIN: team size asked for (num_threads, nthreads-var) */
	uint16_t flags;     /* PT_OMP_PAR_* */
} pt_rec_omp_parallel;
#define PT_OMP_PAR_LOOP 0x1     /* combined parallel loop (GOMP_parallel_loop_*) */
#define PT_OMP_PAR_SECTIONS 0x2 /* combined parallel sections */
#define PT_OMP_PAR_TEAMS 0x4    /* a teams construct (OMPT league) */
#define PT_OMP_RUNTIME_NAMES "|ompt|gomp"
#define PT_FIELDS_OMP_PARALLEL_BEGIN(T, F, A, S, C) \
	A(ENUM, "runtime", PT_OMP_RUNTIME_NAMES) F(T, U, "id", id, "") F(T, U, "loc", loc, "") \
	F(T, U, "requested", requested, "") F(T, FLAGS, "flags", flags, "loop|sections|teams")
#define PT_FIELDS_OMP_PARALLEL_END(T, F, A, S, C) \
	A(ENUM, "runtime", PT_OMP_RUNTIME_NAMES) F(T, U, "id", id, "") F(T, U, "loc", loc, "")

/* OMP_IMPLICIT_BEGIN/END: this thread runs its part of region `parallel`
 * (thread `index` of a team of `team`). */
typedef struct pt_rec_omp_implicit {
	uint64_t parallel;
	uint32_t loc;
	uint16_t team;
	uint16_t index;
} pt_rec_omp_implicit;
#define PT_FIELDS_OMP_IMPLICIT_BEGIN(T, F, A, S, C) \
	F(T, U, "parallel", parallel, "") F(T, U, "loc", loc, "") F(T, U, "team", team, "") \
	F(T, U, "index", index, "")
#define PT_FIELDS_OMP_IMPLICIT_END(T, F, A, S, C) \
	F(T, U, "parallel", parallel, "") F(T, U, "loc", loc, "")

/* Work-sharing constructs: arg = enum pt_omp_work + 16 * enum
 * pt_omp_sched. OMP_WORK_END's arg is the construct alone. */
enum pt_omp_work {
	PT_OMP_WORK_LOOP = 1, /* the values of OMPT's ompt_work_t */
	PT_OMP_WORK_SECTIONS = 2,
	PT_OMP_WORK_SINGLE_EXECUTOR = 3,
	PT_OMP_WORK_SINGLE_OTHER = 4,
	PT_OMP_WORK_WORKSHARE = 5,
	PT_OMP_WORK_DISTRIBUTE = 6,
	PT_OMP_WORK_TASKLOOP = 7,
	PT_OMP_WORK_SCOPE = 8,
	PT_OMP_WORK_MASKED = 9, /* masked / master (OMPT's masked callback) */
};
enum pt_omp_sched {
	PT_OMP_SCHED_UNKNOWN = 0,
	PT_OMP_SCHED_STATIC = 1,
	PT_OMP_SCHED_DYNAMIC = 2,
	PT_OMP_SCHED_GUIDED = 3,
	PT_OMP_SCHED_RUNTIME = 4, /* schedule(runtime), or auto */
};
#define PT_OMP_WORK_NAMES "|loop|sections|single|single_other|workshare|distribute|taskloop|scope|masked"
#define PT_OMP_SCHED_NAMES "?|static|dynamic|guided|runtime"
typedef struct pt_rec_omp_work {
	uint64_t count; /* loop: iterations of the whole loop; sections: sections; 0 unknown */
	uint32_t loc;
	uint32_t chunk; /* the schedule's chunk size, 0 = none given */
} pt_rec_omp_work;
#define PT_FIELDS_OMP_WORK_BEGIN(T, F, A, S, C) \
	C(omp_work_arg, "construct= schedule=") F(T, U, "count", count, "") \
	F(T, U, "loc", loc, "") F(T, U, "chunk", chunk, "")
#define PT_FIELDS_OMP_WORK_END(T, F, A, S, C) A(ENUM, "construct", PT_OMP_WORK_NAMES)

/* OMP_CHUNK: a loop chunk this thread got from the runtime (dynamic,
 * guided, runtime and ordered schedules: one per dispatch). */
typedef struct pt_rec_omp_chunk {
	int64_t first;  /* first iteration (the loop variable's value) */
	uint64_t count; /* iterations */
} pt_rec_omp_chunk;
#define PT_FIELDS_OMP_CHUNK(T, F, A, S, C) F(T, I, "first", first, "") F(T, U, "count", count, "")

/* Synchronization: OMP_WAIT_BEGIN/END around the time a thread waits in a
 * barrier, taskwait or taskgroup, spinning included (OMPT's
 * sync_region_wait; the whole call of a GOMP_* one); tasks may run in
 * between. arg = enum pt_omp_sync (OMPT's ompt_sync_region_t values).
 * Kinds 0x68 and 0x69 are unused. */
enum pt_omp_sync {
	PT_OMP_SYNC_BARRIER = 1,
	PT_OMP_SYNC_BARRIER_IMPLICIT = 2, /* OMPT 5.0's implicit barrier */
	PT_OMP_SYNC_BARRIER_EXPLICIT = 3,
	PT_OMP_SYNC_BARRIER_IMPLEMENTATION = 4,
	PT_OMP_SYNC_TASKWAIT = 5,
	PT_OMP_SYNC_TASKGROUP = 6,
	PT_OMP_SYNC_REDUCTION = 7,
	PT_OMP_SYNC_BARRIER_IMPLICIT_WORKSHARE = 8,
	PT_OMP_SYNC_BARRIER_IMPLICIT_PARALLEL = 9,
	PT_OMP_SYNC_BARRIER_TEAMS = 10,
};
static inline int pt_omp_sync_is_barrier(unsigned kind)
{
	return kind <= PT_OMP_SYNC_BARRIER_IMPLEMENTATION || kind >= PT_OMP_SYNC_BARRIER_IMPLICIT_WORKSHARE;
}
#define PT_OMP_SYNC_NAMES \
	"|barrier|implicit_barrier|barrier|implementation_barrier|taskwait|taskgroup|reduction|" \
	"implicit_barrier|implicit_barrier|teams_barrier"
typedef struct pt_rec_omp_sync {
	uint32_t loc;
	uint32_t pad;
} pt_rec_omp_sync;
#define PT_FIELDS_OMP_WAIT_BEGIN(T, F, A, S, C) \
	A(ENUM, "kind", PT_OMP_SYNC_NAMES) F(T, U, "loc", loc, "")
#define PT_FIELDS_OMP_WAIT_END(T, F, A, S, C) A(ENUM, "kind", PT_OMP_SYNC_NAMES)

/* Explicit tasks. TASK_CREATE on the creating thread; TASK_SCHEDULE where
 * a thread switches from task `prior` (arg: its status) to task `next`. */
typedef struct pt_rec_omp_task_create {
	uint64_t task;
	uint32_t flags; /* OMPT's ompt_task_flag_t: 0x4 explicit, 0x8000000 undeferred, ... */
	uint32_t deps;  /* has dependences (GOMP_*: how many) */
} pt_rec_omp_task_create;
#define PT_FIELDS_OMP_TASK_CREATE(T, F, A, S, C) \
	F(T, X, "task", task, "") F(T, X, "flags", flags, "") F(T, U, "deps", deps, "")
enum pt_omp_task_status {
	PT_OMP_TASK_COMPLETE = 1, /* OMPT's ompt_task_status_t */
	PT_OMP_TASK_YIELD = 2,
	PT_OMP_TASK_CANCEL = 3,
	PT_OMP_TASK_DETACH = 4,
	PT_OMP_TASK_EARLY_FULFILL = 5,
	PT_OMP_TASK_LATE_FULFILL = 6,
	PT_OMP_TASK_SWITCH = 7,
	PT_OMP_TASK_TASKWAIT_COMPLETE = 8,
};
typedef struct pt_rec_omp_task_schedule {
	uint64_t prior;
	uint64_t next;
} pt_rec_omp_task_schedule;
#define PT_FIELDS_OMP_TASK_SCHEDULE(T, F, A, S, C) \
	A(ENUM, "status", "|complete|yield|cancel|detach|early_fulfill|late_fulfill|switch|" \
	                  "taskwait_complete") \
	F(T, X, "prior", prior, "") F(T, X, "next", next, "")
/* arg 0: task `a` has `b` dependences; arg 1: task `b` depends on task `a`. */
typedef struct pt_rec_omp_task_depend {
	uint64_t a;
	uint64_t b;
} pt_rec_omp_task_depend;
#define PT_FIELDS_OMP_TASK_DEPEND(T, F, A, S, C) \
	A(ENUM, "what", "count|edge") F(T, X, "a", a, "") F(T, X, "b", b, "")

/* Calls that change how later regions run: arg = enum pt_omp_control. */
enum pt_omp_control {
	PT_OMP_SET_NUM_THREADS = 1,
	PT_OMP_SET_DYNAMIC = 2,
	PT_OMP_SET_MAX_ACTIVE_LEVELS = 3,
	PT_OMP_SET_SCHEDULE = 4, /* value = kind, value2 = chunk */
};
typedef struct pt_rec_omp_control {
	int64_t value;
	int64_t value2;
} pt_rec_omp_control;
#define PT_FIELDS_OMP_CONTROL(T, F, A, S, C) \
	A(ENUM, "what", "|set_num_threads|set_dynamic|set_max_active_levels|set_schedule") \
	F(T, I, "value", value, "") F(T, I, "value2", value2, "")

#endif /* PARATRACE_FORMAT_OMP_H */
