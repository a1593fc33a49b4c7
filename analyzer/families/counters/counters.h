/* SPDX-License-Identifier: MIT */
/* The "counters" family: what counters, call stacks and
 * samples add to the report, and the Paraver events they become.
 *
 * Report (print_results), each part only when the trace has its records:
 *   - per-function counter totals (exclusive and inclusive) with IPC and
 *     misses per 1,000 instructions where instructions/cycles were counted;
 *   - lock contention, condition waits and thread creations by call site
 *     (PARATRACE_CALLSTACK);
 *   - a sample-based flat profile (PARATRACE_SAMPLING).
 *
 * Paraver: pt_counters_prv_* below turn a shard's records into Paraver
 * events (type, value) at record times, and write the matching .pcf
 * blocks, for the Paraver writer to merge into its own output:
 *   42000000 + PAPI preset index   counters with a PAPI preset equivalent
 *   44000000 + hash(name)          other counters (as Extrae's native ones)
 *   70000000 + L / 80000000 + L    caller function / caller file:line at
 *                                  level L (lock contention, cond wait,
 *                                  thread creation)
 *   30000000 + L / 30000100 + L    sampled call stack, function / line
 * docs/COUNTERS.md has the tables.
 */
#ifndef PT_TOOL_COUNTERS_H
#define PT_TOOL_COUNTERS_H

#include <paratrace/tool.h>
#include <stdint.h>
#include <stdio.h>

/* The report section (counters_report.c). */
const pt_tool *pt_tool_counters(void);

/* Paraver event type of a counter, from its perf_event type/config and its
 * name: the PAPI preset equivalent's 42000000 + index, else 44000000 +
 * a hash of the name (0..999999). `papi` (may be NULL) receives the preset
 * name ("PAPI_TOT_INS") or NULL. */
uint32_t pt_counters_prv_type(uint32_t perf_type, uint64_t perf_config, const char *name,
			      const char **papi);

/* Per-shard Paraver events. Thread-safe across shards. */
typedef void (*pt_prv_emit_fn)(void *arg, uint64_t time_ns, uint32_t type, int64_t value);
typedef struct pt_counters_prv pt_counters_prv;           /* whole trace */
typedef struct pt_counters_prv_shard pt_counters_prv_shard; /* one shard */
pt_counters_prv *pt_counters_prv_new(const pt_trace_ctx *ctx);
/* Every process-log record (serial pre-pass): the symbols that name call
 * stacks' frames. -1 on ENOMEM. */
int pt_counters_prv_process_event(pt_counters_prv *c, size_t process, const pt_event *ev);
pt_counters_prv_shard *pt_counters_prv_shard_new(pt_counters_prv *c, const pt_shard_info *shard);
/* Every record of the shard, in order; emit is called for each Paraver
 * event the record yields (time_ns as in pt_event). */
void pt_counters_prv_event(pt_counters_prv_shard *s, const pt_event *ev, pt_prv_emit_fn emit,
			   void *arg);
void pt_counters_prv_shard_free(pt_counters_prv_shard *s);
/* After all shards ended: the values that depend on the order shards ran
 * in get their final numbers, so that the output does not depend on -j:
 * function ids become func_value[id] (the writer's, kept until free), the
 * line labels are numbered in the order of their text. 1 if any value
 * emitted changes. */
int pt_counters_prv_renumber(pt_counters_prv *c, const uint32_t *func_value, uint32_t nfunc);
/* The final value of an event emitted as (type, *value): 1 if it changed. */
int pt_counters_prv_final_value(const pt_counters_prv *c, uint32_t type, int64_t *value);
/* .pcf EVENT_TYPE blocks for every type emitted (after all shards ended;
 * final values once renumbered). */
void pt_counters_prv_pcf(pt_counters_prv *c, FILE *pcf);
void pt_counters_prv_free(pt_counters_prv *c);

#endif
