/* SPDX-License-Identifier: MIT */
/* A module of hook ABI version 1, written by hand the way the pass of
 * that version compiled one (docs/ABI.md): a table, a descriptor with
 * abi_version 1, a constructor registering it, and at each function
 *   base = id_base; if (base) __paratrace_func_enter(base + i);
 *   ... if (base) __paratrace_func_exit(base + i);
 * for every call. Built without instrument.so and linked into
 * throttle_abi (test_throttle_abi.py), whose own functions are of the
 * current version: both kinds in one process. */
#include <paratrace/abi.h>

#pragma weak __paratrace_register_module
#pragma weak __paratrace_func_enter
#pragma weak __paratrace_func_exit

int v2_leaf(int x); /* in throttle_abi.cpp, ABI 2 */

static const pt_abi_func funcs[] = {
    {"v1_tiny", __FILE__, 30, 0},
    {"v1_outer", __FILE__, 40, 0},
};
static pt_abi_module module = {1, 2, 0, 0, funcs, __FILE__};

__attribute__((constructor(101))) static void module_ctor(void)
{
	if (&__paratrace_register_module)
		__paratrace_register_module(&module);
}

#define ENTER(i)                                                                                   \
	uint32_t base = __atomic_load_n(&module.id_base, __ATOMIC_RELAXED);                        \
	if (base)                                                                                  \
	__paratrace_func_enter(base + (i))
#define EXIT(i)                                                                                    \
	if (base)                                                                                  \
	__paratrace_func_exit(base + (i))

volatile long v1_tiny_calls, v1_outer_calls;

/* calls an ABI-2 function: both kinds nest in each other */
__attribute__((noinline)) int v1_tiny(int x)
{
	ENTER(0);
	v1_tiny_calls++;
	int r = v2_leaf(x) + 1;
	EXIT(0);
	return r;
}

/* open around the loop while v1_tiny is throttled */
__attribute__((noinline)) long v1_outer(long n)
{
	ENTER(1);
	v1_outer_calls++;
	long s = 0;
	for (long i = 0; i < n; i++)
		s += v1_tiny((int)i);
	EXIT(1);
	return s;
}
