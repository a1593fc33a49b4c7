/* SPDX-License-Identifier: MIT */
/* Read-write locks: LOCK_REQUEST then LOCK_ACQUIRED/LOCK_FAILED with
 * arg PT_LOCK_RWLOCK_READ or PT_LOCK_RWLOCK_WRITE, LOCK_RELEASED on unlock
 * with the mode that was held. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <pthread.h>
#include <time.h>

PT_REAL_DECL(pthread_rwlock_rdlock);
PT_REAL_DECL(pthread_rwlock_tryrdlock);
PT_REAL_DECL(pthread_rwlock_timedrdlock);
PT_REAL_DECL(pthread_rwlock_clockrdlock);
PT_REAL_DECL(pthread_rwlock_wrlock);
PT_REAL_DECL(pthread_rwlock_trywrlock);
PT_REAL_DECL(pthread_rwlock_timedwrlock);
PT_REAL_DECL(pthread_rwlock_clockwrlock);
PT_REAL_DECL(pthread_rwlock_unlock);

#define RD PT_LOCK_RWLOCK_READ
#define WR PT_LOCK_RWLOCK_WRITE

PT_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	int (*real)(pthread_rwlock_t *) = PT_REAL(pthread_rwlock_rdlock);
	pt_lock_request(RD, l);
	int r = real(l);
	pt_lock_result(RD, l, r == 0, r);
	return r;
}

PT_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	int (*real)(pthread_rwlock_t *) = PT_REAL(pthread_rwlock_tryrdlock);
	pt_lock_request(RD, l);
	int r = real(l);
	pt_lock_result(RD, l, r == 0, r);
	return r;
}

PT_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *restrict l,
                                         const struct timespec *restrict abstime)
{
	int (*real)(pthread_rwlock_t *, const struct timespec *) =
		PT_REAL(pthread_rwlock_timedrdlock);
	pt_lock_request(RD, l);
	int r = real(l, abstime);
	pt_lock_result(RD, l, r == 0, r);
	return r;
}

PT_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *restrict l, clockid_t clock,
                                         const struct timespec *restrict abstime)
{
	int (*real)(pthread_rwlock_t *, clockid_t, const struct timespec *) =
		PT_REAL(pthread_rwlock_clockrdlock);
	pt_lock_request(RD, l);
	int r = real(l, clock, abstime);
	pt_lock_result(RD, l, r == 0, r);
	return r;
}

PT_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	int (*real)(pthread_rwlock_t *) = PT_REAL(pthread_rwlock_wrlock);
	pt_lock_request(WR, l);
	int r = real(l);
	pt_lock_result(WR, l, r == 0, r);
	return r;
}

PT_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	int (*real)(pthread_rwlock_t *) = PT_REAL(pthread_rwlock_trywrlock);
	pt_lock_request(WR, l);
	int r = real(l);
	pt_lock_result(WR, l, r == 0, r);
	return r;
}

PT_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *restrict l,
                                         const struct timespec *restrict abstime)
{
	int (*real)(pthread_rwlock_t *, const struct timespec *) =
		PT_REAL(pthread_rwlock_timedwrlock);
	pt_lock_request(WR, l);
	int r = real(l, abstime);
	pt_lock_result(WR, l, r == 0, r);
	return r;
}

PT_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *restrict l, clockid_t clock,
                                         const struct timespec *restrict abstime)
{
	int (*real)(pthread_rwlock_t *, clockid_t, const struct timespec *) =
		PT_REAL(pthread_rwlock_clockwrlock);
	pt_lock_request(WR, l);
	int r = real(l, clock, abstime);
	pt_lock_result(WR, l, r == 0, r);
	return r;
}

/* Which mode is being released: glibc keeps the writer's tid in the lock
 * (__cur_writer, part of the public struct layout and so of its ABI);
 * otherwise this thread held it for reading. */
static unsigned held_mode(pthread_rwlock_t *l, pt_thread *t)
{
#if defined(__GLIBC__)
	unsigned writer = __atomic_load_n(&l->__data.__cur_writer, __ATOMIC_RELAXED);
	return writer != 0 && writer == pt_thread_tid(t) ? WR : RD;
#else
	(void)l;
	(void)t;
	return RD;
#endif
}

PT_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	int (*real)(pthread_rwlock_t *) = PT_REAL(pthread_rwlock_unlock);
	pt_thread *t = pt_enter_sync();
	if (!t)
		return real(l);
	unsigned mode = held_mode(l, t);
	uint64_t ticks = pt_now();
	int r = real(l); /* never blocks */
	if (r == 0)
		pt_lock_released_at(t, ticks, mode, l);
	pt_leave(t);
	return r;
}

PT_SUBSYSTEM(rwlock_part) = {
	.name = "rwlock",
	.order = PT_ORDER_INTERPOSE,
};
