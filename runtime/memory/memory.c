/* SPDX-License-Identifier: MIT */
/* The dynamic memory family (PARATRACE_MEMORY=1): malloc, free, calloc,
 * realloc, posix_memalign, aligned_alloc, memalign, valloc, one record
 * each (MEM_ALLOC, MEM_FREE) when the call returns, with the block, the
 * bytes asked and the caller's return address. C++'s operator new and
 * delete reach them through libstdc++ (their caller is then operator new).
 *
 * Why it is safe where allocators are touchy:
 * - Off (the default) or before the part's init, a wrapper is the real
 *   call and nothing else.
 * - The dlsym -> calloc bootstrap (pt_real on this thread, resolving any
 *   function): served from the core's bump allocator, whose blocks free
 *   and realloc recognise (pt_bump_owns).
 * - One clock read and one record per call, its compact form (format/io.h)
 *   when it fits, written inline by the writer's fast path (pt_fast_words:
 *   no pt_enter, no lock, no call). The free of the block the thread
 *   allocated last (malloc then free, the commonest pair) is 4 bytes.
 *   While a wrapper runs, a per-thread
 *   flag (mem_busy) makes the memory calls the real allocator or a signal
 *   handler makes meanwhile go straight through (no recursion). The
 *   runtime's own allocations are made inside its region, where the fast
 *   path is closed and pt_enter refuses: they are never counted as the
 *   program's. No lock of the runtime's is taken, so fork (which glibc
 *   protects around its own malloc locks) and signal handlers find
 *   nothing held.
 * - A program with its own allocator: one in the executable comes before
 *   libtrace.so and is never wrapped; one in a shared library is the
 *   "real" function (dlsym(RTLD_NEXT)), and is traced. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

PT_HOT_DATA static int mem_on = 0;
/* Inside a wrapper on this thread (above). */
static __thread int mem_busy __attribute__((tls_model("initial-exec")));

PT_REAL_DECL_HOT(malloc);
PT_REAL_DECL_HOT(free);
PT_REAL_DECL_HOT(calloc);
PT_REAL_DECL_HOT(realloc);
PT_REAL_DECL_HOT(posix_memalign);
PT_REAL_DECL_HOT(aligned_alloc);
PT_REAL_DECL_HOT(memalign);
PT_REAL_DECL_HOT(valloc);

static inline int mem_bootstrap(void)
{
	return pt_unlikely(pt_real_in_progress());
}

/* An allocation's record: MEM_ALLOC_C (20 bytes) when the addresses and
 * the size fit, else the full MEM_ALLOC (32). The compact one is written
 * inline (pt_fast_words: no call), and its block becomes the log's last_obj,
 * which a free of it refers to (MEM_FREE_S). Any other way, through
 * pt_emit_compact's slow path with no compact form, which clears
 * last_obj. errno is left as the call left it. */
static __attribute__((noinline, cold)) void mem_alloc_slow(uint64_t now, unsigned op, uint64_t ptr,
                                                           uint64_t size, uint64_t caller)
{
	pt_rec_mem_alloc r = {.ptr = ptr, .size = size, .caller = caller};
	pt_emit_compact(now, 0, 0, NULL, 0, 0, PT_REC_MEM_ALLOC, op, &r, PT_REC_MEM_ALLOC_MIN);
}

static inline __attribute__((always_inline)) void mem_alloc_rec(unsigned op, void *p, uint64_t size,
                                                                void *caller)
{
	uint64_t now = pt_now(), ptr = pt_ptr(p), from = pt_ptr(caller);
	if (pt_likely((ptr | from) < PT_C_ADDR_LIMIT && size <= UINT32_MAX)) {
		pt_log_fast *l = pt_fast_open();
		if (pt_likely(l)) {
			/* MEM_ALLOC_C's fields (pt_mem_c_alloc: the 48-bit
			 * address, the 48-bit caller, the 32-bit size) as the
			 * words they are stored as */
			uint32_t cword = PT_COMPACT_FLAG | PT_REC_MEM_ALLOC_C | op << 8;
			int done =
			    pt_fast_words(l, now, cword, PT_MEM_ALLOC_C_SHIFT, (uint32_t)ptr,
			                  ptr >> 32 | from << 16, size, sizeof(pt_mem_c_alloc));
			if (pt_likely(done))
				l->last_obj = ptr;
			pt_fast_close(l);
			if (pt_likely(done))
				return;
		}
	}
	mem_alloc_slow(now, op, ptr, size, from);
}

/* Not recording: off, or inside a wrapper already on this thread. */
static inline int mem_skip(void)
{
	return pt_likely(!__atomic_load_n(&mem_on, __ATOMIC_RELAXED)) || mem_busy;
}

/* One allocation call: `call`, then its record, under mem_busy. */
#define MEM_ALLOC_CALL(op, size, call)                                                             \
	do {                                                                                       \
		if (mem_skip())                                                                    \
			return call;                                                               \
		mem_busy = 1;                                                                      \
		void *p_ = call;                                                                   \
		mem_alloc_rec(op, p_, size, __builtin_return_address(0));                          \
		mem_busy = 0;                                                                      \
		return p_;                                                                         \
	} while (0)

PT_EXPORT PT_HOT void *malloc(size_t size)
{
	if (mem_bootstrap())
		return pt_bump_alloc(size);
	MEM_ALLOC_CALL(PT_MEM_OP_MALLOC, size, PT_REAL(malloc)(size));
}

PT_EXPORT PT_HOT void *calloc(size_t n, size_t size)
{
	if (mem_bootstrap())
		return pt_bump_alloc(n * size);
	MEM_ALLOC_CALL(PT_MEM_OP_CALLOC, (uint64_t)n * size, PT_REAL(calloc)(n, size));
}

static __attribute__((noinline, cold)) void mem_free_slow(uint64_t now, uint64_t ptr)
{
	pt_rec_mem_free r = {.ptr = ptr};
	pt_emit_compact(now, 0, 0, NULL, 0, 0, PT_REC_MEM_FREE, PT_MEM_OP_FREE, &r, sizeof r);
}

PT_EXPORT PT_HOT void free(void *p)
{
	if (pt_unlikely(pt_bump_owns(p)))
		return;
	/* dlsym resolving free itself frees what it allocated before (an old
	 * error string): that block is left, once, rather than recursing.
	 * The slot first: once it is set (mem_init sets it), the common path
	 * reads no TLS for this. */
	void (*real)(void *) =
	    (void (*)(void *))__atomic_load_n(&pt_real_slot_free, __ATOMIC_RELAXED);
	if (pt_unlikely(!real)) {
		if (pt_real_in_progress())
			return;
		real = PT_REAL(free);
	}
	if (mem_skip()) {
		real(p);
		return;
	}
	mem_busy = 1;
	real(p);
	/* MEM_FREE_S (4 bytes) for the block the log's last MEM_ALLOC returned,
	 * MEM_FREE_C (10) when the address fits, else MEM_FREE (16); errno as
	 * free left it. */
	uint64_t now = pt_now(), ptr = pt_ptr(p);
	pt_log_fast *l = pt_fast_open();
	int done = 0;
	if (pt_likely(l)) {
		if (pt_likely(ptr && ptr == l->last_obj))
			done = pt_fast_words(l, now, PT_COMPACT_FLAG | PT_REC_MEM_FREE_S,
			                     PT_MEM_FREE_S_SHIFT, 0, 0, 0, 0);
		else if (ptr < PT_C_ADDR_LIMIT)
			/* its fields are the address's 48 bits, little-endian */
			done = pt_fast_words(l, now, PT_COMPACT_FLAG | PT_REC_MEM_FREE_C,
			                     PT_MEM_FREE_C_SHIFT, (uint32_t)ptr, ptr >> 32, 0, 6);
		if (done)
			l->last_obj = 0;
		pt_fast_close(l);
	}
	if (!pt_likely(done))
		mem_free_slow(now, ptr);
	mem_busy = 0;
}

PT_EXPORT PT_HOT void *realloc(void *old, size_t size)
{
	if (mem_bootstrap())
		return pt_bump_alloc(size);
	void *(*real)(void *, size_t) = PT_REAL(realloc);
	if (pt_unlikely(pt_bump_owns(old))) {
		/* A bootstrap block grows into a real one; its size is not
		 * kept, so what fits before the bump area's end is copied. */
		void *p = malloc(size);
		if (p)
			memcpy(p, old, pt_bump_room(old) < size ? pt_bump_room(old) : size);
		return p;
	}
	if (mem_skip())
		return real(old, size);
	mem_busy = 1;
	void *p = real(old, size);
	pt_rec_mem_alloc r = {.ptr = pt_ptr(p),
	                      .size = size,
	                      .caller = pt_ptr(__builtin_return_address(0)),
	                      .old = pt_ptr(old)};
	/* no compact form: the full record (errno kept) */
	pt_emit_compact(pt_now(), 0, 0, NULL, 0, 0, PT_REC_MEM_ALLOC, PT_MEM_OP_REALLOC, &r,
	                sizeof r);
	mem_busy = 0;
	return p;
}

PT_EXPORT PT_HOT int posix_memalign(void **out, size_t align, size_t size)
{
	int (*real)(void **, size_t, size_t) = PT_REAL(posix_memalign);
	if (mem_skip())
		return real(out, align, size);
	mem_busy = 1;
	int r = real(out, align, size);
	mem_alloc_rec(PT_MEM_OP_POSIX_MEMALIGN, r == 0 ? *out : NULL, size,
	              __builtin_return_address(0));
	mem_busy = 0;
	return r;
}

PT_EXPORT PT_HOT void *aligned_alloc(size_t align, size_t size)
{
	MEM_ALLOC_CALL(PT_MEM_OP_ALIGNED_ALLOC, size, PT_REAL(aligned_alloc)(align, size));
}

PT_EXPORT PT_HOT void *memalign(size_t align, size_t size)
{
	MEM_ALLOC_CALL(PT_MEM_OP_MEMALIGN, size, PT_REAL(memalign)(align, size));
}

PT_EXPORT PT_HOT void *valloc(size_t size)
{
	MEM_ALLOC_CALL(PT_MEM_OP_VALLOC, size, PT_REAL(valloc)(size));
}

static void mem_init(void)
{
	/* Resolved now, so that a first call from a signal handler (which
	 * the program should not make, but some do) needs no dlsym. */
	(void)PT_REAL(malloc);
	(void)PT_REAL(free);
	(void)PT_REAL(calloc);
	(void)PT_REAL(realloc);
	__atomic_store_n(&mem_on, pt_config_get()->memory, __ATOMIC_RELAXED);
}

static void mem_shutdown(int in_signal)
{
	(void)in_signal;
	__atomic_store_n(&mem_on, 0, __ATOMIC_RELAXED);
}

PT_SUBSYSTEM(memory_part) = {
    .name = "memory",
    .order = PT_ORDER_INTERPOSE_LAST,
    .init = mem_init,
    .shutdown = mem_shutdown,
};
