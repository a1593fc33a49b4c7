/* SPDX-License-Identifier: MIT */
/* C11 threads. glibc implements thrd_*, mtx_* and cnd_* on its internal
 * pthread functions, not through the exported pthread symbols, so the
 * pthread wrappers never see them: each is wrapped here with the same
 * records (THREAD_* with PT_THREAD_C11, LOCK_* with PT_LOCK_C11_MTX,
 * COND_*). Results are the C11 codes (thrd_success, thrd_busy,
 * thrd_timedout, thrd_error, thrd_nomem). */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <pthread.h>
#include <stdlib.h>
#include <threads.h>

typedef struct c11_start {
	thrd_start_t routine;
	void *arg;
	uint64_t seq;
	uint32_t creator;
} c11_start;

/* glibc implements thrd_exit with pthread_exit's unwinding, which runs the
 * trampoline's cleanup handler; these say it was thrd_exit and with what
 * result (a pthread_cancel aimed at a C11 thread is reported as a cancel). */
static __thread int c11_exiting __attribute__((tls_model("initial-exec")));
static __thread int c11_exit_res __attribute__((tls_model("initial-exec")));
static __thread int c11_wrapped __attribute__((tls_model("initial-exec")));

static void c11_unwound(void *unused)
{
	(void)unused;
	pt_thread_finished((uint64_t)(int64_t)c11_exit_res,
			   c11_exiting ? PT_THREAD_END_EXIT : PT_THREAD_END_CANCELED);
}

static int c11_trampoline(void *p)
{
	c11_start b = *(c11_start *)p;
	c11_wrapped = 1;
	pt_thread_started(b.seq, b.creator, pt_ptr((const void *)b.routine), PT_THREAD_C11);
	pt_thread_block_free(p);
	int ret;
	pthread_cleanup_push(c11_unwound, NULL);
	ret = b.routine(b.arg);
	pthread_cleanup_pop(0);
	pt_thread_finished((uint64_t)(int64_t)ret, 0);
	return ret;
}

PT_REAL_DECL(thrd_create);
PT_REAL_DECL(thrd_join);
PT_REAL_DECL(thrd_exit);
PT_REAL_DECL(mtx_lock);
PT_REAL_DECL(mtx_trylock);
PT_REAL_DECL(mtx_timedlock);
PT_REAL_DECL(mtx_unlock);
PT_REAL_DECL(cnd_wait);
PT_REAL_DECL(cnd_timedwait);
PT_REAL_DECL(cnd_signal);
PT_REAL_DECL(cnd_broadcast);

PT_EXPORT int thrd_create(thrd_t *th, thrd_start_t routine, void *arg)
{
	int (*real)(thrd_t *, thrd_start_t, void *) = PT_REAL(thrd_create);
	pt_thread *t = pt_enter();
	if (!t)
		return real(th, routine, arg);
	uint32_t creator = pt_thread_tid(t);
	c11_start *b = malloc(sizeof *b);
	pt_leave(t);
	if (!b)
		return real(th, routine, arg);
	uint64_t ticks = pt_now();
	*b = (c11_start){routine, arg, pt_thread_next_seq(), creator};
	uint64_t seq = b->seq;
	int r = real(th, c11_trampoline, b);
	if (r != thrd_success) {
		int e = errno;
		pt_thread_block_free(b);
		errno = e;
	}
	pt_thread_create_rec(ticks, seq, pt_ptr((const void *)routine), r, PT_THREAD_C11,
			     r == thrd_success ? (uint64_t)*th : 0);
	return r;
}

PT_EXPORT int thrd_join(thrd_t th, int *res)
{
	int (*real)(thrd_t, int *) = PT_REAL(thrd_join);
	uint64_t seq = pt_join_begin((uint64_t)th);
	int r = real(th, res);
	pt_join_end((uint64_t)th, seq, r, r == thrd_success);
	return r;
}

PT_EXPORT void thrd_exit(int res)
{
	void (*real)(int) __attribute__((noreturn)) = PT_REAL(thrd_exit);
	if (c11_wrapped) {
		c11_exiting = 1;
		c11_exit_res = res;
	} else {
		pt_thread_finished((uint64_t)(int64_t)res, PT_THREAD_END_EXIT);
	}
	real(res);
}

PT_EXPORT int mtx_lock(mtx_t *m)
{
	int (*real)(mtx_t *) = PT_REAL(mtx_lock);
	pt_lock_request(PT_LOCK_C11_MTX, m);
	int r = real(m);
	pt_lock_result(PT_LOCK_C11_MTX, m, r == thrd_success, r);
	return r;
}

PT_EXPORT int mtx_trylock(mtx_t *m)
{
	int (*real)(mtx_t *) = PT_REAL(mtx_trylock);
	pt_lock_request(PT_LOCK_C11_MTX, m);
	int r = real(m);
	pt_lock_result(PT_LOCK_C11_MTX, m, r == thrd_success, r);
	return r;
}

PT_EXPORT int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict ts)
{
	int (*real)(mtx_t *, const struct timespec *) = PT_REAL(mtx_timedlock);
	pt_lock_request(PT_LOCK_C11_MTX, m);
	int r = real(m, ts);
	pt_lock_result(PT_LOCK_C11_MTX, m, r == thrd_success, r);
	return r;
}

PT_EXPORT int mtx_unlock(mtx_t *m)
{
	int (*real)(mtx_t *) = PT_REAL(mtx_unlock);
	pt_thread *t = pt_enter_sync();
	if (!t)
		return real(m);
	uint64_t ticks = pt_now();
	int r = real(m);
	if (r == thrd_success)
		pt_lock_released_at(t, ticks, PT_LOCK_C11_MTX, m);
	pt_leave(t);
	return r;
}

static void c11_wait_rec(unsigned kind, const void *c, const void *m, int r)
{
	int e = errno;
	pt_thread *t = pt_enter_sync();
	if (t) {
		pt_rec_cond rec = {pt_ptr(c), pt_ptr(m), r, 0};
		pt_emit(t, kind, 0, &rec, sizeof rec);
		if (kind == PT_REC_COND_WAIT_BEGIN)
			pt_callstack_emit(t);
		pt_counters_at(t, PT_COUNTERS_AT_SYNC);
		pt_leave(t);
	}
	errno = e;
}

PT_EXPORT int cnd_wait(cnd_t *c, mtx_t *m)
{
	int (*real)(cnd_t *, mtx_t *) = PT_REAL(cnd_wait);
	c11_wait_rec(PT_REC_COND_WAIT_BEGIN, c, m, 0);
	int r = real(c, m);
	c11_wait_rec(PT_REC_COND_WAIT_END, c, m, r);
	return r;
}

PT_EXPORT int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m,
                            const struct timespec *restrict ts)
{
	int (*real)(cnd_t *, mtx_t *, const struct timespec *) = PT_REAL(cnd_timedwait);
	c11_wait_rec(PT_REC_COND_WAIT_BEGIN, c, m, 0);
	int r = real(c, m, ts);
	c11_wait_rec(PT_REC_COND_WAIT_END, c, m, r);
	return r;
}

static void c11_signal_rec(const void *c, unsigned broadcast)
{
	pt_thread *t = pt_enter_sync();
	if (!t)
		return;
	pt_rec_cond rec = {pt_ptr(c), 0, 0, 0};
	pt_emit(t, PT_REC_COND_SIGNAL, broadcast, &rec, sizeof rec);
	pt_leave(t);
}

PT_EXPORT int cnd_signal(cnd_t *c)
{
	int (*real)(cnd_t *) = PT_REAL(cnd_signal);
	c11_signal_rec(c, 0);
	return real(c);
}

PT_EXPORT int cnd_broadcast(cnd_t *c)
{
	int (*real)(cnd_t *) = PT_REAL(cnd_broadcast);
	c11_signal_rec(c, 1);
	return real(c);
}

PT_SUBSYSTEM(c11threads_part) = {
	.name = "c11threads",
	.order = PT_ORDER_INTERPOSE,
};
