/* SPDX-License-Identifier: MIT */
/* Spin locks: the same records as mutexes, with arg PT_LOCK_SPIN. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <pthread.h>

PT_REAL_DECL(pthread_spin_lock);
PT_REAL_DECL(pthread_spin_trylock);
PT_REAL_DECL(pthread_spin_unlock);

static int spin_acquired(int r)
{
	return r == 0;
}

/* The trylock succeeds exactly when the lock would not spin. */
PT_EXPORT int pthread_spin_lock(pthread_spinlock_t *l)
{
	PT_LOCK_TRY_FIRST(PT_LOCK_SPIN, l, PT_REAL(pthread_spin_trylock)(l),
			  PT_REAL(pthread_spin_lock)(l), spin_acquired);
}

PT_EXPORT int pthread_spin_trylock(pthread_spinlock_t *l)
{
	PT_LOCK_TRY(PT_LOCK_SPIN, l, PT_REAL(pthread_spin_trylock), spin_acquired);
}

PT_EXPORT int pthread_spin_unlock(pthread_spinlock_t *l)
{
	int (*real)(pthread_spinlock_t *) = PT_REAL(pthread_spin_unlock);
	pt_thread *t = pt_enter_sync();
	if (!t)
		return real(l);
	uint64_t ticks = pt_now();
	int r = real(l);
	if (r == 0)
		pt_lock_released_at(t, ticks, PT_LOCK_SPIN, l);
	pt_leave(t);
	return r;
}

PT_SUBSYSTEM(spin_part) = {
	.name = "spin",
	.order = PT_ORDER_INTERPOSE,
};
