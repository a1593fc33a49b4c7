/* SPDX-License-Identifier: MIT */
/* Messages on stderr with write(2): no stdio buffer of the program is
 * touched, so they are safe in the runtime's own paths and at exit. */
#define _GNU_SOURCE
#include "core.h"
#include "pt_sys.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static void vmessage(const char *fmt, va_list ap)
{
	char buf[512];
	int saved = errno;
	int n = snprintf(buf, sizeof buf, "paratrace[%d]: ", (int)getpid());
	if (n < 0)
		n = 0;
	int m = vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof buf - 2)
		len = sizeof buf - 2;
	buf[len++] = '\n';
	for (size_t off = 0; off < len;) {
		/* not write(): glibc's is a cancellation point */
		ssize_t w = pt_sys3(SYS_write, STDERR_FILENO, buf + off, len - off);
		if (w <= 0) {
			if (w == -EINTR)
				continue;
			break;
		}
		off += (size_t)w;
	}
	errno = saved;
}

void pt_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
}

void pt_debug(int level, const char *fmt, ...)
{
	if (pt_cfg.verbose < level)
		return;
	va_list ap;
	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
}
