/* SPDX-License-Identifier: MIT */
/* The runtime's descriptors, kept out of the program's way (pt_fd.h), and
 * what the wrappers that protect them need (pt_fd_guard.h; the wrappers,
 * close, dup2, fcntl and the like, are the process family's: proc/fd_guard.c).
 *
 * State:
 *  - a bitmap of the descriptors the runtime holds, read without a lock by
 *    the wrappers (one load when the runtime holds none);
 *  - a registry: descriptor -> the int where the runtime keeps it (its
 *    slot), under `fd_lock`, for moving a descriptor the program takes over.
 *
 * Locking. `fd_lock` serialises the runtime's opens and closes with the
 * program's dup2/dup3/close_range/closefrom: an open first gets the lowest
 * free number (the kernel gives no other), which is marked at once and then
 * moved above the floor; a range close or a dup2 of the program never runs
 * in between. A thread that holds it and is interrupted by a signal handler
 * that needs it goes on without it (fd_lock_depth): those paths are short
 * and the alternative is a deadlock.
 *
 * Moving a descriptor (the program's dup2/dup3 onto it): every use of a
 * descriptor by the runtime is bracketed by pt_fd_use_begin/end (a count of
 * uses in flight); the mover raises pt_fd_moving, waits for the count to
 * drop to 0, duplicates the descriptor elsewhere, updates its slots, and
 * lets uses go on, which read the new number; only then is the program's
 * call made. The mover blocks every signal meanwhile, so no handler on its
 * thread can wait for it. A dup2 made by a handler that interrupted the
 * runtime's own use of a descriptor on the same thread cannot wait for that
 * use: onto a runtime descriptor it fails with EBUSY, an error Linux's dup2
 * gives when it races with an open.
 *
 * What is not covered: raw system calls (pt_sys1(SYS_close, ...)) and other
 * calls on the runtime's numbers (write, mmap, ...), which the program can
 * only make on a descriptor it never opened. */
#define _GNU_SOURCE
#include "core.h"
#include "pt_fd.h"
#include "pt_fd_guard.h"
#include "pt_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

uint64_t pt_fd_bits[PT_FD_CAP / 64];
atomic_int pt_fd_count;

atomic_int pt_fd_users;
atomic_int pt_fd_moving;

static pt_spin fd_lock_word;
static __thread int fd_lock_depth __attribute__((tls_model("initial-exec")));
static __thread int fd_use_depth __attribute__((tls_model("initial-exec")));

typedef struct fd_entry {
	int fd;
	int *slot;
} fd_entry;
static fd_entry *fd_entries; /* under fd_lock */
static size_t fd_nentries, fd_capentries;

static void mark(int fd)
{
	__atomic_fetch_or(&pt_fd_bits[fd >> 6], 1ull << (fd & 63), __ATOMIC_RELEASE);
	atomic_fetch_add(&pt_fd_count, 1);
}

static void unmark(int fd)
{
	if (!pt_fd_is_ours(fd))
		return;
	__atomic_fetch_and(&pt_fd_bits[fd >> 6], ~(1ull << (fd & 63)), __ATOMIC_RELEASE);
	atomic_fetch_sub(&pt_fd_count, 1);
}

static void fd_lock(void)
{
	if (fd_lock_depth++)
		return; /* a handler that interrupted this thread's holder */
	atomic_signal_fence(memory_order_seq_cst);
	pt_spin_lock(&fd_lock_word);
}

static void fd_unlock(void)
{
	if (--fd_lock_depth)
		return;
	pt_spin_unlock(&fd_lock_word);
}

static uint64_t block_signals(void)
{
	uint64_t all = ~(uint64_t)0, old = 0;
	pt_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof old);
	return old;
}

static void restore_signals(uint64_t old)
{
	pt_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof old);
}

static void raw_close(int fd)
{
	pt_sys1(SYS_close, fd);
}

/* The lowest number the runtime's descriptors take: a quarter below the
 * soft limit, at most 768, so that they sit above what programs use (shells
 * keep theirs below 256) without growing the kernel's descriptor table past
 * its usual 1024 entries. Read at every open: the program may change the
 * limit. */
static int floor_fd(void)
{
	struct rlimit rl;
	rlim_t soft = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
	if (soft == RLIM_INFINITY || soft > 1024)
		soft = 1024;
	int f = (int)(soft - soft / 4);
	return f < 3 ? 3 : f;
}

/* Room for one more registry entry. 0, or -1 (out of memory). */
static int reserve_entry(void)
{
	if (fd_nentries < fd_capentries)
		return 0;
	size_t cap = fd_capentries ? fd_capentries * 2 : 512;
	fd_entry *e = pt_pages_alloc(cap * sizeof *e);
	if (!e)
		return -1;
	if (fd_entries) {
		memcpy(e, fd_entries, fd_nentries * sizeof *e);
		pt_pages_free(fd_entries, fd_capentries * sizeof *e);
	}
	fd_entries = e;
	fd_capentries = cap;
	return 0;
}

static void forget_entry(int fd, const int *slot)
{
	for (size_t i = 0; i < fd_nentries; i++)
		if (fd_entries[i].fd == fd && fd_entries[i].slot == slot) {
			fd_entries[i] = fd_entries[--fd_nentries];
			return;
		}
}

/* A descriptor the runtime just got (marked already, fd_lock held): moved
 * above the floor, registered, stored in *slot. 0, or -errno (closed). */
static int adopt(int fd, int *slot)
{
	if (reserve_entry() != 0) {
		unmark(fd);
		raw_close(fd);
		__atomic_store_n(slot, -1, __ATOMIC_RELAXED);
		return -ENOMEM;
	}
	int floor = floor_fd();
	if (fd < floor) {
		long hi = pt_sys3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, floor);
		/* No room up there: it stays where it is, protected all the same. */
		if (hi >= 0 && hi < PT_FD_CAP) {
			mark((int)hi);
			unmark(fd);
			raw_close(fd);
			fd = (int)hi;
		} else if (hi >= 0) {
			raw_close((int)hi);
		}
	}
	fd_entries[fd_nentries++] = (fd_entry){fd, slot};
	__atomic_store_n(slot, fd, __ATOMIC_RELEASE);
	return 0;
}

/* The kernel's answer to an open (fd or -errno), under fd_lock. */
static int take(long fd, int *slot)
{
	if (fd < 0) {
		__atomic_store_n(slot, -1, __ATOMIC_RELAXED);
		return (int)fd;
	}
	if (fd >= PT_FD_CAP) { /* beyond the bitmap: cannot be protected */
		raw_close((int)fd);
		__atomic_store_n(slot, -1, __ATOMIC_RELAXED);
		return -EMFILE;
	}
	mark((int)fd);
	return adopt((int)fd, slot);
}

int pt_fd_openat(int *slot, const int *dir, const char *path, int flags, mode_t mode)
{
	int saved = errno;
	fd_lock();
	int d = dir ? __atomic_load_n(dir, __ATOMIC_ACQUIRE) : AT_FDCWD;
	int r = take(pt_sys4(SYS_openat, d, path, flags | O_CLOEXEC, mode), slot);
	fd_unlock();
	errno = saved;
	return r;
}

int pt_fd_perf_open(int *slot, void *attr, const int *group)
{
	int saved = errno;
	fd_lock();
	int g = group ? __atomic_load_n(group, __ATOMIC_ACQUIRE) : -1;
	int r = take(pt_sys5(SYS_perf_event_open, attr, 0, -1, g, PERF_FLAG_FD_CLOEXEC), slot);
	fd_unlock();
	errno = saved;
	return r;
}

void pt_fd_close(int *slot)
{
	int saved = errno;
	fd_lock();
	int fd = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (fd >= 0) {
		forget_entry(fd, slot);
		unmark(fd);
		raw_close(fd);
	}
	__atomic_store_n(slot, -1, __ATOMIC_RELEASE);
	fd_unlock();
	errno = saved;
}

ssize_t pt_fd_read_file(const char *path, void *buf, size_t len)
{
	int saved = errno;
	fd_lock();
	long fd = pt_sys4(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	ssize_t got = 0;
	if (fd < 0 || fd >= PT_FD_CAP) {
		got = fd < 0 ? fd : -EMFILE;
		if (fd >= 0)
			raw_close((int)fd);
	} else {
		mark((int)fd);
		while ((size_t)got < len) {
			long n = pt_sys3(SYS_read, fd, (char *)buf + got, len - (size_t)got);
			if (n == -EINTR)
				continue;
			if (n <= 0) {
				if (n < 0 && got == 0)
					got = n;
				break;
			}
			got += n;
		}
		unmark((int)fd);
		raw_close((int)fd);
	}
	fd_unlock();
	errno = saved;
	return got;
}

void pt_fd_use_begin(void)
{
	if (fd_use_depth++ == 0)
		pt_fd_use_begin_raw();
}

void pt_fd_use_end(void)
{
	if (--fd_use_depth == 0)
		pt_fd_use_end_raw();
}

static int slot_fd(const int *slot)
{
	return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

ssize_t pt_fd_pwrite(const int *slot, const void *buf, size_t len, uint64_t off)
{
	pt_fd_use_begin();
	long r = pt_sys4(SYS_pwrite64, slot_fd(slot), buf, len, (off_t)off);
	pt_fd_use_end();
	return r;
}

ssize_t pt_fd_read(const int *slot, void *buf, size_t len)
{
	pt_fd_use_begin();
	long r = pt_sys3(SYS_read, slot_fd(slot), buf, len);
	pt_fd_use_end();
	return r;
}

int pt_fd_ftruncate(const int *slot, uint64_t len)
{
	pt_fd_use_begin();
	long r = pt_sys2(SYS_ftruncate, slot_fd(slot), (off_t)len);
	pt_fd_use_end();
	return (int)r;
}

int pt_fd_lock(const int *slot)
{
	pt_fd_use_begin();
	long r = pt_sys2(SYS_flock, slot_fd(slot), LOCK_EX | LOCK_NB);
	pt_fd_use_end();
	return (int)r;
}

void *pt_fd_mmap(const int *slot, size_t len, int prot, int flags, uint64_t off)
{
	pt_fd_use_begin();
	void *p = mmap(NULL, len, prot, flags, slot_fd(slot), (off_t)off);
	pt_fd_use_end();
	return p;
}

int pt_fd_mkdirat(const int *dir, const char *name, mode_t mode)
{
	pt_fd_use_begin();
	long r = pt_sys3(SYS_mkdirat, slot_fd(dir), name, mode);
	pt_fd_use_end();
	return (int)r;
}

int pt_fd_unlinkat(const int *dir, const char *name)
{
	pt_fd_use_begin();
	long r = pt_sys3(SYS_unlinkat, slot_fd(dir), name, 0);
	pt_fd_use_end();
	return (int)r;
}

void pt_fd_drop_cache(const int *slot, uint64_t off, uint64_t len)
{
	pt_fd_use_begin();
	posix_fadvise(slot_fd(slot), (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
	pt_fd_use_end();
}

void pt_fd_start_writeback(const int *slot, uint64_t off, uint64_t len)
{
	pt_fd_use_begin();
	/* Not glibc's sync_file_range: a cancellation point. */
	pt_sys4(SYS_sync_file_range, slot_fd(slot), (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
	pt_fd_use_end();
}

/* ---- fork -------------------------------------------------------------- */

void pt_fd_fork_prepare(void)
{
	fd_lock();
}

int pt_fd_fork_trylock(void)
{
	if (!pt_spin_trylock(&fd_lock_word))
		return -1;
	fd_lock_depth = 1;
	return 0;
}

void pt_fd_fork_parent(void)
{
	fd_unlock();
}

void pt_fd_fork_child(void)
{
	/* One thread here, which holds the lock and uses nothing; the helper
	 * and the other threads, whose uses were counted, are gone. */
	fd_lock_depth = 0;
	fd_use_depth = 0;
	atomic_store(&pt_fd_users, 0);
	atomic_store(&pt_fd_moving, 0);
	pt_spin_unlock(&fd_lock_word);
}

/* ---- the program takes a runtime descriptor's number -------------------- */

/* Moves the runtime's descriptor `fd` to another number (fd_lock held,
 * signals blocked). Afterwards fd is still open on the runtime's file but
 * no longer used by it: the caller lets the program's call replace it. If
 * no other number can be had, the slots are emptied (-1): the runtime loses
 * that descriptor (its log then records what it cannot write as lost)
 * rather than ever touching the program's file. */
static void move_away(int fd)
{
	atomic_store(&pt_fd_moving, 1);
	/* Pauses, then yields: a use may be preempted on a busy machine. */
	for (unsigned n = 0; atomic_load(&pt_fd_users); n++)
		pt_spin_wait_once(n);
	long to = pt_sys3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, floor_fd());
	if (to < 0)
		to = pt_sys3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
	if (to >= PT_FD_CAP) {
		raw_close((int)to);
		to = -1;
	}
	if (to >= 0)
		mark((int)to);
	for (size_t i = 0; i < fd_nentries;) {
		fd_entry *e = &fd_entries[i];
		if (e->fd != fd) {
			i++;
			continue;
		}
		/* A slot that no longer holds the number is stale: leave it. */
		if (__atomic_load_n(e->slot, __ATOMIC_RELAXED) == fd)
			__atomic_store_n(e->slot, (int)to, __ATOMIC_RELEASE);
		if (to >= 0) {
			e->fd = (int)to;
			i++;
		} else {
			*e = fd_entries[--fd_nentries];
		}
	}
	atomic_store(&pt_fd_moving, 0);
}

/* dup2/dup3 (dup2: flags < 0) of the program onto newfd, with the real
 * calls given. */
int pt_fd_dup_onto(int oldfd, int newfd, int flags, int (*real2)(int, int),
                   int (*real3)(int, int, int))
{
	if (pt_fd_not_open(oldfd))
		return -1;
	if (fd_lock_depth || fd_use_depth) {
		/* A handler that interrupted the runtime on this thread. */
		if (pt_fd_is_ours(newfd)) {
			errno = EBUSY;
			return -1;
		}
		return flags < 0 ? real2(oldfd, newfd) : real3(oldfd, newfd, flags);
	}
	fd_lock(); /* not while the runtime opens a descriptor: newfd may be it */
	int taken = pt_fd_is_ours(newfd) && oldfd != newfd;
	if (taken) {
		uint64_t mask = block_signals();
		move_away(newfd);
		restore_signals(mask);
	}
	int r = flags < 0 ? real2(oldfd, newfd) : real3(oldfd, newfd, flags);
	int e = errno;
	if (taken) {
		unmark(newfd);
		if (r < 0) /* newfd still holds the runtime's file: free it */
			raw_close(newfd);
	}
	fd_unlock();
	errno = e;
	return r;
}

/* The first runtime descriptor in [from, to], or to + 1 if there is none. */
static uint64_t next_ours(uint64_t from, uint64_t to)
{
	uint64_t stop = to < PT_FD_CAP ? to : PT_FD_CAP - 1;
	for (uint64_t fd = from; fd <= stop; fd = (fd | 63) + 1) {
		uint64_t w = __atomic_load_n(&pt_fd_bits[fd >> 6], __ATOMIC_ACQUIRE) >> (fd & 63);
		if (w) {
			uint64_t f = fd + (uint64_t)__builtin_ctzll(w);
			return f <= stop ? f : to + 1;
		}
	}
	return to + 1;
}

int pt_fd_close_range(unsigned first, unsigned last, int flags,
                      int (*real)(unsigned, unsigned, int))
{
	fd_lock(); /* no runtime descriptor appears meanwhile */
	int r = 0, e = 0;
	for (uint64_t lo = first; lo <= last;) {
		uint64_t ours = next_ours(lo, last);
		if (ours > lo && real((unsigned)lo, (unsigned)(ours - 1), flags) != 0 && !e) {
			r = -1;
			e = errno;
		}
		lo = ours + 1;
	}
	fd_unlock();
	if (e)
		errno = e;
	return r;
}
