/* SPDX-License-Identifier: MIT */
/* Private to the report's OpenMP section (tools/report/report.h): what
 * omp_profile.c gathers and omp_profile_print.c prints. The printers
 * print nothing for a trace without OpenMP. */
#ifndef PT_OMP_PROFILE_H
#define PT_OMP_PROFILE_H

#include "omp_common.h"
#include "report.h"

typedef struct pf_omp pf_omp;
typedef struct pf_omp_shard pf_omp_shard;

/* What one shard found of one region instance: a thread's part of it, the
 * encountering thread's fork to join, or a task run in it. */
enum { PART_THREAD, PART_MASTER, PART_TASK };
typedef struct part {
	uint32_t pid;
	uint64_t id;
	uint32_t value; /* location */
	uint64_t busy, barrier, lock, tasks, task_ns;
	uint64_t dur; /* master: fork to join */
	uint16_t team;
	uint8_t what; /* PART_* */
	uint8_t open; /* still open at the end of the thread's log */
} part;

typedef struct work_stat {
	uint64_t entered, chunks, iters, thread_min, thread_max;
	unsigned sched;
	uint32_t chunk_size;
} work_stat;

typedef struct sync_stat {
	uint64_t arrivals, wait, wait_max;
} sync_stat;

typedef struct task_stat {
	uint64_t created, run, time, time_max, deps;
} task_stat;

/* Per-location figures, indexed by location value. */
typedef struct loc_stats {
	work_stat *work;
	sync_stat *sync;
	task_stat *task;
	size_t n;
} loc_stats;

typedef struct region_stat {
	uint64_t execs, open, time, team_sum, busy, barrier, lock, tasks, task_ns;
	double max_sum, mean_sum; /* imbalance */
} region_stat;

typedef struct thread_row {
	size_t shard;
	uint64_t cat[OMP_CAT_N];
} thread_row;

struct pf_omp {
	const pt_trace_ctx *ctx;
	omp_names *names;
	/* parts of all shards; grouped by (pid, id) at print time */
	part *parts;
	size_t nparts, capparts;
	loc_stats ls;
	thread_row *threads;
	size_t nthreads, capthreads;
	int oom;
};

void omp_report_text(void *global, unsigned nw, int short_form, unsigned top, FILE *o);
void omp_report_csv(void *global, FILE *o);
void omp_report_json(void *global, FILE *o);

#endif
