/* SPDX-License-Identifier: MIT */
/* paratrace analysis tools: the contract between the analysis framework
 * (`paratrace analyze/report/export`, analyzer/framework/) and a tool, built
 * in or loaded from a shared object with `--tool ./mytool.so`.
 *
 * Shape (after DynamoRIO drmemtrace's analysis_tool_t):
 *
 *   framework                              tool
 *   ---------                              ----
 *   scan the trace directory               init(ctx, options) -> tool state
 *   pre-pass: every process.ptl, serially  process_event(tool, process, ev)   [optional]
 *   shards (thread and GPU logs) on -j     per shard, on ONE worker thread:
 *   workers; every tool sees every shard     shard_init(tool, shard) -> shard state
 *   in the same single pass over the data    shard_event(shard state, ev)   (each record, in file order)
 *                                            shard_interval(shard state, id) at each interval end
 *                                            shard_exit(shard state)
 *   after all shards, on one thread:       combine_intervals(...) per whole-trace interval
 *                                          print_intervals(...), release_interval(...)
 *                                          finish(tool)        (e.g. merge files)
 *                                          print_results(tool, out)
 *                                          destroy(tool)
 *
 * Concurrency: shard callbacks of different shards run at the same time on
 * different workers; the callbacks of one shard always run on one worker, in
 * order, so shard state needs no lock. Anything a tool shares between shards
 * (its `tool` state) must be locked by the tool. init, process_event,
 * combine/print/release_interval, finish, print_results and destroy run on
 * the main thread while no shard callback runs.
 *
 * Errors: a callback that fails returns -1 (or NULL) and writes a message
 * into the err buffer it was given (shard_event: through shard_error()). The
 * framework stops the analysis and reports "tool NAME: FILE: offset N: MSG"
 * with the shard's file and the offset of the record being processed. Tools
 * never print errors themselves. Damaged or truncated logs are not tool
 * errors: the framework warns (file and offset), delivers every good record
 * before the damage, and calls shard_exit with complete = 0.
 *
 * Times: pt_event.time_ns is CLOCK_MONOTONIC nanoseconds, the same clock for
 * every file of a run. ctx->t0_ns is the earliest time in the run; Paraver
 * and the reports show times relative to it.
 *
 * A loadable tool is a shared object exporting
 *     const pt_tool *pt_tool_entry(void);
 * that returns a pt_tool with api_version == PT_TOOL_API_VERSION. Callbacks
 * left NULL are skipped. Build it with only this header (and <paratrace/log.h>):
 *     cc -shared -fPIC -I<prefix>/include mytool.c -o mytool.so
 * examples/tool/ holds a complete example.
 */
#ifndef PARATRACE_TOOL_H
#define PARATRACE_TOOL_H

#include <paratrace/log.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PT_TOOL_API_VERSION 1
#define PT_TOOL_ENTRY "pt_tool_entry"

typedef struct pt_trace_ctx pt_trace_ctx;

/* A function as the analyzer names it. Functions with the same demangled
 * name and file (from any module or process) share one id. */
typedef struct pt_func_info {
	const char *name;   /* demangled */
	const char *file;   /* source file, "" if unknown */
	uint32_t line;      /* 0 = unknown */
	const char *module; /* path of the module, "" if unknown */
} pt_func_info;

/* One process of the run (one Paraver task). */
typedef struct pt_process_info {
	size_t index;       /* into ctx->processes */
	uint32_t pid, ppid;
	unsigned task;      /* Paraver task number, 1-based; 0 if it has no shard */
	const char *program;
	const char *exe;    /* "" if unknown */
	const char *args;   /* command line, arguments separated by spaces; "" if unknown */
	int forked;         /* created by fork from a traced process */
	int parent;         /* index of the parent process, -1 if not traced */
	uint64_t fork_ns;   /* time of the fork in the parent, 0 if unknown */
	int exited;         /* an EXIT record was seen */
	int exit_how;       /* PT_EXIT_* */
	int exit_status;
	uint64_t exit_ns;
	size_t first_shard, nshards; /* its shards: ctx->shards[first_shard ..] */
} pt_process_info;

/* One shard: a thread log or a GPU log. */
typedef struct pt_shard_info {
	size_t index;  /* into ctx->shards; also the row order (task-major) */
	const char *path;
	int kind;      /* PT_FILE_THREAD or PT_FILE_GPU */
	uint32_t pid, tid;
	uint64_t gpu_stream;
	size_t process;      /* into ctx->processes */
	unsigned task;       /* Paraver task, 1-based */
	unsigned thread;     /* Paraver thread within the task, 1-based */
	unsigned row;        /* global thread number (= Paraver CPU), 1-based */
	uint64_t first_ns;   /* time of the first record; 0 if the log is empty */
	uint64_t bytes;      /* size of the file when scanned */
	const pt_file_header *header;
} pt_shard_info;

/* Services of the framework, reached through the ctx (so a loaded tool
 * needs no symbol from the paratrace executable). All are thread-safe. */
typedef struct pt_trace_ops {
	/* Analyzer-wide id (>= 1) of function `local_id` (FUNC_ENTER/EXIT id) of
	 * process `process`; 0 if the process log did not define it. */
	uint32_t (*func_id)(const pt_trace_ctx *ctx, size_t process, uint32_t local_id);
	/* Same for a code address (FUNC_ENTER_PC / EXIT_PC, start routines);
	 * 0 if no module maps it. */
	uint32_t (*func_id_pc)(const pt_trace_ctx *ctx, size_t process, uint64_t pc);
	/* Name of a function id; NULL if out of range. The pointer stays valid
	 * until the tool is destroyed. */
	const pt_func_info *(*func_info)(const pt_trace_ctx *ctx, uint32_t id);
	/* Number of function ids handed out so far (ids are 1..count). Grows
	 * while shards run when code addresses are resolved. */
	uint32_t (*func_count)(const pt_trace_ctx *ctx);
	/* The table behind func_id for process `process`, for tools that look
	 * ids up on every record: id = table[local_id] when local_id < *n and
	 * that is non-zero, else call func_id. Immutable once the pre-pass is
	 * over (from the first shard callback on); NULL with *n = 0 if empty. */
	const uint32_t *(*func_table)(const pt_trace_ctx *ctx, size_t process, size_t *n);
	/* For a long finish() step: how far it is ("writing x.prv", done of
	 * total units). The framework shows it only where the user sees a
	 * progress bar. Call it from the thread that runs finish(). */
	void (*progress)(const pt_trace_ctx *ctx, const char *what, uint64_t done, uint64_t total);
	/* A record of process `process`'s log, at byte `offset`, that the tool
	 * refuses (a value out of range, say) and goes on without: the
	 * framework warns "FILE: offset N: MSG", once per record however many
	 * tools refuse it. Call it from process_event. */
	void (*warn_process_record)(const pt_trace_ctx *ctx, size_t process, uint64_t offset,
	                            const char *msg);
} pt_trace_ops;

struct pt_trace_ctx {
	const char *dir;       /* the trace directory as given */
	size_t nshards;
	const pt_shard_info *shards;
	size_t nprocesses;
	const pt_process_info *processes;
	uint64_t t0_ns;        /* earliest record time of the run */
	uint64_t t_end_ns;     /* latest record time; valid from finish() on */
	uint64_t realtime0_ns; /* CLOCK_REALTIME at t0 (for dates), 0 if unknown */
	unsigned nworkers;     /* -j */
	uint64_t interval_ns;  /* --interval-us * 1000; 0 = no intervals */
	const char *output;    /* -o NAME: base name of output files (tools add extensions) */
	int quiet;             /* --quiet: print only what was asked for */
	const pt_trace_ops *ops;
	void *framework;       /* private */
};

static inline uint32_t pt_ctx_func_id(const pt_trace_ctx *c, size_t process, uint32_t local_id)
{
	return c->ops->func_id(c, process, local_id);
}
static inline uint32_t pt_ctx_func_id_pc(const pt_trace_ctx *c, size_t process, uint64_t pc)
{
	return c->ops->func_id_pc(c, process, pc);
}
static inline const pt_func_info *pt_ctx_func_info(const pt_trace_ctx *c, uint32_t id)
{
	return c->ops->func_info(c, id);
}
static inline uint32_t pt_ctx_func_count(const pt_trace_ctx *c)
{
	return c->ops->func_count(c);
}
static inline const uint32_t *pt_ctx_func_table(const pt_trace_ctx *c, size_t process, size_t *n)
{
	return c->ops->func_table(c, process, n);
}

/* Interval snapshots (--interval-us N). A tool's snapshot type embeds this
 * as its FIRST member; the framework fills these fields in. Interval k
 * (k >= 1) covers [t0 + (k-1)*N us, t0 + k*N us). A shard's snapshot for k
 * is taken when the shard's first record at or after the end of k arrives,
 * or at the shard's end; intervals in which a shard had no record get no
 * snapshot from it. */
typedef struct pt_interval_snapshot {
	uint64_t interval_id; /* k */
	uint64_t end_ns;      /* relative to t0: k * N us */
	size_t shard;         /* shard index; (size_t)-1 for whole-trace snapshots */
} pt_interval_snapshot;

typedef struct pt_tool {
	unsigned api_version; /* PT_TOOL_API_VERSION */
	const char *name;
	const char *description;

	/* Creates the tool's state. options: the text after ".so:" in
	 * --tool ./x.so:OPTIONS (or NULL). NULL + err on failure. Called before
	 * the pre-pass: shards, processes (pid, task) and t0 are known; process
	 * facts read from process logs (exe, args, exit) and function names
	 * are filled in by the time the first shard callback runs. */
	void *(*init)(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen);

	/* Serial pre-pass: every record of every process log (module maps,
	 * function tables, GPU kernel names, fork, exit), after init and
	 * before any shard. Most tools leave it NULL. -1 = error. */
	int (*process_event)(void *tool, size_t process, const pt_event *ev);

	void *(*shard_init)(void *tool, const pt_shard_info *shard, char *err, size_t errlen);
	/* Every record of the shard in file order. -1 = error (shard_error). */
	int (*shard_event)(void *shard_state, const pt_event *ev);
	/* The shard's records ended: last_ns is its last record's time; complete
	 * is 0 when the log was truncated or damaged (the framework has
	 * already warned). May free shard_state after copying what it keeps. */
	int (*shard_exit)(void *shard_state, uint64_t last_ns, int complete);
	/* Message for the last failure of this shard (valid until shard_exit). */
	const char *(*shard_error)(void *shard_state);

	/* Intervals: see pt_interval_snapshot. All four are needed for
	 * --interval-us to reach the tool; a tool with none ignores it. */
	pt_interval_snapshot *(*shard_interval)(void *shard_state, uint64_t interval_id);
	/* latest[i]: shard i's most recent snapshot with interval_id <= k (NULL
	 * if none). Returns a new whole-trace snapshot (never NULL); must not
	 * change the inputs. */
	pt_interval_snapshot *(*combine_intervals)(void *tool,
						   const pt_interval_snapshot *const *latest,
						   size_t nshards, uint64_t interval_id, uint64_t end_ns);
	int (*print_intervals)(void *tool, pt_interval_snapshot *const *whole, size_t n,
			       FILE *out);
	void (*release_interval)(void *tool, pt_interval_snapshot *snapshot);

	/* After every shard ended: whole-trace work (writing output files). */
	int (*finish)(void *tool, char *err, size_t errlen);
	/* Human-readable results on out (stdout unless --quiet). */
	int (*print_results)(void *tool, FILE *out);
	void (*destroy)(void *tool);
} pt_tool;

typedef const pt_tool *(*pt_tool_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* PARATRACE_TOOL_H */
