/* SPDX-License-Identifier: MIT */
/* The descriptor guard's wrappers (the dup and fcntl families, close_range;
 * close itself is the I/O family's, io/io_open.c, which guards it too): on
 * a runtime descriptor (core/pt_fd_guard.h) the program gets EBADF, as for
 * one that is not open; a range close skips them; a dup2/dup3 onto one
 * moves the runtime's descriptor away first (core/fds.c). */
#define _GNU_SOURCE
#include "pt_fd_guard.h"
#include "pt_interpose.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <unistd.h>

PT_REAL_DECL(close_range);
PT_REAL_DECL(dup);
PT_REAL_DECL(dup2);
PT_REAL_DECL(dup3);
PT_REAL_DECL(fcntl);

PT_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	int (*real)(unsigned, unsigned, int) = PT_REAL(close_range);
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (first <= last)
		pt_io_fd_forget_range(first, last);
	if (pt_likely(!pt_fd_any_ours()) || first > last)
		return real(first, last, flags);
	return pt_fd_close_range(first, last, flags, real);
}

PT_EXPORT void closefrom(int lowfd)
{
	if (lowfd < 0)
		lowfd = 0;
	if (close_range((unsigned)lowfd, ~0u, 0) == 0)
		return;
	/* No close_range(2) (Linux < 5.9): every number up to the limit. */
	struct rlimit rl;
	int max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < PT_FD_CAP ? (int)rl.rlim_cur
	                                                                        : (int)PT_FD_CAP;
	int saved = errno;
	for (int fd = lowfd; fd < max; fd++)
		close(fd);
	errno = saved;
}

PT_EXPORT int dup(int fd)
{
	return pt_fd_not_open(fd) ? -1 : PT_REAL(dup)(fd);
}

PT_EXPORT int dup2(int oldfd, int newfd)
{
	if (oldfd != newfd)
		pt_io_fd_forget(newfd);
	if (pt_likely(!pt_fd_any_ours()))
		return PT_REAL(dup2)(oldfd, newfd);
	return pt_fd_dup_onto(oldfd, newfd, -1, PT_REAL(dup2), PT_REAL(dup3));
}

PT_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	if (oldfd != newfd)
		pt_io_fd_forget(newfd);
	if (pt_likely(!pt_fd_any_ours()) || flags < 0)
		return PT_REAL(dup3)(oldfd, newfd, flags);
	return pt_fd_dup_onto(oldfd, newfd, flags, PT_REAL(dup2), PT_REAL(dup3));
}

/* Every command on a runtime descriptor fails as on a closed one (EBADF),
 * F_DUPFD and F_GETFD included: programs probe for free numbers with them. */
PT_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *); /* as glibc reads it: int, long or pointer */
	va_end(ap);
	return pt_fd_not_open(fd) ? -1 : PT_REAL(fcntl)(fd, cmd, arg);
}

/* The same functions under glibc's other names. */
PT_EXPORT int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));
PT_EXPORT int __fcntl(int fd, int cmd, ...) __attribute__((alias("fcntl")));
PT_EXPORT int __dup2(int oldfd, int newfd)
{
	return dup2(oldfd, newfd);
}

PT_SUBSYSTEM(fds_part) = {
    .name = "fds",
    .order = PT_ORDER_INTERPOSE,
};
