/* SPDX-License-Identifier: MIT */
/* Who made whom wait (docs/ANALYZER.md, "Wait states"): the waits of every
 * thread and rank, each charged to the computation that caused it, and the
 * critical path of the run through them.
 *
 * Each shard (a thread log) is read once, in the framework's pass, into a
 * ws_thread: its innermost activity over time (ws_seg: the function or MPI
 * call it was in from each time on), its thread waits (lock, condition,
 * join, barrier), its MPI calls with the call path they were made from;
 * and into the set's global lists: lock releases and condition signals,
 * thread creations, the MPI messages sent and received. At finish
 * (ws_analyze) the set gives the wait instances, by pattern:
 *
 *   late_sender      a receive waited for a send that began later
 *   late_receiver    a blocking send waited for its receive to be posted
 *   wait_at_barrier  MPI_Barrier (or a pthread barrier) before the last one came
 *   wait_at_nxn      an all-to-all collective before the last rank came
 *   late_broadcast   a rank in a one-to-all collective before its root came
 *   early_reduce     the root of an all-to-one collective before the last rank
 *   lock_wait        a lock request until the holder released it
 *   cond_wait        a condition wait until another thread signalled it
 *   join_wait        pthread_join until the joined thread ended
 *   gpu_sync_wait    a host call that waits for the device (a device,
 *                    stream or event synchronisation, a blocking copy)
 *                    until the last kernel or copy it waited for ended
 *
 * each with its cause: the thread that made it wait (rank, thread), what
 * that thread was doing meanwhile (the function in which it spent most of
 * the wait) and when it let the waiter go. The critical path (ws_path.c)
 * walks back from the end of the run through those hand-offs.
 *
 * A GPU stream's log (a shard too) becomes a ws_thread whose segments are
 * its kernels and copies (ws_gather.c; the analysis ws_gpu.c): a sync wait's cause is the stream,
 * its function the kernel or copy, and the path goes from the sync's return to the device work, and
 * from its start back to the host call that launched it (ws_result.links).
 *
 * A set made under several analyzer processes (pt_dist.h) is packed by
 * each and unpacked into the first's: the same facts, the same result. */
#ifndef PT_WAITS_H_FAMILY
#define PT_WAITS_H_FAMILY

#include "mpi_common.h"
#include "pt_callstack.h"
#include "pt_func_lookup.h"

#include <paratrace/tool.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

enum ws_pattern {
	WS_LATE_SENDER,
	WS_LATE_RECEIVER,
	WS_WAIT_AT_BARRIER,
	WS_WAIT_AT_NXN,
	WS_LATE_BROADCAST,
	WS_EARLY_REDUCE,
	WS_LOCK_WAIT,
	WS_COND_WAIT,
	WS_JOIN_WAIT,
	WS_GPU_SYNC_WAIT,
	WS_NPATTERNS
};
const char *ws_pattern_name(unsigned p);

/* A growing array of T. */
#define WS_VEC(T)                                                                                  \
	struct {                                                                                   \
		T *v;                                                                              \
		size_t n, cap;                                                                     \
	}
int ws_grow(void **v, size_t *cap, size_t need, size_t size);
#define WS_PUSH(vec, x)                                                                            \
	(((vec).n < (vec).cap ||                                                                   \
	  !ws_grow((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof *(vec).v))                   \
	     ? ((vec).v[(vec).n++] = (x), 0)                                                       \
	     : -1)

/* Strings by id, interned. */
typedef struct ws_strs {
	WS_VEC(char *) s;
	uint32_t *slot; /* id + 1, 0 empty */
	size_t nslot;
} ws_strs;
/* The id of str (copied the first time); WS_NONE on ENOMEM. */
uint32_t ws_strs_id(ws_strs *t, const char *str);
void ws_strs_free(ws_strs *t);
#define WS_NONE 0xffffffffu

/* What a thread does from time t on: a name (below). A GPU stream's: a
 * kernel (WS_NAME_GPU | its value in gpu_names) or a copy (WS_NAME_GPU |
 * WS_NAME_COPY | its direction | PT_GPU_COPY_F_MAP << 8). */
#define WS_NAME_MPI 0x80000000u /* | an MPI call's number */
#define WS_NAME_GPU 0x40000000u
#define WS_NAME_COPY 0x20000000u
#define WS_NAME_NONE 0u /* outside every traced function */
typedef struct ws_seg {
	uint64_t t;
	uint32_t name; /* function id, WS_NAME_MPI | call, WS_NAME_GPU | ..., WS_NAME_NONE */
	uint32_t pad;
} ws_seg;

enum { WS_W_LOCK, WS_W_COND, WS_W_JOIN, WS_W_BARRIER };
typedef struct ws_wait {
	uint64_t begin, end;
	uint64_t object; /* lock, condition, barrier; join: the joined thread's create_seq */
	uint32_t kind;   /* WS_W_* */
	uint32_t path;   /* the set's path id */
} ws_wait;

typedef struct ws_call {
	uint64_t begin, end;
	uint64_t comm; /* a blocking collective's communicator (coll), else 0 */
	int32_t root;  /* its root, a rank of the run; -1 none */
	uint32_t call; /* PT_MPI_CALL_* */
	uint32_t path; /* the set's path id */
	uint32_t coll; /* 1: a blocking collective whose MPI_COLL was seen */
} ws_call;

/* A lock released or a condition signalled, for the threads that waited. */
typedef struct ws_mark {
	uint64_t t, object;
	uint32_t shard, pid;
} ws_mark;

typedef struct ws_create {
	uint64_t t, seq;
	uint32_t shard, pid;
} ws_create;

/* A host thread's GPU API call that may start device work or wait for it. */
typedef struct ws_gcall {
	uint64_t begin, end;
	uint64_t corr, corr2; /* the device records' correlation (corr2: a driver call's) */
	uint64_t stream;      /* the stream or queue it names, 0 not known */
	uint32_t call;        /* enum pt_gpu_call */
	uint32_t flags;       /* PT_GPU_CALL_F_* */
	uint32_t path;        /* a wait's call path (the set's id), else WS_NONE */
	uint32_t pad;
} ws_gcall;

/* A kernel or copy on a GPU stream, as its row shows it. */
typedef struct ws_op {
	uint64_t start, end;
	uint64_t corr;
	uint32_t name; /* WS_NAME_GPU | ... */
	uint32_t pad;
} ws_op;

/* What stays of one shard. */
typedef struct ws_thread {
	int used;     /* a thread log that reached shard_exit here (or came packed) */
	int32_t rank; /* MPI rank in the run, 0 for a program without MPI */
	uint32_t pid;
	uint32_t thread; /* in its process, in order of start: main 0 */
	uint64_t first, last;
	uint64_t start_seq; /* its THREAD_START's create_seq, 0: none */
	/* a GPU stream's log: its API (enum pt_gpu_api), 0 a thread's; and its
	 * GPU_STREAM_DEF */
	uint32_t gpu, gpu_device, gpu_seq, gpu_flags;
	uint64_t gpu_stream;
	WS_VEC(ws_seg) segs;
	WS_VEC(ws_wait) waits;
	WS_VEC(ws_call) calls;
	WS_VEC(ws_gcall) gcalls; /* a thread's */
	WS_VEC(ws_op) ops;       /* a GPU stream's, in the order of its log */
	int segs_mapped;         /* segs.v is mapped (ws_gather.c), its cap reserved */
} ws_thread;

typedef struct ws_set {
	const pt_trace_ctx *ctx;
	pthread_mutex_t lock; /* all below, while shards run */
	ws_thread *th;        /* [ctx->nshards] */
	WS_VEC(ws_mark) releases, signals;
	WS_VEC(ws_create) creates;
	mpi_ends sends, recvs;
	mpi_ranks ranks;
	/* call paths, "main/exchange/MPI_Recv", by id: paths.s.v[id] */
	ws_strs paths;
	struct gpu_names *gpu; /* kernel and API function names (gpu_common.h) */
	unsigned maps;         /* threads whose stretches are mapped (ws_gather.c) */
	int oom;
} ws_set;

int ws_set_init(ws_set *s, const pt_trace_ctx *ctx);
void ws_set_process_event(ws_set *s, size_t process, const pt_event *ev);
void ws_set_free(ws_set *s);
/* A name of a segment or cause: the function's, the MPI call's, the
 * kernel's or copy's. */
const char *ws_name(const ws_set *s, uint32_t name);
/* Where shard sh is: "R.T" (rank, thread) or "R.<its GPU row's label>". */
void ws_where(const ws_set *s, uint32_t sh, char *buf, size_t len);
/* The label of a GPU stream's row ("" for a thread). */
void ws_gpu_label(const ws_set *s, uint32_t sh, char *buf, size_t len);

/* One shard being read. */
typedef struct ws_reader ws_reader;
ws_reader *ws_reader_new(ws_set *s, const pt_shard_info *shard);
void ws_reader_event(ws_reader *r, const pt_event *ev);
/* Into the set (under its lock), and freed. -1: out of memory. */
int ws_reader_end(ws_reader *r, uint64_t last_ns);

/* Under several analyzer processes: what this one gathered, and another's
 * added. */
struct pt_buf;
void ws_set_pack(ws_set *s, struct pt_buf *out);
int ws_set_unpack(ws_set *s, const void *data, size_t len);

/* ---- the analysis (ws_analyze.c, ws_path.c) ---------------------------- */
typedef struct ws_inst {
	uint64_t begin, end; /* the time waited */
	uint64_t release;    /* when the cause let it go */
	uint32_t pattern;
	uint32_t shard;      /* the waiting thread */
	uint32_t path;       /* its call path */
	uint32_t cause;      /* the shard that made it wait, WS_NONE unknown */
	uint32_t cause_name; /* what that shard did meanwhile */
	uint32_t pad;
} ws_inst;

typedef struct ws_cp {
	uint32_t name;
	int32_t rank;
	uint64_t ns;
	/* the name's text, which orders equal times: ids follow which worker
	 * met a function first, and the order must not change with -j */
	const char *name_str;
} ws_cp;

/* A stretch of the critical path on one thread. */
typedef struct ws_span {
	uint64_t a, b;
	uint32_t shard, pad;
} ws_span;

typedef struct ws_result {
	WS_VEC(ws_inst) inst;
	/* hand-offs that are not waits, for the critical path only: device
	 * work that began when its launch came (shard: the stream, cause: the
	 * launching thread, release: the launch) */
	WS_VEC(ws_inst) links;
	WS_VEC(ws_cp) path; /* the critical path's time by (name, rank), most first */
	uint64_t path_ns;   /* its length */
	uint64_t path_begin, path_end;
	WS_VEC(ws_span) spans; /* the path's stretches, latest first */
	int oom;
} ws_result;

/* The instances (sorted by waiter, begin) and the critical path. -1: out
 * of memory. */
int ws_analyze(ws_set *s, ws_result *r);
void ws_result_free(ws_result *r);
/* The segment of t in effect at a (0 when a is before the first). */
size_t ws_seg_at(const ws_thread *t, uint64_t a);
/* The name on shard `sh` that took most of [a, b] (at a when a >= b). */
uint32_t ws_busiest(const ws_set *s, uint32_t sh, uint64_t a, uint64_t b);
/* The GPU sync waits and the launch links (ws_gpu.c). -1: out of memory. */
int ws_gpu_analyze(const ws_set *s, ws_result *r);
/* The critical path (ws_path.c), from the instances. */
int ws_critical_path(ws_set *s, ws_result *r);

/* The critical path by function (all ranks together), most first: a
 * malloc'ed array in *out (rank -1), its length. */
size_t ws_path_functions(const ws_result *res, ws_cp **out);

/* The report's section (ws_report.c). */
const pt_tool *pt_tool_waits(void);
/* The same for the HTML page: its JSON an object of its own. */
const pt_tool *pt_tool_waits_html(void);

#endif
