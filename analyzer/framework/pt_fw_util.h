/* SPDX-License-Identifier: MIT */
/* Small helpers shared by the framework and the tools. */
#ifndef PT_FW_UTIL_H
#define PT_FW_UTIL_H

#include <stdint.h>
#include <stdlib.h>

/* qsort that accepts an empty (NULL) array, which qsort itself may not get. */
static inline void pt_qsort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(v, n, size, cmp);
}

/* A 64-bit finalizer (MurmurHash3's fmix64): hash-table slots for
 * addresses and ids, and the Paraver writer's lock ids (which must not
 * change from one version to the next: users' configurations name them). */
static inline uint64_t pt_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb3fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

#endif
