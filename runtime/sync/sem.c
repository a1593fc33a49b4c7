/* SPDX-License-Identifier: MIT */
/* POSIX semaphores, as locks of type PT_LOCK_SEMAPHORE: sem_wait and
 * friends are LOCK_REQUEST then LOCK_ACQUIRED or LOCK_FAILED (result = the
 * errno: EAGAIN, ETIMEDOUT, EINTR...), sem_post is LOCK_RELEASED. These
 * functions report errors through errno, which is kept exactly as the real
 * call left it. sem_post is async-signal-safe, so its real address is
 * resolved at load time rather than on a first call that could be inside a
 * signal handler (dlsym is not async-signal-safe). */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <semaphore.h>
#include <time.h>

PT_REAL_DECL(sem_wait);
PT_REAL_DECL(sem_trywait);
PT_REAL_DECL(sem_timedwait);
PT_REAL_DECL(sem_clockwait);
PT_REAL_DECL(sem_post);

__attribute__((constructor)) static void sem_resolve(void)
{
	(void)PT_REAL(sem_post);
}

static int sem_done(sem_t *s, int r)
{
	int e = errno;
	pt_lock_result(PT_LOCK_SEMAPHORE, s, r == 0, r == 0 ? 0 : e);
	errno = e;
	return r;
}

PT_EXPORT int sem_wait(sem_t *s)
{
	int (*real)(sem_t *) = PT_REAL(sem_wait);
	pt_lock_request(PT_LOCK_SEMAPHORE, s);
	return sem_done(s, real(s));
}

PT_EXPORT int sem_trywait(sem_t *s)
{
	int (*real)(sem_t *) = PT_REAL(sem_trywait);
	pt_lock_request(PT_LOCK_SEMAPHORE, s);
	return sem_done(s, real(s));
}

PT_EXPORT int sem_timedwait(sem_t *restrict s, const struct timespec *restrict abstime)
{
	int (*real)(sem_t *, const struct timespec *) = PT_REAL(sem_timedwait);
	pt_lock_request(PT_LOCK_SEMAPHORE, s);
	return sem_done(s, real(s, abstime));
}

PT_EXPORT int sem_clockwait(sem_t *restrict s, clockid_t clock,
                            const struct timespec *restrict abstime)
{
	int (*real)(sem_t *, clockid_t, const struct timespec *) = PT_REAL(sem_clockwait);
	pt_lock_request(PT_LOCK_SEMAPHORE, s);
	return sem_done(s, real(s, clock, abstime));
}

PT_EXPORT int sem_post(sem_t *s)
{
	int (*real)(sem_t *) = PT_REAL(sem_post);
	pt_thread *t = pt_enter_sync();
	if (!t)
		return real(s);
	uint64_t ticks = pt_now();
	int r = real(s);
	if (r == 0) {
		int e = errno;
		pt_lock_released_at(t, ticks, PT_LOCK_SEMAPHORE, s);
		errno = e;
	}
	pt_leave(t);
	return r;
}

PT_SUBSYSTEM(sem_part) = {
	.name = "sem",
	.order = PT_ORDER_INTERPOSE,
};
