/* SPDX-License-Identifier: MIT */
/* pthread threads: who created whom (THREAD_CREATE in the creator's log with
 * a process-unique create_seq, THREAD_START in the new thread's log with the
 * creator's tid, the same seq and the start routine), how each thread ended
 * (return, pthread_exit or cancellation: THREAD_END), and joins with their
 * wait (JOIN_BEGIN/JOIN_END).
 *
 * The start routine is wrapped by a trampoline that receives a small
 * malloc'ed block (routine, arg, seq, creator): freed by the new thread as
 * soon as it has read it, or by the creator if pthread_create fails, so
 * 100,000 short-lived threads leave nothing behind. Threads that libraries
 * create (OpenMP pools, glibc helpers) go through the same symbol and are
 * traced alike. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

/* What the trampoline knows about the running thread; initial-exec so that
 * reaching it never allocates. */
typedef struct thread_self {
	uint64_t seq;
	uint64_t exit_retval;
	int wrapped; /* started by the trampoline: THREAD_END written there */
	int exiting; /* pthread_exit/thrd_exit called: unwinding is not a cancel */
} thread_self;
static __thread thread_self self __attribute__((tls_model("initial-exec")));

static uint64_t seq_counter;

uint64_t pt_thread_next_seq(void)
{
	return __atomic_add_fetch(&seq_counter, 1, __ATOMIC_RELAXED);
}

/* pthread_t -> create_seq. Open addressing over a fixed table, at most
 * PROBES slots per key; when all are taken the home slot is overwritten (the
 * evicted thread's joins then carry seq 0, "unknown"). Detached threads are
 * never removed, but a pthread_t is reused by a later thread, whose insert
 * replaces the stale entry, and eviction bounds the rest: the table never
 * grows. A spin lock is enough: it is held for a few loads and stores, only
 * around pthread_create/join, never in a signal handler. */
#define SEQ_SLOTS 16384
#define SEQ_PROBES 16
#define SEQ_TOMB UINT64_MAX
typedef struct seq_slot {
	uint64_t thread;
	uint64_t seq;
} seq_slot;
static seq_slot seq_table[SEQ_SLOTS];
static pt_spin seq_lock;

static size_t seq_home(uint64_t thread)
{
	/* pthread_t is the address of the thread's descriptor: drop the low,
	 * always-equal bits and mix. */
	uint64_t h = thread * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 50) & (SEQ_SLOTS - 1);
}

static void seq_lock_take(void)
{
	pt_spin_lock(&seq_lock);
}

static void seq_lock_drop(void)
{
	pt_spin_unlock(&seq_lock);
}

/* The table's lock may have been held by a thread that is not in the child. */
static void threads_fork_child(void)
{
	pt_spin_reset(&seq_lock);
}

PT_SUBSYSTEM(threads_part) = {
	.name = "threads",
	.order = PT_ORDER_INTERPOSE,
	.fork_child = threads_fork_child,
};

void pt_thread_seq_put(uint64_t thread, uint64_t seq)
{
	if (thread == 0 || thread == SEQ_TOMB)
		return;
	size_t home = seq_home(thread), free_slot = SIZE_MAX;
	seq_lock_take();
	for (size_t i = 0; i < SEQ_PROBES; i++) {
		seq_slot *s = &seq_table[(home + i) & (SEQ_SLOTS - 1)];
		if (s->thread == thread) {
			free_slot = (home + i) & (SEQ_SLOTS - 1);
			break;
		}
		if (free_slot == SIZE_MAX && (s->thread == 0 || s->thread == SEQ_TOMB))
			free_slot = (home + i) & (SEQ_SLOTS - 1);
	}
	if (free_slot == SIZE_MAX)
		free_slot = home;
	seq_table[free_slot].thread = thread;
	seq_table[free_slot].seq = seq;
	seq_lock_drop();
}

uint64_t pt_thread_seq_get(uint64_t thread, int remove)
{
	uint64_t seq = 0;
	if (thread == 0 || thread == SEQ_TOMB)
		return 0;
	size_t home = seq_home(thread);
	seq_lock_take();
	for (size_t i = 0; i < SEQ_PROBES; i++) {
		seq_slot *s = &seq_table[(home + i) & (SEQ_SLOTS - 1)];
		if (s->thread == thread) {
			seq = s->seq;
			if (remove) {
				s->thread = SEQ_TOMB;
				s->seq = 0;
			}
			break;
		}
		if (s->thread == 0)
			break;
	}
	seq_lock_drop();
	return seq;
}

void pt_thread_create_rec(uint64_t ticks, uint64_t seq, uint64_t routine, int result,
			  uint32_t flags, uint64_t thread)
{
	int e = errno;
	pt_thread *t = pt_enter();
	if (t) {
		pt_rec_thread_create rec = {seq, routine, result, flags};
		/* Stamped before the real create: it precedes the child's
		 * THREAD_START in time, as the cause comes before the effect. */
		pt_emit_at(t, ticks, PT_REC_THREAD_CREATE, 0, &rec, sizeof rec);
		pt_callstack_emit(t);
		pt_counters_at(t, PT_COUNTERS_AT_THREADS);
		if (result == 0)
			pt_thread_seq_put(thread, seq);
		pt_leave(t);
	}
	errno = e;
}

uint64_t pt_join_begin(uint64_t thread)
{
	pt_thread *t = pt_enter();
	if (!t)
		return 0;
	uint64_t seq = pt_thread_seq_get(thread, 0);
	pt_rec_thread_join rec = {thread, seq, 0, 0};
	pt_emit(t, PT_REC_THREAD_JOIN_BEGIN, 0, &rec, sizeof rec);
	pt_counters_at(t, PT_COUNTERS_AT_THREADS);
	pt_leave(t);
	return seq;
}

void pt_join_end(uint64_t thread, uint64_t seq, int result, int joined)
{
	int e = errno;
	pt_thread *t = pt_enter();
	if (t) {
		/* A joined thread's pthread_t may be reused from now on. */
		uint64_t s = pt_thread_seq_get(thread, joined);
		pt_rec_thread_join rec = {thread, seq ? seq : s, result, 0};
		pt_emit(t, PT_REC_THREAD_JOIN_END, 0, &rec, sizeof rec);
		pt_counters_at(t, PT_COUNTERS_AT_THREADS);
		pt_leave(t);
	}
	errno = e;
}

void pt_thread_started(uint64_t seq, uint32_t creator, uint64_t routine, uint32_t flags)
{
	pt_rec_thread_start st = {seq, creator, flags, routine};
	pt_thread_start(&st);
}

void pt_thread_block_free(void *p)
{
	pt_thread *t = pt_enter();
	free(p);
	if (t)
		pt_leave(t);
}

void pt_thread_finished(uint64_t retval, uint32_t flags)
{
	pt_thread_note_end(retval, flags);
}

void pt_thread_exiting(uint64_t retval)
{
	self.exiting = 1;
	self.exit_retval = retval;
}

typedef struct start_block {
	void *(*routine)(void *);
	void *arg;
	uint64_t seq;
	uint32_t creator;
} start_block;

/* Cleanup handler of the trampoline: runs when the thread unwinds through
 * it, i.e. on pthread_exit (self.exiting set by the wrapper) or on
 * cancellation. */
static void trampoline_unwound(void *unused)
{
	(void)unused;
	if (self.exiting)
		pt_thread_finished(self.exit_retval, PT_THREAD_END_EXIT);
	else
		pt_thread_finished((uint64_t)(uintptr_t)PTHREAD_CANCELED, PT_THREAD_END_CANCELED);
}

static void *trampoline(void *p)
{
	start_block b = *(start_block *)p;
	self.seq = b.seq;
	self.wrapped = 1;
	pt_thread_started(b.seq, b.creator, pt_ptr((const void *)b.routine), 0);
	pt_thread_block_free(p);
	void *ret;
	pthread_cleanup_push(trampoline_unwound, NULL);
	ret = b.routine(b.arg);
	pthread_cleanup_pop(0);
	pt_thread_finished((uint64_t)(uintptr_t)ret, 0);
	return ret;
}

PT_REAL_DECL(pthread_create);
PT_REAL_DECL(pthread_join);
PT_REAL_DECL(pthread_tryjoin_np);
PT_REAL_DECL(pthread_timedjoin_np);
PT_REAL_DECL(pthread_clockjoin_np);
PT_REAL_DECL(pthread_exit);

PT_EXPORT int pthread_create(pthread_t *restrict th, const pthread_attr_t *restrict attr,
                             void *(*routine)(void *), void *restrict arg)
{
	int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
		PT_REAL(pthread_create);
	pt_thread *t = pt_enter();
	if (!t)
		return real(th, attr, routine, arg);
	uint32_t creator = pt_thread_tid(t);
	/* malloc inside the runtime's region: an instrumented allocator does
	 * not trace the runtime's own allocation. */
	start_block *b = malloc(sizeof *b);
	pt_leave(t);
	if (!b)
		return real(th, attr, routine, arg);
	uint64_t ticks = pt_now();
	*b = (start_block){routine, arg, pt_thread_next_seq(), creator};
	uint64_t seq = b->seq;
	int r = real(th, attr, trampoline, b);
	if (r != 0) {
		int e = errno;
		pt_thread_block_free(b);
		errno = e;
	}
	pt_thread_create_rec(ticks, seq, pt_ptr((const void *)routine), r, 0,
			     r == 0 ? (uint64_t)*th : 0);
	return r;
}

PT_EXPORT int pthread_join(pthread_t th, void **ret)
{
	int (*real)(pthread_t, void **) = PT_REAL(pthread_join);
	uint64_t seq = pt_join_begin((uint64_t)th);
	int r = real(th, ret); /* cancellation point: nothing held across it */
	pt_join_end((uint64_t)th, seq, r, r == 0);
	return r;
}

PT_EXPORT int pthread_tryjoin_np(pthread_t th, void **ret)
{
	int (*real)(pthread_t, void **) = PT_REAL(pthread_tryjoin_np);
	uint64_t seq = pt_join_begin((uint64_t)th);
	int r = real(th, ret);
	pt_join_end((uint64_t)th, seq, r, r == 0);
	return r;
}

PT_EXPORT int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *abstime)
{
	int (*real)(pthread_t, void **, const struct timespec *) = PT_REAL(pthread_timedjoin_np);
	uint64_t seq = pt_join_begin((uint64_t)th);
	int r = real(th, ret, abstime);
	pt_join_end((uint64_t)th, seq, r, r == 0);
	return r;
}

PT_EXPORT int pthread_clockjoin_np(pthread_t th, void **ret, clockid_t clock,
                                   const struct timespec *abstime)
{
	int (*real)(pthread_t, void **, clockid_t, const struct timespec *) =
		PT_REAL(pthread_clockjoin_np);
	uint64_t seq = pt_join_begin((uint64_t)th);
	int r = real(th, ret, clock, abstime);
	pt_join_end((uint64_t)th, seq, r, r == 0);
	return r;
}

PT_EXPORT void pthread_exit(void *retval)
{
	void (*real)(void *) __attribute__((noreturn)) = PT_REAL(pthread_exit);
	if (self.wrapped)
		pt_thread_exiting((uint64_t)(uintptr_t)retval); /* trampoline writes the end */
	else
		pt_thread_finished((uint64_t)(uintptr_t)retval, PT_THREAD_END_EXIT);
	real(retval);
}
