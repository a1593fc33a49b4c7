/* SPDX-License-Identifier: MIT */
/* The timeline exports (paratrace export --format chrome|perfetto): one
 * event model, two encoders.
 *
 * timeline.c turns each thread's records into timeline events — nested
 * function slices (calls as analyzer/framework/pt_callstack.h says), lock / condition /
 * join / barrier waits, the instants that carry the flows of thread
 * creation, fork and GPU launches, and the GPU streams' kernels and copies
 * — and an encoder (chrome.c: trace-event JSON,
 * perfetto.c: Perfetto's protobuf TracePacket stream) writes them.
 *
 * Streaming with bounded memory: each shard writes its events to its own
 * temporary file while the workers run; finish writes the encoder's header
 * (processes and threads), the shards' files in order, then its footer.
 * Flow ids need no matching across shards: both ends compute them
 * (tl_flow_*), all below 2^53 so that JSON readers keep them exact. */
#ifndef PT_TIMELINE_H
#define PT_TIMELINE_H

#include "pt_callstack.h"
#include "pt_func_lookup.h"
#include "pt_select.h"
#include "pt_thin.h"

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
	 * obj: the lock's address, 0 when there is none (join). Written when the
	 * wait ends, so after the records of the wait itself. */
	void (*wait)(tl_out *o, uint64_t t, uint64_t dur, const char *what, uint64_t obj);
	/* A zero-length slice `name` at t that starts (out = 1) or ends flow
	 * `flow` (tl_flow_name says what the flow stands for). */
	void (*flow_point)(tl_out *o, uint64_t t, const char *name, int out, uint64_t flow);
	/* On a GPU stream's track: a kernel (cat "kernel") or a copy (cat
	 * "transfer") over [t, t + dur]; flow: the launch's flow it ends, 0 none.
	 * Never overlapping on one track (timeline.c clamps). */
	void (*device)(tl_out *o, uint64_t t, uint64_t dur, const char *cat, const char *name,
		       uint64_t flow);
	/* On a GPU stream (optional): counter `index` (< TL_COUNTERS, named
	 * tl_counter_names[index]) of the stream takes `value` at t. A kernel
	 * profiled inside (instrument.so) sets its counters at its start and
	 * back to 0 at its end. */
	void (*counter)(tl_out *o, uint64_t t, unsigned index, double value);
	/* An instant at t: `calls` calls left out by the selection took `ns`
	 * that no slice shows (pt_thin.h). */
	void (*left_out)(tl_out *o, uint64_t t, uint64_t calls, uint64_t ns);
	/* The whole file: written before and after the shards' files. */
	int (*header)(FILE *f, const pt_trace_ctx *ctx);
	int (*footer)(FILE *f, const pt_trace_ctx *ctx);
} tl_encoder;

/* The counters of a GPU stream's track (timeline.c). */
enum { TL_COUNTERS = 4 };
extern const char *const tl_counter_names[TL_COUNTERS];

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
	uint64_t seq_out; /* the next entry to decide in the queue */
	int oom;
} tl_sel;

void tl_sel_init(tl_sel *q, tl_out *o, const tl_encoder *enc, const pt_select *sel);
void tl_sel_free(tl_sel *q);
void tl_sel_enter(tl_sel *q, uint64_t t, uint32_t id);
void tl_sel_exit(tl_sel *q, uint64_t t, size_t n, int cut);
void tl_sel_wait(tl_sel *q, uint64_t t, uint64_t dur, const char *what, uint64_t obj);
void tl_sel_flow(tl_sel *q, uint64_t t, const char *name, int out, uint64_t flow);
void tl_sel_device(tl_sel *q, uint64_t t, uint64_t dur, const char *cat, const char *name,
                   uint64_t flow);
/* A GPU stream's counter `index` holds `value` over [start, end] (clipped
 * to the window), then 0. */
void tl_sel_counter(tl_sel *q, uint64_t start, uint64_t end, unsigned index, double value);
/* A slice `name` of category `cat` (OpenMP regions, tasks, waits) opens at
 * t, nested with the calls; written when the row is selected and no time
 * window is asked for: 1 when written, and then tl_sel_span_end closes it. */
int tl_sel_span_begin(tl_sel *q, uint64_t t, const char *cat, const char *name);
void tl_sel_span_end(tl_sel *q, uint64_t t);
/* A thread's record at t >= q->edge: the window opens or closes. */
void tl_sel_cross(tl_sel *q, uint64_t t, const pt_callstack *cs);
/* The shard ended: what waited is written. */
void tl_sel_end(tl_sel *q);

/* The tool over an encoder (writes ctx->output): each encoder file defines
 * its pt_tool with TL_TOOL(variable, its tl_encoder, name, description). */
void *tl_init(const tl_encoder *enc, const pt_trace_ctx *ctx, char *err, size_t errlen);
int tl_process_event(void *tool, size_t process, const pt_event *ev);
void *tl_shard_init(void *tool, const pt_shard_info *info, char *err, size_t errlen);
int tl_shard_event(void *st, const pt_event *ev);
int tl_shard_exit(void *st, uint64_t last_ns, int complete);
const char *tl_shard_error(void *st);
int tl_finish(void *tool, char *err, size_t errlen);
int tl_print(void *tool, FILE *out);
void tl_destroy(void *tool);

#define TL_TOOL(tool, encoder, tool_name, tool_description)                                 \
	static void *tool##_init(const pt_trace_ctx *ctx, const char *options, char *err,  \
				 size_t errlen)                                            \
	{                                                                                  \
		(void)options;                                                             \
		return tl_init(&(encoder), ctx, err, errlen);                              \
	}                                                                                  \
	static const pt_tool tool = {                                                      \
		.api_version = PT_TOOL_API_VERSION,                                        \
		.name = tool_name,                                                         \
		.description = tool_description,                                           \
		.init = tool##_init,                                                       \
		.process_event = tl_process_event,                                         \
		.shard_init = tl_shard_init,                                               \
		.shard_event = tl_shard_event,                                             \
		.shard_exit = tl_shard_exit,                                               \
		.shard_error = tl_shard_error,                                             \
		.finish = tl_finish,                                                       \
		.print_results = tl_print,                                                 \
		.destroy = tl_destroy,                                                     \
	}

/* OpenMP slices (omp_timeline.c): *x is made at the thread's first
 * record that tl_omp_event takes (OpenMP ones, then every record but
 * function records), tl_omp_end closes what is open and frees it. */
typedef struct tl_omp tl_omp;
struct omp_names;
int tl_omp_event(tl_omp **x, const struct omp_names *names, tl_sel *q, const pt_event *ev);
void tl_omp_end(tl_omp *x, tl_sel *q, uint64_t last);

/* Flow ids: thread creation (pid * 2^20 + create_seq), fork (2^52 + child
 * pid), GPU launch (3 * 2^51 + (pid mod 2^18) * 2^33 + api bit * 2^32 +
 * correlation mod 2^32). */
static inline uint64_t tl_flow_thread(uint32_t pid, uint64_t create_seq)
{
	return ((uint64_t)pid << 20) + create_seq;
}
static inline uint64_t tl_flow_fork(uint32_t child_pid)
{
	return (1ull << 52) + child_pid;
}
static inline uint64_t tl_flow_gpu(uint32_t pid, unsigned api, uint64_t correlation)
{
	return (3ull << 51) + ((uint64_t)(pid & 0x3ffff) << 33) + ((uint64_t)(api & 1) << 32) +
	       (correlation & 0xffffffffu);
}
/* MPI messages: 5 * 2^50 + the message's number (in the order of sends). */
static inline uint64_t tl_flow_mpi(uint64_t k)
{
	return (5ull << 50) + (k & ((1ull << 50) - 1));
}
static inline const char *tl_flow_name(uint64_t flow)
{
	return flow >> 50 == 5	   ? "MPI message"
	       : flow >> 51 == 3 ? "GPU launch"
	       : flow >> 52	   ? "fork"
				   : "thread creation";
}

/* Names shared by the encoders. */
static inline const char *tl_func_name(const pt_trace_ctx *ctx, uint32_t id)
{
	const pt_func_info *fi = pt_ctx_func_info(ctx, id);
	return fi ? fi->name : "?";
}

/* "main 4711" / "thread 4712" / "GPU stream 7". */
static inline void tl_thread_name(const pt_shard_info *s, char *buf, size_t len)
{
	if (s->kind == PT_FILE_GPU)
		snprintf(buf, len, "GPU stream %llu", (unsigned long long)s->gpu_stream);
	else
		snprintf(buf, len, "%s%u", s->tid == s->pid ? "main " : "thread ", s->tid);
}

/* "program (pid 4711)", an MPI rank "program rank 3 (pid 4711)". */
void tl_process_name(const pt_trace_ctx *ctx, size_t process, char *buf, size_t len);

#endif /* PT_TIMELINE_H */
