/* SPDX-License-Identifier: MIT */
/* Futex waits made through libc's syscall(): C++20's std::atomic::wait and
 * notify, std::latch, std::barrier and std::counting_semaphore in
 * libstdc++ (GCC 12: syscall(SYS_futex, ...)), and any program or library
 * that calls syscall(SYS_futex, ...) itself. They are recorded as
 * condition waits on the futex word (format.h: COND_* with PT_COND_FUTEX),
 * so the profile, Paraver and the timelines account for them as for
 * pthread condition variables:
 *   FUTEX_WAIT, FUTEX_WAIT_BITSET   COND_WAIT_BEGIN / COND_WAIT_END (result:
 *                                   0, or EAGAIN, ETIMEDOUT, EINTR)
 *   FUTEX_WAKE, FUTEX_WAKE_BITSET   COND_SIGNAL (broadcast when it may wake
 *                                   more than one; result: threads woken)
 * Every other system call, and every other futex operation, goes to libc's
 * syscall() with its six arguments unchanged; return value and errno are
 * libc's. The runtime makes its own system calls without syscall()
 * (core/pt_sys.h): one made here would bind to this wrapper.
 * glibc's own futexes (mutexes, conditions, semaphores) are inline system
 * calls, never seen here: those calls have their own wrappers. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <linux/futex.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef long (*syscall_fn)(long, ...);
static void *real_slot;

static syscall_fn real_syscall(void)
{
	return (syscall_fn)pt_real_cached(&real_slot, "syscall");
}

/* Resolved before anything may need it from a signal handler (the
 * writer's signal masks go through syscall()). */
__attribute__((constructor(101))) static void futex_resolve(void)
{
	real_syscall();
}

static long futex_wait(syscall_fn real, long uaddr, long op, long a3, long a4, long a5, long a6)
{
	pt_thread *t = pt_enter_sync();
	if (!t)
		return real(SYS_futex, uaddr, op, a3, a4, a5, a6);
	pt_rec_cond rec = {(uint64_t)uaddr, 0, 0, 0};
	pt_emit(t, PT_REC_COND_WAIT_BEGIN, PT_COND_FUTEX, &rec, sizeof rec);
	pt_callstack_emit(t);
	pt_counters_at(t, PT_COUNTERS_AT_SYNC);
	pt_leave(t);
	long r = real(SYS_futex, uaddr, op, a3, a4, a5, a6);
	int e = errno;
	t = pt_enter_sync();
	if (t) {
		rec.result = r == -1 ? e : 0;
		pt_emit(t, PT_REC_COND_WAIT_END, PT_COND_FUTEX, &rec, sizeof rec);
		pt_counters_at(t, PT_COUNTERS_AT_SYNC);
		pt_leave(t);
	}
	errno = e;
	return r;
}

/* A wake never blocks: made inside the runtime's region, recorded at the
 * time it was made (before the waits it ends) with how many it woke. */
static long futex_wake(syscall_fn real, long uaddr, long op, long nwake, long a4, long a5, long a6)
{
	pt_thread *t = pt_enter_sync();
	if (!t)
		return real(SYS_futex, uaddr, op, nwake, a4, a5, a6);
	uint64_t ticks = pt_now();
	long r = real(SYS_futex, uaddr, op, nwake, a4, a5, a6);
	int e = errno;
	pt_rec_cond rec = {(uint64_t)uaddr, 0, r > 0 ? (int32_t)(r > INT32_MAX ? INT32_MAX : r) : 0,
	                   0};
	pt_emit_at(t, ticks, PT_REC_COND_SIGNAL,
	           PT_COND_FUTEX | (nwake > 1 ? PT_COND_BROADCAST : 0), &rec, sizeof rec);
	pt_leave(t);
	errno = e;
	return r;
}

PT_EXPORT long syscall(long number, ...)
{
	va_list ap;
	va_start(ap, number);
	long a1 = va_arg(ap, long), a2 = va_arg(ap, long), a3 = va_arg(ap, long);
	long a4 = va_arg(ap, long), a5 = va_arg(ap, long), a6 = va_arg(ap, long);
	va_end(ap);
	syscall_fn real = real_syscall();
	if (pt_likely(number != SYS_futex))
		return real(number, a1, a2, a3, a4, a5, a6);
	switch (a2 & FUTEX_CMD_MASK) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
		return futex_wait(real, a1, a2, a3, a4, a5, a6);
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
		return futex_wake(real, a1, a2, a3, a4, a5, a6);
	default:
		return real(number, a1, a2, a3, a4, a5, a6);
	}
}

PT_SUBSYSTEM(futex_part) = {
    .name = "futex",
    .order = PT_ORDER_INTERPOSE,
};
