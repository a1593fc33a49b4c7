/* SPDX-License-Identifier: MIT */
/* OpenMP through OMPT, the tool interface of LLVM's libomp (clang -fopenmp,
 * Debian's libomp-dev) and Intel's runtime: libtrace.so exports
 * ompt_start_tool, the runtime calls it at its start and then calls us back
 * on the threads where things happen: parallel regions and each thread's
 * part of them (implicit tasks), work-sharing constructs, the time spent
 * waiting in barriers, taskwait and taskgroup (spinning included),
 * explicit tasks, locks and critical sections.
 *
 * Every callback writes at most one or two records through pt_emit and
 * allocates nothing: what a callback needs later lives in the 64-bit words
 * OMPT keeps for each region and task (ompt_data_t), which hold our ids:
 * a region's is its location << 40 | a process-unique number, an implicit
 * task's the same as its region's, an explicit task's
 * PT_OMP_TASK_EXPLICIT | location << 40 | a number.
 *
 * OMPT gives no loop schedule and, in libomp 14, no chunk callback
 * (ompt_callback_dispatch is "never"): the libomp entry points compiled
 * code calls for a loop (__kmpc_for_static_init_*, __kmpc_dispatch_init_*,
 * __kmpc_dispatch_next_*) are interposed for the schedule and for every
 * chunk a thread gets (OMP_CHUNK); __kmpc_taskloop for the taskloop's place,
 * which libomp reports inside itself.
 *
 * When OMPT is another tool's (ompt_elsewhere.c), those entry points record
 * the loops and taskloops themselves (entry_recording).
 *
 * PARATRACE_OPENMP=0 (or tracing off): ompt_start_tool returns NULL, and
 * the runtime runs as without a tool; so it does when OMP_TOOL_LIBRARIES
 * names a tool, which libomp then loads as it would untraced. */
#define _GNU_SOURCE
#include "pt_omp.h"

#include <stdint.h>

/* ---- the OMPT ABI (OpenMP 5.1, chapter 4), what this file uses of it -----
 * Declared here rather than taken from omp-tools.h, which comes with the
 * runtime's development files, not with the compiler that builds us. */
typedef union ompt_data_t {
	uint64_t value;
	void *ptr;
} ompt_data_t;
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *interface_function_name);
typedef void (*ompt_callback_t)(void);
typedef int (*ompt_set_callback_t)(int event, ompt_callback_t callback);
typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup, int initial_device_num,
                                 ompt_data_t *tool_data);
typedef void (*ompt_finalize_t)(ompt_data_t *tool_data);
typedef struct ompt_start_tool_result_t {
	ompt_initialize_t initialize;
	ompt_finalize_t finalize;
	ompt_data_t tool_data;
} ompt_start_tool_result_t;
typedef struct ompt_dependence_t {
	ompt_data_t variable;
	int dependence_type;
} ompt_dependence_t;

enum {
	ompt_callback_parallel_begin = 3,
	ompt_callback_parallel_end = 4,
	ompt_callback_task_create = 5,
	ompt_callback_task_schedule = 6,
	ompt_callback_implicit_task = 7,
	ompt_callback_sync_region_wait = 16,
	ompt_callback_mutex_released = 17,
	ompt_callback_dependences = 18,
	ompt_callback_task_dependence = 19,
	ompt_callback_work = 20,
	ompt_callback_masked = 21,
	ompt_callback_mutex_acquire = 26,
	ompt_callback_mutex_acquired = 27,
};
enum { ompt_scope_begin = 1, ompt_scope_end = 2, ompt_scope_beginend = 3 };
enum { ompt_set_never = 1 };
enum {
	ompt_mutex_lock = 1,
	ompt_mutex_test_lock = 2,
	ompt_mutex_nest_lock = 3,
	ompt_mutex_test_nest_lock = 4,
	ompt_mutex_critical = 5,
	ompt_mutex_atomic = 6,
	ompt_mutex_ordered = 7,
};
enum { ompt_task_initial = 0x1, ompt_parallel_league = 0x40000000 };

/* ---- ids ----------------------------------------------------------------- */
#define ID_MASK ((1ull << PT_OMP_LOC_SHIFT) - 1)
/* In an implicit task's word: the thread is its team's master. */
#define MASTER_BIT (1ull << 62)

static inline uint64_t region_value(uint32_t loc, uint64_t id)
{
	return (uint64_t)loc << PT_OMP_LOC_SHIFT | (id & ID_MASK);
}

static inline uint32_t region_loc(uint64_t v)
{
	return (uint32_t)(v >> PT_OMP_LOC_SHIFT) & 0x3fffff;
}

/* When each region's team was complete at its end (the master's wait in the
 * implicit barrier ended), by region id. libomp tells a worker that its
 * wait at a region's end is over, and that its part of the region ended,
 * only when the next region that needs it starts (its fork barrier): the
 * worker then writes those records at this time instead, so that what
 * follows shows as idle rather than as a barrier wait of the last region.
 * (After KMP_BLOCKTIME the worker sleeps on a condition variable whose
 * records come in between: the end can then be no earlier than those.) */
#define JOIN_SLOTS 1024
static struct {
	uint64_t id, ticks;
} join_table[JOIN_SLOTS];

static void join_note(uint64_t id, uint64_t ticks)
{
	__atomic_store_n(&join_table[id % JOIN_SLOTS].ticks, ticks, __ATOMIC_RELAXED);
	__atomic_store_n(&join_table[id % JOIN_SLOTS].id, id, __ATOMIC_RELEASE);
}

static uint64_t join_find(uint64_t id)
{
	if (__atomic_load_n(&join_table[id % JOIN_SLOTS].id, __ATOMIC_ACQUIRE) != id)
		return 0;
	return __atomic_load_n(&join_table[id % JOIN_SLOTS].ticks, __ATOMIC_RELAXED);
}

/* The worker's deferred end: the time its records of the region's end
 * carry, the wait's end and the implicit task's (0: none pending). The
 * construct itself (ompt_callback_sync_region) is not asked for: its wait
 * (sync_region_wait) says the same at half the cost per barrier. */
static __thread uint64_t deferred_end __attribute__((tls_model("initial-exec")));

static void emit_at(uint64_t ticks, unsigned kind, unsigned arg, const void *payload, size_t len)
{
	pt_thread *t = pt_enter();
	if (!t)
		return;
	pt_emit_at(t, ticks, kind, arg, payload, len);
	pt_leave(t);
}

/* A taskloop's place (__kmpc_taskloop, below): libomp reports the
 * construct and the tasks it makes of it at a return address inside
 * itself. taskloop_ra: the wrapper's caller, while it runs; taskloop_task:
 * the task that encountered the construct (its work callback says which),
 * whose callbacks alone take that place: tasks the thread runs meanwhile
 * (in the taskloop's taskgroup) have their own. */
static __thread const void *taskloop_ra __attribute__((tls_model("initial-exec")));
static __thread const ompt_data_t *taskloop_task __attribute__((tls_model("initial-exec")));
/* The explicit task this thread runs (its id), 0 if none: a task libomp
 * makes inside one of its own (a taskloop's share split again, on any
 * thread) takes that task's place. */
static __thread uint64_t running_task __attribute__((tls_model("initial-exec")));

/* Loop schedules, for the work callback that follows on this thread (the
 * interposed entry point sets them just before the runtime raises it). */
static __thread unsigned pending_sched __attribute__((tls_model("initial-exec")));
static __thread uint32_t pending_chunk __attribute__((tls_model("initial-exec")));

/* ---- callbacks ------------------------------------------------------------ */
static void on_parallel_begin(ompt_data_t *encountering_task, const void *frame,
                              ompt_data_t *parallel, unsigned requested, int flags,
                              const void *codeptr)
{
	(void)encountering_task;
	(void)frame;
	uint32_t loc = pt_omp_loc_here(codeptr, PT_OMP_AT(OMP_PARALLEL_BEGIN, 0));
	uint64_t id = pt_omp_next_id() & ID_MASK;
	parallel->value = region_value(loc, id);
	pt_rec_omp_parallel p = {id, loc, (uint16_t)(requested > 0xffff ? 0xffff : requested),
	                         (uint16_t)(flags & ompt_parallel_league ? PT_OMP_PAR_TEAMS : 0)};
	pt_omp_emit(PT_REC_OMP_PARALLEL_BEGIN, PT_OMP_RUNTIME_OMPT, &p, sizeof p);
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *encountering_task, int flags,
                            const void *codeptr)
{
	(void)encountering_task;
	(void)flags;
	(void)codeptr;
	uint64_t v = parallel ? parallel->value : 0;
	pt_rec_omp_parallel p = {v & ID_MASK, region_loc(v), 0, 0};
	pt_omp_emit(PT_REC_OMP_PARALLEL_END, PT_OMP_RUNTIME_OMPT, &p, sizeof p);
}

/* The end of an implicit task may come after its region's end on the
 * master (libomp gives the workers no parallel_data then): the task's own
 * word keeps the region. */
static void on_implicit_task(int endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned actual, unsigned index, int flags)
{
	if (flags & ompt_task_initial)
		return;
	if (endpoint == ompt_scope_begin) {
		uint64_t v = parallel ? parallel->value : 0;
		task->value = v | (index == 0 ? MASTER_BIT : 0);
		deferred_end = 0;
		pt_rec_omp_implicit p = {v & ID_MASK, region_loc(v),
		                         (uint16_t)(actual > 0xffff ? 0xffff : actual),
		                         (uint16_t)(index > 0xffff ? 0xffff : index)};
		pt_omp_emit(PT_REC_OMP_IMPLICIT_BEGIN, 0, &p, sizeof p);
	} else {
		uint64_t v = task->value;
		pt_rec_omp_implicit p = {v & ID_MASK, region_loc(v), 0,
		                         (uint16_t)(index > 0xffff ? 0xffff : index)};
		if (deferred_end)
			emit_at(deferred_end, PT_REC_OMP_IMPLICIT_END, 0, &p, sizeof p);
		else
			pt_omp_emit(PT_REC_OMP_IMPLICIT_END, 0, &p, sizeof p);
		deferred_end = 0;
	}
}

static void on_work(int wstype, int endpoint, ompt_data_t *parallel, ompt_data_t *task,
                    uint64_t count, const void *codeptr)
{
	(void)parallel;
	(void)task;
	unsigned type = wstype > 0 && wstype <= PT_OMP_WORK_SCOPE ? (unsigned)wstype : 0;
	if (endpoint == ompt_scope_end) {
		pt_omp_emit(PT_REC_OMP_WORK_END, type, NULL, 0);
		return;
	}
	unsigned sched = 0;
	uint32_t chunk = 0;
	if (type == PT_OMP_WORK_LOOP) {
		sched = pending_sched;
		chunk = pending_chunk;
	}
	pending_sched = 0;
	pending_chunk = 0;
	if (type == PT_OMP_WORK_TASKLOOP && taskloop_ra) {
		codeptr = taskloop_ra;
		taskloop_task = task;
	}
	pt_rec_omp_work w = {count, pt_omp_loc_here(codeptr, PT_OMP_AT(OMP_WORK_BEGIN, type)),
	                     chunk};
	pt_omp_emit(PT_REC_OMP_WORK_BEGIN, type | sched << 4, &w, sizeof w);
}

static void on_masked(int endpoint, ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
	(void)parallel;
	(void)task;
	if (endpoint == ompt_scope_end) {
		pt_omp_emit(PT_REC_OMP_WORK_END, PT_OMP_WORK_MASKED, NULL, 0);
		return;
	}
	pt_rec_omp_work w = {
	    1, pt_omp_loc_here(codeptr, PT_OMP_AT(OMP_WORK_BEGIN, PT_OMP_WORK_MASKED)), 0};
	pt_omp_emit(PT_REC_OMP_WORK_BEGIN, PT_OMP_WORK_MASKED, &w, sizeof w);
}

/* The end of the wait in the barrier that ends a region: on the master,
 * the team is complete (join_note); on a worker it comes late (see
 * join_table). libomp gives no parallel_data there. */
static void on_sync_region_wait(int kind, int endpoint, ompt_data_t *parallel, ompt_data_t *task,
                                const void *codeptr)
{
	unsigned k = kind > 0 && kind <= PT_OMP_SYNC_BARRIER_TEAMS ? (unsigned)kind : 0;
	if (endpoint != ompt_scope_end) {
		pt_rec_omp_sync s = {pt_omp_loc_here(codeptr, PT_OMP_AT(OMP_WAIT_BEGIN, k)), 0};
		pt_omp_emit(PT_REC_OMP_WAIT_BEGIN, k, &s, sizeof s);
		return;
	}
	uint64_t v = task ? task->value : 0;
	if ((k == PT_OMP_SYNC_BARRIER_IMPLICIT || k == PT_OMP_SYNC_BARRIER_IMPLICIT_PARALLEL) &&
	    !(v & PT_OMP_TASK_EXPLICIT)) {
		if (v & MASTER_BIT) {
			join_note(v & ID_MASK, pt_now());
		} else if (!parallel) {
			uint64_t at = join_find(v & ID_MASK);
			if (at) {
				deferred_end = at;
				emit_at(at, PT_REC_OMP_WAIT_END, k, NULL, 0);
				return;
			}
		}
	}
	pt_omp_emit(PT_REC_OMP_WAIT_END, k, NULL, 0);
}

static unsigned lock_type(int kind)
{
	switch (kind) {
	case ompt_mutex_lock:
	case ompt_mutex_test_lock:
		return PT_LOCK_OMP_LOCK;
	case ompt_mutex_nest_lock:
	case ompt_mutex_test_nest_lock:
		return PT_LOCK_OMP_NEST_LOCK;
	case ompt_mutex_critical:
		return PT_LOCK_OMP_CRITICAL;
	case ompt_mutex_atomic:
		return PT_LOCK_OMP_ATOMIC;
	case ompt_mutex_ordered:
		return PT_LOCK_OMP_ORDERED;
	default:
		return 0;
	}
}

static void on_mutex_acquire(int kind, unsigned hint, unsigned impl, uint64_t wait_id,
                             const void *codeptr)
{
	(void)kind;
	(void)hint;
	(void)impl;
	(void)wait_id;
	(void)codeptr;
	pt_omp_acquire();
}

/* A nest lock taken again by its owner raises no acquire/acquired (OMPT's
 * nest_lock callback, not registered): only the first acquisition and the
 * last release are recorded. */
static void on_mutex_acquired(int kind, uint64_t wait_id, const void *codeptr)
{
	(void)codeptr;
	unsigned type = lock_type(kind);
	if (type)
		pt_omp_acquired(type, wait_id, 1);
}

static void on_mutex_released(int kind, uint64_t wait_id, const void *codeptr)
{
	(void)codeptr;
	unsigned type = lock_type(kind);
	if (type)
		pt_omp_released(type, wait_id);
}

static void on_task_create(ompt_data_t *encountering_task, const void *frame, ompt_data_t *task,
                           int flags, int has_dependences, const void *codeptr)
{
	(void)encountering_task;
	(void)frame;
	if (flags & ompt_task_initial)
		return;
	uint32_t loc;
	if (taskloop_task && encountering_task == taskloop_task)
		loc = pt_omp_loc(taskloop_ra, NULL, PT_OMP_AT(OMP_TASK_CREATE, 0));
	else if (running_task && !pt_omp_here.codeptr && !pt_omp_here.fn && codeptr &&
	         !pt_omp_caller(codeptr))
		loc = pt_omp_task_loc(running_task);
	else
		loc = pt_omp_loc_here(codeptr, PT_OMP_AT(OMP_TASK_CREATE, 0));
	uint64_t id = pt_omp_task_id(loc, pt_omp_next_id());
	task->value = id;
	pt_rec_omp_task_create c = {id, (uint32_t)flags, (uint32_t)has_dependences};
	pt_omp_emit(PT_REC_OMP_TASK_CREATE, 0, &c, sizeof c);
}

static void on_task_schedule(ompt_data_t *prior, int prior_status, ompt_data_t *next)
{
	pt_rec_omp_task_schedule s = {prior ? prior->value : 0, next ? next->value : 0};
	if (prior_status != PT_OMP_TASK_EARLY_FULFILL && prior_status != PT_OMP_TASK_LATE_FULFILL)
		running_task = s.next & PT_OMP_TASK_EXPLICIT ? s.next : 0;
	unsigned status = prior_status > 0 && prior_status <= PT_OMP_TASK_TASKWAIT_COMPLETE
	                      ? (unsigned)prior_status
	                      : 0;
	pt_omp_emit(PT_REC_OMP_TASK_SCHEDULE, status, &s, sizeof s);
}

static void on_dependences(ompt_data_t *task, const ompt_dependence_t *deps, int ndeps)
{
	(void)deps;
	pt_rec_omp_task_depend d = {task ? task->value : 0, (uint64_t)(ndeps > 0 ? ndeps : 0)};
	pt_omp_emit(PT_REC_OMP_TASK_DEPEND, 0, &d, sizeof d);
}

static void on_task_dependence(ompt_data_t *src, ompt_data_t *sink)
{
	pt_rec_omp_task_depend d = {src ? src->value : 0, sink ? sink->value : 0};
	pt_omp_emit(PT_REC_OMP_TASK_DEPEND, 1, &d, sizeof d);
}

/* ---- registration --------------------------------------------------------- */
static int ompt_on;

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device, ompt_data_t *data)
{
	(void)initial_device;
	(void)data;
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	if (!set)
		return 0;
	static const struct {
		int event;
		ompt_callback_t cb;
	} cbs[] = {
	    {ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin},
	    {ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end},
	    {ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task},
	    {ompt_callback_work, (ompt_callback_t)on_work},
	    {ompt_callback_masked, (ompt_callback_t)on_masked},
	    {ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region_wait},
	    {ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire},
	    {ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired},
	    {ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released},
	    {ompt_callback_task_create, (ompt_callback_t)on_task_create},
	    {ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule},
	    {ompt_callback_dependences, (ompt_callback_t)on_dependences},
	    {ompt_callback_task_dependence, (ompt_callback_t)on_task_dependence},
	};
	int n = 0;
	for (size_t i = 0; i < sizeof cbs / sizeof cbs[0]; i++)
		n += set(cbs[i].event, cbs[i].cb) > ompt_set_never;
	pt_debug(1, "OpenMP: OMPT tool registered (%d of %zu callbacks)", n,
	         sizeof cbs / sizeof cbs[0]);
	__atomic_store_n(&ompt_on, 1, __ATOMIC_RELAXED);
	return 1; /* keep the tool */
}

static void tool_finalize(ompt_data_t *data)
{
	(void)data;
}

/* The runtime's question, asked once at its start (in a child after fork,
 * again). */
PT_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                    const char *runtime_version)
{
	(void)omp_version;
	(void)runtime_version;
	static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
	int saved = errno;
	int want = pt_omp_wanted() && !pt_omp_tool_libraries();
	errno = saved;
	return want ? &result : NULL;
}

/* ---- libomp's loop entry points --------------------------------------------- */
/* Schedules are libomp's enum sched_type (kmp.h): 33..47 the plain ones,
 * +32 ordered, 91/92 distribute; bits 29 and 30 are the monotonic and
 * nonmonotonic modifiers. */
static unsigned sched_of(int32_t kmp)
{
	int32_t s = kmp & ~(3 << 29);
	if (s >= 65 && s <= 79)
		s -= 32;
	switch (s) {
	case 35:
		return PT_OMP_SCHED_DYNAMIC;
	case 36:
	case 42:
	case 43:
	case 46:
		return PT_OMP_SCHED_GUIDED;
	case 37:
	case 38:
	case 47:
		return PT_OMP_SCHED_RUNTIME;
	case 33:
	case 34:
	case 39:
	case 40:
	case 41:
	case 44:
	case 45:
	case 91:
	case 92:
		return PT_OMP_SCHED_STATIC;
	default:
		return PT_OMP_SCHED_UNKNOWN;
	}
}

static inline int ompt_recording(void)
{
	return __atomic_load_n(&ompt_on, __ATOMIC_RELAXED);
}

/* libomp runs the program without our OMPT tool (pt_omp_no_ompt): these
 * entry points record the loop or taskloop themselves, unless another
 * wrapper's call reaches them (libomp's GOMP_* ones, which record it:
 * pt_omp_here or pt_omp_gomp_loop is set). */
static inline int entry_recording(void)
{
	return !ompt_recording() && !pt_omp_here.codeptr && !pt_omp_here.fn && !pt_omp_gomp_loop &&
	       pt_omp_no_ompt() && pt_tracing() && pt_config_get()->openmp;
}

static void entry_work(unsigned type, unsigned sched, uint64_t count, const void *ra, int64_t chunk)
{
	pt_rec_omp_work w = {count, pt_omp_loc(ra, NULL, PT_OMP_AT(OMP_WORK_BEGIN, type)),
	                     chunk > 0 && chunk <= UINT32_MAX ? (uint32_t)chunk : 0};
	int saved = errno;
	pt_omp_emit(PT_REC_OMP_WORK_BEGIN, type | sched << 4, &w, sizeof w);
	errno = saved;
}

static void entry_work_end(unsigned type)
{
	int saved = errno;
	pt_omp_emit(PT_REC_OMP_WORK_END, type, NULL, 0);
	errno = saved;
}

/* libomp's kmp_sch_static and its ordered and distribute forms: no chunk
 * size given (compilers pass 1). */
static int unchunked(int32_t kmp)
{
	int32_t s = kmp & ~(3 << 29);
	return s == 34 || s == 66 || s == 92;
}

static void note_schedule(int32_t kmp, int64_t chunk)
{
	pending_sched = sched_of(kmp);
	pending_chunk = !unchunked(kmp) && chunk > 0 && chunk <= UINT32_MAX ? (uint32_t)chunk : 0;
}

static void chunk_rec(int64_t first, uint64_t count)
{
	if (!count)
		return;
	pt_rec_omp_chunk c = {first, count};
	int saved = errno;
	pt_omp_emit(PT_REC_OMP_CHUNK, 0, &c, sizeof c);
	errno = saved;
}

/* Iterations of [lo, hi] by incr (inclusive bounds, as libomp gives them). */
static uint64_t span(int64_t lo, int64_t hi, int64_t incr, int is_unsigned)
{
	if (!incr)
		return 0;
	if (is_unsigned)
		return (uint64_t)hi >= (uint64_t)lo
		           ? ((uint64_t)hi - (uint64_t)lo) / (uint64_t)incr + 1
		           : 0;
	if (incr > 0)
		return hi >= lo ? (uint64_t)(hi - lo) / (uint64_t)incr + 1 : 0;
	return lo >= hi ? (uint64_t)(lo - hi) / (uint64_t)-incr + 1 : 0;
}

/* A static loop: libomp gives the thread its first chunk and the stride to
 * its next ones; the thread's iterations are all of them up to the loop's
 * last iteration (read before the call), recorded as one OMP_CHUNK. */
static void static_chunks(int64_t glb_hi, int64_t lo, int64_t hi, int64_t stride, int64_t incr,
                          int is_unsigned)
{
	uint64_t n = span(lo, hi, incr, is_unsigned);
	if (n && stride && hi != glb_hi) {
		int64_t len = hi - lo;
		for (int64_t c = lo + stride;; c += stride) {
			int past = is_unsigned ? (uint64_t)c > (uint64_t)glb_hi
			                       : (incr > 0 ? c > glb_hi : c < glb_hi);
			if (past || (stride > 0 ? c < lo : c > lo)) /* or wrapped */
				break;
			int64_t e = c + len;
			if (is_unsigned ? (uint64_t)e > (uint64_t)glb_hi
			                : (incr > 0 ? e > glb_hi : e < glb_hi))
				e = glb_hi;
			n += span(c, e, incr, is_unsigned);
		}
	}
	chunk_rec(lo, n);
}

#define STATIC_INIT(suffix, T, is_unsigned)                                                        \
	PT_REAL_DECL(__kmpc_for_static_init_##suffix);                                             \
	PT_EXPORT void __kmpc_for_static_init_##suffix(void *loc, int32_t gtid, int32_t sched,     \
	                                               int32_t *last, T *lower, T *upper,          \
	                                               T *stride, T incr, T chunk)                 \
	{                                                                                          \
		void (*real)(void *, int32_t, int32_t, int32_t *, T *, T *, T *, T, T) =           \
		    PT_REAL(__kmpc_for_static_init_##suffix);                                      \
		int entry = entry_recording();                                                     \
		if (!ompt_recording() && !entry) {                                                 \
			real(loc, gtid, sched, last, lower, upper, stride, incr, chunk);           \
			return;                                                                    \
		}                                                                                  \
		T glb_lo = *lower, glb_hi = *upper;                                                \
		note_schedule(sched, (int64_t)chunk);                                              \
		pt_omp_site site_ = pt_omp_here;                                                   \
		pt_omp_here = (pt_omp_site){__builtin_return_address(0), NULL};                    \
		real(loc, gtid, sched, last, lower, upper, stride, incr, chunk);                   \
		pt_omp_here = site_;                                                               \
		if (entry)                                                                         \
			entry_work(                                                                \
			    PT_OMP_WORK_LOOP, pending_sched,                                       \
			    span((int64_t)glb_lo, (int64_t)glb_hi, (int64_t)incr, is_unsigned),    \
			    __builtin_return_address(0), (int64_t)pending_chunk);                  \
		static_chunks((int64_t)glb_hi, (int64_t)*lower, (int64_t)*upper, (int64_t)*stride, \
		              (int64_t)incr, is_unsigned);                                         \
	}
STATIC_INIT(4, int32_t, 0)
STATIC_INIT(4u, uint32_t, 1)
STATIC_INIT(8, int64_t, 0)
STATIC_INIT(8u, uint64_t, 1)

/* The end of a static loop: its work callback under OMPT. */
PT_REAL_DECL(__kmpc_for_static_fini);
PT_EXPORT void __kmpc_for_static_fini(void *loc, int32_t gtid)
{
	void (*real)(void *, int32_t) = PT_REAL(__kmpc_for_static_fini);
	if (entry_recording())
		entry_work_end(PT_OMP_WORK_LOOP);
	real(loc, gtid);
}

#define DISPATCH(suffix, T, is_unsigned)                                                           \
	PT_REAL_DECL(__kmpc_dispatch_init_##suffix);                                               \
	PT_REAL_DECL(__kmpc_dispatch_next_##suffix);                                               \
	PT_EXPORT void __kmpc_dispatch_init_##suffix(void *loc, int32_t gtid, int32_t sched, T lb, \
	                                             T ub, T st, T chunk)                          \
	{                                                                                          \
		void (*real)(void *, int32_t, int32_t, T, T, T, T) =                               \
		    PT_REAL(__kmpc_dispatch_init_##suffix);                                        \
		if (entry_recording()) {                                                           \
			note_schedule(sched, (int64_t)chunk);                                      \
			entry_work(                                                                \
			    PT_OMP_WORK_LOOP, pending_sched,                                       \
			    span((int64_t)lb, (int64_t)ub, st ? (int64_t)st : 1, is_unsigned),     \
			    __builtin_return_address(0), (int64_t)pending_chunk);                  \
			pending_sched = 0;                                                         \
			pending_chunk = 0;                                                         \
		}                                                                                  \
		if (!ompt_recording()) {                                                           \
			real(loc, gtid, sched, lb, ub, st, chunk);                                 \
			return;                                                                    \
		}                                                                                  \
		note_schedule(sched, (int64_t)chunk);                                              \
		pt_omp_site site_ = pt_omp_here;                                                   \
		pt_omp_here = (pt_omp_site){__builtin_return_address(0), NULL};                    \
		real(loc, gtid, sched, lb, ub, st, chunk);                                         \
		pt_omp_here = site_;                                                               \
	}                                                                                          \
	PT_EXPORT int __kmpc_dispatch_next_##suffix(void *loc, int32_t gtid, int32_t *last, T *lb, \
	                                            T *ub, T *st)                                  \
	{                                                                                          \
		int (*real)(void *, int32_t, int32_t *, T *, T *, T *) =                           \
		    PT_REAL(__kmpc_dispatch_next_##suffix);                                        \
		int r = real(loc, gtid, last, lb, ub, st);                                         \
		int entry = entry_recording();                                                     \
		if (r && (entry || (ompt_recording() && !pt_omp_gomp_loop)))                       \
			chunk_rec((int64_t)*lb, span((int64_t)*lb, (int64_t)*ub,                   \
			                             st &&*st ? (int64_t)*st : 1, is_unsigned));   \
		else if (!r && entry)                                                              \
			entry_work_end(PT_OMP_WORK_LOOP);                                          \
		return r;                                                                          \
	}
DISPATCH(4, int32_t, 0)
DISPATCH(4u, uint32_t, 1)
DISPATCH(8, int64_t, 0)
DISPATCH(8u, uint64_t, 1)

/* __kmpc_taskloop(loc, gtid, task, if_val, lb, ub, st, nogroup, sched,
 * grainsize, task_dup) and __kmpc_taskloop_5 (a modifier before task_dup):
 * passed on, with the caller noted for the callbacks (taskloop_ra). Called
 * by libomp's own GOMP_taskloop (gcc-built code), the caller is no place:
 * that wrapper's site (pt_omp_here) names it. */
#define TASKLOOP_CALL(call)                                                                        \
	do {                                                                                       \
		const void *ra_ = taskloop_ra;                                                     \
		const ompt_data_t *task_ = taskloop_task;                                          \
		taskloop_ra = pt_omp_caller(__builtin_return_address(0));                          \
		taskloop_task = NULL;                                                              \
		int entry_ = taskloop_ra && entry_recording();                                     \
		if (entry_)                                                                        \
			entry_work(PT_OMP_WORK_TASKLOOP, 0, 0, taskloop_ra, 0);                    \
		call;                                                                              \
		if (entry_)                                                                        \
			entry_work_end(PT_OMP_WORK_TASKLOOP);                                      \
		taskloop_ra = ra_;                                                                 \
		taskloop_task = task_;                                                             \
	} while (0)

PT_REAL_DECL(__kmpc_taskloop);
PT_EXPORT void __kmpc_taskloop(void *loc, int32_t gtid, void *task, int32_t if_val, uint64_t *lb,
                               uint64_t *ub, int64_t st, int32_t nogroup, int32_t sched,
                               uint64_t grainsize, void *task_dup)
{
	void (*real)(void *, int32_t, void *, int32_t, uint64_t *, uint64_t *, int64_t, int32_t,
	             int32_t, uint64_t, void *) = PT_REAL(__kmpc_taskloop);
	TASKLOOP_CALL(
	    real(loc, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, task_dup));
}

PT_REAL_DECL(__kmpc_taskloop_5);
PT_EXPORT void __kmpc_taskloop_5(void *loc, int32_t gtid, void *task, int32_t if_val, uint64_t *lb,
                                 uint64_t *ub, int64_t st, int32_t nogroup, int32_t sched,
                                 uint64_t grainsize, int32_t modifier, void *task_dup)
{
	void (*real)(void *, int32_t, void *, int32_t, uint64_t *, uint64_t *, int64_t, int32_t,
	             int32_t, uint64_t, int32_t, void *) = PT_REAL(__kmpc_taskloop_5);
	TASKLOOP_CALL(real(loc, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, modifier,
	                   task_dup));
}

static void ompt_fork_child(void)
{
	deferred_end = 0;
	pending_sched = 0;
	pending_chunk = 0;
	pt_omp_here = (pt_omp_site){NULL, NULL};
	taskloop_ra = NULL;
	taskloop_task = NULL;
	running_task = 0;
}

PT_SUBSYSTEM(ompt_part) = {
    .name = "ompt",
    .order = PT_ORDER_INTERPOSE,
    .fork_child = ompt_fork_child,
};
