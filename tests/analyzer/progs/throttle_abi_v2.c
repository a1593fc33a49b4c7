/* SPDX-License-Identifier: MIT */
/* A module of hook ABI version 2, written by hand the way the pass of
 * that version compiled one (docs/ABI.md): no thread-local counts
 * pointer, every traced call calls
 *   tok = base ? __paratrace_func_enter2(base + i) : 0;
 *   ... if (tok) __paratrace_func_exit2(tok);
 * Built without instrument.so and linked into throttle_tls
 * (test_throttle_tls.py) beside modules of versions 1 and 3. */
#include <paratrace/abi.h>

#pragma weak __paratrace_register_module
#pragma weak __paratrace_func_enter2
#pragma weak __paratrace_func_exit2

static const pt_abi_func funcs[] = {
    {"v2_leaf", __FILE__, 30, 0},
};
/* Version 2's descriptor: it ends before thread_counts. */
static struct {
	uint32_t abi_version, nfuncs, id_base, flags;
	const pt_abi_func *funcs;
	const char *module_name;
} module = {2, 1, 0, 0, funcs, __FILE__};

__attribute__((constructor(101))) static void module_ctor(void)
{
	if (&__paratrace_register_module)
		__paratrace_register_module((pt_abi_module *)(void *)&module);
}

volatile long v2_leaf_calls;

/* called by v1_tiny (throttle_abi_v1.c): versions 1 and 2 nest */
__attribute__((noinline)) int v2_leaf(int x)
{
	uint32_t base = __atomic_load_n(&module.id_base, __ATOMIC_RELAXED);
	uint32_t tok = base ? __paratrace_func_enter2(base) : 0;
	v2_leaf_calls++;
	int r = x * 3;
	if (tok)
		__paratrace_func_exit2(tok);
	return r;
}
