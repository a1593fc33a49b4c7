/* SPDX-License-Identifier: MIT */
/* The hot path: entry/exit hooks called by code compiled with instrument.so
 * (abi.h) and by -finstrument-functions builds (__cyg_profile_func_*).
 *
 * Fast path, per event: one initial-exec TLS load, one rdtsc, five compares,
 * one 8-byte store (a 2-byte short record, a 4-byte compact one or an
 * 8-byte one; 16 bytes for the PC form), three stores of bookkeeping and
 * two of the in_hook guard. No lock, no system call, no call. Everything
 * else — first event of a thread, a full window, a delta that overflows 32
 * bits, tracing off, an event raised while the thread is inside the
 * runtime — falls to pt_hook_slow, out of line. The fast path writes only
 * at t->log.cur and only when cur + size <= limit; the runtime sets limit
 * to NULL whenever the thread is inside it (pt_enter), and the fast path
 * sets in_hook while it works, so a hook raised by a signal handler at
 * either moment cannot write into the bytes being written (its event is
 * dropped and counted).
 *
 * Before all that, the function's entry in the thread's throttling table
 * (throttle.c): a throttled function's call adds to its count and returns
 * before the clock is read; the others add to the sums that decide. Hook
 * ABI 2's entry hook tells the module whether it recorded the call, and
 * the module calls the exit hook only then: a throttled call is one call.
 * ABI 1's hooks (older modules, the manual API) are both called for every
 * call, and a depth per function tells a throttled call's exit apart.
 * The entry is found before hook_begin, where a signal handler's hook may
 * still grow the table: entries never move (core.h, pt_ftable), so the
 * interrupted hook's pointer stays good. */
#define _GNU_SOURCE
#include "core.h"

#include <paratrace/abi.h>

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>

#define PT_NOINST __attribute__((no_instrument_function))

/* The slow path, given the time. */
static inline __attribute__((always_inline)) PT_NOINST uint32_t hook_slow_at(unsigned kind,
                                                                             uint32_t id,
                                                                             uint64_t pc,
                                                                             uint64_t now)
{
	int saved = errno;
	pt_thread *t = pt_enter();
	if (t) {
		if (kind == PT_REC_FUNC_ENTER || kind == PT_REC_FUNC_EXIT) {
			pt_wlog_put_func(&t->log, now, kind, id);
		} else if (kind == PT_REC_FUNC_LANDED) {
			pt_rec_landed l = {id, 0};
			pt_wlog_put(&t->log, now, kind, 0, &l, sizeof l, NULL, 0);
		} else {
			pt_wlog_put(&t->log, now, kind, 0, &pc, sizeof pc, NULL, 0);
		}
		if (t->log.slow)
			pt_counters_at(t, PT_COUNTERS_AT_FUNCTIONS);
		pt_leave(t);
	} else {
		pt_note_nested_event();
	}
	/* Written only when changed: a child of clone(CLONE_VM) without a TLS
	 * of its own (pt_thread_share) has this thread's errno too. */
	if (errno != saved)
		errno = saved;
	return id;
}

__attribute__((noinline, cold)) PT_NOINST uint32_t pt_hook_slow(unsigned kind, uint32_t id,
                                                                uint64_t pc)
{
	return hook_slow_at(kind, id, pc, pt_now());
}

void pt_note_nested_event(void)
{
	pt_thread *t = pt_tls;
	/* A shared state's losses are counted by pt_enter itself. */
	if (t && !t->shared &&
	    (atomic_load_explicit(&t->guard, memory_order_relaxed) ||
	     __atomic_load_n(&t->log.in_hook, __ATOMIC_RELAXED)) &&
	    pt_state_writable(atomic_load_explicit(&pt_state, memory_order_relaxed)))
		pt_wlog_note_nested(&t->log);
}

/* The 8-byte FUNC record as one word: kind, id in bits 8..31 (arg and
 * size8 of pt_rec_head), delta in the upper half. */
static inline __attribute__((always_inline)) uint64_t func_word(unsigned kind, uint32_t id,
								 uint64_t d)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (uint64_t)kind | (uint64_t)(id & PT_FUNC_ID_MAX) << 8 | d << 32;
#else
	pt_rec_head h = pt_rec_func(kind, id, (uint32_t)d);
	uint64_t word;
	memcpy(&word, &h, sizeof word);
	return word;
#endif
}

/* Fast paths, given the time. Every call out of them is a tail call, so
 * with the TSC the hooks are leaf functions with no prologue. */

/* The fast path's guard against a signal handler on the same thread
 * (pt_fast_begin): 0 when the event must be dropped; written, it would
 * land on the record in progress, and the interrupted hook would then move
 * the log's position into the middle of the handler's records. */
static inline __attribute__((always_inline)) PT_NOINST int hook_begin(pt_thread *t)
{
	return pt_fast_begin(pt_wlog_fast(&t->log));
}

static inline __attribute__((always_inline)) PT_NOINST void hook_end(pt_thread *t)
{
	pt_fast_close(pt_wlog_fast(&t->log));
}

/* Open calls. A recorded call that a longjmp skips never reaches its exit
 * hook, and its function's sums (throttle.c) would count it open for the
 * rest of the thread: every later round would hold one more call as long
 * as the round, and the function might never be throttled there. So the
 * hooks keep the thread's recorded calls that are open (pt_thread.open_calls),
 * each with its entry hook's CFA: the landing hook ends those whose CFA is
 * below its own (deeper frames: the stack grows down), and an exit that
 * finds other calls above its own ends them (a landing in code without
 * hooks, a siglongjmp out of a handler on another stack). All inside
 * hook_begin: a signal handler's hooks never see the stack half changed.
 * A throttled call never comes here. */

/* The hook's CFA: its caller's stack pointer at the call, the same in every
 * hook called from one frame whatever the hook's own frame, where a stack
 * pointer read inside each hook would differ by their frames' sizes (GCC:
 * one lea from the stack pointer; Clang sets up a frame pointer for it). */
#define PT_HOOK_CFA() ((uintptr_t)__builtin_dwarf_cfa())

/* A recorded call of id begins at now (its entry hook's cfa): one more in
 * its function's sums, and on the thread's stack of open calls. */
static inline __attribute__((always_inline)) PT_NOINST void recorded_begin(pt_thread *t,
                                                                          pt_fstat *s,
                                                                          uint32_t id,
                                                                          uint64_t now,
                                                                          uintptr_t cfa)
{
	s->n++;
	s->open++;
	s->acc -= (int64_t)now;
	uint32_t d = t->open_depth;
	if (pt_likely(d < PT_OPEN_CALLS_MAX)) {
		t->open_calls[d].cfa = cfa;
		t->open_calls[d].id = id;
	}
	t->open_depth = d + 1;
}

/* A recorded call ends at now in its function's sums (the caller takes it
 * off the stack). */
static inline __attribute__((always_inline)) PT_NOINST void recorded_end(pt_fstat *s,
                                                                        uint64_t now)
{
	if (pt_likely(s->open != 0)) {
		s->open--;
		s->acc += (int64_t)now;
	}
}

/* A recorded call of id that the hooks will not see end (skipped by a
 * longjmp) ends now in its function's sums. */
static PT_NOINST void open_call_end(uint32_t id, uint64_t now)
{
	if (id < pt_ft_cap())
		recorded_end(pt_fstat_of(id), now);
}

/* The exit of a recorded call of id that is not the innermost open one:
 * the calls above the innermost open call of id were abandoned, and end
 * now; that call is popped. None of id (its entry was not kept: a
 * handler's event dropped, a fork child's new state): nothing. */
static PT_NOINST void open_calls_unwind(pt_thread *t, uint32_t id, uint64_t now)
{
	uint32_t d = t->open_depth < PT_OPEN_CALLS_MAX ? t->open_depth : PT_OPEN_CALLS_MAX;
	uint32_t k = d;
	while (k && t->open_calls[k - 1].id != id)
		k--;
	if (!k)
		return;
	for (uint32_t i = d; i > k; i--)
		open_call_end(t->open_calls[i - 1].id, now);
	t->open_depth = k - 1;
}

/* The short form (format 3.0, 2 bytes) when the previous function record
 * was of the same function: every record of a loop calling one function,
 * or of a recursion. Tried first, before any other form is computed. One
 * 8-byte store: the zeros past the word land where nothing has been
 * written yet. 1 when stored. */
static inline __attribute__((always_inline)) PT_NOINST int hook_short_at(pt_thread *t, char *cur,
                                                                         uintptr_t limit,
                                                                         uint64_t d, uint64_t now,
                                                                         uint64_t func, int exit)
{
	if (!pt_likely(PT_WRITE_COMPACT && func == t->log.last_func && d < PT_SHORT_LIMIT &&
		       (uintptr_t)cur + sizeof(uint64_t) <= limit))
		return 0;
	__atomic_store_n((uint64_t *)(void *)cur, (uint64_t)pt_short_word(exit, (uint32_t)d),
	                 __ATOMIC_RELAXED);
	t->log.last = now;
	__atomic_store_n(&t->log.cur, cur + 2, __ATOMIC_RELAXED);
	return 1;
}

/* The entry of a call of a function whose stats (s) reached the decision:
 * out of line, inside the runtime. Throttled: this call is the first one
 * counted, and 0 is returned (ABI 2: its exit hook is not called; ABI 1,
 * v1 set: it will be, and tdepth counts it). Else its entry is recorded as
 * usual and id returned. cfa: the entry hook's. */
__attribute__((noinline, cold)) PT_NOINST static uint32_t hook_decide(uint32_t id, uint64_t now,
                                                                      pt_fstat *s, int v1,
                                                                      uintptr_t cfa)
{
	int saved = errno;
	uint32_t tok = id;
	pt_thread *t = pt_enter();
	if (t) {
		if (pt_throttle_decide(t, s, id, now, v1)) {
			tok = 0;
		} else {
			/* pt_enter let a handler's hooks in: they must not come
			 * between the stack's stores. */
			if (hook_begin(t)) {
				recorded_begin(t, s, id, now, cfa);
				hook_end(t);
			}
			pt_wlog_put_func(&t->log, now, PT_REC_FUNC_ENTER, id);
		}
		pt_leave(t);
	} else {
		pt_note_nested_event();
	}
	if (errno != saved)
		errno = saved;
	return tok;
}

/* An event raised while this thread's hook was at work (a signal
 * handler's): dropped and counted. Returns id, as a tail call. */
__attribute__((noinline, cold)) PT_NOINST static uint32_t hook_dropped(pt_thread *t, uint32_t id)
{
	pt_wlog_note_nested(&t->log);
	return id;
}

/* The exit of a recorded call of id whose call is not the innermost open
 * one (open_calls_unwind): out of line, recorded through the slow path. */
__attribute__((noinline, cold)) PT_NOINST static uint32_t hook_exit_unwound(uint32_t id,
                                                                            pt_fstat *s,
                                                                            uint64_t now)
{
	pt_thread *t = pt_tls;
	if (!hook_begin(t))
		return hook_dropped(t, id);
	open_calls_unwind(t, id, now);
	recorded_end(s, now);
	hook_end(t);
	return hook_slow_at(PT_REC_FUNC_EXIT, id, 0, now);
}

/* One FUNC record, given the time. Returns the ABI-2 entry hook's answer:
 * 0 when this entry was throttled (counted, not recorded), else id (also
 * for an event dropped or left to the slow path: its exit hook then does
 * the same with its exit). v1: the call's exit hook comes whatever this
 * returns (ABI 1). cfa: an entry hook's (PT_HOOK_CFA), 0 for an exit. */
static inline __attribute__((always_inline)) PT_NOINST uint32_t hook_func_at(unsigned kind,
                                                                             uint32_t id,
                                                                             pt_fstat *s,
                                                                             uint64_t now, int v1,
                                                                             uintptr_t cfa)
{
	pt_thread *t = pt_tls;
	if (pt_likely(t != NULL)) {
		if (!hook_begin(t))
			return hook_dropped(t, id);
		/* The recorded calls' sums (throttle.c), inside hook_begin: a
		 * handler's hook of the same function does not interleave. */
		if (s) {
			if (kind == PT_REC_FUNC_ENTER) {
				if (pt_unlikely(s->n >= pt_throttle_calls)) {
					hook_end(t);
					return hook_decide(id, now, s, v1, cfa);
				}
				recorded_begin(t, s, id, now, cfa);
			} else {
				/* Normally its own call is the innermost open one
				 * (past the bound: one of those only counted). */
				uint32_t d = t->open_depth, top = d - 1;
				if (pt_unlikely(top >= PT_OPEN_CALLS_MAX ? d == 0
				                                    : t->open_calls[top].id != id)) {
					hook_end(t);
					return hook_exit_unwound(id, s, now);
				}
				t->open_depth = top;
				recorded_end(s, now);
			}
		}
		char *cur = t->log.cur;
		uint64_t d = now - t->log.last;
		uintptr_t limit = (uintptr_t)__atomic_load_n(&t->log.limit, __ATOMIC_RELAXED);
		if (hook_short_at(t, cur, limit, d, now, id, kind == PT_REC_FUNC_EXIT)) {
			hook_end(t);
			return id;
		}
		if (pt_likely((uintptr_t)cur + sizeof(pt_rec_head) <= limit && (d >> 32) == 0)) {
			uint64_t word = func_word(kind, id, d);
			size_t size = sizeof(pt_rec_head);
			if (PT_WRITE_COMPACT) {
				/* A record only misses the compact form when it comes
				 * 4096 ticks or more after the previous one (so a
				 * mispredicted branch is cheap next to the gap) or when
				 * its function's id is 4096 or more. A branch-free
				 * select measured ~0.5 ns per call slower on the hot
				 * loop. The 8-byte store of a compact word writes 4
				 * zeros past it, where nothing has been written yet. */
				int compact = pt_compact_fits(id, d);
				word = compact ? pt_compact_word(kind, id, (uint32_t)d) : word;
				size -= (size_t)compact * 4;
			}
			__atomic_store_n((uint64_t *)(void *)cur, word, __ATOMIC_RELAXED);
			t->log.last = now;
			t->log.last_func = id;
			__atomic_store_n(&t->log.cur, cur + size, __ATOMIC_RELAXED);
			hook_end(t);
			return id;
		}
		hook_end(t);
	}
	return pt_hook_slow(kind, id, 0);
}

static inline __attribute__((always_inline)) PT_NOINST void hook_pc_at(unsigned kind, void *fn,
									uint64_t now)
{
	pt_thread *t = pt_tls;
	if (pt_likely(t != NULL)) {
		if (!hook_begin(t)) {
			pt_wlog_note_nested(&t->log);
			return;
		}
		char *cur = t->log.cur;
		uint64_t d = now - t->log.last;
		uintptr_t limit = (uintptr_t)__atomic_load_n(&t->log.limit, __ATOMIC_RELAXED);
		uint64_t func = (uint64_t)(uintptr_t)fn | PT_FUNC_KEY_PC;
		if (hook_short_at(t, cur, limit, d, now, func, kind == PT_REC_FUNC_EXIT_PC)) {
			hook_end(t);
			return;
		}
		/* A record with a payload starts at a multiple of 8: after a
		 * short or compact record the slow path pads. */
		if (pt_likely((uintptr_t)cur + 16 <= limit && (d >> 32) == 0 &&
		              ((uintptr_t)cur & 7) == 0)) {
			/* Payload before head: a reader never sees a head without it. */
			__atomic_store_n((uint64_t *)(void *)(cur + 8), (uint64_t)(uintptr_t)fn,
					 __ATOMIC_RELAXED);
			__atomic_store_n((uint64_t *)(void *)cur, (uint64_t)kind | 2u << 16 | d << 32,
					 __ATOMIC_RELEASE);
			t->log.last = now;
			t->log.last_func = func;
			__atomic_store_n(&t->log.cur, cur + 16, __ATOMIC_RELAXED);
			hook_end(t);
			return;
		}
		hook_end(t);
	}
	pt_hook_slow(kind, 0, (uint64_t)(uintptr_t)fn);
}

/* Without an invariant TSC: the same through CLOCK_MONOTONIC, out of line
 * so that the TSC path keeps no registers across a call. */
__attribute__((noinline)) PT_NOINST static uint32_t hook_func_mono(unsigned kind, uint32_t id,
                                                                   pt_fstat *s, int v1,
                                                                   uintptr_t cfa)
{
	return hook_func_at(kind, id, s, pt_mono_ns(), v1, cfa);
}

__attribute__((noinline)) PT_NOINST static void hook_pc_mono(unsigned kind, void *fn)
{
	hook_pc_at(kind, fn, pt_mono_ns());
}

#if defined(__x86_64__) || defined(__i386__)
#define PT_HOOK(fast, mono, kind, ...)                                                             \
	do {                                                                                       \
		if (pt_likely(pt_clock_use_tsc))                                                   \
			fast(kind, __VA_ARGS__, pt_rdtsc());                                       \
		else                                                                               \
			mono(kind, __VA_ARGS__);                                                   \
	} while (0)
#else
#define PT_HOOK(fast, mono, kind, ...) mono(kind, __VA_ARGS__)
#endif

static inline __attribute__((always_inline)) PT_NOINST uint32_t hook_func(unsigned kind,
                                                                          uint32_t id, pt_fstat *s,
                                                                          int v1, uintptr_t cfa)
{
#if defined(__x86_64__) || defined(__i386__)
	if (pt_likely(pt_clock_use_tsc))
		return hook_func_at(kind, id, s, pt_rdtsc(), v1, cfa);
#endif
	return hook_func_mono(kind, id, s, v1, cfa);
}

/* A function id past this thread's table: the table grows (throttle.c),
 * then the event is recorded. */
__attribute__((noinline, cold)) PT_NOINST static uint32_t hook_grow(unsigned kind, uint32_t id,
                                                                    int v1, uintptr_t cfa)
{
	pt_throttle_grow(id);
	pt_fstat *s = id < pt_ft_cap() ? pt_fstat_of(id) : NULL;
	return hook_func(kind, id, s, v1, cfa);
}

/* Hook ABI 1: both hooks of every call. Throttling first (throttle.c): a
 * throttled call reads no clock; its exit is told apart by tdepth. */
PT_EXPORT PT_NOINST void __paratrace_func_enter(uint32_t id)
{
	pt_fstat *s = NULL;
	if (pt_likely(id < pt_ft_cap())) {
		s = pt_fstat_of(id);
		uint64_t *count = s->count;
		if (count) {
			pt_count_add1(count);
			s->tdepth++;
			return;
		}
	} else if (pt_unlikely(pt_ft.grow)) {
		hook_grow(PT_REC_FUNC_ENTER, id, 1, PT_HOOK_CFA());
		return;
	}
	hook_func(PT_REC_FUNC_ENTER, id, s, 1, PT_HOOK_CFA());
}

PT_EXPORT PT_NOINST void __paratrace_func_exit(uint32_t id)
{
	pt_fstat *s = NULL;
	if (pt_likely(id < pt_ft_cap())) {
		s = pt_fstat_of(id);
		if (s->tdepth) {
			s->tdepth--;
			return;
		}
	} else if (pt_unlikely(pt_ft.grow)) {
		hook_grow(PT_REC_FUNC_EXIT, id, 1, 0);
		return;
	}
	hook_func(PT_REC_FUNC_EXIT, id, s, 1, 0);
}

/* Hook ABI 2: the entry hook's answer decides whether the exit hook is
 * called. A throttled call is TLS loads, two table loads (the directory's
 * chunk, then the entry: core.h, pt_ftable), one increment of its count (in the log's shared mapping) and a return of 0: the
 * module then skips the exit hook, so no depth is kept. */
PT_EXPORT PT_NOINST uint32_t __paratrace_func_enter2(uint32_t id)
{
	pt_fstat *s = NULL;
	if (pt_likely(id < pt_ft_cap())) {
		s = pt_fstat_of(id);
		uint64_t *count = s->count;
		if (count) {
			pt_count_add1(count);
			return 0;
		}
	} else if (pt_unlikely(pt_ft.grow)) {
		return hook_grow(PT_REC_FUNC_ENTER, id, 0, PT_HOOK_CFA());
	}
	return hook_func(PT_REC_FUNC_ENTER, id, s, 0, PT_HOOK_CFA());
}

/* Only for a call whose entry hook returned id: never a throttled one. */
PT_EXPORT PT_NOINST void __paratrace_func_exit2(uint32_t id)
{
	pt_fstat *s = NULL;
	if (pt_likely(id < pt_ft_cap()))
		s = pt_fstat_of(id);
	else if (pt_unlikely(pt_ft.grow)) {
		hook_grow(PT_REC_FUNC_EXIT, id, 0, 0);
		return;
	}
	hook_func(PT_REC_FUNC_EXIT, id, s, 0, 0);
}

/* The recorded calls open above a landing at cfa (entered from deeper
 * frames than the landing hook's caller) were skipped by the longjmp: they
 * end now, as the analyzer closes their frames at the landing. Calls past
 * the bound were entered after every kept one: where the innermost kept
 * one is deeper than the landing they were skipped too, but their
 * functions are not known, and their sums keep them open. */
__attribute__((noinline, cold)) PT_NOINST static void open_calls_landed(uintptr_t cfa, uint64_t now)
{
	pt_thread *t = pt_tls;
	if (!t || !t->open_depth || !pt_ft_cap() || !hook_begin(t))
		return;
	uint32_t d = t->open_depth;
	if (d > PT_OPEN_CALLS_MAX) {
		if (t->open_calls[PT_OPEN_CALLS_MAX - 1].cfa >= cfa) {
			hook_end(t);
			return;
		}
		d = PT_OPEN_CALLS_MAX;
	}
	while (d && t->open_calls[d - 1].cfa < cfa) {
		open_call_end(t->open_calls[d - 1].id, now);
		d--;
	}
	t->open_depth = d;
	hook_end(t);
}

/* A longjmp landed in a recorded call of id (docs/ABI.md, "After a
 * longjmp lands"): one FUNC_LANDED, which says that the call goes on. Not
 * an exit and an entry: where the longjmp skipped no recorded frame (they
 * were throttled, or not instrumented) a reader could not tell those from
 * a return and a new call. Rare: the slow path, which also reads the
 * counters there (PARATRACE_COUNTERS_AT=functions), so that what the
 * skipped frames did is theirs. The call's own stats are left alone: it
 * neither ended nor began; those of the recorded calls it skipped end. */
PT_EXPORT PT_NOINST void __paratrace_func_landed2(uint32_t id)
{
	uint64_t now = pt_now();
	open_calls_landed(PT_HOOK_CFA(), now);
	hook_slow_at(PT_REC_FUNC_LANDED, id, 0, now);
}

PT_EXPORT PT_NOINST void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	PT_HOOK(hook_pc_at, hook_pc_mono, PT_REC_FUNC_ENTER_PC, fn);
}

PT_EXPORT PT_NOINST void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	PT_HOOK(hook_pc_at, hook_pc_mono, PT_REC_FUNC_EXIT_PC, fn);
}

void pt_hooks_unwound(void)
{
	pt_thread *t = pt_tls;
	if (t)
		__atomic_store_n(&t->log.in_hook, 0, __ATOMIC_RELAXED);
}

/* ---- module registration ------------------------------------------------ */

/* Function ids: one counter for the process, never reused (a module that is
 * unloaded keeps its ids, so records already written stay unambiguous). */
static uint32_t pt_next_id = 1;
static pt_spin pt_reg_lock;

typedef struct pt_reg {
	pt_abi_module *module; /* NULL once unregistered */
	uint32_t base, n;
	uint64_t module_base;
	struct pt_reg *next;
} pt_reg;
static pt_reg *pt_regs;

uint32_t pt_func_ids_end(void)
{
	return __atomic_load_n(&pt_next_id, __ATOMIC_RELAXED);
}

uint32_t pt_func_ids_alloc(uint32_t n)
{
	uint32_t base = 0;
	pt_spin_lock(&pt_reg_lock);
	if (n && pt_next_id <= PT_FUNC_ID_MAX && n <= PT_FUNC_ID_MAX - pt_next_id + 1) {
		base = pt_next_id;
		pt_next_id += n;
	}
	pt_spin_unlock(&pt_reg_lock);
	return base;
}

void pt_emit_func_def(uint32_t id, const char *name, const char *file, uint32_t line,
		      uint64_t module_base)
{
	char buf[4096];
	if (!name)
		name = "";
	if (!file)
		file = "";
	size_t nl = strnlen(name, sizeof buf / 2 - 1);
	size_t fl = strnlen(file, sizeof buf / 2 - 1);
	memcpy(buf, name, nl);
	buf[nl] = '\0';
	memcpy(buf + nl + 1, file, fl);
	buf[nl + 1 + fl] = '\0';
	pt_rec_func_def def = {id, line, module_base};
	pt_process_emit(PT_REC_FUNC_DEF, 0, &def, sizeof def, buf, nl + fl + 2);
}

static void emit_defs(const pt_reg *r)
{
	const pt_abi_module *m = r->module;
	for (uint32_t i = 0; i < r->n; i++)
		pt_emit_func_def(r->base + i, m->funcs[i].name, m->funcs[i].file, m->funcs[i].line,
				 r->module_base);
}

PT_EXPORT PT_NOINST void __paratrace_register_module(pt_abi_module *m)
{
	int saved = errno;
	if (!m || !pt_ensure_initialized_wait())
		goto out;
	/* Versions 1 and 2 share the descriptor and the table; they differ
	 * in the hooks the module calls, each implemented above. */
	if (m->abi_version < PT_ABI_VERSION_MIN || m->abi_version > PT_ABI_VERSION) {
		Dl_info info;
		pt_warn("module %s was instrumented for hook ABI %u, this libtrace.so speaks %u "
		        "to %u; its functions are not traced",
		        m->module_name
		            ? m->module_name
		            : (dladdr(m, &info) && info.dli_fname ? info.dli_fname : "?"),
		        m->abi_version, PT_ABI_VERSION_MIN, PT_ABI_VERSION);
		goto out;
	}
	if (!m->nfuncs || !m->funcs || atomic_load_explicit((_Atomic uint32_t *)&m->id_base,
							    memory_order_relaxed))
		goto out;
	pt_reg *r = pt_bump_alloc(sizeof *r);
	if (!r)
		goto out;
	uint32_t base = pt_func_ids_alloc(m->nfuncs);
	if (!base) {
		static atomic_int warned;
		if (!atomic_exchange(&warned, 1))
			pt_warn("module %s (%u functions) is not traced: this process would have more "
				"than %u instrumented functions",
				m->module_name ? m->module_name : "?", m->nfuncs, PT_FUNC_ID_MAX);
		goto out;
	}
	Dl_info info;
	struct link_map *lm = NULL;
	r->module = m;
	r->base = base;
	r->n = m->nfuncs;
	r->module_base = dladdr1(m, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm ? lm->l_addr : 0;
	emit_defs(r);
	pt_spin_lock(&pt_reg_lock);
	r->next = pt_regs;
	/* Released: pt_func_module walks the list without the lock. */
	__atomic_store_n(&pt_regs, r, __ATOMIC_RELEASE);
	pt_spin_unlock(&pt_reg_lock);
	/* Published last: a hook site sees a non-zero base only once every
	 * FUNC_DEF it may refer to is in the process log. */
	atomic_store_explicit((_Atomic uint32_t *)&m->id_base, base, memory_order_release);
out:
	errno = saved;
}

__thread int pt_dlclose_depth __attribute__((tls_model("initial-exec")));

/* At the process's end (exit, return from main: the dynamic loader runs
 * every module's destructors) the module stays mapped and the other
 * threads still run its functions until the process is gone: its hooks
 * stay on, so that their calls are traced, or counted once the logs are
 * closed, instead of vanishing unseen (millions of calls per busy thread
 * while the exit ran the destructors). Only an unload turns them off. */
PT_EXPORT PT_NOINST void __paratrace_unregister_module(pt_abi_module *m)
{
	if (!m)
		return;
	if (pt_dlclose_depth)
		atomic_store_explicit((_Atomic uint32_t *)&m->id_base, 0, memory_order_relaxed);
	pt_spin_lock(&pt_reg_lock);
	for (pt_reg *r = pt_regs; r; r = r->next)
		if (r->module == m) {
			/* the table is about to be unmapped */
			__atomic_store_n(&r->module, NULL, __ATOMIC_RELAXED);
			/* and the module's TLS with it: no thread may write
			 * its counts pointer any more (throttle_tls.c) */
			if (pt_dlclose_depth)
				pt_throttle_tls_unloaded(r);
		}
	pt_spin_unlock(&pt_reg_lock);
}

/* Lock-free (from a hook's slow path, which may have interrupted this
 * thread in register or unregister): the list only grows, and a node's
 * base and n never change. */
const pt_abi_module *pt_func_module(uint32_t id, uint32_t *base, const void **key)
{
	for (pt_reg *r = __atomic_load_n(&pt_regs, __ATOMIC_ACQUIRE); r; r = r->next)
		if (id >= r->base && id - r->base < r->n) {
			*base = r->base;
			*key = r;
			return __atomic_load_n(&r->module, __ATOMIC_RELAXED);
		}
	return NULL;
}

/* Fork child: its process log is new (the logs part, ordered before this
 * one, opened it); the ids in use are the parent's, defined again there. */
static void hooks_fork_child(void)
{
	pt_spin_reset(&pt_reg_lock);
	for (pt_reg *r = pt_regs; r; r = r->next)
		if (r->module)
			emit_defs(r);
}

PT_SUBSYSTEM(hooks_part) = {
	.name = "hooks",
	.order = PT_ORDER_HOOKS,
	.fork_child = hooks_fork_child,
};
