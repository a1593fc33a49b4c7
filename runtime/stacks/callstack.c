/* SPDX-License-Identifier: MIT */
/* Call stacks through libunwind (local unwinding only).
 *
 * libunwind is loaded (dlopen) by the first part that asks for it at init:
 * call stacks (PARATRACE_CALLSTACK) or sampling. Linked, it and liblzma
 * cost every traced or untraced program two more libraries to map and
 * about 90 symbol lookups at start-up, for features that are off by
 * default. Loaded at init, before any thread is traced, so the signal
 * handler of sampling only calls through pointers already set.
 *
 * A CALLSTACK record holds the return addresses of the callers of the code
 * that called into the runtime (e.g. the program's pthread_mutex_lock call
 * site and its callers); the runtime's own frames are left out by address:
 * every leading frame inside libtrace.so's mapping is skipped. Addresses are
 * resolved to functions and lines offline, by the analyzer, from the module
 * maps in the process log. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define UNW_LOCAL_ONLY
#include "callstack.h"
#include "pt_fd.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <libunwind.h>
#include <link.h>

/* Address range of the module this code is linked into, when it is a
 * shared object (libtrace.so). When it is the executable itself (unit
 * tests link the runtime's files in) nothing is skipped by address. */
static uintptr_t pt_self_lo, pt_self_hi;
/* PARATRACE_CALLSTACK, read at init. */
static int pt_callstack_depth;

/* The functions of libunwind used here, by their linked names (with
 * UNW_LOCAL_ONLY, unw_step is a macro for _ULx86_64_step and so on). */
#define PT_UNW_NAME2(f) #f
#define PT_UNW_NAME(f) PT_UNW_NAME2(f)
/* libunwind's own thread-local state (unw_step's): a library loaded by
 * dlopen gets its TLS block in a thread at that thread's first use, which
 * glibc allocates with malloc. That first use must be neither in the
 * sampling signal's handler nor in a wrapper called from inside the
 * program's allocator: each thread gets its block when it starts
 * (callstack_thread_start), as it did when libunwind was linked. */
#if defined(__x86_64__)
#define PT_UNW_TLS 1
typedef struct {
	unsigned long module, offset;
} pt_tls_index;
extern void *__tls_get_addr(pt_tls_index *);
static size_t unw_tls_module; /* 0: no TLS, or not loaded */
#endif

static struct {
	int (*backtrace)(void **, int);
	int (*init_local2)(unw_cursor_t *, unw_context_t *, int);
	int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
	int (*step)(unw_cursor_t *);
} unw;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	uintptr_t me = (uintptr_t)data, lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (me < lo || me >= hi)
		return 0;
	if (info->dlpi_name && info->dlpi_name[0]) {
		pt_self_lo = lo;
		pt_self_hi = hi;
	}
	return 1;
}

/* Called at init only (parts' init run one at a time, before any thread is
 * traced), so no lock. 0, or -1 with a warning naming the feature. */
int pt_unwind_load(const char *feature)
{
	static int status = 1; /* not tried yet */
	if (status <= 0)
		goto out;
	status = -1;
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen("libunwind.so", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		unw.backtrace = (int (*)(void **, int))dlsym(h, "unw_backtrace");
		unw.init_local2 = (int (*)(unw_cursor_t *, unw_context_t *, int))dlsym(
			h, PT_UNW_NAME(unw_init_local2));
		unw.get_reg = (int (*)(unw_cursor_t *, unw_regnum_t, unw_word_t *))dlsym(
			h, PT_UNW_NAME(unw_get_reg));
		unw.step = (int (*)(unw_cursor_t *))dlsym(h, PT_UNW_NAME(unw_step));
		if (unw.backtrace && unw.init_local2 && unw.get_reg && unw.step)
			status = 0;
	}
	if (status == 0) { /* what capture and sampling skip as the runtime's */
		dl_iterate_phdr(find_self, (void *)(uintptr_t)&pt_unwind_load);
#ifdef PT_UNW_TLS
		size_t id = 0;
		if (dlinfo(h, RTLD_DI_TLS_MODID, &id) == 0)
			unw_tls_module = id;
#endif
	}
out:
	if (status != 0)
		pt_warn("%s off: libunwind.so.8 cannot be loaded", feature);
	return status;
}

static void callstack_emit(pt_thread *t);

static void callstack_init(void)
{
	const pt_config *cfg = pt_config_get();
	pt_callstack_depth = cfg ? cfg->callstack_depth : 0;
	if (pt_callstack_depth > 0 && pt_unwind_load("call stacks (PARATRACE_CALLSTACK)") != 0)
		pt_callstack_depth = 0;
	pt_callstack_emitter = pt_callstack_depth > 0 ? callstack_emit : NULL;
}

int pt_callstack_in_runtime(uint64_t pc)
{
	return pc >= pt_self_lo && pc < pt_self_hi;
}

/* `skip` frames are ours whatever the module: capture() itself and those
 * of its callers in this file (no inlining, so the count holds). */
static __attribute__((noinline)) int capture(uint64_t *pcs, int max, int skip)
{
	/* Room for the runtime's own frames (hook, wrapper, emit, capture). */
	void *buf[PT_CALLSTACK_MAX + 16];
	if (max > PT_CALLSTACK_MAX)
		max = PT_CALLSTACK_MAX;
	if (max <= 0 || !unw.backtrace)
		return 0;
	int n = unw.backtrace(buf, max + 16);
	int i = skip;
	while (i < n && pt_self_hi && pt_callstack_in_runtime((uint64_t)(uintptr_t)buf[i]))
		i++;
	int k = 0;
	for (; i < n && k < max; i++)
		pcs[k++] = (uint64_t)(uintptr_t)buf[i];
	return k;
}

__attribute__((noinline)) int pt_callstack_capture(uint64_t *pcs, int max)
{
	int n = capture(pcs, max, 2);
	__asm__ volatile("" ::: "memory"); /* keep this frame: no tail call */
	return n;
}

/* Async-signal-safe: libunwind's local unwinder takes no lock and does not
 * allocate from the program's heap. pcs holds max entries. */
int pt_callstack_capture_signal(void *ucontext, uint64_t *pcs, int max)
{
	unw_cursor_t cur;
	if (max <= 0 || !unw.init_local2 ||
	    unw.init_local2(&cur, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME) < 0)
		return 0;
	int k = 0;
	do {
		unw_word_t ip;
		if (unw.get_reg(&cur, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		pcs[k++] = ip;
	} while (k < max && unw.step(&cur) > 0);
	return k;
}

/* Reached through pt_callstack_emit (inline, so it adds no frame of its
 * own): skips capture() and this function. */
static __attribute__((noinline)) void callstack_emit(pt_thread *t)
{
	int saved = errno;
	uint64_t pcs[PT_CALLSTACK_MAX];
	int cancel = pt_nocancel_begin(); /* libunwind may read or write a pipe */
	int n = capture(pcs, pt_callstack_depth, 2);
	pt_nocancel_end(cancel);
	if (n > 0)
		pt_emit(t, PT_REC_CALLSTACK, (unsigned)n, pcs, (size_t)n * sizeof pcs[0]);
	errno = saved;
}

/* Before sampling's (PT_ORDER_SAMPLING), which starts the thread's timer. */
static void callstack_thread_start(pt_thread *t)
{
	(void)t;
#ifdef PT_UNW_TLS
	if (unw_tls_module) {
		pt_tls_index ti = {unw_tls_module, 0};
		(void)__tls_get_addr(&ti);
	}
#endif
}

PT_SUBSYSTEM(callstack_part) = {
	.name = "callstack",
	.order = PT_ORDER_CALLSTACK,
	.init = callstack_init,
	.thread_start = callstack_thread_start,
};
