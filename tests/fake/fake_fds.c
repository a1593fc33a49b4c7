/* SPDX-License-Identifier: MIT */
/* fds.c's descriptor calls as plain system calls, for tests that do not link
 * fds.c (a member of its own in the fake core's library): these tests do
 * not exercise the protection of the runtime's descriptors
 * (tests/intercept/fds.c does). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fake_core.h"
#include "pt_fd.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

int pt_fd_perf_open(int *slot, void *attr, const int *group)
{
	long fd =
	    syscall(SYS_perf_event_open, attr, 0, -1, group ? *group : -1, PERF_FLAG_FD_CLOEXEC);
	*slot = fd < 0 ? -1 : (int)fd;
	return fd < 0 ? -errno : 0;
}

int pt_fd_openat(int *slot, const int *dir, const char *path, int flags, mode_t mode)
{
	int fd = openat(dir ? *dir : AT_FDCWD, path, flags | O_CLOEXEC, mode);
	*slot = fd;
	return fd < 0 ? -errno : 0;
}

ssize_t pt_fd_pwrite(const int *slot, const void *buf, size_t len, uint64_t off)
{
	ssize_t r = pwrite(*slot, buf, len, (off_t)off);
	return r < 0 ? -errno : r;
}

void pt_fd_close(int *slot)
{
	if (*slot >= 0)
		close(*slot);
	*slot = -1;
}

ssize_t pt_fd_read(const int *slot, void *buf, size_t len)
{
	ssize_t r = read(*slot, buf, len);
	return r < 0 ? -errno : r;
}

ssize_t pt_fd_read_file(const char *path, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t r = read(fd, buf, len);
	close(fd);
	return r;
}
