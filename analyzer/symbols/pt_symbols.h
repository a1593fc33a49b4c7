/* SPDX-License-Identifier: MIT */
/* ptsym: function names for paratrace events (internal to the analyzer).
 *
 *   pt_symtab *st = pt_symtab_new();
 *   ... for every record of a process log: pt_symtab_add(st, &ev);
 *   pt_sym s;
 *   if (pt_symtab_func(st, ev.func_id, &s) == 0) ...   // FUNC_ENTER / FUNC_EXIT
 *   if (pt_symtab_pc(st, pc, &s) == 0) ...             // FUNC_ENTER_PC, start routines
 *
 * Names are demangled. Addresses are resolved with elfutils (libdwfl) from
 * the files named by MODULE_MAP records, at their recorded load bias.
 * Lookups are thread-safe (one lock; results are cached); pt_symtab_add is
 * meant to run before lookups start but is safe concurrently as well.
 * Returned strings live as long as the symtab.
 */
#ifndef PT_SYMBOLS_H
#define PT_SYMBOLS_H

#include <paratrace/log.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pt_symtab pt_symtab;

typedef struct pt_sym {
	const char *name;   /* demangled; never NULL on success */
	const char *file;   /* source file, NULL if unknown */
	unsigned line;      /* 0 if unknown */
	const char *module; /* path of the module, NULL if unknown */
} pt_sym;

pt_symtab *pt_symtab_new(void);
/* Feeds one record of a process log; MODULE_MAP, MODULE_UNMAP, FUNC_DEF,
 * GPU_FUNC_DEF and GPU_KERNEL_DEF are used, every other kind is ignored. */
void pt_symtab_add(pt_symtab *st, const pt_event *ev);
/* 0 and *out filled, or -1 if the id was never defined. */
int pt_symtab_func(pt_symtab *st, uint32_t id, pt_sym *out);
/* GPU API functions (GPU_FUNC_DEF) and kernels (GPU_KERNEL_DEF, demangled)
 * of this process: only name is set. 0, or -1 if never defined. */
int pt_symtab_gpu_func(pt_symtab *st, uint32_t func, pt_sym *out);
int pt_symtab_gpu_kernel(pt_symtab *st, uint32_t kernel, pt_sym *out);
/* 0 and *out filled, or -1 if no module covers pc or it has no symbol there. */
int pt_symtab_pc(pt_symtab *st, uint64_t pc, pt_sym *out);
/* The data object at `addr` (a global lock, say): its symbol's name
 * (demangled), and in *off how far into it addr is. NULL when no module of
 * the process covers addr or no data symbol of it does (the heap, the
 * stack, a stripped module). Not cached: callers cache. */
const char *pt_symtab_data(pt_symtab *st, uint64_t addr, uint64_t *off);
/* File and line of the statement at pc itself (a call site, a sample), not
 * of the function's declaration. 0, or -1 if the debug info does not say.
 * *file lives as long as the symtab. Not cached: callers cache. */
int pt_symtab_pc_line(pt_symtab *st, uint64_t pc, const char **file, unsigned *line);
/* Warnings gathered since the last call (module files missing or different
 * from the ones that ran: each said once), newline-separated; malloc'ed,
 * the caller frees it. NULL when there is nothing new. */
char *pt_symtab_take_warnings(pt_symtab *st);
void pt_symtab_free(pt_symtab *st);

/* Demangled copy of a C++ symbol name (malloc'ed), or NULL if `name` is
 * not a mangled name. */
char *pt_demangle(const char *name);

#ifdef __cplusplus
}
#endif

#endif
