/* SPDX-License-Identifier: MIT */
/* What the descriptor guard's wrappers (proc/fd_guard.c) need of the core's
 * registry of runtime descriptors (fds.c): a lock-free test, read on every
 * close, dup and fcntl of the program (one load while the runtime holds
 * none), and the two calls that must hold the registry's lock. */
#ifndef PT_FD_GUARD_H
#define PT_FD_GUARD_H

#include "pt_runtime.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>

/* Descriptor numbers the bitmap covers: the kernel's default fs.nr_open. */
#define PT_FD_CAP (1u << 20)
extern PT_HIDDEN uint64_t pt_fd_bits[PT_FD_CAP / 64];
extern PT_HIDDEN atomic_int pt_fd_count; /* descriptors marked in pt_fd_bits */

static inline int pt_fd_is_ours(int fd)
{
	return fd >= 0 && (unsigned)fd < PT_FD_CAP &&
	       (__atomic_load_n(&pt_fd_bits[fd >> 6], __ATOMIC_ACQUIRE) >> (fd & 63) & 1);
}

static inline int pt_fd_any_ours(void)
{
	return atomic_load_explicit(&pt_fd_count, memory_order_acquire) != 0;
}

/* A runtime descriptor as the program must see it: not open (EBADF). */
static inline int pt_fd_not_open(int fd)
{
	if (pt_likely(!pt_fd_any_ours()) || !pt_fd_is_ours(fd))
		return 0;
	errno = EBADF;
	return 1;
}

/* The program's dup2 (flags < 0) or dup3 onto newfd, made with real2 or
 * real3: a runtime descriptor there is moved to another number first. */
PT_HIDDEN int pt_fd_dup_onto(int oldfd, int newfd, int flags, int (*real2)(int, int),
                             int (*real3)(int, int, int));

/* The program's close_range(2) on [first, last] less the runtime's
 * descriptors: `real` on each stretch between them. */
PT_HIDDEN int pt_fd_close_range(unsigned first, unsigned last, int flags,
                                int (*real)(unsigned, unsigned, int));

#endif /* PT_FD_GUARD_H */
