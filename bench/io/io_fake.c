/* SPDX-License-Identifier: MIT */
/* pread and write without a system call, for run.sh's stand-in rows:
 * preloaded after libtrace.so, they are the "real" functions its wrappers
 * call, so that a row measures the wrapper's own instructions and clock
 * reads with the TLB kept warm, and the difference to the real call's row
 * is what the system call's TLB flush makes the wrapper's pages cost (page
 * walks after each call, on a kernel with page-table isolation and no
 * PCID). */
#define _GNU_SOURCE
#include <sys/types.h>
#include <unistd.h>

__attribute__((visibility("default"))) ssize_t pread(int fd, void *buf, size_t n, off_t at)
{
	(void)fd;
	(void)buf;
	(void)at;
	return (ssize_t)n;
}

__attribute__((visibility("default"))) ssize_t write(int fd, const void *buf, size_t n)
{
	(void)fd;
	(void)buf;
	return (ssize_t)n;
}
