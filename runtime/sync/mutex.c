/* SPDX-License-Identifier: MIT */
/* pthread mutexes: an acquisition that waits is recorded as LOCK_REQUEST then
 * LOCK_ACQUIRED or LOCK_FAILED, one that does not as its result alone,
 * every release as LOCK_RELEASED, so the analyzer gets per-lock
 * acquisitions, contention and wait time. Also hosts the lock-record
 * helpers the other lock families share (pt_interpose.h). */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <pthread.h>
#include <time.h>

void pt_lock_request(unsigned type, const volatile void *obj)
{
	pt_thread *t = pt_enter_sync();
	if (!t)
		return;
	pt_lock_emit_at(t, pt_now(), PT_REC_LOCK_REQUEST, type, obj, 0);
	pt_leave(t);
}

void pt_lock_result(unsigned type, const volatile void *obj, int acquired, int result)
{
	int saved = errno;
	pt_thread *t = pt_enter_sync();
	if (t) {
		pt_lock_outcome_at(t, pt_now(), type, obj, acquired, result);
		pt_leave(t);
	}
	errno = saved;
}

/* The release is stamped before the real unlock (so it precedes the next
 * owner's ACQUIRED in time) but written after it, and only if the unlock
 * succeeded: a failed unlock (EPERM) released nothing. */
void pt_lock_released_at(pt_thread *t, uint64_t ticks, unsigned type, const volatile void *obj)
{
	pt_lock_emit_at(t, ticks, PT_REC_LOCK_RELEASED, type, obj, 0);
	pt_counters_at(t, PT_COUNTERS_AT_SYNC);
}

PT_REAL_DECL(pthread_mutex_lock);
PT_REAL_DECL(pthread_mutex_trylock);
PT_REAL_DECL(pthread_mutex_timedlock);
PT_REAL_DECL(pthread_mutex_clocklock);
PT_REAL_DECL(pthread_mutex_unlock);

/* A mutex a robust owner left behind is acquired with EOWNERDEAD. */
static int mutex_acquired(int r)
{
	return r == 0 || r == EOWNERDEAD;
}

/* The trylock tells contention apart without changing the outcome: it takes
 * a robust mutex with EOWNERDEAD as lock does, and any other failure falls
 * through to the real lock, which then returns what it always would
 * (EDEADLK, ENOTRECOVERABLE...). */
PT_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	PT_LOCK_TRY_FIRST(PT_LOCK_MUTEX, m, PT_REAL(pthread_mutex_trylock)(m),
			  PT_REAL(pthread_mutex_lock)(m), mutex_acquired);
}

PT_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	PT_LOCK_TRY(PT_LOCK_MUTEX, m, PT_REAL(pthread_mutex_trylock), mutex_acquired);
}

PT_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *restrict m,
                                      const struct timespec *restrict abstime)
{
	int (*real)(pthread_mutex_t *, const struct timespec *) = PT_REAL(pthread_mutex_timedlock);
	pt_lock_request(PT_LOCK_MUTEX, m);
	int r = real(m, abstime);
	pt_lock_result(PT_LOCK_MUTEX, m, mutex_acquired(r), r);
	return r;
}

PT_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *restrict m, clockid_t clock,
                                      const struct timespec *restrict abstime)
{
	int (*real)(pthread_mutex_t *, clockid_t, const struct timespec *) =
		PT_REAL(pthread_mutex_clocklock);
	pt_lock_request(PT_LOCK_MUTEX, m);
	int r = real(m, clock, abstime);
	pt_lock_result(PT_LOCK_MUTEX, m, mutex_acquired(r), r);
	return r;
}

PT_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	int (*real)(pthread_mutex_t *) = PT_REAL(pthread_mutex_unlock);
	pt_thread *t = pt_enter_sync();
	if (!t)
		return real(m);
	uint64_t ticks = pt_now();
	int r = real(m); /* never blocks */
	if (r == 0)
		pt_lock_released_at(t, ticks, PT_LOCK_MUTEX, m);
	pt_leave(t);
	return r;
}

PT_SUBSYSTEM(mutex_part) = {
	.name = "mutex",
	.order = PT_ORDER_INTERPOSE,
};
