/* SPDX-License-Identifier: MIT */
/* The timeline exports (paratrace export --format chrome|perfetto): one
 * event model, two encoders.
 *
 * timeline.c turns each thread's records into timeline events — nested
 * function slices (calls as analyzer/framework/pt_callstack.h says), lock /
 * condition / join / barrier waits, the instants that carry the flows of
 * thread creation and fork — and asks each family (pt_family.h) for what
 * its records add (tl_family below: slices of its own, flows, device rows,
 * counters); an encoder (chrome.c: trace-event JSON, perfetto.c:
 * Perfetto's protobuf TracePacket stream) writes them.
 *
 * Streaming with bounded memory: each shard writes its events to its own
 * temporary file while the workers run; finish writes the encoder's header
 * (processes and threads), the shards' files in order, what the families
 * write last (tl_late), then its footer. Flow ids need no matching across
 * shards: both ends compute them, all below 2^53 so that JSON readers keep
 * them exact. The core's: thread creation pid * 2^20 + create_seq, fork
 * 2^52 + child pid; a family's own are its to choose above those (MPI
 * messages 5 * 2^50 + n, GPU launches 6 * 2^50 + ...). */
#ifndef PT_TIMELINE_H
#define PT_TIMELINE_H

#include "pt_callstack.h"
#include "pt_family.h"
#include "pt_func_lookup.h"
#include "pt_select.h"
#include "pt_thin.h"
#include "row_label.h"

#include <stdint.h>
#include <stdio.h>

typedef struct tl_shard tl_shard;

/* What an encoder sees of a shard: where to write, and who it is. */
typedef struct tl_out {
	FILE *f;
	const pt_trace_ctx *ctx;
	const pt_shard_info *info;
	void *enc; /* the encoder's per-shard state (shard_init's result) */
	/* 0: the shard's own sequence of events; else events written on the
	 * shard's track at the end (MPI messages), as a sequence of their own */
	uint32_t seq;
} tl_out;

typedef struct tl_encoder {
	const char *name;        /* for messages: "Chrome trace", "Perfetto trace" */
	/* Per shard (all optional but the events): state for one shard's file. */
	void *(*shard_init)(tl_out *o);
	void (*shard_free)(void *enc);
	/* A function slice opens; `func` is the framework's function id. */
	void (*slice_begin)(tl_out *o, uint64_t t, uint32_t func);
	void (*slice_end)(tl_out *o, uint64_t t);
	/* A slice `name` of category `cat` opens (OpenMP regions, tasks,
	 * waits), nested with the function slices; slice_end closes it. */
	void (*span_begin)(tl_out *o, uint64_t t, const char *cat, const char *name);
	/* A wait on `what` ("mutex", "condition", ...) that lasted [t, t + dur];
	 * obj: the lock's address, 0 when there is none (join); obj_name: the
	 * lock's name as the report gives it ("result_mu", "q+0x28"), NULL
	 * when no symbol names it. Written when the wait ends, so after the
	 * records of the wait itself. */
	void (*wait)(tl_out *o, uint64_t t, uint64_t dur, const char *what, uint64_t obj,
	             const char *obj_name);
	/* A zero-length slice `name` at t that starts (out = 1) or ends flow
	 * `flow`, which stands for `flow_name` ("thread creation"). */
	void (*flow_point)(tl_out *o, uint64_t t, const char *name, int out, uint64_t flow,
			   const char *flow_name);
	/* A slice of its own over [t, t + dur] (a device row's kernel or copy,
	 * a thread's MPI call); flow: a flow (named flow_name) it ends, 0 none.
	 * Never overlapping another on a device row (the families clamp). */
	void (*device)(tl_out *o, uint64_t t, uint64_t dur, const char *cat, const char *name,
		       uint64_t flow, const char *flow_name);
	/* Optional: counter `index` (< TL_COUNTERS) of the row, called `name`
	 * (category cat), takes `value` at t. */
	void (*counter)(tl_out *o, uint64_t t, unsigned index, const char *cat, const char *name,
			double value);
	/* An instant `name` at t ("calls left out", a family's "I/O calls
	 * left out") summarising what the selection left out (pt_thin.h): n
	 * values, keys[0] "calls" how many, keys[1] "ns" the time they took
	 * that no slice shows, then the family's tallies ("bytes read"). */
	void (*left_out)(tl_out *o, uint64_t t, const char *name, size_t n, const char *const *keys,
	                 const uint64_t *values);
	/* The whole file: written before and after the shards' files. */
	int (*header)(FILE *f, const pt_trace_ctx *ctx);
	int (*footer)(FILE *f, const pt_trace_ctx *ctx);
} tl_encoder;

/* Counters a row may have. */
enum { TL_COUNTERS = 4 };

/* A family's calls on a thread that the selection leaves out like
 * function calls when they are shorter than --min-duration
 * (tl_sel_call): what their summary is called and what it sums besides
 * their count and time (the bytes they moved, say), so that totals read
 * off the export do not change. */
#define TL_TALLY_MAX 4
typedef struct tl_left_def {
	const char *name; /* the summary's: "I/O calls left out" */
	size_t ntally;    /* at most TL_TALLY_MAX */
	const char *tally[TL_TALLY_MAX];
} tl_left_def;

/* A family's calls left out since the last summary of the call around. */
typedef struct tl_fam_left {
	uint64_t n, ns, tally[TL_TALLY_MAX];
} tl_fam_left;

/* What the export writes of a shard (timeline_sel.c): the selection's
 * rows, window and calls (pt_select.h, pt_thin.h) between the records and
 * the encoder. */
typedef struct tl_item tl_item;
typedef struct tl_sel {
	tl_out *o;
	const tl_encoder *enc;
	uint64_t events; /* written */
	int skip;        /* the row is not selected: nothing is written */
	int window;      /* a time window is asked for */
	uint64_t lo, hi; /* the window (absolute ns, inclusive) */
	int open;        /* a thread's calls are written (inside the window) */
	int closed;      /* the window has closed on this thread */
	uint64_t edge;   /* a record at or after this time: tl_sel_cross */
	int thin;        /* calls are left out by the selection */
	pt_thin_in in;
	pt_thin_out out;
	tl_item *q; /* ring: what waits for the oldest undecided call */
	size_t qhead, qn, qcap;
	uint64_t seq_out;     /* the next entry to decide in the queue */
	unsigned fam_now;     /* the family whose hook runs (timeline.c sets it) */
	unsigned fam_pending; /* bit i: family i left calls out since the summary */
	tl_fam_left fam_left[PT_MAX_FAMILIES];
	int oom;
} tl_sel;

void tl_sel_init(tl_sel *q, tl_out *o, const tl_encoder *enc, const pt_select *sel);
void tl_sel_free(tl_sel *q);
void tl_sel_enter(tl_sel *q, uint64_t t, uint32_t id);
void tl_sel_exit(tl_sel *q, uint64_t t, size_t n, int cut);
/* obj_name: may be NULL; copied when kept for later. */
void tl_sel_wait(tl_sel *q, uint64_t t, uint64_t dur, const char *what, uint64_t obj,
                 const char *obj_name);
/* flow_name: a static string. */
void tl_sel_flow(tl_sel *q, uint64_t t, const char *name, int out, uint64_t flow,
                 const char *flow_name);
void tl_sel_device(tl_sel *q, uint64_t t, uint64_t dur, const char *cat, const char *name,
                   uint64_t flow, const char *flow_name);
/* A call of the family whose hook runs, on a thread, over [t, t + dur]: a
 * slice as tl_sel_device writes, unless it is shorter than --min-duration
 * and the family has a tl_left_def (tl_family.left); then it is left out
 * and summarised with its tallies (that many as the definition names). */
void tl_sel_call(tl_sel *q, uint64_t t, uint64_t dur, const char *cat, const char *name,
                 const uint64_t *tally);
/* The row's counter `index` holds `value` over [start, end] (clipped to
 * the window), then 0. */
void tl_sel_counter(tl_sel *q, uint64_t start, uint64_t end, unsigned index, const char *cat,
                    const char *name, double value);
/* A slice `name` of category `cat` (OpenMP regions, tasks, waits) opens at
 * t, nested with the calls; written when the row is selected and no time
 * window is asked for: 1 when written, and then tl_sel_span_end closes it. */
int tl_sel_span_begin(tl_sel *q, uint64_t t, const char *cat, const char *name);
void tl_sel_span_end(tl_sel *q, uint64_t t);
/* A thread's record at t >= q->edge: the window opens or closes. */
void tl_sel_cross(tl_sel *q, uint64_t t, const pt_callstack *cs);
/* The shard ended: what waited is written. */
void tl_sel_end(tl_sel *q);

/* ---- families ------------------------------------------------------------- */
/* What a family writes after the shards' files (its finish): flow points
 * whose other ends were only known once every shard had ended. */
typedef struct tl_late tl_late;
typedef struct tl_flow_pt {
	uint64_t t, flow;
	int out;
} tl_flow_pt;
/* n points (in time order) on shard's row, as a sequence of the row's own
 * (one per row): instants `name` of flows named `name` too. 0, or -1. */
int tl_late_flows(tl_late *w, size_t shard, const char *name, const tl_flow_pt *v, size_t n);

/* A family's part of the timeline exports (pt_family.h). Every hook is
 * optional. A shard's state for the family (*shard) starts NULL; the
 * family sets it in shard_init or when it likes. */
typedef struct tl_family {
	/* The records event and device_event receive: kinds in [kind_first,
	 * kind_last], and with all_after_first every record (but function
	 * records) once *shard is set (a family that follows a thread's state
	 * from its first record of the family's on). */
	unsigned kind_first, kind_last;
	int all_after_first;
	/* Global state in *global; -1: out of memory. */
	int (*init)(const pt_trace_ctx *ctx, void **global);
	/* Every process-log record (the serial pre-pass). */
	void (*process_event)(void *global, size_t process, const pt_event *ev);
	/* Each shard, before its records; -1: out of memory. */
	int (*shard_init)(void *global, const pt_shard_info *info, void **shard);
	/* A thread's record, after the call stack has seen it and before its
	 * waits are written; a device row's record (PT_FILE_GPU). -1: out of
	 * memory. */
	int (*event)(void *global, void **shard, tl_sel *q, const pt_event *ev);
	int (*device_event)(void *global, void **shard, tl_sel *q, const pt_event *ev);
	/* The shard's records end at last_ns: what the family opened closes
	 * (inside the calls still open, which close after). */
	void (*shard_end)(void *global, void *shard, tl_sel *q, uint64_t last_ns);
	/* Under the tool's lock: the shard's findings into global; frees the
	 * shard's state. -1: out of memory. */
	int (*shard_exit)(void *global, void *shard);
	/* After every shard's file (tl_late_flows). 0, or -1: out of memory. */
	int (*finish)(void *global, tl_late *w);
	void (*destroy)(void *global);
	/* Its calls the selection may leave out (tl_sel_call); NULL: none. */
	const tl_left_def *left;
} tl_family;

/* The core's flows (the families' are their own). */
static inline uint64_t tl_flow_thread(uint32_t pid, uint64_t create_seq)
{
	return ((uint64_t)pid << 20) + create_seq;
}
static inline uint64_t tl_flow_fork(uint32_t child_pid)
{
	return (1ull << 52) + child_pid;
}

/* Names shared by the encoders. */
static inline const char *tl_func_name(const pt_trace_ctx *ctx, uint32_t id)
{
	const pt_func_info *fi = pt_ctx_func_info(ctx, id);
	return fi ? fi->name : "?";
}

/* A thread's label, as every output has it (row_label.h), or "GPU stream 7". */
static inline void tl_thread_name(const pt_trace_ctx *ctx, const pt_shard_info *s, char *buf,
                                  size_t len)
{
	if (s->kind == PT_FILE_GPU)
		snprintf(buf, len, "GPU stream %llu", (unsigned long long)s->gpu_stream);
	else
		pt_thread_row_label(ctx, s, NULL, buf, len);
}

/* A wait slice's name: "wait mutex", or "wait mutex result_mu" where a
 * symbol names the lock (the report's and the .pcf's name of it). */
enum { TL_WAIT_NAME_MAX = 576 };
static inline void tl_wait_name(char *buf, size_t len, const char *what, const char *obj_name)
{
	if (obj_name)
		snprintf(buf, len, "wait %s %s", what, obj_name);
	else
		snprintf(buf, len, "wait %s", what);
}

/* "program (pid 4711)", an MPI rank "program rank 3 (pid 4711)". */
void tl_process_name(const pt_trace_ctx *ctx, size_t process, char *buf, size_t len);

#endif /* PT_TIMELINE_H */
