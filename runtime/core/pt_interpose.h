/* SPDX-License-Identifier: MIT */
/* Shared by the interposition families (threads.c, mutex.c, cond.c, rwlock.c,
 * barrier.c, spin.c, sem.c, c11threads.c, fork.c, exec.c, exit.c,
 * signals.c, dl.c). Private to those files; the core's API is pt_runtime.h.
 *
 * Every wrapper follows the same shape:
 *   real = PT_REAL(fn);                 lazily resolved, cached
 *   t = pt_enter(); if (!t) return real(...);   untraced path: exact passthrough
 *   record the "before" event; pt_leave(t);
 *   r = real(...);                      a call that may block (or be cancelled)
 *                                       is never made inside the runtime's
 *                                       region, so it leaves no guard set and
 *                                       signal handlers that run meanwhile are
 *                                       traced normally
 *   t = pt_enter(); record the "after" event; pt_leave(t);
 *   return r;                           errno as the real call left it
 * A call that cannot block (a trylock, an unlock) is made inside the region
 * instead, between the clock read and its record (PT_LOCK_TRY, the unlock
 * wrappers): one pt_enter for the whole call, and the record stamped at the
 * moment the call was made.
 */
#ifndef PT_INTERPOSE_H
#define PT_INTERPOSE_H

#include "pt_runtime.h"

#include <errno.h>
#include <stdint.h>

/* Cached dlsym(RTLD_NEXT): a relaxed atomic pointer per function, filled on
 * first use, or eagerly from a constructor for the functions a signal
 * handler may reach first (dlsym is not async-signal-safe: exit.c,
 * fork.c, signals.c). */
static inline void *pt_real_cached(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_RELAXED);
	if (pt_unlikely(p == NULL)) {
		p = pt_real(name);
		__atomic_store_n(slot, p, __ATOMIC_RELAXED);
	}
	return p;
}
#define PT_REAL_DECL(fn) static void *pt_real_slot_##fn
/* The same, for a wrapper around a system call: the slot among the hot
 * data (PT_HOT_DATA), one page fewer to walk after the call. */
#define PT_REAL_DECL_HOT(fn) PT_HOT_DATA static void *pt_real_slot_##fn
#define PT_REAL(fn) ((__typeof__(&fn))pt_real_cached(&pt_real_slot_##fn, #fn))

/* pt_enter for the sync family's wrappers: NULL also inside a library
 * call recorded whole (pt_lib_call), whose own synchronisation is the
 * library's, not the program's. */
static inline pt_thread *pt_enter_sync(void)
{
	if (pt_unlikely(pt_lib_call))
		return NULL;
	return pt_enter();
}

static inline uint64_t pt_ptr(const volatile void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* Lock records shared by mutex, rwlock, spin, sem and C11 mtx wrappers.
 * An attempt that may wait is LOCK_REQUEST then exactly one of
 * LOCK_ACQUIRED (result 0, or EOWNERDEAD for a robust mutex that is now
 * held) or LOCK_FAILED (result = the error: EBUSY, ETIMEDOUT, EDEADLK...).
 * A call that returned without waiting (the try that precedes a mutex or
 * spin lock succeeded, a trylock) is its ACQUIRED or FAILED alone. */
PT_HIDDEN void pt_lock_request(unsigned type, const volatile void *obj);
PT_HIDDEN void pt_lock_result(unsigned type, const volatile void *obj, int acquired, int result);
PT_HIDDEN void pt_lock_released_at(pt_thread *t, uint64_t ticks, unsigned type, const volatile void *obj);

/* One lock record. The result is written only when it is not 0 (format
 * 1.1); a request, acquisition or release of the lock acquired last is a
 * 4-byte compact record (2.0, the request 3.0), so a loop taking one lock
 * uncontended writes 8 bytes of log per lock+unlock. */
static inline void pt_lock_emit_at(pt_thread *t, uint64_t ticks, unsigned kind, unsigned type,
				   const volatile void *obj, int result)
{
	pt_emit_lock_at(t, ticks, kind, type, pt_ptr(obj), result);
}

/* The outcome of an acquisition attempt stamped at ticks: ACQUIRED, or
 * FAILED with the error, then the counters read at synchronization. */
static inline void pt_lock_outcome_at(pt_thread *t, uint64_t ticks, unsigned type,
				      const volatile void *obj, int acquired, int result)
{
	pt_lock_emit_at(t, ticks, acquired ? PT_REC_LOCK_ACQUIRED : PT_REC_LOCK_FAILED, type, obj,
			result);
	pt_counters_at(t, PT_COUNTERS_AT_SYNC);
}

/* A lock call that may block, as a try first: the try succeeds exactly when
 * the lock would not block, so the uncontended case is one clock read and
 * one ACQUIRED record (the most common case by far, and the one whose
 * cost matters). Otherwise REQUEST, stamped before the try, then the real
 * lock outside the runtime's region, then its result. `acquired` says
 * which results hold the lock. The body of the mutex and spin lock wrappers. */
#define PT_LOCK_TRY_FIRST(type, obj, try_call, lock_call, acquired)                         \
	do {                                                                                 \
		pt_thread *t_ = pt_enter_sync();                                             \
		if (!t_)                                                                     \
			return lock_call;                                                    \
		uint64_t ticks_ = pt_now();                                                  \
		int r_ = try_call;                                                           \
		if (!acquired(r_)) {                                                         \
			pt_lock_emit_at(t_, ticks_, PT_REC_LOCK_REQUEST, type, obj, 0);     \
			pt_callstack_emit(t_);                                               \
			pt_leave(t_);                                                        \
			r_ = lock_call;                                                      \
			if (!(t_ = pt_enter_sync()))                                         \
				return r_;                                                   \
			ticks_ = pt_now();                                                   \
		}                                                                            \
		pt_lock_outcome_at(t_, ticks_, type, obj, acquired(r_), r_);                 \
		pt_leave(t_);                                                                \
		return r_;                                                                   \
	} while (0)

/* A trylock: never waits, so its result alone, stamped before the call
 * (which runs inside the runtime's region: it cannot block). The body of
 * the mutex and spin trylock wrappers. */
#define PT_LOCK_TRY(type, obj, real_fn, acquired)                                           \
	do {                                                                                 \
		pt_thread *t_ = pt_enter_sync();                                             \
		if (!t_)                                                                     \
			return real_fn(obj);                                                 \
		uint64_t ticks_ = pt_now();                                                  \
		int r_ = real_fn(obj);                                                       \
		pt_lock_outcome_at(t_, ticks_, type, obj, acquired(r_), r_);                 \
		pt_leave(t_);                                                                \
		return r_;                                                                   \
	} while (0)

/* ---- process end (exit.c, signals.c, fork.c) -------------------------- */
/* Set by the abort wrapper: the SIGABRT that follows ends the process with
 * how = PT_EXIT_ABORT rather than PT_EXIT_SIGNAL. */
extern PT_HIDDEN int pt_abort_called;
/* Is this the process whose logs the runtime holds? False in a child made
 * without fork (a raw clone), which must not close the parent's logs. */
PT_HIDDEN int pt_own_process(void);

/* ---- environment of exec'd / spawned images (child_env.c) -------------- */
/* envp plus the run variable, so that a program passing its own
 * environment still has its children write into the same run. Returns envp
 * itself when nothing needs adding. The array is built in `buf` (n slots)
 * when it fits, else in pages from mmap; pt_env_free releases those. No
 * malloc: exec may be called where only async-signal-safe calls are allowed. */
/* pt_exec_prepare(), which may setenv and so replace `environ`: a caller
 * that passed environ itself gets the new array (the old one may be freed). */
PT_HIDDEN char *const *pt_exec_prepare_env(char *const *envp);
PT_HIDDEN char *const *pt_env_with_run(char *const *envp, char **buf, size_t n);
PT_HIDDEN void pt_env_free(char *const *env, char *const *envp, char **buf);

/* ---- threads (threads.c; used by c11threads.c) ------------------------- */
/* Process-unique, > 0: links a THREAD_CREATE to the THREAD_START it causes. */
PT_HIDDEN uint64_t pt_thread_next_seq(void);
/* pthread_t (as an integer) -> create_seq of threads created through the
 * wrappers, for JOIN records. Best effort: 0 when unknown. Call inside the
 * runtime's region (never from a signal handler). */
PT_HIDDEN void pt_thread_seq_put(uint64_t thread, uint64_t seq);
PT_HIDDEN uint64_t pt_thread_seq_get(uint64_t thread, int remove);
/* In a new thread started by a wrapper: THREAD_START with the creator's
 * tid and seq, before any other record of the thread. */
PT_HIDDEN void pt_thread_started(uint64_t seq, uint32_t creator, uint64_t routine, uint32_t flags);
/* What the thread's THREAD_END carries (PT_THREAD_END_* flags). */
PT_HIDDEN void pt_thread_finished(uint64_t retval, uint32_t flags);
/* pthread_exit/thrd_exit were called: the unwinding that follows is an exit,
 * not a cancellation. */
PT_HIDDEN void pt_thread_exiting(uint64_t retval);
/* Frees a thread's start block (the runtime's malloc) inside the runtime's
 * region, so that the memory family does not count it as the program's. */
PT_HIDDEN void pt_thread_block_free(void *p);
/* JOIN_BEGIN / JOIN_END records; returns the seq used. */
PT_HIDDEN uint64_t pt_join_begin(uint64_t thread);
PT_HIDDEN void pt_join_end(uint64_t thread, uint64_t seq, int result, int joined);
PT_HIDDEN void pt_thread_create_rec(uint64_t ticks, uint64_t seq, uint64_t routine, int result,
				    uint32_t flags, uint64_t thread);

/* ---- descriptors (io/io_files.c; used by proc/fd_guard.c) ------------- */
/* A descriptor number (or a range of them) stops naming the file the I/O
 * records gave it: a dup2/dup3 onto it, a close_range. */
PT_HIDDEN void pt_io_fd_forget(int fd);
PT_HIDDEN void pt_io_fd_forget_range(unsigned first, unsigned last);

#endif /* PT_INTERPOSE_H */
