/* SPDX-License-Identifier: MIT */
/* pt_emit_c16 (pt_runtime.h): the writer's fast path for a compact form
 * whose fields come in two words, as compact.c's fast path writes one (the
 * same checks and the same bytes) without its copy loop. Its own file and
 * section: it is the code every read, write, pread and pwrite wrapper runs
 * after its system call, kept on their page (PT_SYSCALL_TEXT). */
#include "core.h"

#include <stdatomic.h>

PT_SYSCALL_TEXT(0)
__attribute__((aligned(4096))) int pt_emit_c16(uint64_t ticks, uint32_t cword, unsigned shift,
                                               uint64_t f0, uint64_t f1, unsigned clen)
{
	pt_thread *t = PT_TLS_AT(pt_thread *, pt_tls_off, pt_tls);
	if (!pt_likely(t && !__atomic_load_n(&t->log.in_hook, __ATOMIC_RELAXED)))
		return 0;
	__atomic_store_n(&t->log.in_hook, 1, __ATOMIC_RELAXED);
	atomic_signal_fence(memory_order_seq_cst);
	pt_wlog *l = &t->log;
	char *cur = l->cur;
	uint64_t d = ticks - l->last;
	/* room for the three stores below (the bytes past the record are
	 * zeros nothing was written to yet) */
	int done = pt_wlog_fast_fits(l, cur, 24, d, shift);
	if (pt_likely(done)) {
		/* the fields past the first four first, then the word and those
		 * four in one store: a reader sees zeros (the end) until then */
		if (clen > 4)
			__atomic_store_n((uint64_t *)(void *)(cur + 8), f0 >> 32 | f1 << 32,
			                 __ATOMIC_RELAXED);
		if (clen > 12)
			__atomic_store_n((uint64_t *)(void *)(cur + 16), f1 >> 32,
			                 __ATOMIC_RELAXED);
		__atomic_store_n((uint64_t *)(void *)cur,
		                 (uint64_t)(cword | (uint32_t)d << shift) | f0 << 32,
		                 __ATOMIC_RELEASE);
		l->last = ticks;
		__atomic_store_n(&l->cur, cur + 4 + clen, __ATOMIC_RELEASE);
	}
	atomic_signal_fence(memory_order_seq_cst);
	__atomic_store_n(&t->log.in_hook, 0, __ATOMIC_RELAXED);
	return done;
}
