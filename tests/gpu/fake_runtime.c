/* A stand-in for the runtime core (pt_runtime.h) so the GPU code can be unit
 * tested alone: records what gpu/ writes, in memory, instead of log files.
 * Its clock is a fake 2 GHz counter derived from CLOCK_MONOTONIC, so tests
 * can check the ns -> ticks conversion with a TSC-like clock. */
#include "fake_runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

fake_rec fake_recs[FAKE_MAX_RECS];
size_t fake_nrecs;
fake_file fake_files[FAKE_MAX_FILES];
size_t fake_nfiles;
int fake_warnings;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pt_config config = {.enabled = 1, .gpu = 1};
static int thread_token;

uint64_t fake_ticks_of_ns(uint64_t ns)
{
	return 2 * ns + 1000;
}

uint64_t fake_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* pt_now() is inline (pt_runtime.h): with the TSC off it reads
 * pt_mono_ns, which here gives ticks on a clock distinct from ns, so that
 * tests see any missing conversion. */
int pt_clock_use_tsc = 0;

uint64_t pt_mono_ns(void)
{
	return fake_ticks_of_ns(fake_mono_ns());
}

pt_thread *pt_enter(void)
{
	return (pt_thread *)&thread_token;
}

void pt_leave(pt_thread *t)
{
	(void)t;
}

static void add(int where, uint64_t ticks, unsigned kind, unsigned arg, const void *p1, size_t l1,
		const void *p2, size_t l2)
{
	pthread_mutex_lock(&lock);
	if (fake_nrecs < FAKE_MAX_RECS) {
		fake_rec *r = &fake_recs[fake_nrecs++];
		memset(r, 0, sizeof *r);
		r->where = where;
		r->ticks = ticks;
		r->kind = kind;
		r->arg = arg;
		size_t n = l1 < sizeof r->payload ? l1 : sizeof r->payload;
		if (p1)
			memcpy(r->payload, p1, n);
		if (p2 && n + l2 <= sizeof r->payload)
			memcpy(r->payload + n, p2, l2);
		r->len = n + (p2 ? l2 : 0);
	}
	pthread_mutex_unlock(&lock);
}

void pt_emit(pt_thread *t, unsigned kind, unsigned arg, const void *payload, size_t len)
{
	(void)t;
	add(FAKE_THREAD, pt_now(), kind, arg, payload, len, NULL, 0);
}

void pt_emit2(pt_thread *t, unsigned kind, unsigned arg, const void *p1, size_t len1, const void *p2,
	      size_t len2)
{
	(void)t;
	add(FAKE_THREAD, pt_now(), kind, arg, p1, len1, p2, len2);
}

void pt_emit_at(pt_thread *t, uint64_t ticks, unsigned kind, unsigned arg, const void *payload, size_t len)
{
	(void)t;
	add(FAKE_THREAD, ticks, kind, arg, payload, len, NULL, 0);
}

uint32_t pt_thread_tid(const pt_thread *t)
{
	(void)t;
	return 1;
}

void pt_process_emit(unsigned kind, unsigned arg, const void *p1, size_t len1, const void *p2, size_t len2)
{
	add(FAKE_PROCESS, pt_now(), kind, arg, p1, len1, p2, len2);
}

pt_log_file *pt_log_file_open(const char *name, int file_kind, uint64_t stream)
{
	pthread_mutex_lock(&lock);
	fake_file *f = NULL;
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
	pthread_mutex_unlock(&lock);
	return (pt_log_file *)f;
}

void pt_log_file_emit(pt_log_file *lf, uint64_t ticks, unsigned kind, unsigned arg, const void *p1,
		      size_t len1, const void *p2, size_t len2)
{
	fake_file *f = (fake_file *)lf;
	if (ticks < f->last)
		f->out_of_order++;
	f->last = ticks;
	add(FAKE_FILE0 + (int)(f - fake_files), ticks, kind, arg, p1, len1, p2, len2);
}

void pt_log_file_close(pt_log_file *lf)
{
	((fake_file *)lf)->open = 0;
}

const pt_config *pt_config_get(void)
{
	return &config;
}

void pt_warn(const char *fmt, ...)
{
	(void)fmt;
	fake_warnings++;
}

void pt_debug(int level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}

void *pt_real(const char *name)
{
	(void)name;
	return NULL;
}

void fake_reset(void)
{
	fake_nrecs = 0;
	fake_nfiles = 0;
	fake_warnings = 0;
}

const fake_rec *fake_find(int where, unsigned kind, size_t nth)
{
	for (size_t i = 0; i < fake_nrecs; i++)
		if (fake_recs[i].where == where && fake_recs[i].kind == kind && nth-- == 0)
			return &fake_recs[i];
	return NULL;
}

size_t fake_count(int where, unsigned kind)
{
	size_t n = 0;
	for (size_t i = 0; i < fake_nrecs; i++)
		n += fake_recs[i].where == where && fake_recs[i].kind == kind;
	return n;
}

int fake_file_index(const char *name)
{
	for (size_t i = 0; i < fake_nfiles; i++)
		if (!strcmp(fake_files[i].name, name))
			return (int)i;
	return -1;
}
