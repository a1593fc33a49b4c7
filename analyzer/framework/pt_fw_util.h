/* SPDX-License-Identifier: MIT */
/* Small helpers shared by the framework and the tools. */
#ifndef PT_FW_UTIL_H
#define PT_FW_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* qsort that accepts an empty (NULL) array, which qsort itself may not get. */
static inline void pt_qsort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(v, n, size, cmp);
}

/* A table indexed by id (n elements of `size` bytes at v, zero where
 * nothing was set) grown to hold index i: its count doubles from n (from
 * `first` when n is 0) until past i, and the new elements are zero. The
 * new table and its count in *ncap, or NULL when out of memory (v kept). */
static inline void *pt_grow_zeroed(void *v, size_t n, size_t i, size_t size, size_t first,
                                   size_t *ncap)
{
	size_t c = n ? n : first;
	while (c <= i)
		c *= 2;
	char *w = realloc(v, c * size);
	if (!w)
		return NULL;
	memset(w + n * size, 0, (c - n) * size);
	*ncap = c;
	return w;
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
