#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fake_core.h"
#include "pt_fd.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

pt_config fake_config;
char fake_warnings[8192];
static __thread pt_thread *fake_self;

pt_thread *fake_thread(void)
{
	if (!fake_self) {
		fake_self = calloc(1, sizeof *fake_self);
		fake_self->tid = (uint32_t)gettid();
	}
	return fake_self;
}

void fake_thread_free(void)
{
	free(fake_self);
	fake_self = NULL;
}

void fake_reset(pt_thread *t)
{
	t->nrecs = 0;
}

/* pt_now() is inline (pt_runtime.h): with the TSC off it reads this. */
int pt_clock_use_tsc = 0;

uint64_t pt_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

pt_thread *pt_enter(void)
{
	pt_thread *t = fake_self;
	if (!t || t->inside)
		return NULL;
	t->inside = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return t;
}

void pt_leave(pt_thread *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->inside = 0;
}

void pt_emit2(pt_thread *t, unsigned kind, unsigned arg, const void *p1, size_t len1,
	      const void *p2, size_t len2)
{
	if (t->nrecs == FAKE_MAX_RECORDS || len1 + len2 > FAKE_MAX_PAYLOAD)
		return;
	fake_rec *r = &t->recs[t->nrecs];
	r->kind = kind;
	r->arg = arg;
	r->len = len1 + len2;
	if (len1)
		memcpy(r->payload, p1, len1);
	if (len2)
		memcpy((char *)r->payload + len1, p2, len2);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->nrecs++;
}

void pt_emit(pt_thread *t, unsigned kind, unsigned arg, const void *payload, size_t len)
{
	pt_emit2(t, kind, arg, payload, len, NULL, 0);
}

uint32_t pt_thread_tid(const pt_thread *t)
{
	return t->tid;
}

const pt_config *pt_config_get(void)
{
	return &fake_config;
}

void pt_warn(const char *fmt, ...)
{
	va_list ap;
	size_t used = strlen(fake_warnings);
	va_start(ap, fmt);
	vsnprintf(fake_warnings + used, sizeof fake_warnings - used, fmt, ap);
	va_end(ap);
	used = strlen(fake_warnings);
	if (used + 1 < sizeof fake_warnings)
		strcat(fake_warnings, "\n");
}

void pt_debug(int level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}

void *pt_real(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* signals.c's side of the sampling signal: installed for real, and the
 * deliveries that are not the runtime's are counted instead of forwarded. */
int fake_forwarded;

int pt_signal_adopt(int sig, void (*h)(int, siginfo_t *, void *))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = h;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

void pt_signal_forward(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	fake_forwarded++;
}

/* fds.c's descriptor calls, as plain system calls: these tests do not
 * exercise the protection (tests/intercept/fds.py does). */
int pt_fd_perf_open(int *slot, void *attr, const int *group)
{
	long fd = syscall(SYS_perf_event_open, attr, 0, -1, group ? *group : -1,
			  PERF_FLAG_FD_CLOEXEC);
	*slot = fd < 0 ? -1 : (int)fd;
	return fd < 0 ? -errno : 0;
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
