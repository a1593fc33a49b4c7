/* SPDX-License-Identifier: MIT */
/* The runtime's one lock: a spin lock that waits with the CPU's pause
 * instruction, then by giving the CPU away.
 *
 * Why not pthread mutexes: inside libtrace.so a call to pthread_mutex_lock
 * binds to the runtime's own exported wrapper (mutex.c), so every lock the
 * runtime took would be traced as the program's, and a wrapper could
 * re-enter the runtime from inside it. A spin lock also suits the places
 * the runtime takes its locks: a fork child may find one held by a thread
 * that does not exist there (pt_spin_reset), the fatal-signal path may only
 * try for a bounded time (pt_spin_trylock_for), and the prefault helper,
 * a raw clone thread, may call nothing of libc (every function here is
 * inline and, on x86-64, yields by a raw system call).
 *
 * Holders never block while holding one: they do a bounded amount of work
 * (at most a window switch of a log, about a millisecond). A waiter
 * pauses PT_SPIN_PAUSES times, then yields at every try, so that a holder
 * preempted on a machine with few CPUs gets to run. Not recursive; a
 * thread must not take a lock that a signal handler on the same thread
 * may take, unless it blocks signals meanwhile (signals.c does). */
#ifndef PT_SPIN_H
#define PT_SPIN_H

#include <sched.h>
#include <stdatomic.h>
#if defined(__x86_64__)
#include <sys/syscall.h>
#endif

typedef atomic_int pt_spin;
#define PT_SPIN_INIT 0
#define PT_SPIN_PAUSES 64

#define PT_SPIN_INLINE static inline __attribute__((always_inline))

/* A hint that this is a spin-wait loop (saves power, and on SMT cores
 * leaves the pipeline to the sibling thread, maybe the holder). */
PT_SPIN_INLINE void pt_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* sched_yield(2). On x86-64 without libc: errno and the thread's libc
 * state are not touched (the prefault helper has none of its own). */
PT_SPIN_INLINE void pt_cpu_yield(void)
{
#if defined(__x86_64__)
	long ret;
	__asm__ volatile("syscall"
	                 : "=a"(ret)
	                 : "a"((long)SYS_sched_yield)
	                 : "rcx", "r11", "memory");
	(void)ret;
#else
	sched_yield();
#endif
}

/* 1 when taken. Reads before it writes, so waiters spin on a shared
 * cache line instead of bouncing it between CPUs. */
PT_SPIN_INLINE int pt_spin_trylock(pt_spin *l)
{
	return !atomic_load_explicit(l, memory_order_relaxed) &&
	       !atomic_exchange_explicit(l, 1, memory_order_acquire);
}

PT_SPIN_INLINE void pt_spin_wait_once(unsigned n)
{
	if (n < PT_SPIN_PAUSES)
		pt_cpu_relax();
	else
		pt_cpu_yield();
}

PT_SPIN_INLINE void pt_spin_lock(pt_spin *l)
{
	for (unsigned n = 0; !pt_spin_trylock(l); n++)
		pt_spin_wait_once(n);
}

/* Bounded attempt, for the exit and fatal-signal paths (the holder may be
 * the code this thread's signal handler interrupted): up to `tries` waits
 * after the first try. 0 when taken, -1 when not. */
PT_SPIN_INLINE int pt_spin_trylock_for(pt_spin *l, unsigned tries)
{
	for (unsigned n = 0;; n++) {
		if (pt_spin_trylock(l))
			return 0;
		if (n >= tries)
			return -1;
		pt_spin_wait_once(n);
	}
}

PT_SPIN_INLINE void pt_spin_unlock(pt_spin *l)
{
	atomic_store_explicit(l, 0, memory_order_release);
}

/* Fork child: a holder at the time of fork may be a thread that does not
 * exist in the child. Only where the child runs alone. */
PT_SPIN_INLINE void pt_spin_reset(pt_spin *l)
{
	atomic_store_explicit(l, 0, memory_order_relaxed);
}

#endif /* PT_SPIN_H */
