/* SPDX-License-Identifier: MIT */
/* The I/O family's opens and closes: open, openat, creat (and their 64 and
 * _FORTIFY_SOURCE forms), fopen, fdopen, fclose, close. An open that
 * succeeds names its file (IO_FILE, with the kernel's name for the new
 * descriptor: the absolute path, whatever the program passed); a close
 * forgets it. close is also the descriptor guard's (core/pt_fd_guard.h):
 * on a runtime descriptor it fails with EBADF before anything else, and
 * such a call is not recorded (the program's descriptor was not open). */
#define _GNU_SOURCE
#include "io.h"
#include "pt_fd_guard.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

PT_REAL_DECL(openat);
PT_REAL_DECL(fopen);
PT_REAL_DECL(fdopen);
PT_REAL_DECL(fclose);
PT_REAL_DECL(close);

/* open's mode argument is there only with these flags. */
static inline int io_wants_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

static int io_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	int (*real)(int, const char *, int, ...) = PT_REAL(openat);
	int t = pt_io_begin_open(PT_IO_OP_OPEN);
	if (!t)
		return real(dirfd, path, flags, mode);
	int fd = real(dirfd, path, flags, mode);
	pt_io_end(PT_IO_OP_OPEN, fd, fd < 0, errno, fd);
	return fd;
}

/* open's and openat's mode: read only when the flags say it was passed. */
#define IO_MODE_ARG(flags, mode)                                                                   \
	do {                                                                                       \
		if (io_wants_mode(flags)) {                                                        \
			va_list ap_;                                                               \
			va_start(ap_, flags);                                                      \
			mode = va_arg(ap_, mode_t);                                                \
			va_end(ap_);                                                               \
		}                                                                                  \
	} while (0)

PT_EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	IO_MODE_ARG(flags, mode);
	return io_openat(AT_FDCWD, path, flags, mode);
}
PT_EXPORT int open64(const char *path, int flags, ...) __attribute__((alias("open")));

PT_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	IO_MODE_ARG(flags, mode);
	return io_openat(dirfd, path, flags, mode);
}
PT_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
    __attribute__((alias("openat")));

PT_EXPORT int creat(const char *path, mode_t mode)
{
	return io_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}
PT_EXPORT int creat64(const char *path, mode_t mode) __attribute__((alias("creat")));

/* _FORTIFY_SOURCE: an open without a mode whose flags need one, which
 * glibc's __open_2 turns into an abort; the same call, then, for the
 * program to get the same abort. */
PT_REAL_DECL(__open_2);
PT_REAL_DECL(__openat_2);
int __open_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);

PT_EXPORT int __open_2(const char *path, int flags)
{
	if (io_wants_mode(flags))
		return PT_REAL(__open_2)(path, flags);
	return io_openat(AT_FDCWD, path, flags, 0);
}
PT_EXPORT int __open64_2(const char *path, int flags) __attribute__((alias("__open_2")));

PT_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	if (io_wants_mode(flags))
		return PT_REAL(__openat_2)(dirfd, path, flags);
	return io_openat(dirfd, path, flags, 0);
}
PT_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
    __attribute__((alias("__openat_2")));

/* ---- streams -------------------------------------------------------------- */
static FILE *io_stream_opened(unsigned op, FILE *f)
{
	int e = errno;
	pt_io_depth--;
	int fd = f ? fileno_unlocked(f) : -1;
	pt_io_end(op, fd, f == NULL, e, fd);
	return f;
}

PT_EXPORT FILE *fopen(const char *path, const char *mode)
{
	FILE *(*real)(const char *, const char *) = PT_REAL(fopen);
	int t = pt_io_begin_open(PT_IO_OP_FOPEN);
	if (!t)
		return real(path, mode);
	pt_io_depth++;
	return io_stream_opened(PT_IO_OP_FOPEN, real(path, mode));
}
PT_EXPORT FILE *fopen64(const char *path, const char *mode) __attribute__((alias("fopen")));

PT_EXPORT FILE *fdopen(int fd, const char *mode)
{
	FILE *(*real)(int, const char *) = PT_REAL(fdopen);
	int t = pt_io_begin(PT_IO_OP_FDOPEN, fd, 0);
	if (!t)
		return real(fd, mode);
	pt_io_depth++;
	FILE *f = real(fd, mode);
	/* The stream's descriptor keeps the file it named. */
	int e = errno;
	pt_io_depth--;
	pt_io_end(PT_IO_OP_FDOPEN, f ? fd : -1, f == NULL, e, -1);
	return f;
}

PT_EXPORT int fclose(FILE *f)
{
	int (*real)(FILE *) = PT_REAL(fclose);
	int fd = f ? fileno_unlocked(f) : -1;
	int t = pt_io_begin(PT_IO_OP_FCLOSE, fd, 0);
	if (!t) {
		int r = real(f);
		if (fd >= 0)
			pt_io_fd_forget(fd);
		return r;
	}
	pt_io_depth++;
	int r = real(f);
	int e = errno;
	pt_io_depth--;
	/* Closed whatever fclose returns (a failed flush still closes). */
	if (fd >= 0)
		pt_io_fd_forget(fd);
	pt_io_end(PT_IO_OP_FCLOSE, r, r != 0, e, -1);
	return r;
}

PT_EXPORT int close(int fd)
{
	if (pt_fd_not_open(fd))
		return -1;
	int (*real)(int) = PT_REAL(close);
	int t = pt_io_begin(PT_IO_OP_CLOSE, fd, 0);
	/* Linux frees the number even when close fails (EINTR, EIO). */
	pt_io_fd_forget(fd);
	if (!t)
		return real(fd);
	int r = real(fd);
	pt_io_end(PT_IO_OP_CLOSE, r, r != 0, errno, -1);
	return r;
}
PT_EXPORT int __close(int fd) __attribute__((alias("close")));
