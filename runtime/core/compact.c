/* SPDX-License-Identifier: MIT */
/* A family's compact records (pt_runtime.h, pt_emit_compact and the
 * functions after it): the writer's fast path for them, which appends to
 * the thread's log as a hook does (no pt_enter, no lock, no call), and the
 * way through the runtime's region when that cannot be taken. The rest of
 * the log writer is writer.c. */
#define _GNU_SOURCE
#include "core.h"

#include <errno.h>
#include <string.h>

/* A compact record's stores at cur, its checks passed: the fields past the
 * first four first, then one 8-byte store of the word (delta d at bit
 * shift) and those four (or 4 zeros past the word, where nothing has been
 * written yet): a reader of a live or killed writer's file sees zeros, the
 * end, until the record is whole. Returns the record's end. */
static inline __attribute__((always_inline)) char *
store_cfields(char *cur, uint64_t d, uint32_t word, unsigned shift, const void *p, size_t len)
{
	const char *q = p;
	size_t i = 4;
	for (; i + 8 <= len; i += 8) /* at most 24 bytes: no call */
		memcpy(cur + 4 + i, q + i, 8);
	for (; i < len; i += 2)
		memcpy(cur + 4 + i, q + i, 2);
	uint32_t first = 0;
	if (len)
		memcpy(&first, q, sizeof first);
	word |= (uint32_t)d << shift;
	__atomic_store_n((uint64_t *)(void *)cur, word | (uint64_t)first << 32, __ATOMIC_RELEASE);
	return cur + 4 + len;
}

static inline __attribute__((always_inline)) int put_compact(pt_wlog *l, uint64_t ticks,
                                                             uint32_t word, unsigned shift,
                                                             const void *p, size_t len,
                                                             unsigned flags)
{
	char *cur = l->cur;
	char *end = pt_wlog_fast_end(l);
	if (!pt_likely(PT_WRITE_COMPACT && cur && end && cur + 8 + len <= end && ticks >= l->last &&
	               (ticks - l->last) >> (32 - shift) == 0 && !l->lost_records && !l->dead &&
	               !__atomic_load_n(&l->nested_lost, __ATOMIC_RELAXED) &&
	               (l->ctx || !(flags & PT_CTX_NEED))))
		return 0;
	cur = store_cfields(cur, ticks - l->last, word, shift, p, len);
	l->last = ticks;
	if (flags & PT_CTX_OPEN)
		l->ctx = 1;
	__atomic_store_n(&l->cur, cur, __ATOMIC_RELEASE);
	return 1;
}

int pt_wlog_put_compact(pt_wlog *l, uint64_t ticks, uint32_t word, unsigned shift, const void *p,
                        size_t len, unsigned flags)
{
	return put_compact(l, ticks, word, shift, p, len, flags);
}

/* The fast path, as a hook's (hooks.c): limit is NULL while the thread is
 * inside the runtime, and in_hook keeps a signal handler's records off the
 * bytes being written. cword2, when not 0, is a second compact word with
 * no fields at the same ticks (a call's end after its record): room for
 * both is checked first, so both are written or neither. 1 when written.
 * pt_fast_fits stands for put_compact's checks of cur, end and dead. */
static inline __attribute__((always_inline)) int fast_compact(pt_thread *t, uint64_t ticks,
                                                              uint32_t cword, unsigned shift,
                                                              const void *cp, size_t clen,
                                                              uint32_t cword2, unsigned flags)
{
	if (!pt_likely(t && cword && pt_fast_begin(pt_wlog_fast(&t->log))))
		return 0;
	pt_wlog *l = &t->log;
	char *cur = l->cur;
	uint64_t d = ticks - l->last;
	int done = 0;
	if (pt_likely(pt_fast_fits(pt_wlog_fast(l), cur, 8 + clen + (cword2 ? 4 : 0), d, shift) &&
	              (l->ctx || !(flags & PT_CTX_NEED)))) {
		cur = store_cfields(cur, d, cword, shift, cp, clen);
		if (cword2) {
			/* a record with no fields at the same ticks (delta 0) */
			__atomic_store_n((uint64_t *)(void *)cur, (uint64_t)cword2,
			                 __ATOMIC_RELEASE);
			cur += 4;
		}
		l->last = ticks;
		if (flags & PT_CTX_OPEN)
			l->ctx = 1;
		__atomic_store_n(&l->cur, cur, __ATOMIC_RELEASE);
		done = 1;
	}
	pt_fast_close(pt_wlog_fast(l));
	return done;
}

/* pt_emit_compact past its fast path: out of line, so that the fast path
 * sets up no frame for it (a wrapper's records are nearly all written by
 * the fast path). */
static __attribute__((noinline, cold)) uint64_t
emit_compact_slow(uint64_t ticks, uint32_t cword, unsigned shift, const void *cp, size_t clen,
                  unsigned flags, unsigned kind, unsigned arg, const void *p, size_t len)
{
	int saved = errno;
	pt_thread *t = pt_enter();
	if (!t) {
		errno = saved;
		return 0;
	}
	pt_wlog *l = &t->log;
	if (ticks < l->last)
		ticks = l->last;
	/* the record may be one a family's compact form would stand for (the
	 * memory family's MEM_ALLOC): no record stands for the one before */
	l->last_obj = 0;
	if (!cword || !put_compact(l, ticks, cword, shift, cp, clen, flags)) {
		pt_wlog_put(l, ticks, kind, arg, p, len, NULL, 0);
		if ((flags & PT_CTX_OPEN) && !l->lost_records && !l->dead)
			l->ctx = 1;
	}
	pt_leave(t);
	if (errno != saved)
		errno = saved;
	return ticks;
}

PT_HOT uint64_t pt_emit_compact(uint64_t ticks, uint32_t cword, unsigned shift, const void *cp,
                                size_t clen, unsigned flags, unsigned kind, unsigned arg,
                                const void *p, size_t len)
{
	if (pt_likely(fast_compact(pt_tls, ticks, cword, shift, cp, clen, 0, flags)))
		return ticks;
	return emit_compact_slow(ticks, cword, shift, cp, clen, flags, kind, arg, p, len);
}

PT_HOT int pt_emit_word(uint64_t ticks, uint32_t cword, unsigned shift, unsigned flags)
{
	return fast_compact(pt_tls, ticks, cword, shift, NULL, 0, 0, flags);
}

PT_HOT int pt_emit_words(uint64_t ticks, uint32_t cword, unsigned shift, uint32_t cword2,
                         unsigned flags)
{
	return fast_compact(pt_tls, ticks, cword, shift, NULL, 0, cword2, flags);
}

PT_HOT int pt_emit_compact_then(uint64_t ticks, uint32_t cword, unsigned shift, const void *cp,
                                size_t clen, uint32_t cword2, unsigned flags)
{
	return fast_compact(pt_tls, ticks, cword, shift, cp, clen, cword2, flags);
}
