/* SPDX-License-Identifier: MIT */
/* Private to the profile tool: profile.c gathers, profile_print.c prints. */
#ifndef PT_PROFILE_H
#define PT_PROFILE_H

#include <paratrace/tool.h>
#include <pthread.h>
#include <stdio.h>

#define PF_CONTENDED_NS 1000

typedef struct pf_func {
	uint64_t calls, incl, incl_max, excl, excl_max;
	uint64_t cut; /* calls cut by lost data: counted, not timed */
} pf_func;

/* Calls whose times are known: the means divide by them. */
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

enum { PF_W_LOCK, PF_W_COND, PF_W_JOIN, PF_W_BARRIER, PF_W_N };

typedef struct pf_thread {
	size_t shard;
	uint64_t first, last;
	uint64_t wait[PF_W_N];
	uint64_t events;
	char *name; /* THREAD_NAME */
	int main;
} pf_thread;

/* The OpenMP section (omp_profile.c): pf_omp_event takes every record of
 * a thread log but function records once the thread's first OpenMP record
 * has come (*o is made then); pf_omp_shard_exit, under the tool's lock,
 * merges and frees it, and moves the thread's OpenMP waits into ts's
 * categories. The printers print nothing for a trace without OpenMP. */
typedef struct pf_omp pf_omp;
typedef struct pf_omp_shard pf_omp_shard;
pf_omp *pf_omp_new(const pt_trace_ctx *ctx);
void pf_omp_free(pf_omp *g);
void pf_omp_process_event(pf_omp *g, size_t process, const pt_event *ev);
int pf_omp_event(pf_omp *g, pf_omp_shard **o, const pt_shard_info *in, const pt_event *ev);
int pf_omp_shard_exit(pf_omp *g, pf_omp_shard *o, const pt_shard_info *in, pf_thread *ts,
                      uint64_t last_ns);
int pf_omp_has_data(const pf_omp *g);
void pf_omp_print_text(pf_omp *g, unsigned nw, int short_form, unsigned top, FILE *o);
void pf_omp_print_csv(pf_omp *g, FILE *o);
void pf_omp_print_json(pf_omp *g, FILE *o);

typedef struct pf_tool {
	const pt_trace_ctx *ctx;
	int format; /* 0 text, 1 csv, 2 json */
	int short_form;
	unsigned top;
	pthread_mutex_t lock;
	pf_func *f;
	size_t nf;
	pf_lock *l;
	size_t nl, capl;
	pf_thread *t; /* per shard */
	pf_omp *omp;
	/* JSON only: the kernel section (tool gpu-kernels, run inside this
	 * one on the GPU records), printed as the member "gpu_kernels" */
	const pt_tool *kt;
	void *kt_state;
} pf_tool;


/* print_results: text, CSV or JSON. */
int pf_print(void *tool, FILE *o);

#endif
