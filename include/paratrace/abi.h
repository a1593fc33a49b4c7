/* SPDX-License-Identifier: MIT */
/* paratrace hook ABI: what code compiled with instrument.so (the Clang plugin)
 * calls in libtrace.so. Described in docs/ABI.md; the pass emits IR that
 * matches these declarations exactly, and the runtime implements them.
 *
 * Per instrumented module (a translation unit, or an LTO unit) the pass emits:
 *   - a table of pt_abi_func entries (one per instrumented function),
 *   - one pt_abi_module descriptor pointing at it (internal linkage),
 *   - a constructor (priority 101) that calls __paratrace_register_module(&desc)
 *     if that weak symbol is defined, and a destructor that calls
 *     __paratrace_unregister_module(&desc) likewise.
 * At entry of function number i of the table (ABI version 2):
 *     uint32_t base = atomic_load_relaxed(&desc.id_base);
 *     uint32_t tok = base ? __paratrace_func_enter2(base + i) : 0;
 * and before every return / on every unwinding path:
 *     if (tok) __paratrace_func_exit2(tok);
 * (`base` is loaded once at entry; it is 0 until the runtime has assigned
 * the module its ids, i.e. always 0 when libtrace.so is not loaded, so an
 * untraced run pays one load and two not-taken branches per call. The
 * entry hook returns 0 for a call it did not record (throttled), whose
 * exit hook is then not called: such a call costs one call.)
 * Version 3 adds, between the test of base and the call of enter2, the
 * count of a throttled call with no call at all, through a thread-local
 * pointer of the module that the runtime sets in each thread where it
 * throttles one of the module's functions (its initial value: an array
 * of nfuncs NULLs of the module's own, which the runtime puts back):
 *     uint64_t *c = __paratrace_thr[i];   (the module's own, hidden)
 *     if (c) { ++*c; tok = 0; } else tok = enter2(base + i);
 * and the descriptor's thread_counts returns &__paratrace_thr in the
 * calling thread (NULL field: the module has no such pointer; docs/ABI.md).
 * Version 2 had neither.
 * Version 1 (older modules; the runtime still accepts them) called
 *     if (base) __paratrace_func_enter(base + i);   and
 *     if (base) __paratrace_func_exit(base + i);
 * for every call.
 * The hook symbols are extern_weak in the module, so an instrumented binary
 * links with no extra flags.
 */
#ifndef PARATRACE_ABI_H
#define PARATRACE_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version the pass emits, and the oldest the runtime accepts. */
#define PT_ABI_VERSION 3
#define PT_ABI_VERSION_MIN 1

typedef struct pt_abi_func {
	const char *name; /* linkage (mangled) name; demangled offline */
	const char *file; /* source file as the compiler saw it, may be NULL */
	uint32_t line;    /* 0 = unknown */
	uint32_t flags;   /* reserved, 0 */
} pt_abi_func;

typedef struct pt_abi_module {
	uint32_t abi_version; /* PT_ABI_VERSION the pass was built for */
	uint32_t nfuncs;
	/* Written by the runtime (relaxed atomic store), read by every hook
	 * site: global id of funcs[0]; 0 = not registered / tracing off. */
	uint32_t id_base;
	uint32_t flags; /* reserved, 0 */
	const pt_abi_func *funcs;
	const char *module_name; /* source file of the TU or output name, may be NULL */
	/* Version 3 only (absent from older descriptors): the address of the
	 * module's thread-local counts pointer in the calling thread, or NULL
	 * when the module has none. The pointer is the module's; the runtime
	 * alone writes it, in its own thread: an array of nfuncs pointers,
	 * entry i NULL or function i's count on that thread (at first, and
	 * whenever the runtime resets it, the module's array of NULLs). */
	uint64_t **volatile *(*thread_counts)(void);
} pt_abi_module;

/* Implemented by libtrace.so. ids are < 2^24 (PT_FUNC_ID_MAX). */
void __paratrace_register_module(pt_abi_module *module);
void __paratrace_unregister_module(pt_abi_module *module);
/* Version 2: the entry hook returns id when it recorded the entry (the
 * exit hook must then be called with it, once, on every way out of the
 * call), 0 when it did not (the call is counted: no exit hook). After a
 * longjmp lands in a call whose entry returned id: landed2(id), which
 * records that the call goes on (FUNC_LANDED). */
uint32_t __paratrace_func_enter2(uint32_t id);
void __paratrace_func_exit2(uint32_t id);
void __paratrace_func_landed2(uint32_t id);
/* Version 1 (and the manual API, paratrace.h): both hooks for every call. */
void __paratrace_func_enter(uint32_t id);
void __paratrace_func_exit(uint32_t id);

#ifdef __cplusplus
}
#endif

#endif /* PARATRACE_ABI_H */
