/* SPDX-License-Identifier: MIT */
/* See fake_core.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fake_core.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

fake_rec fake_recs[FAKE_MAX_SHARED];
size_t fake_nrecs;
fake_file fake_files[FAKE_MAX_FILES];
size_t fake_nfiles;
pt_config fake_config = {.enabled = 1, .gpu = 1};
int fake_tracing = 1;
int fake_auto_thread;
char fake_warnings[8192];
int fake_nwarnings;
_Atomic int fake_forwarded;
const char *fake_run_env = "PARATRACE_RUN=v1:00000000000000ab:2:1:0:/tmp/trace";
int fake_exec_prepared;
int fake_exec_closed, fake_exec_failed;
int fake_signal_shutdown;
int fake_shutdown_how, fake_shutdown_status, fake_shutdowns;

static __thread pt_thread *fake_self;
static pt_spin shared_lock; /* fake_recs, fake_files */

/* ---- clock ---------------------------------------------------------------- */

uint64_t fake_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t fake_ticks_of_ns(uint64_t ns)
{
	return 2 * ns + 1000;
}

/* pt_now() is inline (pt_runtime.h): with the TSC off it reads this. */
int pt_clock_use_tsc = 0;

uint64_t pt_mono_ns(void)
{
	return fake_ticks_of_ns(fake_mono_ns());
}

/* ---- threads and records ---------------------------------------------------- */

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

void fake_clear(pt_thread *t)
{
	t->nrecs = 0;
}

void fake_reset(void)
{
	if (fake_self)
		fake_clear(fake_self);
	pt_spin_lock(&shared_lock);
	fake_nrecs = 0;
	fake_nfiles = 0;
	pt_spin_unlock(&shared_lock);
	fake_warnings[0] = '\0';
	fake_nwarnings = 0;
}

static void fill(fake_rec *r, int where, uint64_t ticks, unsigned kind, unsigned arg,
                 const void *p1, size_t len1, const void *p2, size_t len2)
{
	memset(r, 0, sizeof *r);
	r->where = where;
	r->ticks = ticks;
	r->kind = kind;
	r->arg = arg;
	size_t n = len1 < FAKE_MAX_PAYLOAD ? len1 : FAKE_MAX_PAYLOAD;
	if (p1)
		memcpy(r->payload, p1, n);
	if (p2 && n + len2 <= FAKE_MAX_PAYLOAD) {
		memcpy((char *)r->payload + n, p2, len2);
		n += len2;
	}
	r->len = n;
	r->written = len1 + len2;
	r->last = len2 && p2   ? ((const unsigned char *)p2)[len2 - 1]
	          : len1 && p1 ? ((const unsigned char *)p1)[len1 - 1]
	                       : -1;
}

pt_thread *pt_enter(void)
{
	if (!fake_tracing)
		return NULL;
	pt_thread *t = fake_self;
	if (!t && fake_auto_thread)
		t = fake_thread();
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

/* The thread's own array, also from its signal handlers: the record is
 * complete before the count says so. */
static void thread_put(pt_thread *t, uint64_t ticks, unsigned kind, unsigned arg, const void *p1,
                       size_t len1, const void *p2, size_t len2)
{
	if (t->nrecs == FAKE_MAX_RECORDS)
		return;
	fill(&t->recs[t->nrecs], FAKE_THREAD, ticks, kind, arg, p1, len1, p2, len2);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->nrecs++;
}

void pt_emit(pt_thread *t, unsigned kind, unsigned arg, const void *payload, size_t len)
{
	thread_put(t, pt_now(), kind, arg, payload, len, NULL, 0);
}

void pt_emit2(pt_thread *t, unsigned kind, unsigned arg, const void *p1, size_t len1,
              const void *p2, size_t len2)
{
	thread_put(t, pt_now(), kind, arg, p1, len1, p2, len2);
}

void pt_emit_at(pt_thread *t, uint64_t ticks, unsigned kind, unsigned arg, const void *payload,
                size_t len)
{
	thread_put(t, ticks, kind, arg, payload, len, NULL, 0);
}

void pt_emit_lock_at(pt_thread *t, uint64_t ticks, unsigned kind, unsigned type, uint64_t obj,
                     int result)
{
	pt_rec_lock rec = {obj, result, 0};
	thread_put(t, ticks, kind, type, &rec, sizeof rec, NULL, 0);
}

uint32_t pt_thread_tid(const pt_thread *t)
{
	return t->tid;
}

static void shared_put(int where, uint64_t ticks, unsigned kind, unsigned arg, const void *p1,
                       size_t len1, const void *p2, size_t len2)
{
	pt_spin_lock(&shared_lock);
	if (fake_nrecs < FAKE_MAX_SHARED)
		fill(&fake_recs[fake_nrecs++], where, ticks, kind, arg, p1, len1, p2, len2);
	pt_spin_unlock(&shared_lock);
}

void pt_process_emit(unsigned kind, unsigned arg, const void *p1, size_t len1, const void *p2,
                     size_t len2)
{
	shared_put(FAKE_PROCESS, pt_now(), kind, arg, p1, len1, p2, len2);
}

void pt_process_emit_from_handler(unsigned kind, const void *p, size_t len)
{
	shared_put(FAKE_PROCESS, pt_now(), kind, 0, p, len, NULL, 0);
}

pt_log_file *pt_log_file_open(const char *name, int file_kind, uint64_t stream)
{
	fake_file *f = NULL;
	pt_spin_lock(&shared_lock);
	if (fake_nfiles < FAKE_MAX_FILES) {
		f = &fake_files[fake_nfiles++];
		/* A slot an earlier test used: its `last` would count this file's
		 * first records as out of order. */
		memset(f, 0, sizeof *f);
		snprintf(f->name, sizeof f->name, "%s", name);
		f->kind = file_kind;
		f->stream = stream;
		f->open = 1;
	}
	pt_spin_unlock(&shared_lock);
	return (pt_log_file *)f;
}

void pt_log_file_emit(pt_log_file *lf, uint64_t ticks, unsigned kind, unsigned arg, const void *p1,
                      size_t len1, const void *p2, size_t len2)
{
	fake_file *f = (fake_file *)lf;
	if (ticks < f->last)
		f->out_of_order++;
	f->last = ticks;
	shared_put(FAKE_FILE0 + (int)(f - fake_files), ticks, kind, arg, p1, len1, p2, len2);
}

void pt_log_file_close(pt_log_file *lf)
{
	((fake_file *)lf)->open = 0;
}

const fake_rec *fake_find(int where, unsigned kind, size_t nth)
{
	const fake_rec *recs =
	    where == FAKE_THREAD ? (fake_self ? fake_self->recs : NULL) : fake_recs;
	size_t n = where == FAKE_THREAD ? (fake_self ? fake_self->nrecs : 0) : fake_nrecs;
	for (size_t i = 0; i < n; i++)
		if (recs[i].where == where && recs[i].kind == kind && nth-- == 0)
			return &recs[i];
	return NULL;
}

size_t fake_count(int where, unsigned kind)
{
	size_t n = 0;
	while (fake_find(where, kind, n))
		n++;
	return n;
}

int fake_file_index(const char *name)
{
	for (size_t i = 0; i < fake_nfiles; i++)
		if (!strcmp(fake_files[i].name, name))
			return (int)i;
	return -1;
}

/* ---- configuration, messages, real functions -------------------------------- */

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
	fake_nwarnings++;
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

/* ---- lifecycle -------------------------------------------------------------- */

int pt_tracing(void)
{
	return fake_tracing;
}

char fake_process_dir[4096] = "/tmp";

int pt_process_file_path(const char *name, char *buf, size_t len)
{
	if (!fake_tracing)
		return -1;
	int n = snprintf(buf, len, "%s/%s", fake_process_dir, name);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

void pt_publish_fence(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void pt_exec_prepare(void)
{
	fake_exec_prepared++;
}

/* fork.c's: no test here shares memory with a parent. */
int pt_own_process(void)
{
	return 1;
}

pt_thread *pt_exec_close(void)
{
	fake_exec_closed++;
	return NULL;
}

void pt_exec_failed(pt_thread *t)
{
	(void)t;
	fake_exec_failed++;
}

const char *pt_run_env_string(void)
{
	return fake_run_env;
}

int pt_in_signal_shutdown(void)
{
	return fake_signal_shutdown;
}

void pt_shutdown(int how, int status)
{
	fake_shutdown_how = how;
	fake_shutdown_status = status;
	fake_shutdowns++;
}

void pt_exit_status(int how, int status)
{
	(void)how;
	(void)status;
}

void pt_thread_start(const pt_rec_thread_start *start)
{
	(void)start;
}

void pt_thread_note_end(uint64_t retval, uint32_t flags)
{
	(void)retval;
	(void)flags;
}
