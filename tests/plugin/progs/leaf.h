/* SPDX-License-Identifier: MIT */
/* Leaf functions of the outlined-code tests (tests/plugin/omp.py): each
 * construct calls its own, so that the test can check that its calls are
 * nested in the construct's body. Atomic: they run on several threads. */
#ifndef LEAF_H
#define LEAF_H

static int sink;
#define LEAF(name)                                                                                 \
	__attribute__((noinline)) void name(int i)                                                 \
	{                                                                                          \
		__atomic_fetch_add(&sink, i, __ATOMIC_RELAXED);                                    \
	}

#endif
