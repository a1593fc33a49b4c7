/* SPDX-License-Identifier: MIT */
/* Barriers: BARRIER_BEGIN when a thread arrives, BARRIER_END when it leaves
 * (result = the return value: 0, or PTHREAD_BARRIER_SERIAL_THREAD for the
 * one thread glibc elects). */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <pthread.h>

PT_REAL_DECL(pthread_barrier_wait);

PT_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	int (*real)(pthread_barrier_t *) = PT_REAL(pthread_barrier_wait);
	pt_thread *t = pt_enter_sync();
	if (!t)
		return real(b);
	pt_lock_emit_at(t, pt_now(), PT_REC_BARRIER_BEGIN, PT_LOCK_BARRIER, b, 0);
	pt_counters_at(t, PT_COUNTERS_AT_SYNC);
	pt_leave(t);
	int r = real(b);
	t = pt_enter_sync();
	if (t) {
		pt_lock_emit_at(t, pt_now(), PT_REC_BARRIER_END, PT_LOCK_BARRIER, b, r);
		pt_counters_at(t, PT_COUNTERS_AT_SYNC);
		pt_leave(t);
	}
	return r;
}

PT_SUBSYSTEM(barrier_part) = {
	.name = "barrier",
	.order = PT_ORDER_INTERPOSE,
};
