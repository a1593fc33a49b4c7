/* SPDX-License-Identifier: MIT */
/* The runtime's own file descriptors (fds.c): trace and process folders,
 * log files, perf events, and the few files it reads at once.
 *
 * They live out of the program's way and are protected from it:
 *  - each is moved to a high number (F_DUPFD_CLOEXEC from a floor below
 *    RLIMIT_NOFILE's soft limit) and is close-on-exec;
 *  - close, close_range, closefrom, dup, dup2, dup3 and fcntl are
 *    interposed: on one of these descriptors the program gets EBADF, as
 *    for a descriptor that is not open, and a range close skips them; a
 *    dup2/dup3 onto one moves the runtime's descriptor to another number
 *    first, then does what the program asked.
 * So the runtime never writes into, maps or truncates a file the program
 * owns, whatever the program does with its descriptors.
 *
 * The runtime keeps each descriptor in one int (its "slot") and reads it
 * there for every use, through the pt_fd_* calls below: a move updates the
 * slot while no use is in progress (pt_fd_use_begin/end). The calls are
 * raw system calls, never cancellation points, and they preserve nothing
 * else: callers keep errno themselves. */
#ifndef PT_FD_H
#define PT_FD_H

#include "pt_runtime.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/types.h>

/* Opens `path` relative to the descriptor in *dir (AT_FDCWD when dir is
 * NULL) with `flags` (O_CLOEXEC is added) and keeps the result in *slot.
 * 0, or -errno (*slot is then -1). */
PT_HIDDEN int pt_fd_openat(int *slot, const int *dir, const char *path, int flags, mode_t mode);
/* perf_event_open(attr, this thread, any CPU, group leader *group or none),
 * kept in *slot. 0, or -errno. */
PT_HIDDEN int pt_fd_perf_open(int *slot, void *attr, const int *group);
/* Closes the descriptor kept in *slot (nothing if it is -1); *slot = -1. */
PT_HIDDEN void pt_fd_close(int *slot);
/* Reads up to len bytes of a file the runtime opens and closes at once
 * (/proc, sysfs, an ELF header). Bytes read, or -errno. */
PT_HIDDEN ssize_t pt_fd_read_file(const char *path, void *buf, size_t len);

/* System calls on a kept descriptor: -errno on failure (pt_fd_mmap:
 * MAP_FAILED with errno set). */
PT_HIDDEN ssize_t pt_fd_pwrite(const int *slot, const void *buf, size_t len, uint64_t off);
PT_HIDDEN ssize_t pt_fd_read(const int *slot, void *buf, size_t len);
PT_HIDDEN int pt_fd_ftruncate(const int *slot, uint64_t len);
/* flock(LOCK_EX | LOCK_NB): 0 or -errno. */
PT_HIDDEN int pt_fd_lock(const int *slot);
PT_HIDDEN void *pt_fd_mmap(const int *slot, size_t len, int prot, int flags, uint64_t off);
PT_HIDDEN int pt_fd_mkdirat(const int *dir, const char *name, mode_t mode);
PT_HIDDEN int pt_fd_unlinkat(const int *dir, const char *name);
/* Hints (posix_fadvise DONTNEED, sync_file_range WRITE): failures ignored. */
PT_HIDDEN void pt_fd_drop_cache(const int *slot, uint64_t off, uint64_t len);
PT_HIDDEN void pt_fd_start_writeback(const int *slot, uint64_t off, uint64_t len);

/* kernel.perf_event_paranoid, or -99 when it cannot be read: what the
 * perf events' warnings quote. */
static inline int pt_perf_paranoid(void)
{
	char buf[16];
	ssize_t n = pt_fd_read_file("/proc/sys/kernel/perf_event_paranoid", buf, sizeof buf - 1);
	if (n <= 0)
		return -99;
	buf[n] = 0;
	return atoi(buf);
}

/* Around any other use of a kept descriptor: between the two, the number
 * read from its slot stays the runtime's. Uses are short (one system call)
 * and may nest, with signals blocked or not (a signal handler that then
 * makes the program dup2 onto that descriptor gets EBUSY, see fds.c). */
PT_HIDDEN void pt_fd_use_begin(void);
PT_HIDDEN void pt_fd_use_end(void);

/* The same for the prefault helper (prefault.c), which has no TLS and calls
 * no libc: plain atomics on the counters fds.c moves descriptors by. */
extern PT_HIDDEN atomic_int pt_fd_users;
extern PT_HIDDEN atomic_int pt_fd_moving;
static inline __attribute__((always_inline)) void pt_fd_use_begin_raw(void)
{
	for (;;) {
		atomic_fetch_add(&pt_fd_users, 1);
		if (!atomic_load(&pt_fd_moving))
			return;
		atomic_fetch_sub(&pt_fd_users, 1);
		while (atomic_load_explicit(&pt_fd_moving, memory_order_relaxed))
			pt_cpu_relax();
	}
}
static inline __attribute__((always_inline)) void pt_fd_use_end_raw(void)
{
	atomic_fetch_sub_explicit(&pt_fd_users, 1, memory_order_release);
}

/* Fork (fork_exec.c): no descriptor is being created or moved across it. */
PT_HIDDEN void pt_fd_fork_prepare(void);
/* pt_fd_fork_prepare's lock if it is free, for a child of a raw fork (no
 * atfork handler ran): 0 when taken, -1 when a thread of the parent held it. */
PT_HIDDEN int pt_fd_fork_trylock(void);
PT_HIDDEN void pt_fd_fork_parent(void);
PT_HIDDEN void pt_fd_fork_child(void);

/* The runtime's own work never acts on a pending cancellation (a system
 * call in a wrapper or the thread's destructor would otherwise turn the
 * program's non-cancelling call into a cancellation, or end the thread
 * half-way through its log). Around calls into libraries that may reach
 * a cancellation point (libunwind, libpfm4); the runtime's own system
 * calls are raw ones. pt_nocancel_begin returns what pt_nocancel_end needs. */
static inline int pt_nocancel_begin(void)
{
	int old = PTHREAD_CANCEL_DISABLE;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	return old;
}

static inline void pt_nocancel_end(int old)
{
	if (old == PTHREAD_CANCEL_ENABLE)
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
}

#endif /* PT_FD_H */
