/* SPDX-License-Identifier: MIT */
/* The I/O family's data calls: read, write, their positioned and vector
 * forms, fsync, fdatasync, ioctl, fread, fwrite (io.h says what each
 * records). The 64 variants are the same functions on the 64-bit targets
 * the runtime is built for (off_t is 64 bits there), and so are aliases.
 * The _FORTIFY_SOURCE forms (__read_chk...) are the calls a fortified
 * program makes instead of read, pread and fread. */
#define _GNU_SOURCE
#include "io.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

_Static_assert(sizeof(off_t) == 8, "the 64 variants are aliases only where off_t is 64 bits");

PT_REAL_DECL_HOT(read);
PT_REAL_DECL_HOT(write);
PT_REAL_DECL_HOT(pread);
PT_REAL_DECL_HOT(pwrite);
PT_REAL_DECL_HOT(readv);
PT_REAL_DECL_HOT(writev);
PT_REAL_DECL_HOT(preadv);
PT_REAL_DECL_HOT(pwritev);
PT_REAL_DECL_HOT(fsync);
PT_REAL_DECL_HOT(fdatasync);
PT_REAL_DECL_HOT(ioctl);
PT_REAL_DECL_HOT(fread);
PT_REAL_DECL_HOT(fwrite);

/* One call that returns a byte count (or -1): IO_CALL, the real call,
 * IO_END. `call` is an expression of the real function. */
#define IO_BYTES_CALL(op, fd, size, call)                                                          \
	do {                                                                                       \
		int t_ = pt_io_begin(op, fd, size);                                                \
		if (!t_)                                                                           \
			return call;                                                               \
		ssize_t r_ = call;                                                                 \
		pt_io_end(op, r_, r_ < 0, r_ < 0 ? errno : 0, -1);                                 \
		return r_;                                                                         \
	} while (0)

static uint64_t io_iov_bytes(const struct iovec *iov, int n)
{
	uint64_t sum = 0;
	for (int i = 0; iov && i < n; i++)
		sum += iov[i].iov_len;
	return sum;
}

/* The first of the page the commonest wrappers share (PT_SYSCALL_TEXT). */
PT_EXPORT PT_SYSCALL_TEXT(0) __attribute__((aligned(4096))) ssize_t
    read(int fd, void *buf, size_t n)
{
	IO_BYTES_CALL(PT_IO_OP_READ, fd, n, PT_REAL(read)(fd, buf, n));
}

PT_EXPORT PT_SYSCALL_TEXT(1) ssize_t write(int fd, const void *buf, size_t n)
{
	IO_BYTES_CALL(PT_IO_OP_WRITE, fd, n, PT_REAL(write)(fd, buf, n));
}

PT_EXPORT PT_SYSCALL_TEXT(1) ssize_t pread(int fd, void *buf, size_t n, off_t at)
{
	IO_BYTES_CALL(PT_IO_OP_PREAD, fd, n, PT_REAL(pread)(fd, buf, n, at));
}
PT_EXPORT PT_HOT ssize_t pread64(int fd, void *buf, size_t n, off_t at)
    __attribute__((alias("pread")));

PT_EXPORT PT_SYSCALL_TEXT(1) ssize_t pwrite(int fd, const void *buf, size_t n, off_t at)
{
	IO_BYTES_CALL(PT_IO_OP_PWRITE, fd, n, PT_REAL(pwrite)(fd, buf, n, at));
}
PT_EXPORT PT_HOT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t at)
    __attribute__((alias("pwrite")));

PT_EXPORT PT_HOT ssize_t readv(int fd, const struct iovec *iov, int n)
{
	IO_BYTES_CALL(PT_IO_OP_READV, fd, io_iov_bytes(iov, n), PT_REAL(readv)(fd, iov, n));
}

PT_EXPORT PT_HOT ssize_t writev(int fd, const struct iovec *iov, int n)
{
	IO_BYTES_CALL(PT_IO_OP_WRITEV, fd, io_iov_bytes(iov, n), PT_REAL(writev)(fd, iov, n));
}

PT_EXPORT PT_HOT ssize_t preadv(int fd, const struct iovec *iov, int n, off_t at)
{
	IO_BYTES_CALL(PT_IO_OP_PREADV, fd, io_iov_bytes(iov, n), PT_REAL(preadv)(fd, iov, n, at));
}
PT_EXPORT PT_HOT ssize_t preadv64(int fd, const struct iovec *iov, int n, off_t at)
    __attribute__((alias("preadv")));

PT_EXPORT PT_HOT ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t at)
{
	IO_BYTES_CALL(PT_IO_OP_PWRITEV, fd, io_iov_bytes(iov, n), PT_REAL(pwritev)(fd, iov, n, at));
}
PT_EXPORT PT_HOT ssize_t pwritev64(int fd, const struct iovec *iov, int n, off_t at)
    __attribute__((alias("pwritev")));

PT_EXPORT PT_HOT int fsync(int fd)
{
	IO_BYTES_CALL(PT_IO_OP_FSYNC, fd, 0, PT_REAL(fsync)(fd));
}

PT_EXPORT PT_HOT int fdatasync(int fd)
{
	IO_BYTES_CALL(PT_IO_OP_FDATASYNC, fd, 0, PT_REAL(fdatasync)(fd));
}

/* glibc's prototype; the argument is read as glibc reads it (one word). */
PT_EXPORT PT_HOT int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	int (*real)(int, unsigned long, ...) = PT_REAL(ioctl);
	int t = pt_io_begin(PT_IO_OP_IOCTL, fd, 0);
	if (!t)
		return real(fd, request, arg);
	int r = real(fd, request, arg);
	pt_io_end(PT_IO_OP_IOCTL, r, r == -1, errno, -1);
	return r;
}

/* ---- stdio: bytes are items times the item size ------------------------- */
static inline int io_fileno(FILE *f)
{
	return f ? fileno_unlocked(f) : -1;
}

/* A stdio call moving n items of size bytes on f (`call`: the real one),
 * inside the stdio depth; a short count is a failure when the stream's
 * error flag says so (not at the end of a file). */
#define IO_STDIO_CALL(op, f, size, n, call)                                                        \
	do {                                                                                       \
		int t_ = pt_io_begin(op, io_fileno(f), (uint64_t)(size) * (n));                    \
		if (!t_)                                                                           \
			return call;                                                               \
		pt_io_depth++;                                                                     \
		size_t r_ = call;                                                                  \
		int e_ = errno;                                                                    \
		pt_io_depth--;                                                                     \
		pt_io_end(op, (int64_t)(r_ * (size)), r_ < (n) && ferror_unlocked(f), e_, -1);     \
		return r_;                                                                         \
	} while (0)

PT_EXPORT PT_HOT size_t fread(void *buf, size_t size, size_t n, FILE *f)
{
	IO_STDIO_CALL(PT_IO_OP_FREAD, f, size, n, PT_REAL(fread)(buf, size, n, f));
}

PT_EXPORT PT_HOT size_t fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
	IO_STDIO_CALL(PT_IO_OP_FWRITE, f, size, n, PT_REAL(fwrite)(buf, size, n, f));
}

/* ---- _FORTIFY_SOURCE ------------------------------------------------------ */
PT_REAL_DECL_HOT(__read_chk);
PT_REAL_DECL_HOT(__pread_chk);
PT_REAL_DECL_HOT(__fread_chk);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t at, size_t buflen);
size_t __fread_chk(void *buf, size_t buflen, size_t size, size_t n, FILE *f);

PT_EXPORT PT_HOT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	IO_BYTES_CALL(PT_IO_OP_READ, fd, n, PT_REAL(__read_chk)(fd, buf, n, buflen));
}

PT_EXPORT PT_HOT ssize_t __pread_chk(int fd, void *buf, size_t n, off_t at, size_t buflen)
{
	IO_BYTES_CALL(PT_IO_OP_PREAD, fd, n, PT_REAL(__pread_chk)(fd, buf, n, at, buflen));
}
PT_EXPORT PT_HOT ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t at, size_t buflen)
    __attribute__((alias("__pread_chk")));

PT_EXPORT PT_HOT size_t __fread_chk(void *buf, size_t buflen, size_t size, size_t n, FILE *f)
{
	IO_STDIO_CALL(PT_IO_OP_FREAD, f, size, n, PT_REAL(__fread_chk)(buf, buflen, size, n, f));
}
