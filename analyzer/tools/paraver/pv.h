/* SPDX-License-Identifier: MIT */
/* Paraver writer internals, and what families (counters, GPU, OpenMP, MPI)
 * use to turn their record kinds into Paraver records.
 *
 * How a trace is written:
 *   - each shard (one Paraver thread row) writes two temporary streams, in
 *     parallel with the others: its events (sorted by time, because a log's
 *     times never decrease) and its states (sorted by begin time, because a
 *     thread's states never overlap and are written when they close);
 *   - thread creation links become communication records at the end;
 *   - pv_merge() k-way merges all streams (their pv_runs once finished)
 *     into NAME.prv, in time order,
 *     split into time ranges merged by the workers in parallel, each
 *     written at its precomputed offset. Memory stays bounded by buffers.
 *
 * A family's records (counters, GPU, OpenMP, MPI: analyzer/families/)
 * become Paraver records through its pv_family, the `paraver` part of its
 * pt_family. Its `event` callback receives every record whose kind is in
 * [kind_first, kind_last] (also those the core handles: it runs after the
 * core), and writes through pv_event(), pv_events(), pv_set_state(). Its
 * pcf callback adds EVENT_TYPE sections (.pcf) for the types it used;
 * row_label names device rows (shards of kind PT_FILE_GPU).
 */
#ifndef PT_PV_H
#define PT_PV_H

#include "pt_family.h"

#include <paratrace/tool.h>
#include <pthread.h>
#include <stdarg.h>

/* Extrae's numbering (its merger's labels.h and events.h) and ours. */
enum {
	PV_STATE_IDLE = 0,
	PV_STATE_RUNNING = 1,
	PV_STATE_NOT_CREATED = 2,
	PV_STATE_SYNC = 5,
};
#define PV_EV_USER_FUNC 60000019u      /* function id, 0 = exit */
#define PV_EV_USER_FUNC_LINE 60000119u /* function id (label: line and file), 0 = exit */
#define PV_EV_PTHREAD 61000000u        /* Extrae pthread call values, 0 = outside */
#define PV_EV_SYNC_OBJECT 61000010u    /* ours: lock/cond/barrier identity, 0 = none */
#define PV_EV_FUNC_CUT 61000020u       /* ours: a call cut by lost data (function id), 0 = gap end */
#define PV_EV_LEFT_CALLS 61000030u /* ours: calls left out by the selection since the last line */
#define PV_EV_LEFT_NS 61000031u    /* ours: the time they took (ns) that no call shown has */
#define PV_EV_LEFT_SYNC 61000032u  /* ours: synchronization calls left out by the budget */
#define PV_EV_LEFT_WAIT 61000033u  /* ours: the time they waited (ns) */
/* ours: the runtime stopped recording a function on this thread from here
 * (its function id; format/throttle.h), the calls it counted after that
 * (none of them on the timeline), and their time as estimated (ns) */
#define PV_EV_THROTTLED 61000040u
#define PV_EV_THROTTLED_CALLS 61000041u
#define PV_EV_THROTTLED_NS 61000042u

/* 61000000 values: 0..13 are Extrae's; 20.. are ours for calls Extrae has none for. */
enum {
	PV_PT_END = 0,
	PV_PT_EXIT = 1,
	PV_PT_CREATE = 2,
	PV_PT_JOIN = 3,
	PV_PT_DETACH = 4,
	PV_PT_RWLOCK_WR = 5,
	PV_PT_RWLOCK_RD = 6,
	PV_PT_RWLOCK_UNLOCK = 7,
	PV_PT_MUTEX_LOCK = 8,
	PV_PT_MUTEX_UNLOCK = 9,
	PV_PT_COND_SIGNAL = 10,
	PV_PT_COND_BROADCAST = 11,
	PV_PT_COND_WAIT = 12,
	PV_PT_BARRIER_WAIT = 13,
	PV_PT_SPIN_LOCK = 20,
	PV_PT_SPIN_UNLOCK = 21,
	PV_PT_SEM_WAIT = 22,
	PV_PT_SEM_POST = 23,
	PV_PT_MTX_LOCK = 24, /* C11 */
	PV_PT_MTX_UNLOCK = 25,
	PV_PT_FUTEX_WAIT = 26, /* syscall(SYS_futex): C++20 waits, latches, barriers */
	PV_PT_FUTEX_WAKE = 27,
	PV_PT_MAX
};

/* ---- temporary streams ---------------------------------------------- */
typedef struct pv_index_ent {
	uint64_t key, off, text;
	uint64_t prev; /* key of the record before off (keys are stored as deltas) */
} pv_index_ent;

/* One file for the streams that never filled their buffer (most streams
 * of short threads): at their finish, their bytes are appended here
 * instead of to a file of their own, so a trace of 100,000 threads does
 * not create, reopen and unlink 200,000 temporary files. */
typedef struct pv_pool {
	char *path;
	int fd;
	pthread_mutex_t lock; /* below */
	uint64_t size;        /* bytes, buffered ones included */
	char *buf;            /* what is not written yet: the last `used` bytes */
	size_t used, cap;
	int error; /* errno of the first failure */
} pv_pool;

int pv_pool_open(pv_pool *p, const char *path);
/* Writes what is buffered (before the merge reads the file). 0, or -1. */
int pv_pool_flush(pv_pool *p);
void pv_pool_free(pv_pool *p); /* also removes the file */

/* A finished stream, as the merge reads it: what stays of a pv_stream
 * (112 bytes) until the trace is merged. */
#define PV_RUN_PREFIX_MAX 35 /* longest prefix: three 9-digit numbers */
typedef struct pv_run {
	/* the bytes: pool's file from base on, or (pool NULL) path's from 0 */
	const pv_pool *pool;
	char *path;
	uint64_t base;
	uint64_t off;  /* bytes */
	uint64_t text; /* bytes of output text */
	uint64_t nrec;
	uint64_t first_key, last_key;
	/* index notes (pv_index_ent); none for a pooled run (short: read
	 * from its start) */
	pv_index_ent *idx;
	uint32_t nidx;
	uint8_t prefix_len;
	char prefix[PV_RUN_PREFIX_MAX]; /* "2:cpu:1:task:thread:" */
} pv_run;

void pv_run_free(pv_run *r); /* also removes its own file */

typedef struct pv_stream {
	char *path;  /* its own file, created at the first flush */
	int fd;      /* its own file while it is written, else -1 */
	int created; /* the file exists (and is the stream's to remove) */
	/* Lines are "<prefix><key in decimal><stored text>" when prefix is set
	 * (the merge writes prefix and key, so the temporary file holds only
	 * the rest), else the stored text alone. */
	char prefix[48];
	size_t prefix_len;
	char *buf;
	size_t used, cap;
	uint64_t off;  /* file bytes, buffered ones included */
	uint64_t text; /* bytes of output text (prefix and key included) */
	uint64_t nrec;
	uint64_t last_key;
	uint64_t min_key; /* the next record's key is at least this */
	unsigned strict;  /* 1: keys strictly increase (pv_stream_open_strict) */
	unsigned key_digits;       /* of last_key, valid while it is below: */
	uint64_t key_digits_below; /* 10^key_digits (0 before the first record) */
	size_t text_at; /* buf offset of the text of the record being reserved */
	uint64_t next_index;
	pv_index_ent *idx;
	size_t nidx, capidx;
	int error; /* errno of the first failure */
} pv_stream;

#define PV_LINE_MAX 4096 /* longest line one record may produce */

/* A stream whose own file, if it needs one, is path; its lines start with
 * prefix (at most PV_RUN_PREFIX_MAX bytes; NULL: none). 0, or -1 (error). */
int pv_stream_open(pv_stream *s, const char *path, const char *prefix);
/* Room for one line with sort key `key` (clamped to the stream's last key:
 * a stream stays sorted; for a strict stream, to the last key + 1). Returns
 * where to write the text. */
char *pv_stream_reserve(pv_stream *s, uint64_t key);
void pv_stream_commit(pv_stream *s, size_t len);
/* The two most common lines, stored in a few bytes: a function entry
 * (":60000019:id:60000119:id") or, with id 0, an exit (both values 0). */
void pv_stream_func(pv_stream *s, uint64_t key, uint32_t id);
/* n frames (1..32) end together: an exit pair each, one line. */
void pv_stream_pop(pv_stream *s, uint64_t key, uint32_t n);
/* Like pv_stream_reserve, for a line that ends n frames cut by lost data
 * (its text says which); pv_stream_commit ends it. */
char *pv_stream_reserve_cut(pv_stream *s, uint64_t key, uint32_t n);
/* A PV_OP_SYNC line is a synchronization call's text line, marked with
 * what it is, so that the budget can leave out short ones (pv_thin.c):
 *   PV_SY_REQ   a lock request or condition wait begins (no other wait
 *               open): the wait and its Synchronization state start
 *   PV_SY_END   that wait ends (acquired, failed, woken, log end)
 *   PV_SY_INST  a call that does not wait (an uncontended lock, an
 *               unlock, a semaphore post, a signal): wait 0
 *   PV_SY_PIN   another wait begins while one is open: the open one stays */
enum { PV_SY_REQ = 1, PV_SY_END, PV_SY_INST, PV_SY_PIN };
/* A PV_OP_CALL line is a family's call's begin or end (pv_call_begin,
 * pv_call_end), marked with its family, the states (begin: the state the
 * row returns to, and the call's), and what a summary counts (end). */
enum { PV_FC_BEGIN = 1, PV_FC_END };
/* Like pv_stream_reserve, for a synchronization call's line (kind:
 * PV_SY_*, obj: its object or 0); pv_stream_commit ends it. */
char *pv_stream_reserve_sync(pv_stream *s, uint64_t key, unsigned kind, uint32_t obj);
/* Like pv_stream_reserve, for a family call's line (kind: PV_FC_*; aux:
 * PV_FC_BEGIN's states; tally: PV_FC_END's n values). */
char *pv_stream_reserve_call(pv_stream *s, uint64_t key, unsigned kind, unsigned family,
                             uint32_t aux, size_t n, const uint64_t *tally);
/* The stream is complete: its bytes go to its own file (flushed, closed)
 * or, if they never left the buffer and pool is not NULL, to the pool;
 * what the merge needs moves to *run, and the stream is freed. 0, or -1
 * with the errno in s->error (the stream is freed all the same). */
int pv_stream_finish(pv_stream *s, pv_pool *pool, pv_run *run);
void pv_stream_free(pv_stream *s); /* also removes its own file */

/* Merges the runs into fd after header_len bytes (already written).
 * gz: gzip members instead of plain text. */
int pv_merge(const pv_run *runs, size_t n, int fd, uint64_t header_len, unsigned nworkers, int gz,
	     char *err, size_t errlen);
/* Same, calling progress(arg, bytes of text written, total) every ~0.2 s
 * from the calling thread. */
int pv_merge_progress(const pv_run *runs, size_t n, int fd, uint64_t header_len,
		      unsigned nworkers, int gz, void (*progress)(void *, uint64_t, uint64_t),
		      void *arg, char *err, size_t errlen);
/* The gzip members of one analyzer process's partitions, before their
 * places in the output are known (each depends on the compressed sizes of
 * all the partitions before it): appended to fd as they are done, at[p]
 * and len[p] for each of its partitions p, 0 for the others'. The merge
 * sets nparts and allocates at and len (the caller frees them). */
typedef struct pv_gz_members {
	int fd;
	size_t nparts;
	uint64_t *at, *len;
} pv_gz_members;

/* One analyzer process's share of the merge (pt_dist.h): the partitions p
 * with p % part_n == part_k of the ones all_workers would cut (the same
 * in every process); part_k 0 sizes the file (before the others write:
 * the caller waits). nworkers: this process's workers. gz: members, not
 * NULL, receives the compressed partitions instead of fd. */
int pv_merge_part(const pv_run *runs, size_t n, int fd, uint64_t header_len, unsigned nworkers,
		  unsigned all_workers, unsigned part_k, unsigned part_n, int gz,
		  pv_gz_members *members, void (*progress)(void *, uint64_t, uint64_t), void *arg,
		  char *err, size_t errlen);

/* ---- formatting ------------------------------------------------------ */
static inline unsigned pv_digits(uint64_t v)
{
	unsigned n = 1;
	while (v >= 10000) {
		v /= 10000;
		n += 4;
	}
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* Decimal, two digits per step (this runs for every line of the trace). */
static inline char *pv_u64(char *p, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	unsigned n = pv_digits(v);
	char *e = p + n, *q = e;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		q -= 2;
		q[0] = pairs[2 * r];
		q[1] = pairs[2 * r + 1];
	}
	if (v >= 10) {
		q -= 2;
		q[0] = pairs[2 * v];
		q[1] = pairs[2 * v + 1];
	} else
		*--q = (char)('0' + v);
	return e;
}
static inline char *pv_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return pv_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return pv_u64(p, (uint64_t)v);
}

/* ---- shards ---------------------------------------------------------- */
struct pv_tool;
struct pt_buf;
typedef struct pv_shard pv_shard;

/* A communication a family asks for (e.g. GPU launch -> execution):
 * shard indices and absolute ns (pt_event time_ns). */
typedef struct pv_comm {
	size_t from;
	uint64_t send_ns; /* physical send */
	size_t to;
	uint64_t recv_ns; /* physical receive */
	int64_t size;
	int tag;
	/* logical send and receive (an MPI message: the send call began, the
	 * receive was posted); 0: the physical times */
	uint64_t lsend_ns, lrecv_ns;
} pv_comm;

/* An event a family knows only once every shard ended (a wait state,
 * which needs every thread's records): shard index and absolute ns. */
typedef struct pv_late {
	size_t shard;
	uint64_t time_ns;
	uint32_t type;
	int64_t value;
} pv_late;
/* A state a family writes that Extrae has no number for: its value (away
 * from Extrae's 0..33), its .pcf label and colour. */
typedef struct pv_state_def {
	unsigned value;
	const char *label;
	unsigned char rgb[3];
} pv_state_def;

/* A family's calls that the size budget may leave out like function calls
 * (pv_call_begin/pv_call_end; docs/ANALYZER.md, "The size budget"): the
 * shortest go first, by the threshold function calls go by, and what a
 * row left out is summarised on its next line written, in the family's
 * own event types: how many calls, their time, and the family's tallies
 * (bytes moved, say), so that totals read off the .prv do not change. */
#define PV_TALLY_MAX 4
typedef struct pv_tally_def {
	uint32_t type;
	const char *label; /* .pcf (NULL: a type the family's write_pcf names) */
	int last;          /* the summary holds the last value, not the sum (a counter) */
} pv_tally_def;
typedef struct pv_left_def {
	const char *what;    /* what analyze says it left out: "I/O calls" */
	uint32_t calls_type; /* their count */
	uint32_t ns_type;    /* their time (ns); 0: not written */
	const char *calls_label, *ns_label;
	size_t ntally; /* at most PV_TALLY_MAX */
	pv_tally_def tally[PV_TALLY_MAX];
} pv_left_def;

/* A family's part of the Paraver trace (pt_family.h). */
typedef struct pv_family {
	const char *name;
	unsigned kind_first, kind_last; /* record kinds given to event() */
	/* Its own states, listed in every .pcf's STATES (nstates of them). */
	const pv_state_def *states;
	size_t nstates;
	/* Global state, created by the tool's init (NULL allowed). */
	void *(*init)(const pt_trace_ctx *ctx);
	/* Every process-log record (the framework's serial pre-pass, after
	 * init, before any shard): kernel and API names, for example. */
	void (*process_event)(void *global, size_t process, const pt_event *ev);
	void *(*shard_init)(void *global, pv_shard *s);
	/* 0, or -1 after pv_fail(). */
	int (*event)(void *global, void *shard_state, pv_shard *s, const pt_event *ev);
	/* Shard done (times in ns since t0: s->last). Called with the tool's
	 * merge lock held: merge into global state here, free shard_state. */
	void (*shard_exit)(void *global, void *shard_state, pv_shard *s);
	/* .row label for a shard (GPU rows); return 0 if written into buf. */
	int (*row_label)(void *global, const pt_shard_info *shard, char *buf, size_t len);
	/* Extra .pcf sections. */
	void (*write_pcf)(void *global, FILE *pcf);
	/* Communications to add, after every shard_exit: a malloc'ed array
	 * in *out (freed by the writer); returns its length. */
	size_t (*comms)(void *global, pv_comm **out);
	void (*destroy)(void *global);
	/* Lines for the summary after the trace is written (what the
	 * family could not convert, for instance). */
	void (*print_results)(void *global, FILE *out);
	/* Several analyzer processes (pt_dist.h): what shard_exit gathered in
	 * global, put in a buffer, and another process's added to this one's
	 * (its pack's bytes). A family without them must gather nothing
	 * from shards that reach it under MPI (pv_dist.c says which). */
	void (*pack)(void *global, struct pt_buf *out);
	int (*unpack)(void *global, const void *data, size_t len);
	/* Values numbered in the order the shards met them depend on -j; the
	 * writer renumbers them at finish, before write_pcf (pv_ids.c). Both
	 * optional. renumber: func_value[id] is the final value of analyzer
	 * function id (1..nfunc; valid until destroy) for the events whose
	 * values are function ids; returns 1 if any value the family wrote
	 * changes (its own numbering included). final_value: the final value
	 * of an event written as (type, *value); 1 if it changed. */
	int (*renumber)(void *global, const uint32_t *func_value, uint32_t nfunc);
	int (*final_value)(void *global, uint32_t type, int64_t *value);
	/* The Paraver view (a .cfg of analyzer/cfgs) that analyze names to
	 * open the trace with, when the trace has this part's records; NULL:
	 * none (the first family with one wins, else functions.cfg).
	 * Optional. */
	const char *(*main_view)(void *global);
	/* The writer's option that turns this part on (a word of its
	 * options: "waits", which analyze --waits gives); NULL: always on. A
	 * part that is off has no global state (init is not called) and
	 * takes no record below the other parts' kinds. Optional. */
	const char *option;
	/* Events written after every shard ended (and, under several
	 * analyzer processes, after unpack), with the communications: a
	 * malloc'ed array in *out (freed by the writer), in any order;
	 * returns its length. Each event of one (shard, time) shares a line;
	 * such a line may share its time with another line of its row.
	 * Optional. */
	size_t (*late_events)(void *global, pv_late **out);
	/* Its calls the budget may leave out (written with pv_call_begin and
	 * pv_call_end), and their summaries; NULL: none. */
	const pv_left_def *left;
} pv_family;

/* Family i's Paraver part (pt_families[i]); an empty one for a family
 * without. */
static inline const pv_family *pv_ext(size_t i)
{
	static const pv_family none = {.kind_first = 1, .kind_last = 0};
	const pv_family *x = pt_families[i]->paraver;
	return x ? x : &none;
}

struct pv_shard {
	const pt_shard_info *info;
	const pt_trace_ctx *ctx;
	struct pv_tool *pv;
	uint64_t t0;   /* ctx->t0_ns */
	uint64_t last; /* last time written, relative ns */
	pv_stream ev, st;
	char ev_prefix[64], st_prefix[64];
	size_t ev_prefix_len, st_prefix_len;
	/* state machine: the open state and since when (relative ns) */
	unsigned state;
	uint64_t state_begin;
	/* the state a thread row returns to when a wait ends: Running, or the
	 * state of the MPI call it is in */
	unsigned base_state;
	/* The selected time window (pv_write.c): event lines at absolute
	 * times in [win_lo, win_lo + win_len] are written, states are clipped
	 * at win_end (relative ns). A row not selected has an empty window.
	 * Without a window: 0, UINT64_MAX, UINT64_MAX. */
	uint64_t win_lo, win_len, win_end;
	uint64_t win_next;    /* a thread row's next window edge (pv_thread.c) */
	struct pv_acct *acct; /* the budget's accounts (pv_budget.c), or NULL */
	char err[256];
	void *ext[PT_MAX_FAMILIES]; /* each family's shard state (pv_family) */
	unsigned ext_now;           /* the family whose event() runs */
	void *core; /* paraver.c's per-shard data */
};

/* Writers for families and the core. Times are absolute ns (pt_event
 * time_ns); they are made relative to t0 here. A row's event lines have
 * strictly increasing times (Paraver drops a call whose entry and exit
 * share a time): a line at or before the previous one goes 1 ns after it,
 * and a state never begins before the row's last event line. */
void pv_event(pv_shard *s, uint64_t time_ns, uint32_t type, int64_t value);
void pv_events(pv_shard *s, uint64_t time_ns, size_t n, const uint32_t *types,
	       const int64_t *values);
/* Closes the open state at time_ns and opens `state` (PV_STATE_IDLE: none
 * open). Times before the open state's begin or the row's last event line
 * (which a tie may have moved) are clamped. */
void pv_set_state(pv_shard *s, uint64_t time_ns, unsigned state);
/* A call of the family whose event() runs, which the budget may leave out
 * (pv_family.left): its begin line at time_ns, and `state` from there;
 * returns the state the row was in, for pv_call_end. At most 8 pairs. */
unsigned pv_call_begin(pv_shard *s, uint64_t time_ns, size_t n, const uint32_t *types,
                       const int64_t *values, unsigned state);
/* Its end: the line, back to `state`, and what a summary counts of it
 * (pv_left_def.ntally values). */
void pv_call_end(pv_shard *s, uint64_t time_ns, size_t n, const uint32_t *types,
                 const int64_t *values, unsigned state, const uint64_t *tally);
int pv_fail(pv_shard *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
