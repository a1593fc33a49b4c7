/* SPDX-License-Identifier: MIT */
/* Waits and mutual exclusion under GNU libgomp (gomp.c says what is
 * recorded): barriers, task waits and taskgroup ends (WAIT_BEGIN/END
 * around the call), critical sections, atomic, ordered and the
 * omp_*_lock API (LOCK_REQUEST/ACQUIRED/RELEASED). */
#define _GNU_SOURCE
#include "gomp_internal.h"

#include <dlfcn.h>

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
