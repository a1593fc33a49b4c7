/* SPDX-License-Identifier: MIT */
/* Log files written through MAP_SHARED windows.
 *
 * A log is a file in the trace directory; the runtime maps a window of it
 * (PARATRACE_BUFFER_SIZE bytes) and appends records with plain stores.
 * Because the mapping is shared, every record is in the page cache the
 * moment it is written: a SIGKILL or a crash loses nothing already
 * appended, and no thread ever copies its buffer out. The file is extended
 * ahead of the data with written zeros (see reserve()); the unwritten tail
 * reads as zeros, which the format defines as the end of the data. When a
 * window is full the next one is mapped starting at the page that holds the
 * current position, so records never straddle a gap. With
 * PARATRACE_PREFAULT on (or auto, with idle CPUs), a busy log has that next
 * window prepared ahead by a helper thread (prefault.c).
 * On close the file is trimmed to its data. */
#define _GNU_SOURCE
#include "core.h"
#include "pt_fd.h"
#include "pt_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

size_t pt_window_size = 4u << 20;
/* A log's first window: an empty program's logs fit in a few pages, and
 * every page of the first window is written with zeros, mapped and trimmed
 * again (start-up of a traced empty program: 64 KiB cost about 0.1 ms more
 * than 16 KiB, measured on ext4). */
#define PT_FIRST_WINDOW (16u * 1024)
/* A log is busy, and worth a helper mapping its next window ahead, once its
 * windows have grown to this (past its first 100 KiB of records or so; never
 * with a smaller PARATRACE_BUFFER_SIZE). */
#define PT_BUSY_WINDOW (128u * 1024)
uint64_t pt_max_file_size;
atomic_uint_fast64_t pt_total_lost_records;
atomic_uint_fast64_t pt_total_lost_bytes;

static size_t page_size(void)
{
	static size_t ps;
	if (!ps)
		ps = (size_t)sysconf(_SC_PAGESIZE);
	return ps;
}

uint64_t pt_wlog_length(const pt_wlog *l)
{
	char *cur = __atomic_load_n(&l->cur, __ATOMIC_ACQUIRE);
	return l->win_off + (uint64_t)(cur - l->base);
}

static void set_limit(pt_wlog *l, char *limit)
{
	__atomic_store_n(&l->limit, limit, __ATOMIC_RELAXED);
}

/* Grows the file to at least `size` by writing zeros. Real writes, not
 * ftruncate: a sparse file on a full disk would raise SIGBUS at the first
 * store into the mapping; write(2) reports ENOSPC here instead. Not
 * fallocate either: on ext4 its unwritten extents make every first store
 * to a page of the mapping a costly page_mkwrite, while pages written by
 * write(2) are already in the page cache and dirty (measured: kernel time
 * per traced call about halved). 0 or -errno. */
const char *pt_zero_src;
size_t pt_zero_len;

/* The source of those zeros: a read-only anonymous mapping as large as a
 * window reads as zeros and costs no memory (its pages are the kernel's
 * zero page), and one write(2) of a whole window lets the page cache use
 * large folios, which the populate then maps in fewer steps (measured,
 * reserve + populate + unmap of a 4 MiB window on ext4: 1.05 -> 0.85 ms,
 * against 64 KiB writes from a static buffer, the fallback). */
static const char pt_small_zeros[64 * 1024];

static const char *zero_source(size_t *len)
{
	static pt_spin lock;
	const char *p = __atomic_load_n(&pt_zero_src, __ATOMIC_ACQUIRE);
	if (pt_unlikely(!p)) {
		/* Never re-entered on one thread: a hook raised by a signal
		 * handler meanwhile finds the thread inside the runtime. */
		pt_spin_lock(&lock);
		p = pt_zero_src;
		if (!p) {
			size_t n = pt_window_size > sizeof pt_small_zeros ? pt_window_size
									  : sizeof pt_small_zeros;
			void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m == MAP_FAILED) {
				m = (void *)pt_small_zeros;
				n = sizeof pt_small_zeros;
			}
			pt_zero_len = n;
			p = m;
			__atomic_store_n(&pt_zero_src, p, __ATOMIC_RELEASE);
		}
		pt_spin_unlock(&lock);
	}
	*len = pt_zero_len;
	return p;
}

/* Small reservations (a log's first windows) come from the fallback, a
 * buffer in the library's read-only data: its pages are in the page cache,
 * mapped by fault-around 16 at a time, where the anonymous source takes a
 * fault per page on its first use (measured, loaded 2-core VM: the first
 * 16 KiB write of a process 165 -> 85 us). */
static int reserve(pt_wlog *l, uint64_t size)
{
	size_t zlen = sizeof pt_small_zeros;
	const char *zeros = pt_small_zeros;
	if (size > l->reserved && size - l->reserved > zlen)
		zeros = zero_source(&zlen);
	while (l->reserved < size) {
		size_t n = size - l->reserved < zlen ? (size_t)(size - l->reserved) : zlen;
		ssize_t w = pt_fd_pwrite(&l->fd, zeros, n, l->reserved);
		if (w == -EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? (int)w : -ENOSPC;
		l->reserved += (uint64_t)w;
	}
	return 0;
}

/* When the calibration measured at `at` is next refreshed: once the run
 * is a quarter older (pt_clock_current says why). */
static uint64_t next_refresh(uint64_t at)
{
	return at ? at + (at - pt_clock.anchor_ticks) / 4 : UINT64_MAX;
}

/* Rewrites the header's tick_shift and tick_mult with the calibration of
 * now (measured over a longer span than the one there). */
static void refresh_clock(pt_wlog *l)
{
	_Static_assert(offsetof(pt_file_header, tick_mult) ==
			       offsetof(pt_file_header, tick_shift) + sizeof(uint32_t),
		       "tick_shift and tick_mult are adjacent");
	pt_clock_cal cal;
	uint64_t at;
	pt_clock_current(&cal, &at);
	l->next_cal = next_refresh(at);
	if (!at)
		return;
	char b[sizeof(uint32_t) + sizeof(uint64_t)];
	memcpy(b, &cal.shift, sizeof(uint32_t));
	memcpy(b + sizeof(uint32_t), &cal.mult, sizeof(uint64_t));
	pt_fd_pwrite(&l->fd, b, sizeof b, offsetof(pt_file_header, tick_shift));
}

static char *map_file(pt_wlog *l, uint64_t off, size_t len)
{
	char *p = pt_fd_mmap(&l->fd, len, PROT_READ | PROT_WRITE, MAP_SHARED, off);
	if (p == MAP_FAILED)
		return NULL;
	/* A fork child must not scribble on the parent's files: it gets its own
	 * logs (pt_fork_child), and the parent's windows simply vanish there. */
	madvise(p, len, MADV_DONTFORK);
	/* Map the whole window now, in one system call, instead of taking one
	 * fault per page on the hot path. Best effort. */
	madvise(p, len, MADV_POPULATE_WRITE);
	return p;
}

static pt_prefault *next_pf(pt_wlog *l)
{
	return &l->pf[!l->cur_pf];
}

/* The helper must be done with every window before it is unmapped or the
 * file shrinks under it (a touch past the end would raise SIGBUS in it). */
static void drop_ahead(pt_wlog *l)
{
	pt_prefault_wait(&l->pf[l->cur_pf]);
	if (!l->ahead)
		return;
	pt_prefault *pf = next_pf(l);
	pt_prefault_wait(pf);
	l->ahead = 0;
	if (pf->reserved > l->reserved)
		l->reserved = pf->reserved;
	if (pf->base)
		munmap(pf->base, pf->len);
}

/* Once a log's windows have grown to PT_BUSY_WINDOW it is a busy one: ask
 * the helper for the next window (mapped here when the helper is behind, see
 * map_self), twice the current one up to PARATRACE_BUFFER_SIZE, starting
 * at the current window's last page, where the record that does not fit
 * will start (unless it is larger than a page). The helper then pays for
 * the system calls and the first touch of every page (prefault.c). Not
 * with a size cap, whose window ends are computed at each switch. */
static void map_ahead(pt_wlog *l)
{
	if (pt_max_file_size || l->ahead || l->map_len < PT_BUSY_WINDOW ||
	    !pt_prefault_worth_it(&l->busy_counted))
		return;
	size_t zlen;
	zero_source(&zlen); /* the helper writes its zeros from there */
	pt_prefault *pf = next_pf(l);
	pt_prefault_wait(pf); /* the window before the current one: long done */
	pf->fd = &l->fd;
	pf->off = l->win_off + l->map_len - page_size();
	pf->len = l->map_len * 2 > pt_window_size ? pt_window_size : l->map_len * 2;
	pf->base = NULL;
	if (l->map_self) {
		if (reserve(l, pf->off + pf->len) != 0)
			return;
		if (!(pf->base = map_file(l, pf->off, pf->len)))
			return;
	}
	pf->reserved = l->reserved;
	l->ahead = pt_prefault_request(pf) == 0;
	if (!l->ahead && pf->base)
		munmap(pf->base, pf->len);
}

/* Windows of a log kept in the page cache behind the current one. */
#define PT_CACHE_WINDOWS 16

/* Called when a window becomes the current one: the file's pages before it
 * are never written again. Past the last PT_CACHE_WINDOWS windows, start
 * their writeback now, and drop from the page cache those whose writeback
 * was started at the previous switch (done by now unless the disk is slow:
 * the kernel keeps pages that are dirty, under writeback or mapped). A long
 * trace then stops growing the page cache: it no longer pushes the
 * program's own data out of memory, and its next windows reuse recycled
 * pages, which on the project's VMs cost the kernel several times less to
 * hand out than fresh ones (128 MiB of log: 208 -> 68 ms of system time).
 * Shorter logs are left alone: starting the writeback in the traced thread
 * costs it ~2 ns per call (bench/hooks, whose logs are deleted between
 * runs so that its pages are recycled anyway), which the flusher threads
 * otherwise pay. Both calls are hints whose failure loses nothing; tmpfs
 * ignores them. */
static void release_behind(pt_wlog *l)
{
	uint64_t keep = (uint64_t)PT_CACHE_WINDOWS * pt_window_size;
	if (l->win_off <= keep)
		return;
	uint64_t upto = l->win_off - keep;
	if (l->dropped < l->written_back) {
		pt_fd_drop_cache(&l->fd, l->dropped, l->written_back - l->dropped);
		l->dropped = l->written_back;
	}
	if (l->written_back < upto) {
		pt_fd_start_writeback(&l->fd, l->written_back, upto - l->written_back);
		l->written_back = upto;
	}
}

/* The window asked for by map_ahead if it holds [data_off, + need): it
 * becomes the current one. 0, or -1 (the caller maps one itself). */
static int take_ahead(pt_wlog *l, uint64_t data_off, size_t need)
{
	pt_prefault *pf = next_pf(l);
	int state = atomic_load_explicit(&pf->state, memory_order_acquire);
	/* Not mapped yet: the helper did not keep up with this log; the next
	 * window is mapped here and the helper only touches it. */
	l->map_self = state == PT_PF_QUEUED || state == PT_PF_PREPARING;
	pt_prefault_mapped(pf);
	l->ahead = 0;
	if (pf->reserved > l->reserved)
		l->reserved = pf->reserved;
	if (!pf->base || data_off < pf->off || data_off - pf->off + need > pf->len) {
		pt_prefault_wait(pf);
		if (pf->base)
			munmap(pf->base, pf->len);
		return -1;
	}
	pt_prefault_wait(&l->pf[l->cur_pf]);
	munmap(l->base, l->map_len);
	l->cur_pf = !l->cur_pf;
	l->base = pf->base;
	l->map_len = pf->len;
	l->end = pf->base + pf->len;
	l->win_off = pf->off;
	__atomic_store_n(&l->cur, l->base + (data_off - l->win_off), __ATOMIC_RELEASE);
	release_behind(l);
	map_ahead(l);
	if (pt_now() >= l->next_cal) /* hooks' records do not pass through put() */
		refresh_clock(l);
	return 0;
}

/* Maps a window holding file offset `data_off` with at least `need` bytes
 * after it. The old window is unmapped. 0, or a PT_LOST_* reason. */
static int map_window(pt_wlog *l, uint64_t data_off, size_t need, int ignore_limit)
{
	size_t ps = page_size();
	if (!ignore_limit && pt_max_file_size && data_off + need > pt_max_file_size)
		return PT_LOST_LIMIT;
	if (l->ahead && take_ahead(l, data_off, need) == 0)
		return 0;
	uint64_t off = data_off & ~(uint64_t)(ps - 1);
	/* Windows grow from 16 KiB to PARATRACE_BUFFER_SIZE, doubling: a
	 * short-lived thread does not pay for a large reservation. */
	size_t len = l->base ? l->map_len * 2 : PT_FIRST_WINDOW;
	if (len > pt_window_size)
		len = pt_window_size;
	size_t min = ((size_t)(data_off - off) + need + ps - 1) & ~(ps - 1);
	if (len < min)
		len = min;
	/* With a size cap, the window ends at the cap (plus the tail reserve)
	 * so the fast path cannot write past it. */
	size_t usable = len;
	if (!ignore_limit && pt_max_file_size && off + usable > pt_max_file_size + PT_TAIL_RESERVE)
		usable = (size_t)(pt_max_file_size + PT_TAIL_RESERVE - off);
	len = (usable + ps - 1) & ~(ps - 1);
	if (reserve(l, off + usable) != 0)
		return PT_LOST_NO_SPACE;
	char *p = map_file(l, off, len);
	if (!p)
		return PT_LOST_NO_MEMORY;
	if (l->base) {
		pt_prefault_wait(&l->pf[l->cur_pf]);
		munmap(l->base, l->map_len);
	}
	l->base = p;
	l->map_len = len;
	l->end = p + usable;
	l->win_off = off;
	__atomic_store_n(&l->cur, p + (data_off - off), __ATOMIC_RELEASE);
	release_behind(l);
	map_ahead(l);
	if (pt_now() >= l->next_cal) /* hooks' records do not pass through put() */
		refresh_clock(l);
	return 0;
}

/* map_window with every signal held back. A window switch keeps the
 * thread inside the runtime for a millisecond or so (zeros written, pages
 * populated, the old window unmapped): where a signal handler of the
 * program is most likely to interrupt the runtime. A handler that leaves
 * by longjmp would abandon the switch half done, and with it the thread's
 * tracing (its guard stays set: nothing is written, nothing breaks). Held
 * back, the signal is delivered after the switch; only its timing changes.
 * For the thread's own log, written only inside its runtime region (hooks'
 * slow path, interposed calls, its close), the mask is restored when the
 * region ends (pt_leave, pt_wlog_close), so the handler runs outside it;
 * for any other log here. Raw system calls: the program's sigprocmask is
 * interposed, and glibc's leaves its own signals out. */
static int map_window_masked(pt_wlog *l, uint64_t data_off, size_t need, int ignore_limit)
{
	uint64_t all = ~(uint64_t)0, old;
	int masked =
	    !l->masked && pt_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof old) == 0;
	int reason = map_window(l, data_off, need, ignore_limit);
	if (masked && pt_tls && l == &pt_tls->log) {
		l->saved_mask = old;
		l->masked = 1;
	} else if (masked) {
		pt_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof old);
	}
	return reason;
}

void pt_wlog_unmask(pt_wlog *l)
{
	if (l->masked) {
		l->masked = 0;
		pt_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &l->saved_mask, NULL,
		        sizeof l->saved_mask);
	}
}

static void note_lost(pt_wlog *l, uint64_t records, uint64_t bytes, uint32_t reason)
{
	l->lost_records += records;
	l->lost_bytes += bytes;
	l->last_acquired = 0; /* the lost record may have been an acquisition */
	l->ctx = 0;           /* or the record a compact one refers to */
	l->last_obj = 0;
	if (!l->lost_reason)
		l->lost_reason = reason;
	atomic_fetch_add(&pt_total_lost_records, records);
	atomic_fetch_add(&pt_total_lost_bytes, bytes);
}

void pt_wlog_note_nested(pt_wlog *l)
{
	__atomic_fetch_add(&l->nested_lost, 1, __ATOMIC_RELAXED);
	atomic_fetch_add(&pt_total_lost_records, 1);
}

/* Events dropped by signal handlers become lost records of this log (the
 * total for the warning at exit has them already). */
static void fold_nested(pt_wlog *l)
{
	uint32_t n = __atomic_exchange_n(&l->nested_lost, 0, __ATOMIC_RELAXED);
	l->lost_records += n;
	if (n && !l->lost_reason)
		l->lost_reason = PT_LOST_REENTRANT;
}

/* Where a record of `kind` starts if written at cur: function records at
 * any even offset, every other record at a multiple of 8, after 2-byte
 * pads (format 3.0; payloads stay aligned for readers). Stores the pads.
 * Space for them is part of PT_REC_ALIGN_SLACK in every space check. */
static inline char *align_for(char *cur, unsigned kind)
{
	if (pt_unlikely((uintptr_t)cur & 7) && !pt_rec_is_func(kind)) {
		while ((uintptr_t)cur & 7) {
			__atomic_store_n((uint16_t *)(void *)cur, PT_PAD16, __ATOMIC_RELAXED);
			cur += 2;
		}
	}
	return cur;
}

/* Stores a record at l->cur: payload first, head last (one 8-byte store),
 * so a reader of the live file or of a killed writer's file sees either
 * nothing (zeros: end) or the whole record. Space was checked. */
static void store(pt_wlog *l, pt_rec_head h, const void *p1, size_t len1, const void *p2,
		  size_t len2, size_t size)
{
	char *p = align_for(l->cur, h.kind);
	if (len1)
		memcpy(p + sizeof h, p1, len1);
	if (len2)
		memcpy(p + sizeof h + len1, p2, len2);
	size_t used = sizeof h + len1 + len2;
	if (used < size)
		memset(p + used, 0, size - used);
	uint64_t word;
	memcpy(&word, &h, sizeof word);
	__atomic_store_n((uint64_t *)(void *)p, word, __ATOMIC_RELEASE);
	__atomic_store_n(&l->cur, p + size, __ATOMIC_RELEASE);
}

/* A compact function record (format 2.0), as the hooks store it. */
static void store_compact(pt_wlog *l, uint32_t word)
{
	char *p = l->cur;
	__atomic_store_n((uint32_t *)(void *)p, word, __ATOMIC_RELEASE);
	__atomic_store_n(&l->cur, p + 4, __ATOMIC_RELEASE);
}

/* A short function record (format 3.0). */
static void store_short(pt_wlog *l, uint16_t word)
{
	char *p = l->cur;
	__atomic_store_n((uint16_t *)(void *)p, word, __ATOMIC_RELEASE);
	__atomic_store_n(&l->cur, p + 2, __ATOMIC_RELEASE);
}

static void store_time(pt_wlog *l, uint64_t ticks)
{
	pt_rec_head h = {PT_REC_TIME, 0, PT_REC_SIZE(TIME) / 8, 0};
	pt_rec_time t = {ticks};
	store(l, h, &t, sizeof t, NULL, 0, PT_REC_SIZE(TIME));
	l->last = ticks;
}

static void store_lost(pt_wlog *l)
{
	pt_rec_lost lost = {l->lost_records, l->lost_bytes, l->lost_reason, 0};
	pt_rec_head h = {PT_REC_LOST, 0, PT_REC_SIZE(LOST) / 8, 0};
	store(l, h, &lost, sizeof lost, NULL, 0, PT_REC_SIZE(LOST));
	l->lost_records = l->lost_bytes = 0;
	l->lost_reason = 0;
	l->last_func = 0; /* readers forget the previous function at a LOST */
	l->ctx = 0;       /* and the record compact ones refer to */
	l->last_obj = 0;
}

/* Makes room for `size` bytes of record at l->cur (plus a TIME record when
 * the delta overflows and a pending LOST record). 0, or -1 if the space
 * cannot be had (the record is then counted as lost). */
static int make_room(pt_wlog *l, size_t size, int overflow, int tail)
{
	size_t need = size + PT_REC_ALIGN_SLACK + (overflow ? PT_REC_SIZE(TIME) : 0) +
		      (l->lost_records ? PT_REC_SIZE(LOST) : 0);
	uintptr_t bound = (uintptr_t)(tail ? l->end : pt_wlog_fast_end(l));
	if (pt_likely(l->cur && (uintptr_t)l->cur + need <= bound))
		return 0;
	if (!tail)
		need += PT_TAIL_RESERVE; /* the next window keeps one too */
	if (l->retry_countdown && !tail) {
		/* Failed recently: do not pay a system call per dropped event. */
		l->retry_countdown--;
		return -1;
	}
	int saved = errno;
	int reason = map_window_masked(l, pt_wlog_length(l), need, tail);
	errno = saved;
	if (reason) {
		if (!l->lost_reason)
			l->lost_reason = (uint32_t)reason;
		l->retry_countdown = reason == PT_LOST_LIMIT ? UINT32_MAX : 4096;
		set_limit(l, NULL);
		return -1;
	}
	l->retry_countdown = 0;
	return 0;
}

static void put(pt_wlog *l, uint64_t ticks, pt_rec_head h, const void *p1, size_t len1,
		const void *p2, size_t len2, size_t size, int tail)
{
	if (ticks < l->last)
		ticks = l->last;
	if (pt_unlikely(__atomic_load_n(&l->nested_lost, __ATOMIC_RELAXED)))
		fold_nested(l);
	if (pt_unlikely(ticks >= l->next_cal))
		refresh_clock(l);
	uint64_t d = ticks - l->last;
	int overflow = d > UINT32_MAX;
	if (make_room(l, size, overflow, tail) != 0) {
		note_lost(l, 1, size, l->lost_reason ? l->lost_reason : PT_LOST_NO_SPACE);
		return;
	}
	if (l->lost_records)
		store_lost(l);
	if (overflow) {
		store_time(l, ticks);
		d = 0;
	}
	/* The function this record enters or exits, if it is a function record */
	uint64_t func = 0;
	if (pt_rec_is_func(h.kind)) {
		func = pt_rec_func_id(&h);
	} else if (pt_rec_is_func_pc(h.kind) && len1 >= sizeof func) {
		memcpy(&func, p1, sizeof func);
		func |= PT_FUNC_KEY_PC;
	}
	if (PT_WRITE_COMPACT && func && func == l->last_func && d < PT_SHORT_LIMIT) {
		store_short(l, pt_short_word(pt_rec_is_exit(h.kind), (uint32_t)d));
	} else if (PT_WRITE_COMPACT && pt_rec_is_func(h.kind) &&
	           pt_compact_fits((uint32_t)func, d)) {
		store_compact(l, pt_compact_word(h.kind, (uint32_t)func, (uint32_t)d));
	} else {
		h.delta = (uint32_t)d;
		store(l, h, p1, len1, p2, len2, size);
	}
	if (func)
		l->last_func = func;
	else if (h.kind == PT_REC_LOST)
		l->last_func = 0; /* readers forget the previous function at a LOST */
	l->last = ticks;
}

void pt_wlog_put(pt_wlog *l, uint64_t ticks, unsigned kind, unsigned arg, const void *p1,
		 size_t len1, const void *p2, size_t len2)
{
	if (pt_unlikely(l->dead) && pt_wlog_resume(l) != 0)
		return;
	size_t size = pt_rec_size_for(len1 + len2);
	if (size > PT_REC_MAX_SIZE) {
		note_lost(l, 1, size, PT_LOST_NO_MEMORY);
		return;
	}
	pt_rec_head h = {(uint8_t)kind, (uint8_t)arg, (uint16_t)(size / 8), 0};
	put(l, ticks, h, p1, len1, p2, len2, size, 0);
}

/* A record of its head and at most one word (h.size8 1 or 2), stored in
 * place when the window has room and nothing else is pending (a LOST
 * record, a TIME for a large delta): payload first, head last, as store()
 * does. 1 when stored; 0: the caller takes the general path. */
static inline int store_in_place(pt_wlog *l, uint64_t ticks, pt_rec_head h, uint64_t word)
{
	size_t size = (size_t)h.size8 * 8;
	char *cur = l->cur;
	char *end = pt_wlog_fast_end(l);
	if (!pt_likely(cur && end && cur + PT_REC_ALIGN_SLACK + size <= end && ticks >= l->last &&
		       ticks - l->last <= UINT32_MAX && !l->lost_records && !l->dead))
		return 0;
	cur = align_for(cur, h.kind);
	h.delta = (uint32_t)(ticks - l->last);
	uint64_t head;
	memcpy(&head, &h, sizeof head);
	if (size == 16)
		__atomic_store_n((uint64_t *)(void *)(cur + 8), word, __ATOMIC_RELAXED);
	__atomic_store_n((uint64_t *)(void *)cur, head, __ATOMIC_RELEASE);
	l->last = ticks;
	__atomic_store_n(&l->cur, cur + size, __ATOMIC_RELEASE);
	return 1;
}

void pt_wlog_put_word(pt_wlog *l, uint64_t ticks, unsigned kind, unsigned arg, uint64_t word)
{
	pt_rec_head h = {(uint8_t)kind, (uint8_t)arg, 2, 0};
	if (!store_in_place(l, ticks, h, word))
		pt_wlog_put(l, ticks, kind, arg, &word, sizeof word, NULL, 0);
}

/* A compact lock record (format 2.0) in place, under the conditions of
 * store_in_place and a delta that fits. 1 when stored. */
static inline int store_compact_lock(pt_wlog *l, uint64_t ticks, unsigned kind, unsigned type)
{
	char *cur = l->cur;
	char *end = pt_wlog_fast_end(l);
	if (!pt_likely(cur && end && cur + 4 <= end && ticks >= l->last &&
		       ticks - l->last < PT_COMPACT_LOCK_LIMIT && !l->lost_records && !l->dead))
		return 0;
	uint32_t word = pt_compact_lock_word(kind, type, (uint32_t)(ticks - l->last));
	__atomic_store_n((uint32_t *)(void *)cur, word, __ATOMIC_RELEASE);
	l->last = ticks;
	__atomic_store_n(&l->cur, cur + 4, __ATOMIC_RELEASE);
	return 1;
}

void pt_wlog_put_lock(pt_wlog *l, uint64_t ticks, unsigned kind, unsigned type, uint64_t obj,
		      int result)
{
	/* The lock acquired last, asked for, taken or released again: 4 bytes
	 * (2.0; the request 3.0), or for a release its head alone (1.2) when
	 * the delta is too large. */
	int same = obj && obj == l->last_acquired && result == 0;
	if (PT_WRITE_COMPACT && same &&
	    (kind == PT_REC_LOCK_ACQUIRED || kind == PT_REC_LOCK_RELEASED ||
	     kind == PT_REC_LOCK_REQUEST) &&
	    store_compact_lock(l, ticks, kind, type))
		return;
	if (kind == PT_REC_LOCK_RELEASED && same) {
		pt_rec_head h = {(uint8_t)kind, (uint8_t)type, PT_REC_SIZE(LOCK_RELEASED) / 8, 0};
		if (!store_in_place(l, ticks, h, 0) && !l->dead)
			put(l, ticks, h, NULL, 0, NULL, 0, PT_REC_SIZE(LOCK_RELEASED), 0);
		return;
	}
	/* set first: if the record is lost, note_lost clears it again */
	if (kind == PT_REC_LOCK_ACQUIRED)
		l->last_acquired = obj;
	if (pt_likely(result == 0)) {
		pt_wlog_put_word(l, ticks, kind, type, obj);
	} else {
		pt_rec_lock rec = {obj, result, 0};
		pt_wlog_put(l, ticks, kind, type, &rec, sizeof rec, NULL, 0);
	}
}

void pt_wlog_put_final(pt_wlog *l, uint64_t ticks, unsigned kind, unsigned arg, const void *p1,
		       size_t len1, const void *p2, size_t len2)
{
	if (pt_unlikely(l->dead) && pt_wlog_resume(l) != 0)
		return;
	size_t size = pt_rec_size_for(len1 + len2);
	if (size > PT_TAIL_RESERVE / 4) {
		/* Only small records may use the reserve. */
		pt_wlog_put(l, ticks, kind, arg, p1, len1, p2, len2);
		return;
	}
	pt_rec_head h = {(uint8_t)kind, (uint8_t)arg, (uint16_t)(size / 8), 0};
	put(l, ticks, h, p1, len1, p2, len2, size, 1);
}

void pt_wlog_put_func(pt_wlog *l, uint64_t ticks, unsigned kind, uint32_t id)
{
	if (l->dead)
		return;
	put(l, ticks, pt_rec_func(kind, id, 0), NULL, 0, NULL, 0, PT_REC_SIZE(FUNC_ENTER), 0);
}

static void fill_header(pt_wlog *l, pt_file_header *h, const pt_file_params *p)
{
	memset(h, 0, sizeof *h);
	memcpy(h->magic, PT_FORMAT_MAGIC, PT_FORMAT_MAGIC_LEN);
	h->version_major = PT_FORMAT_VERSION_MAJOR;
	h->version_minor = PT_FORMAT_VERSION_MINOR;
	h->header_size = sizeof *h;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	h->byte_order = PT_BYTE_ORDER_BIG;
#else
	h->byte_order = PT_BYTE_ORDER_LITTLE;
#endif
	h->file_kind = (uint8_t)p->kind;
	h->flags = pt_run_info.hdr_flags | (l->writer_lock ? PT_HDR_FLAG_WRITER_LOCK : 0);
	h->pid = pt_run_info.pid;
	h->tid = p->tid;
	h->ppid = pt_run_info.ppid;
	pt_clock_cal cal;
	uint64_t at;
	pt_clock_current(&cal, &at);
	l->next_cal = next_refresh(at);
	h->clock_source = cal.source;
	h->tick_shift = cal.shift;
	h->tick_mult = cal.mult;
	pt_clock_pair_now(&h->open);
	h->clock_offset_ns = pt_clock_mono_offset;
	h->run_id = pt_run_info.run_id;
	h->gpu_stream = p->gpu_stream;
	h->job_rank1 = pt_run_info.job_rank1;
	h->job_size = pt_run_info.job_size;
	h->job_world = pt_run_info.job_world;
	memcpy(h->program, pt_run_info.program, strnlen(pt_run_info.program, sizeof h->program - 1));
}

int pt_wlog_create(pt_wlog *l, const int *dirfd, const char *name, const pt_file_params *p)
{
	int saved = errno;
	memset(l, 0, sizeof *l);
	l->fd = -1;
	l->kind = p->kind;
	l->next_cal = UINT64_MAX; /* fill_header sets it */
	int e = pt_fd_openat(&l->fd, dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	if (e != 0) {
		errno = saved;
		return e;
	}
	/* Held until the descriptor goes (close, exec, the process's end):
	 * a follower knows then that the log cannot grow (format.h). */
	l->writer_lock = pt_fd_lock(&l->fd) == 0;
	int reason = map_window(l, 0, sizeof(pt_file_header) + 64, 0);
	if (reason) {
		e = reason == PT_LOST_NO_SPACE ? -ENOSPC : reason == PT_LOST_LIMIT ? -EFBIG : -ENOMEM;
		pt_fd_close(&l->fd);
		pt_fd_unlinkat(dirfd, name);
		memset(l, 0, sizeof *l);
		l->fd = -1;
		l->dead = 1;
		errno = saved;
		return e;
	}
	pt_file_header h;
	fill_header(l, &h, p);
	memcpy(l->base, &h, sizeof h);
	l->cur = l->base + sizeof h;
	store_time(l, h.open.ticks);
	set_limit(l, pt_wlog_fast_end(l));
	errno = saved;
	return 0;
}

static void trim(pt_wlog *l, uint64_t len)
{
	if (pt_fd_ftruncate(&l->fd, len) == 0)
		l->reserved = len;
}

/* CLOSE, then the file trimmed to the data; the descriptor stays, and the
 * window too unless unmap. Unmapped first, where it goes: a file shrunk
 * under a shared mapping has the pages past its new end taken out of the
 * mapping, a TLB flush on every CPU the process runs on, which the munmap
 * after would make again (a thread's end paid both). */
static void end_log(pt_wlog *l, int unmap)
{
	pt_clock_pair pair;
	pt_clock_pair_now(&pair);
	/* CLOSE (after a pending LOST) comes out of the tail reserve; it may
	 * exceed PARATRACE_MAX_SIZE by those few bytes: a complete log that
	 * says what it lost is worth more than the cap's last 128 bytes. */
	pt_rec_head h = {PT_REC_CLOSE, 0, PT_REC_SIZE(CLOSE) / 8, 0};
	l->retry_countdown = 0;
	put(l, pair.ticks, h, &pair, sizeof pair, NULL, 0, PT_REC_SIZE(CLOSE), 1);
	/* The helper must be done with our pages before the file shrinks under
	 * them (a touch past the end would raise SIGBUS in it). */
	drop_ahead(l);
	refresh_clock(l);
	uint64_t len = pt_wlog_length(l);
	if (unmap && l->base) {
		munmap(l->base, l->map_len);
		l->base = l->cur = l->end = NULL;
	}
	trim(l, len);
}

void pt_wlog_close(pt_wlog *l)
{
	if (l->dead || l->fd < 0)
		return;
	int saved = errno;
	set_limit(l, NULL);
	l->slow = 1;
	end_log(l, 1);
	pt_prefault_log_done(&l->busy_counted);
	l->dead = 1;
	pt_fd_close(&l->fd);
	pt_wlog_unmask(l); /* the end of the owner's region, if it is its own log */
	errno = saved;
}

void pt_wlog_suspend(pt_wlog *l)
{
	if (l->dead || l->fd < 0)
		return;
	int saved = errno;
	set_limit(l, NULL);
	end_log(l, 0);
	l->dead = 1;
	l->suspended = 1;
	errno = saved;
}

int pt_wlog_resume(pt_wlog *l)
{
	if (!l->suspended)
		return l->dead ? -1 : 0;
	int saved = errno;
	l->suspended = 0;
	/* The window's pages past the trimmed end come back as the file grows
	 * again (a shared mapping faults them in from the page cache). */
	int r = reserve(l, l->win_off + (uint64_t)(l->end - l->base));
	if (r == 0) {
		l->retry_countdown = 0;
		l->dead = 0;
	} else {
		static atomic_int warned;
		if (!atomic_exchange(&warned, 1))
			pt_warn("a log closed for an exec that failed cannot go on: %s; the events "
			        "after it are not recorded",
			        strerror(-r));
	}
	errno = saved;
	return r == 0 ? 0 : -1;
}

void pt_wlog_trim_live(pt_wlog *l)
{
	if (l->dead || l->fd < 0)
		return;
	int saved = errno;
	/* The helper must be done with the next window before the file
	 * shrinks under it; the owner's fast path never touches it. */
	drop_ahead(l);
	trim(l, pt_wlog_length(l) + PT_FAST_STORE_MAX);
	errno = saved;
}

void pt_wlog_close_quiet(pt_wlog *l)
{
	if (l->dead || l->fd < 0)
		return;
	int saved = errno;
	set_limit(l, NULL);
	l->slow = 1;
	uint64_t before = pt_wlog_length(l);
	/* Trimmed by pt_wlog_trim_live: the window's pages come back first. */
	uint64_t mapped = l->win_off + (uint64_t)(l->end - l->base);
	if (l->reserved < mapped && reserve(l, mapped) != 0) {
		l->dead = 1;
		errno = saved;
		return;
	}
	end_log(l, 0);
	uint64_t len = pt_wlog_length(l);
	/* The CLOSE is the last record written, unless there was no room
	 * for it: the events after it are then counted in the total only. */
	if (len >= before + PT_REC_SIZE(CLOSE)) {
		memcpy(l->close_rec, l->cur - PT_REC_SIZE(CLOSE), sizeof l->close_rec);
		l->close_off = len - PT_REC_SIZE(CLOSE);
	}
	pt_prefault_log_done(&l->busy_counted);
	l->dead = 1;
	errno = saved;
}

void pt_wlog_note_after_close(pt_wlog *l)
{
	/* Not in pt_total_lost_records: the exit's warning is about data the
	 * run failed to keep; events of threads still running while their
	 * process ends (a library's worker pool) are counted here, in the log,
	 * and analyze reports them. */
	uint64_t n = __atomic_add_fetch(&l->after_close, 1, __ATOMIC_RELAXED);
	if (!l->close_off)
		return;
	int saved = errno;
	/* LOST (at the time of the record before it: delta 0), then the
	 * CLOSE as it was. Written again while a signal handler of the owner
	 * counted one more meanwhile, so that the last write has the total. */
	for (;;) {
		char buf[PT_REC_SIZE(LOST) + PT_REC_SIZE(CLOSE)];
		pt_rec_head h = {PT_REC_LOST, 0, PT_REC_SIZE(LOST) / 8, 0};
		pt_rec_lost lost = {n, 0, PT_LOST_ENDED, 0};
		memcpy(buf, &h, sizeof h);
		memcpy(buf + sizeof h, &lost, sizeof lost);
		memcpy(buf + PT_REC_SIZE(LOST), l->close_rec, sizeof l->close_rec);
		pt_fd_pwrite(&l->fd, buf, sizeof buf, l->close_off);
		uint64_t now = __atomic_load_n(&l->after_close, __ATOMIC_RELAXED);
		if (now == n)
			break;
		n = now;
	}
	errno = saved;
}

void pt_wlog_forget(pt_wlog *l)
{
	pt_fd_close(&l->fd);
	l->dead = 1;
	l->base = l->cur = l->end = l->limit = NULL;
	/* Windows are MADV_DONTFORK and the helper does not exist here. */
	l->ahead = 0;
	l->busy_counted = 0;
	memset(l->pf, 0, sizeof l->pf);
}
