/* SPDX-License-Identifier: MIT */
/* The increment of a throttled function's count (hooks.c), which a signal
 * handler on the same thread may also make: one instruction it cannot
 * come between. Its own header, of freestanding includes only, so that a
 * test can compile it for another target without that target's C library
 * (tests/runtime/check_count_add.sh). */
#ifndef PT_COUNT_H
#define PT_COUNT_H

#include <stdint.h>

/* One more, from a handler of this thread too. x86-64: one `incq` to
 * memory (no lock prefix: only this thread writes the count). Elsewhere a
 * relaxed atomic add: a load, add and store would lose every count a
 * handler made between the load and the store; the atomic add is one
 * instruction (AArch64 LSE `stadd`) or a load-exclusive/store-exclusive
 * loop that starts again when interrupted. */
static inline __attribute__((always_inline)) void pt_count_add1(uint64_t *p)
{
#if defined(__x86_64__)
	__asm__("incq %0" : "+m"(*p));
#else
	__atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
#endif
}

#endif /* PT_COUNT_H */
