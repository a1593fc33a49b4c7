/* SPDX-License-Identifier: MIT */
/* Private to the profile tool: profile.c gathers, profile_print.c prints. */
#ifndef PT_PROFILE_H
#define PT_PROFILE_H

#include <paratrace/tool.h>
#include <pthread.h>
#include <stdio.h>

#define PF_CONTENDED_NS 1000

typedef struct fstat {
	uint64_t calls, incl, incl_max, excl, excl_max;
	uint64_t cut; /* calls cut by lost data: counted, not timed */
} fstat;

/* Calls whose times are known: the means divide by them. */
static inline uint64_t timed_calls(const fstat *x)
{
	return x->calls > x->cut ? x->calls - x->cut : 0;
}

static inline uint64_t mean(uint64_t total, const fstat *x)
{
	uint64_t n = timed_calls(x);
	return n ? total / n : 0;
}

typedef struct caller_wait {
	uint32_t id;
	uint64_t wait;
} caller_wait;

typedef struct lstat {
	uint32_t pid;
	uint64_t addr;
	unsigned what; /* pt_lock_type; 100 = condition */
	uint64_t acq, contended, wait, wait_max, failed;
	caller_wait *callers; /* small list: functions that waited */
	size_t ncallers;
} lstat;

enum { W_LOCK, W_COND, W_JOIN, W_BARRIER, W_N };

typedef struct tstat {
	size_t shard;
	uint64_t first, last;
	uint64_t wait[W_N];
	uint64_t events;
	char *name; /* THREAD_NAME */
	int main;
} tstat;

typedef struct pf_tool {
	const pt_trace_ctx *ctx;
	int format; /* 0 text, 1 csv, 2 json */
	int short_form;
	unsigned top;
	pthread_mutex_t lock;
	fstat *f;
	size_t nf;
	lstat *l;
	size_t nl, capl;
	tstat *t; /* per shard */
} pf_tool;

/* print_results: text, CSV or JSON. */
int pf_print(void *tool, FILE *o);

#endif
