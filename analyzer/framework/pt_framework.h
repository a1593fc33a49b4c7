/* SPDX-License-Identifier: MIT */
/* The analysis framework (internal to the analyzer): runs tools written to
 * <paratrace/tool.h> over a trace directory in one parallel pass.
 *
 *   pt_fw_tool tools[2] = {{pt_tool_paraver(), NULL}, {0}};
 *   pt_fw_load_tool("./mytool.so:opts", &tools[1], err, sizeof err);
 *   pt_fw_options o = {.dir = dir, .jobs = 0, ...};
 *   if (pt_fw_run(&o, tools, 2, err, sizeof err)) -> error message in err
 *
 * The framework never prints: warnings, progress and results go to the
 * callbacks and FILE given in the options; the CLI decides where.
 */
#ifndef PT_FRAMEWORK_H
#define PT_FRAMEWORK_H

#include "pt_dist.h"

#include <paratrace/tool.h>
#include <stdio.h>

typedef struct pt_fw_tool {
	const pt_tool *tool;
	const char *options; /* passed to init */
	void *dl;            /* dlopen handle of a loaded tool (closed by pt_fw_unload_tool) */
} pt_fw_tool;

typedef struct pt_fw_options {
	const char *dir;
	const char *output;   /* base name for output files */
	unsigned jobs;        /* workers; 0 = all online CPUs */
	uint64_t interval_ns; /* 0 = no interval snapshots */
	int quiet;
	FILE *out;            /* print_results / print_intervals; NULL = no printing */
	/* One line per call, without trailing newline. */
	void (*warn)(void *arg, const char *msg);
	/* Called every ~0.2 s from the calling thread while shards run (what:
	 * "reading", units: bytes of logs) and while tools finish (their own
	 * label and units). elapsed_s: since that step began. */
	void (*progress)(void *arg, const char *what, uint64_t done, uint64_t total,
			 double elapsed_s);
	void *arg;
	const char *run; /* the run to analyze, of a trace holding several (pt_trace_pick_run) */
	/* What outputs show (pt_select.h); NULL: everything. Placed in the run
	 * once the process logs are read, before any shard. */
	const struct pt_select *select;
	/* Several analyzer processes (pt_dist.h): this one runs its share of
	 * the shards; NULL: one process. */
	pt_dist *dist;
} pt_fw_options;

/* Facts about the last run, for summaries and benchmarks. */
typedef struct pt_fw_stats {
	uint64_t events;  /* records delivered to tools */
	uint64_t bytes;   /* bytes of logs read */
	unsigned data_errors; /* logs that were damaged, truncated or skipped (warned) */
	size_t shards, processes;
	double seconds_shards; /* wall time of the parallel pass */
	double seconds_total;
	unsigned workers;
	unsigned processes_analyzing; /* analyzer processes (pt_dist.h) */
} pt_fw_stats;

/* Runs every tool over the trace. 0 on success (warnings may have been
 * reported), PT_FW_BAD_INPUT with a message in err when there is no trace
 * to read (path missing or unreadable, no logs, several runs and no run
 * picked), -1 with a message for other failures. stats may be NULL. */
#define PT_FW_BAD_INPUT (-2)
int pt_fw_run(const pt_fw_options *o, pt_fw_tool *tools, size_t ntools, pt_fw_stats *stats,
	      char *err, size_t errlen);

/* "path.so" or "path.so:options": dlopen + pt_tool_entry + version check. */
int pt_fw_load_tool(const char *spec, pt_fw_tool *out, char *err, size_t errlen);
void pt_fw_unload_tool(pt_fw_tool *t);

/* For built-in tools only: a loaded tool cannot reach these symbols. */
/* The function ids the process logs define, 1..n, numbered before any
 * shard runs; ids past n (functions known by code address) are numbered
 * in the order the shards, running in parallel, met them, so outputs must
 * not show them. */
uint32_t pt_fw_static_funcs(const pt_trace_ctx *ctx);
/* The distribution of the run the framework is doing (pt_fw_options.dist),
 * NULL for one process. */
const pt_dist *pt_fw_dist(const pt_trace_ctx *ctx);
/* The framework's selection (pt_fw_options.select), or NULL; its window
 * is placed from the first shard callback on. */
const struct pt_select *pt_fw_select(const pt_trace_ctx *ctx);

/* What the framework knows of a thread before its log is read: its
 * THREAD_START (near the log's start) and the names the process log gives
 * it (pthread_setname_np, prctl, PT_THREAD_NAME, its name at its end). */
typedef struct pt_fw_thread {
	const char *name; /* the last one it was given; NULL: none known */
	int main;
	uint64_t start_routine; /* 0: unknown */
	uint32_t creator;       /* tid; 0: unknown */
} pt_fw_thread;
/* Shard `shard`'s (all zero for a GPU stream's); valid from the first
 * shard callback on. */
const pt_fw_thread *pt_fw_thread_facts(const pt_trace_ctx *ctx, size_t shard);

/* The name of process `pid`'s object at `addr` (a lock) from the symbols
 * of the module that held it: "result_mu", or "q+0x28" inside one. 0, or
 * -1 when no symbol names it (the heap, the stack, a stripped module):
 * the outputs show the address then. Any time after the pre-pass. */
int pt_fw_object_name(const pt_trace_ctx *ctx, uint32_t pid, uint64_t addr, char *buf, size_t len);

/* The time of the last record in any log of process `process` (thread
 * and device logs): where a process that never recorded its end (killed,
 * or still running) was last seen alive. In a tool's finish. */
uint64_t pt_fw_process_last(const pt_trace_ctx *ctx, size_t process);

/* Online CPUs (default -j). */
unsigned pt_fw_default_jobs(void);

#endif
