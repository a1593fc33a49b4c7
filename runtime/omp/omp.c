/* SPDX-License-Identifier: MIT */
/* OpenMP, the part both sources share (pt_omp.h): code locations and ids,
 * which runtime's program this is, the lock records, and the omp_set_*
 * calls that change how later regions run (OMP_CONTROL), which neither OMPT
 * nor the GOMP_* entry points report. */
#define _GNU_SOURCE
#include "pt_omp.h"

#include <dlfcn.h>
#include <link.h>

/* ---- code locations ----------------------------------------------------- */
/* key -> location number: open addressing over a fixed table, the location
 * being the slot's index + 1, so a slot once taken never changes and a
 * lookup needs no lock. A new key claims its slot with a CAS; the winner
 * writes the OMP_LOC_DEF. The key is the construct's return address, or,
 * for a construct whose return address is in the runtime (pt_omp_caller),
 * the body function it ends. */
#define LOC_SLOTS 4096
#define LOC_PROBES 32
typedef struct loc_slot {
	uintptr_t key; /* 0 = free */
	uintptr_t codeptr, fn;
	uint32_t what;
} loc_slot;
static loc_slot loc_table[LOC_SLOTS];
static int loc_full_warned;

static void loc_def(uint32_t loc, const loc_slot *s)
{
	pt_rec_omp_loc d = {loc, (s->codeptr ? PT_OMP_LOC_RETURN_ADDRESS : 0) | s->what, s->codeptr,
	                    s->fn};
	pt_process_emit(PT_REC_OMP_LOC_DEF, 0, &d, sizeof d, NULL, 0);
}

uint32_t pt_omp_loc(const void *codeptr, const void *fn, uint32_t what)
{
	uintptr_t key = codeptr ? (uintptr_t)codeptr : (uintptr_t)fn;
	if (!key)
		return 0;
	size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 52) & (LOC_SLOTS - 1);
	for (size_t i = 0; i < LOC_PROBES; i++) {
		size_t j = (h + i) & (LOC_SLOTS - 1);
		loc_slot *s = &loc_table[j];
		uintptr_t cur = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
		if (cur == key)
			return (uint32_t)j + 1;
		if (cur)
			continue;
		/* written before the slot is claimed; a racing claimer of the same
		 * slot writes its own: the winner's def says what it saw */
		s->codeptr = (uintptr_t)codeptr;
		s->fn = (uintptr_t)fn;
		s->what = what;
		uintptr_t expected = 0;
		if (__atomic_compare_exchange_n(&s->key, &expected, key, 0, __ATOMIC_ACQ_REL,
		                                __ATOMIC_ACQUIRE)) {
			loc_def((uint32_t)j + 1, s);
			return (uint32_t)j + 1;
		}
		if (expected == key)
			return (uint32_t)j + 1;
	}
	if (!__atomic_exchange_n(&loc_full_warned, 1, __ATOMIC_RELAXED))
		pt_warn("more OpenMP constructs than the %d locations the runtime keeps: the "
		        "others are recorded without their place in the code",
		        LOC_SLOTS - 1);
	return 0;
}

__thread pt_omp_site pt_omp_here __attribute__((tls_model("initial-exec")));
__thread const void *pt_omp_body __attribute__((tls_model("initial-exec")));
__thread int pt_omp_gomp_loop __attribute__((tls_model("initial-exec")));

/* The code of libtrace.so and of the OpenMP runtime, [lo, hi) each: found
 * once, from the load segments of the object that holds a given address. */
typedef struct code_range {
	uintptr_t lo, hi;
	int known; /* 1 looked for (lo/hi 0: not found) */
} code_range;
static code_range self_code, omp_code;

static int range_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	code_range *r = arg;
	uintptr_t lo, hi;
	if (!pt_module_extent(info, &lo, &hi) || r->lo < lo || r->lo >= hi)
		return 0;
	r->lo = lo;
	r->hi = hi;
	return 1;
}

static void find_range(code_range *r, const void *addr)
{
	code_range found = {(uintptr_t)addr, 0, 1};
	if (!addr || !dl_iterate_phdr(range_of, &found))
		found.lo = found.hi = 0;
	__atomic_store_n(&r->lo, found.lo, __ATOMIC_RELAXED);
	__atomic_store_n(&r->hi, found.hi, __ATOMIC_RELAXED);
	__atomic_store_n(&r->known, 1, __ATOMIC_RELEASE);
}

static int in_range(const code_range *r, uintptr_t a)
{
	return a >= r->lo && a < r->hi;
}

/* A return address in libtrace.so (our trampolines) or in the OpenMP
 * runtime (it runs a body that tail-called an entry point) is no place in
 * the program: NULL. */
const void *pt_omp_caller(const void *ra)
{
	if (pt_unlikely(!__atomic_load_n(&omp_code.known, __ATOMIC_ACQUIRE))) {
		find_range(&self_code, (const void *)(uintptr_t)&pt_omp_caller);
		/* our own GOMP_barrier comes first: the runtime's is the next one */
		void *rt = dlsym(RTLD_DEFAULT, "GOMP_barrier");
		if (rt && in_range(&self_code, (uintptr_t)rt))
			rt = pt_real("GOMP_barrier");
		find_range(&omp_code, rt);
	}
	uintptr_t a = (uintptr_t)ra;
	return in_range(&self_code, a) || in_range(&omp_code, a) ? NULL : ra;
}

uint32_t pt_omp_loc_here(const void *codeptr, uint32_t what)
{
	if (pt_omp_here.codeptr || pt_omp_here.fn)
		return pt_omp_loc(pt_omp_here.codeptr, pt_omp_here.fn, what);
	return pt_omp_loc(codeptr, NULL, what);
}

static uint64_t id_counter;

uint64_t pt_omp_next_id(void)
{
	return __atomic_add_fetch(&id_counter, 1, __ATOMIC_RELAXED);
}

int pt_omp_wanted(void)
{
	if (!pt_tracing()) {
		pt_thread *t = pt_enter(); /* initialises tracing if nothing has yet */
		if (t)
			pt_leave(t);
	}
	return pt_tracing() && pt_config_get()->openmp;
}

void *pt_omp_lookup(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);
	if (!p)
		(void)dlerror();
	return p;
}

static int source;

int pt_omp_source(void)
{
	int s = __atomic_load_n(&source, __ATOMIC_RELAXED);
	if (pt_likely(s))
		return s;
	/* libomp and Intel's runtime export __kmpc_fork_call, libgomp does not */
	s = pt_omp_lookup("__kmpc_fork_call") ? PT_OMP_SOURCE_OTHER : PT_OMP_SOURCE_GOMP;
	__atomic_store_n(&source, s, __ATOMIC_RELAXED);
	return s;
}

/* The new image may run another runtime. */
static void omp_exec(void)
{
	__atomic_store_n(&source, 0, __ATOMIC_RELAXED);
}

/* The locations known so far, in the child's new process log. */
static void omp_fork_child(void)
{
	for (size_t j = 0; j < LOC_SLOTS; j++)
		if (loc_table[j].key)
			loc_def((uint32_t)j + 1, &loc_table[j]);
}

/* ---- mutual exclusion ---------------------------------------------------- */
/* When this thread began its current acquisition: a thread acquires one
 * lock at a time, so one slot is enough. */
static __thread uint64_t acquire_ticks __attribute__((tls_model("initial-exec")));

void pt_omp_acquire(void)
{
	acquire_ticks = pt_now();
}

/* The request is written with the acquisition, at the time it began: the
 * profile counts it as contended when it lasted PF_CONTENDED_NS or more. */
void pt_omp_acquired(unsigned type, uint64_t obj, int acquired)
{
	pt_thread *t = pt_enter();
	if (!t)
		return;
	uint64_t now = pt_now();
	uint64_t begin = acquire_ticks && acquire_ticks <= now ? acquire_ticks : now;
	pt_emit_lock_at(t, begin, PT_REC_LOCK_REQUEST, type, obj, 0);
	pt_emit_lock_at(t, now, acquired ? PT_REC_LOCK_ACQUIRED : PT_REC_LOCK_FAILED, type, obj,
	                acquired ? 0 : EBUSY);
	pt_counters_at(t, PT_COUNTERS_AT_SYNC);
	pt_leave(t);
	acquire_ticks = 0;
}

void pt_omp_released(unsigned type, uint64_t obj)
{
	pt_thread *t = pt_enter();
	if (!t)
		return;
	pt_emit_lock_at(t, pt_now(), PT_REC_LOCK_RELEASED, type, obj, 0);
	pt_counters_at(t, PT_COUNTERS_AT_SYNC);
	pt_leave(t);
}

/* ---- omp_set_* ---------------------------------------------------------- */
/* Both runtimes export these. Without an OpenMP runtime in the process (a
 * program that declares them weak and tests for them finds ours), the call
 * does nothing, as the runtimes' stubs would. */
static void control(unsigned what, int64_t value, int64_t value2)
{
	if (!pt_tracing() || !pt_config_get()->openmp)
		return;
	pt_rec_omp_control c = {value, value2};
	int saved = errno;
	pt_omp_emit(PT_REC_OMP_CONTROL, what, &c, sizeof c);
	errno = saved;
}

PT_REAL_DECL(omp_set_num_threads);
PT_REAL_DECL(omp_set_dynamic);
PT_REAL_DECL(omp_set_max_active_levels);

PT_EXPORT void omp_set_num_threads(int n)
{
	void (*real)(int) = PT_REAL(omp_set_num_threads);
	control(PT_OMP_SET_NUM_THREADS, n, 0);
	if (real)
		real(n);
}

PT_EXPORT void omp_set_dynamic(int on)
{
	void (*real)(int) = PT_REAL(omp_set_dynamic);
	control(PT_OMP_SET_DYNAMIC, on, 0);
	if (real)
		real(on);
}

PT_EXPORT void omp_set_max_active_levels(int n)
{
	void (*real)(int) = PT_REAL(omp_set_max_active_levels);
	control(PT_OMP_SET_MAX_ACTIVE_LEVELS, n, 0);
	if (real)
		real(n);
}

/* omp_sched_t is an enum of the same values in both runtimes' omp.h. */
PT_EXPORT void omp_set_schedule(int kind, int chunk)
{
	static void *slot;
	void (*real)(int, int) = (void (*)(int, int))pt_real_cached(&slot, "omp_set_schedule");
	control(PT_OMP_SET_SCHEDULE, kind, chunk);
	if (real)
		real(kind, chunk);
}

PT_SUBSYSTEM(omp_part) = {
    .name = "openmp",
    .order = PT_ORDER_INTERPOSE,
    .fork_child = omp_fork_child,
    .exec = omp_exec,
};
