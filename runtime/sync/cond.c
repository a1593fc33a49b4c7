/* SPDX-License-Identifier: MIT */
/* Condition variables: COND_WAIT_BEGIN / COND_WAIT_END around every wait
 * (the mutex is released inside the wait and held again at WAIT_END; no
 * separate lock records are written for that hand-over), COND_SIGNAL for
 * signal (arg 0) and broadcast (arg 1).
 *
 * glibc exports two versions of each pthread_cond_* symbol: the current
 * GLIBC_2.3.2 one, which programs link against, and a LinuxThreads-era
 * compat one with a different object layout. The real function is looked
 * up by that version explicitly so the wrapper never forwards to the compat
 * implementation, whatever dlsym's default choice is on this glibc. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

static void *cond_real(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_RELAXED);
	if (pt_likely(p != NULL))
		return p;
#if defined(__x86_64__)
	p = dlvsym(RTLD_NEXT, name, "GLIBC_2.3.2");
#endif
	if (p == NULL)
		p = pt_real(name);
	__atomic_store_n(slot, p, __ATOMIC_RELAXED);
	return p;
}
#define COND_REAL(fn) ((__typeof__(&fn))cond_real(&pt_real_slot_##fn, #fn))

PT_REAL_DECL(pthread_cond_wait);
PT_REAL_DECL(pthread_cond_timedwait);
PT_REAL_DECL(pthread_cond_clockwait);
PT_REAL_DECL(pthread_cond_signal);
PT_REAL_DECL(pthread_cond_broadcast);

static void wait_begin(const void *c, const void *m)
{
	pt_thread *t = pt_enter_sync();
	if (!t)
		return;
	pt_rec_cond rec = {pt_ptr(c), pt_ptr(m), 0, 0};
	pt_emit(t, PT_REC_COND_WAIT_BEGIN, 0, &rec, sizeof rec);
	pt_callstack_emit(t);
	pt_counters_at(t, PT_COUNTERS_AT_SYNC);
	pt_leave(t);
}

/* Not reached when the wait is cancelled (it is a cancellation point): the
 * thread's THREAD_END (cancelled) closes the wait instead. */
static void wait_end(const void *c, const void *m, int r)
{
	pt_thread *t = pt_enter_sync();
	if (!t)
		return;
	pt_rec_cond rec = {pt_ptr(c), pt_ptr(m), r, 0};
	pt_emit(t, PT_REC_COND_WAIT_END, 0, &rec, sizeof rec);
	pt_counters_at(t, PT_COUNTERS_AT_SYNC);
	pt_leave(t);
}

static void signal_rec(const void *c, unsigned broadcast)
{
	pt_thread *t = pt_enter_sync();
	if (!t)
		return;
	pt_rec_cond rec = {pt_ptr(c), 0, 0, 0};
	pt_emit(t, PT_REC_COND_SIGNAL, broadcast, &rec, sizeof rec);
	pt_leave(t);
}

PT_EXPORT int pthread_cond_wait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m)
{
	int (*real)(pthread_cond_t *, pthread_mutex_t *) = COND_REAL(pthread_cond_wait);
	wait_begin(c, m);
	int r = real(c, m);
	wait_end(c, m, r);
	return r;
}

PT_EXPORT int pthread_cond_timedwait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m,
                                     const struct timespec *restrict abstime)
{
	int (*real)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *) =
		COND_REAL(pthread_cond_timedwait);
	wait_begin(c, m);
	int r = real(c, m, abstime);
	wait_end(c, m, r);
	return r;
}

PT_EXPORT int pthread_cond_clockwait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m,
                                     clockid_t clock, const struct timespec *restrict abstime)
{
	int (*real)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *) =
		COND_REAL(pthread_cond_clockwait);
	wait_begin(c, m);
	int r = real(c, m, clock, abstime);
	wait_end(c, m, r);
	return r;
}

/* The signal is recorded before the real call so that, in time, it comes
 * before the WAIT_END it causes. */
PT_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	int (*real)(pthread_cond_t *) = COND_REAL(pthread_cond_signal);
	signal_rec(c, 0);
	return real(c);
}

PT_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	int (*real)(pthread_cond_t *) = COND_REAL(pthread_cond_broadcast);
	signal_rec(c, 1);
	return real(c);
}

PT_SUBSYSTEM(cond_part) = {
	.name = "cond",
	.order = PT_ORDER_INTERPOSE,
};
