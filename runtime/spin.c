/* Spin locks: same records as mutexes with arg PT_LOCK_SPIN. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <pthread.h>

PT_REAL_DECL(pthread_spin_lock);
PT_REAL_DECL(pthread_spin_trylock);
PT_REAL_DECL(pthread_spin_unlock);

PT_INTERPOSE int pthread_spin_lock(pthread_spinlock_t *l)
{
	int (*real)(pthread_spinlock_t *) = PT_REAL(pthread_spin_lock);
	pt_lock_request(PT_LOCK_SPIN, l);
	int r = real(l);
	pt_lock_result(PT_LOCK_SPIN, l, r == 0, r);
	return r;
}

PT_INTERPOSE int pthread_spin_trylock(pthread_spinlock_t *l)
{
	int (*real)(pthread_spinlock_t *) = PT_REAL(pthread_spin_trylock);
	pt_lock_request(PT_LOCK_SPIN, l);
	int r = real(l);
	pt_lock_result(PT_LOCK_SPIN, l, r == 0, r);
	return r;
}

PT_INTERPOSE int pthread_spin_unlock(pthread_spinlock_t *l)
{
	int (*real)(pthread_spinlock_t *) = PT_REAL(pthread_spin_unlock);
	pt_thread *t = pt_enter();
	if (!t)
		return real(l);
	uint64_t ticks = pt_now();
	int r = real(l);
	if (r == 0)
		pt_lock_released_at(t, ticks, PT_LOCK_SPIN, l);
	pt_leave(t);
	return r;
}
