/* SPDX-License-Identifier: MIT */
/* Throttling: a function called more than PARATRACE_THROTTLE's CALLS times
 * on a thread with a mean duration under its DURATION stops being recorded
 * there. Its later calls cost the hooks a table look-up and two additions,
 * no clock read and no record: each entry adds 1 to the function's slot of
 * a THROTTLE_COUNTS record (format/throttle.h). That record is in the
 * thread's log like any other, and also mapped on its own, for as long as
 * the thread lives, so that the counts are in the page cache at every
 * moment: a crash keeps them, as it keeps the records.
 *
 * The decision is made every CALLS recorded calls of a function, from
 * sums the fast path keeps (core.h, pt_fstat): no stack of entry times is
 * needed, the sum of the exit times minus the sum of the entry times is
 * the calls' total time, with the calls still open counted up to now.
 * A recorded call that a longjmp skips is ended there by the hooks' stack
 * of open calls (hooks.c), not counted open for ever.
 * Calls open when the function is throttled (a recursion, a loop around
 * it) keep recording their exits. A module of hook ABI 2 calls the exit
 * hook only for a call whose entry was recorded, so nothing else is
 * needed; with ABI 1 both hooks come for every call, the throttled calls
 * are nested inside the open ones, and tdepth tells their exits apart.
 * A module of hook ABI 3 counts its throttled calls itself, with no call
 * (throttle_tls.c). -finstrument-functions builds are not throttled (their
 * hooks have no function id to index). */
#define _GNU_SOURCE
#include "core.h"
#include "pt_fd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PT_IE __attribute__((tls_model("initial-exec")))

__thread pt_ftable pt_ft PT_IE;
uint32_t pt_throttle_calls;
static uint64_t throttle_ticks; /* DURATION in clock ticks */

#define DEFAULT_CALLS 10000u
#define DEFAULT_NS 1000u

/* A THROTTLE_COUNTS record, mapped on its own; the ids of its slots in
 * private memory too, for a fork child (which unmaps the record). */
typedef struct cblock {
	pt_throttle_slot *slots;
	void *map;
	size_t map_len;
	uint32_t used;
	uint32_t ids[PT_THROTTLE_SLOTS];
	struct cblock *prev;     /* this thread's */
	struct cblock *all_next; /* the process's, under blocks_lock */
	int dead;                /* unmapped (its thread ended) */
} cblock;

static __thread cblock *thr_blocks PT_IE;
static pt_spin blocks_lock;
static cblock *all_blocks;

int pt_throttle_parse(const char *s, uint32_t *calls, uint64_t *dur_ns)
{
	if (!strcmp(s, "off") || !strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "false")) {
		*calls = 0;
		*dur_ns = 0;
		return 0;
	}
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	unsigned long long c = strtoull(s, &end, 10);
	if (errno || *end != ':' || c == 0 || c > UINT32_MAX)
		return -1;
	uint64_t ns;
	if (pt_parse_duration_ns(end + 1, &ns) != 0 || ns == 0 || ns > 1000000000ull)
		return -1;
	*calls = (uint32_t)c;
	*dur_ns = ns;
	return 0;
}

static void throttle_init(void)
{
	uint32_t calls = DEFAULT_CALLS;
	uint64_t ns = DEFAULT_NS;
	const char *v = pt_config_get()->throttle;
	if (v && pt_throttle_parse(v, &calls, &ns) != 0) {
		pt_warn("PARATRACE_THROTTLE=%s: expected off or CALLS:DURATION (calls from 1, a "
		        "duration from 1ns to 1s, e.g. 10000:1us); using %u:%uns",
		        v, DEFAULT_CALLS, DEFAULT_NS);
		calls = DEFAULT_CALLS;
		ns = DEFAULT_NS;
	}
	/* ticks = ns * 2^shift / mult (the clock's conversion, reversed) */
	unsigned __int128 t =
	    ((unsigned __int128)ns << pt_clock.shift) / (pt_clock.mult ? pt_clock.mult : 1);
	throttle_ticks = t ? (uint64_t)t : 1;
	pt_throttle_calls = calls;
}

static void throttle_thread_start(pt_thread *t)
{
	(void)t;
	pt_ft.grow = pt_throttle_calls != 0;
}

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* One grow's mapping: this header, the new directory (every chunk's
 * pointer, the old ones first), then the chunks the grow added. The
 * mappings are kept until the thread ends: a hook interrupted by a signal
 * handler's grow may have read the previous directory, and finds the same
 * chunks through it. The capacity at least doubles at each grow, so the
 * directories kept add up to less than the last one, and defining ids one
 * by one copies O(ids) pointers in all. */
typedef struct fseg {
	struct fseg *prev;
	size_t len;
} fseg;

static __thread fseg *thr_segs PT_IE;

/* Called by the hooks with no lock and outside the runtime: only a
 * traced thread that is not inside it grows its table (a signal handler's
 * hook meanwhile finds the old capacity and in_hook set: its event is
 * dropped). A hook that the grow interrupts, or that a handler's grow
 * interrupts, reads the capacity then the directory (pt_ft_cap): it sees
 * the old directory or the new one, both of which name its entry. */
void pt_throttle_grow(uint32_t id)
{
	pt_thread *t = pt_tls;
	if (!t || atomic_load_explicit(&t->guard, memory_order_relaxed) ||
	    __atomic_load_n(&t->log.in_hook, __ATOMIC_RELAXED) || !pt_throttle_calls)
		return;
	__atomic_store_n(&t->log.in_hook, 1, __ATOMIC_RELAXED);
	atomic_signal_fence(memory_order_seq_cst);
	int saved = errno;
	uint32_t old = pt_ft.cap;
	uint64_t want = pt_func_ids_end();
	if (want <= id)
		want = (uint64_t)id + 1;
	if (want < 2 * (uint64_t)old)
		want = 2 * (uint64_t)old;
	uint32_t ochunks = old >> PT_FCHUNK_SHIFT;
	uint64_t nchunks = (want + PT_FCHUNK - 1) >> PT_FCHUNK_SHIFT;
	if (nchunks > (UINT32_MAX >> PT_FCHUNK_SHIFT))
		nchunks = UINT32_MAX >> PT_FCHUNK_SHIFT;
	size_t ps = page_size();
	size_t head = (sizeof(fseg) + (size_t)nchunks * sizeof(pt_fstat *) + ps - 1) & ~(ps - 1);
	size_t chunk = (size_t)PT_FCHUNK * sizeof(pt_fstat);
	size_t len = head + (size_t)(nchunks - ochunks) * chunk;
	char *m = nchunks > ochunks
	              ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
	              : MAP_FAILED;
	if (m == MAP_FAILED) {
		pt_ft.grow = 0; /* the thread goes on with the ids it has */
	} else {
		fseg *g = (fseg *)(void *)m;
		g->prev = thr_segs;
		g->len = len;
		thr_segs = g;
		pt_fstat **dir = (pt_fstat **)(void *)(g + 1);
		if (ochunks)
			memcpy(dir, pt_ft.dir, ochunks * sizeof *dir);
		for (uint64_t c = ochunks; c < nchunks; c++)
			dir[c] = (pt_fstat *)(void *)(m + head + (size_t)(c - ochunks) * chunk);
		/* The directory whole before it is seen, and seen before the
		 * capacity that needs it (pt_ft_cap reads in the other order). */
		atomic_signal_fence(memory_order_seq_cst);
		__atomic_store_n(&pt_ft.dir, dir, __ATOMIC_RELAXED);
		atomic_signal_fence(memory_order_seq_cst);
		__atomic_store_n(&pt_ft.cap, (uint32_t)(nchunks << PT_FCHUNK_SHIFT),
		                 __ATOMIC_RELAXED);
	}
	errno = saved;
	atomic_signal_fence(memory_order_seq_cst);
	__atomic_store_n(&t->log.in_hook, 0, __ATOMIC_RELAXED);
}

/* A new THROTTLE_COUNTS record in t's log, mapped on its own. NULL when
 * it could not be written or mapped (the function is then not
 * throttled). */
static cblock *new_block(pt_thread *t, uint64_t now)
{
	static const pt_throttle_slot zero[PT_THROTTLE_SLOTS];
	const size_t size = sizeof(pt_rec_head) + sizeof zero;
	cblock *b = pt_bump_alloc(sizeof *b);
	if (!b)
		return NULL;
	pt_wlog *l = &t->log;
	uint64_t before = pt_wlog_length(l);
	pt_wlog_put(l, now, PT_REC_THROTTLE_COUNTS, PT_THROTTLE_SLOTS, zero, sizeof zero, NULL, 0);
	uint64_t after = pt_wlog_length(l);
	/* Written whole, and the last thing written (a LOST or TIME record
	 * would come before it). */
	if (after - before < size || (size_t)(l->cur - l->base) < size ||
	    ((const pt_rec_head *)(const void *)(l->cur - size))->kind != PT_REC_THROTTLE_COUNTS)
		return NULL;
	uint64_t off = after - size;
	size_t ps = page_size();
	uint64_t start = off & ~(uint64_t)(ps - 1);
	size_t len = (size_t)(((off + size + ps - 1) & ~(uint64_t)(ps - 1)) - start);
	char *m = pt_fd_mmap(&l->fd, len, PROT_READ | PROT_WRITE, MAP_SHARED, start);
	if (m == MAP_FAILED)
		return NULL;
	b->map = m;
	b->map_len = len;
	b->slots = (pt_throttle_slot *)(void *)(m + (off - start) + sizeof(pt_rec_head));
	b->prev = thr_blocks;
	thr_blocks = b;
	pt_spin_lock(&blocks_lock);
	b->all_next = all_blocks;
	all_blocks = b;
	pt_spin_unlock(&blocks_lock);
	return b;
}

int pt_throttle_decide(pt_thread *t, pt_fstat *s, uint32_t id, uint64_t now, int v1)
{
	uint32_t n = s->n;
	int64_t total = s->acc + (int64_t)s->open * (int64_t)now;
	/* A new round: the calls open now count from now in it. */
	s->n = 0;
	s->acc = -(int64_t)s->open * (int64_t)now;
	if (!n || total < 0 || (unsigned __int128)total >= (unsigned __int128)n * throttle_ticks)
		return 0;
	cblock *b = thr_blocks;
	if (!b || b->used == PT_THROTTLE_SLOTS)
		b = new_block(t, now);
	if (!b)
		return 0;
	pt_throttle_slot *slot = &b->slots[b->used];
	b->ids[b->used++] = id;
	uint64_t mean = (uint64_t)(((unsigned __int128)((uint64_t)total / n) * pt_clock.mult) >>
	                           pt_clock.shift);
	pt_rec_throttle r = {id, n, mean};
	pt_wlog_put(&t->log, now, PT_REC_THROTTLE, 0, &r, sizeof r, NULL, 0);
	slot->func_id = id;
	slot->count = 1; /* this call */
	if (v1)
		s->tdepth++;
	atomic_signal_fence(memory_order_seq_cst);
	s->count = &slot->count;
	if (!v1)
		pt_throttle_tls_bind(id, &slot->count);
	return 1;
}

/* The thread ends: no hook finds the table any more, then its mappings
 * go (the chunks with the grow that added them). */
static void drop_table(void)
{
	pt_ft.cap = 0;
	pt_ft.grow = 0;
	atomic_signal_fence(memory_order_seq_cst);
	pt_ft.dir = NULL;
	for (fseg *g = thr_segs, *prev; g; g = prev) {
		prev = g->prev;
		munmap(g, g->len);
	}
	thr_segs = NULL;
}

void pt_throttle_stop(void)
{
	pt_throttle_tls_clear(0);
	pt_ft.cap = 0;
	pt_ft.grow = 0;
}

/* The thread ends: its table and its records' mappings go. Not in a fatal
 * signal's handler, which may have interrupted this thread's hook in the
 * middle of a throttled call (the process ends anyway). */
static void throttle_thread_end(pt_thread *t)
{
	(void)t;
	if (pt_in_signal_shutdown())
		return;
	/* The modules' counts pointers first: calls after this one (the
	 * thread's TLS destructors) go to the hooks, which find no table. */
	pt_throttle_tls_clear(1);
	drop_table();
	pt_spin_lock(&blocks_lock);
	for (cblock *b = thr_blocks; b; b = b->prev) {
		munmap(b->map, b->map_len);
		b->dead = 1;
	}
	pt_spin_unlock(&blocks_lock);
	thr_blocks = NULL;
}

/* Fork child: every count mapping is the parent's log. The forking
 * thread's throttled functions start again unthrottled, with a log of
 * their own. A throttled call open across the fork records its exit
 * there, which matches no entry of the child's log (readers ignore such
 * an exit: docs/ABI.md). */
static void throttle_fork_child(void)
{
	pt_throttle_tls_fork_child();
	pt_spin_reset(&blocks_lock);
	for (cblock *b = thr_blocks; b; b = b->prev)
		for (uint32_t i = 0; i < b->used; i++)
			if (b->ids[i] < pt_ft.cap) {
				pt_fstat *s = pt_fstat_of(b->ids[i]);
				s->count = NULL;
				s->tdepth = 0;
			}
	for (cblock *b = all_blocks; b; b = b->all_next)
		if (!b->dead)
			munmap(b->map, b->map_len);
	all_blocks = NULL;
	thr_blocks = NULL;
}

PT_SUBSYSTEM(throttle_part) = {
    .name = "throttle",
    .order = PT_ORDER_HOOKS,
    .init = throttle_init,
    .thread_start = throttle_thread_start,
    .thread_end = throttle_thread_end,
    .fork_child = throttle_fork_child,
};
