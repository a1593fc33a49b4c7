/* SPDX-License-Identifier: MIT */
/* Private to the profile tool: profile.c gathers, profile_print.c prints. */
#ifndef PT_PROFILE_H
#define PT_PROFILE_H

#include "nest.h"
#include "report.h"

#include <paratrace/tool.h>
#include <pthread.h>
#include <stdio.h>

#define PF_CONTENDED_NS 1000

typedef struct pf_func {
	uint64_t calls, incl, incl_max, excl, excl_max;
	uint64_t cut; /* calls cut by lost data: counted, not timed */
	/* Calls the runtime counted without recording them (throttled, in
	 * `calls`), the earliest time it began to (0: never), and the part
	 * of incl and excl that estimates their times from the recorded
	 * calls of the same thread (pf_shard_exit). */
	uint64_t throttled, since, est_incl, est_excl;
	uint64_t rt_mean; /* shard only: the runtime's mean, when none was recorded */
} pf_func;

/* Calls whose times are known or estimated: the means divide by them. */
static inline uint64_t timed_calls(const pf_func *x)
{
	return x->calls > x->cut ? x->calls - x->cut : 0;
}

static inline uint64_t mean(uint64_t total, const pf_func *x)
{
	uint64_t n = timed_calls(x);
	return n ? total / n : 0;
}

typedef struct pf_caller {
	uint32_t id;
	uint64_t wait;
} pf_caller;

typedef struct pf_lock {
	uint32_t pid;
	uint64_t addr;
	unsigned what; /* pt_lock_type; 100 = condition, 101 = futex */
	uint64_t acq, contended, wait, wait_max, failed;
	pf_caller *callers; /* small list: functions that waited */
	size_t ncallers;
} pf_lock;

typedef struct pf_tool {
	const pt_trace_ctx *ctx;
	int format; /* 0 text, 1 csv, 2 json */
	int short_form;
	int wide; /* names whole, whatever the terminal's width */
	unsigned top;
	pthread_mutex_t lock;
	pf_func *f;
	size_t nf;
	pf_lock *l;
	size_t nl, capl;
	pf_thread *t; /* per shard */
	uint8_t *hide; /* per shard: left out by the selection (its rows, its window) */
	const struct pt_select *sel; /* option "select": the framework's; NULL: everything */
	uint64_t thr_left; /* calls the runtime throttled, which a window leaves out */
	void *fam[PT_MAX_FAMILIES]; /* the families' parts' global states */
	size_t nfam;
	/* JSON only: the families' sections in it (PF_IN_JSON), run inside
	 * this tool; they print members of its object */
	pt_nest inner;
	char inner_err[256];
} pf_tool;

/* Family i's part of the report, NULL if none. */
static inline const pf_family *pf_fam(size_t i)
{
	return pt_families[i]->report;
}


/* A thread's lifetime cut to the window [lo, hi] (it overlaps it). */
static inline void pf_clip_life(pf_thread *t, uint64_t lo, uint64_t hi)
{
	if (t->first < lo)
		t->first = lo;
	if (t->last > hi)
		t->last = hi;
}

/* print_results: text, CSV or JSON. */
int pf_print(void *tool, FILE *o);

#endif
