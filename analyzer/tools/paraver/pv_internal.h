/* SPDX-License-Identifier: MIT */
/* Private to the Paraver writer (analyzer/tools/paraver/). Who does what:
 *
 *   paraver.c    the tool: shards' streams, finish (header, merge, rename)
 *   pv_write.c   a row's lines: events, states (pv_event, pv_set_state)
 *   pv_thread.c  a thread row's records -> user-function, pthread and
 *                user events, Running/Synchronization states (pv_thread.h)
 *   pv_comms.c   thread creation, fork and extension links -> comm lines
 *   pv_labels.c  NAME.pcf and NAME.row
 *   pv_stream.c  temporary streams (and the pool file short ones share)
 *   pv_merge.c   merges their runs into NAME.prv, in time partitions that
 *                pv_partition.c places in each run
 *   pv_select.c  what is written: the selection's rows and window, and at
 *                finish the calls (pv_budget.c: the budget's histograms and
 *                thresholds, for calls and synchronization calls;
 *                pv_thin.c: the rows' event runs rewritten without them,
 *                summarised, and their state runs when waits go; pv_ids.c:
 *                values that must not depend on -j, renumbered in the same
 *                rewrite)
 *   the families' parts (analyzer/families/): pv.h
 */
#ifndef PT_PV_INTERNAL_H
#define PT_PV_INTERNAL_H

#include "pt_callstack.h"
#include "pt_func_lookup.h"
#include "pt_select.h"
#include "pv.h"

#include <limits.h>
#include <stdlib.h>

/* ---- small growable arrays and a set of pairs ------------------------ */
#define VEC(T)                                                                                     \
	struct {                                                                                   \
		T *v;                                                                              \
		size_t n;                                                                          \
		size_t cap;                                                                        \
	}

static inline int vec_grow(void **v, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 16;
	void *p = realloc(*v, ncap * elem);
	if (!p)
		return -1;
	*v = p;
	*cap = ncap;
	return 0;
}
#define VEC_PUSH(vec, x)                                                                           \
	(vec_grow((void **)&(vec).v, &(vec).cap, (vec).n, sizeof *(vec).v)                         \
	     ? -1                                                                                  \
	     : ((vec).v[(vec).n++] = (x), 0))

/* Set of (a, b) pairs, (a, b) != (0, 0); open addressing. */
typedef struct pv_pairset {
	uint64_t *k; /* 2 per slot */
	size_t cap, n;
} pv_pairset;

/* 1 if added, 0 if present, -1 on ENOMEM. */
int pv_pairset_add(pv_pairset *s, uint64_t a, uint64_t b);
void pv_pairset_free(pv_pairset *s);

/* ---- what thread rows find, for the whole trace ---------------------- */
typedef struct pv_link_end {
	uint32_t pid;
	uint64_t seq; /* create_seq, or child pid for forks */
	size_t shard;
	uint64_t time; /* absolute ns */
} pv_link_end;

typedef struct pv_named {
	uint32_t type;
	int64_t value;
	char *name;
} pv_named;

typedef struct pv_lock_obj {
	uint32_t pid;
	uint64_t addr;
	uint32_t id;
	unsigned what; /* enum pt_lock_type, or PV_LOCK_COND */
} pv_lock_obj;
#define PV_LOCK_COND 100u /* pv_lock_obj.what of a condition variable */
#define PV_LOCK_FUTEX 101u /* ... of a futex */

/* Collected per shard, then moved into the tool's at shard exit. */
typedef struct pv_found {
	VEC(pv_link_end) creates; /* THREAD_CREATE (succeeded) */
	VEC(pv_link_end) starts;  /* THREAD_START with a create_seq */
	VEC(pv_link_end) forks;
	VEC(pv_named) types;  /* USER_TYPE: value = flags */
	VEC(pv_named) values; /* USER_VALUE_NAME */
	pv_pairset used;      /* (type, value) of USER_EVENTs */
	VEC(pv_lock_obj) locks;
	pv_pairset lock_seen; /* (pid, addr) of locks */
	int cuts;             /* a call was cut by lost data (PV_EV_FUNC_CUT written) */
	int throttled;        /* PV_EV_THROTTLED written */
} pv_found;

/* Moves src's content into dst (src is left empty). -1 on ENOMEM. */
int pv_found_move(pv_found *dst, pv_found *src);
/* A USER_TYPE or USER_VALUE_NAME (any other kind: nothing) into f's
 * names. -1 when out of memory. */
int pv_found_user_name(pv_found *f, const pt_event *ev);
void pv_found_free(pv_found *f);

/* What the thread's log says of it for the .row (the rest of its label
 * is the framework's: row_label.h). */
typedef struct pv_role {
	char *name; /* THREAD_NAME of its own log */
} pv_role;

/* A thread of a killed process that ended in a wait: finished at finish,
 * once the process's last record is known (paraver.c). */
typedef struct pv_held {
	pv_shard *s;
	uint64_t last_ns; /* its log's last record */
} pv_held;

typedef struct pv_tool {
	const pt_trace_ctx *ctx;
	unsigned ext_kind_min; /* the lowest record kind any extension takes */
	unsigned char ext_on[PT_MAX_FAMILIES]; /* each family's part is on (pv_family.option) */
	char *name;            /* output base */
	int gz;
	char *tmpdir;
	pv_shard **shards; /* while they run */
	/* finished streams: [2i] shard i's states, [2i + 1] its events; then
	 * the Not created states, the communications */
	pv_run *runs;
	pv_pool pool;         /* the streams that never filled their buffer */
	pthread_mutex_t lock; /* below, updated at shard exit */
	pv_found found;
	pv_role *roles;    /* per shard */
	VEC(pv_held) held;
	uint64_t max_time; /* relative ns */
	uint64_t records;
	void *ext[PT_MAX_FAMILIES];
	char prv_path[PATH_MAX];
	uint64_t prv_bytes;
	/* what is written (pt_select.h; NULL: everything) */
	const pt_select *sel;
	/* rows written: per shard its row (its CPU: pv_cpu), task and thread, 0 when
	 * it is not written; per process its task */
	unsigned *row, *task, *thread, *ptask;
	unsigned nrows, ntasks;
	uint64_t origin; /* absolute ns of the .prv's time 0 */
	uint64_t win_hi; /* absolute ns of the window's end (UINT64_MAX: none) */
	/* the budget: the .prv fits in it unless `full` (pv_budget.c) */
	uint64_t budget;
	int full;
	int gz_auto;          /* compress a .prv past PV_GZ_ABOVE bytes */
	struct pv_hist *hist; /* the rows' accounts, summed at shard exit */
	uint64_t threshold;   /* calls shorter were left out (0: none) */
	uint64_t calls_left, calls_total, ns_left, comms_left;
	uint64_t full_bytes; /* the .prv with everything selected */
	uint64_t text;       /* the .prv written (uncompressed) */
	pv_run *thin;        /* per shard: its event run with calls left out, or empty */
	pv_run *thin_st;     /* per shard: its state run with waits left out, or empty */
	unsigned thin_gen;   /* rewrites so far (pv_thin.c: their files' names) */
	uint64_t sync_threshold; /* synchronization calls that waited less were left out */
	uint64_t sync_left, sync_total, wait_left;
	uint64_t fam_threshold; /* family calls (pv_left_def) shorter were left out */
	uint64_t fam_left, fam_total;
	unsigned fam_summarised; /* bit i: family i's summaries are in the .prv */
	char *cfgs;          /* where the Paraver views are (the hint analyze prints) */
	int window_set;      /* origin and win_hi are set (pv_window_init) */
	/* function ids as the .prv shows them (pv_ids.c): fval[id], finv[value] */
	uint32_t *fval, *finv;
	uint32_t nfunc;
	int renumber; /* some value written changes: the event runs are rewritten */
	int thinned;  /* calls were left out */
	/* the resource model (pv_nodes.c); cpu NULL: one node, CPU = row */
	unsigned *cpu;       /* per shard */
	unsigned nnodes;
	char **node_name;
	unsigned *node_ncpus;
	unsigned *proc_node; /* per process, 0-based */
	/* several analyzer processes (pv_dist.c) */
	int dist;            /* pt_fw_dist(ctx) != NULL */
	int dist_blocked;    /* a record whose numbering depends on the process was seen */
	uint8_t *mine;       /* per shard: this process ran it */
	uint8_t *foreign;    /* per run: another process's (its files are not ours to remove) */
	pv_pool *fpools;     /* per process: its pool file, read-only */
} pv_tool;

#define PV_GZ_ABOVE 1000000000ull /* a .prv larger is written .prv.gz (unless told) */

/* ---- paraver.c, pv_dist.c: the finish ------------------------------------ */
/* The two halves of the finish one process does (paraver.c), which the
 * finish under several (pv_dist.c) runs with its exchanges between them. */
typedef struct pv_finish_steps {
	int (*begin)(pv_tool *pv, char *tmp_prv, size_t tmplen, int *fd, uint64_t *hl,
		     pv_run **merge_out, char *err, size_t errlen);
	int (*end)(pv_tool *pv, int fd, const char *tmp_prv, char *err, size_t errlen);
} pv_finish_steps;
struct pt_dist;
int pv_finish_dist(pv_tool *pv, struct pt_dist *d, const pv_finish_steps *steps, char *err,
		   size_t errlen);
/* Records whose values are numbered as shards meet them (so differently in
 * each analyzer process): counters, call stacks, samples, GPU. */
int pv_dist_blocks(unsigned kind);

/* ---- pv_nodes.c --------------------------------------------------------- */
int pv_nodes_init(pv_tool *pv);
void pv_nodes_free(pv_tool *pv);
/* The header's resources: "1(n)" or "nodes(cpus,cpus...)". */
size_t pv_nodes_header(const pv_tool *pv, char *buf, size_t len);
/* 1-based node of a process's task. */
unsigned pv_task_node(const pv_tool *pv, size_t process);
/* The .row's CPU and NODE levels. */
void pv_nodes_row(const pv_tool *pv, FILE *f);
/* The CPU the records of shard i's row name (0: the row is not written). */
static inline unsigned pv_cpu(const pv_tool *pv, size_t i)
{
	return pv->cpu && pv->row[i] ? pv->cpu[i] : pv->row[i];
}


/* ---- pv_write.c ------------------------------------------------------- */
static inline uint64_t pv_rel(const pv_shard *s, uint64_t t)
{
	return t > s->t0 ? t - s->t0 : 0;
}

/* A state line [b, e) (relative ns), whatever the open state. */
void pv_state_line(pv_shard *s, uint64_t b, uint64_t e, unsigned state);

static inline int pv_in_window(const pv_shard *s, uint64_t t)
{
	return t - s->win_lo <= s->win_len;
}

/* pv_budget.c: what each call would cost in the .prv, by duration, while
 * the lines are written (a call's lines and the summaries leaving it out
 * would bring), so that finish can pick the threshold that fits. */
void pv_acct_func(pv_shard *s, uint32_t id); /* after a function line */
void pv_acct_pop(pv_shard *s, size_t n, int cut);
void pv_acct_text(pv_shard *s); /* before any other event line */
/* after a synchronization call's line (PV_SY_*) of len bytes of text */
void pv_acct_sync(pv_shard *s, unsigned kind, size_t len);

/* after a family call's line (PV_FC_*) of len bytes of text; d: its
 * family's summaries; states: a PV_FC_BEGIN's aux (PV_FC_STATES) */
void pv_acct_call(pv_shard *s, unsigned kind, size_t len, const pv_left_def *d,
                  uint32_t states);
/* A PV_FC_BEGIN's aux: the state the row returns to and the call's. */
#define PV_FC_STATES(back, call) ((uint32_t)(back) | (uint32_t)(call) << 16)
#define PV_FC_BACK(aux) ((aux)&0xffffu)
#define PV_FC_CALL(aux) ((aux) >> 16)

/* pv_events for a synchronization call's line (at most 4 pairs): kind
 * PV_SY_* (0: an ordinary line), obj its object (pv_codec.h). */
void pv_sync_events(pv_shard *s, uint64_t time_ns, size_t n, const uint32_t *types,
                    const int64_t *values, unsigned kind, uint32_t obj);

/* The 60000019/60000119 line of an entry (id) or an exit (0) at t (the
 * event stream is strict: a tie goes 1 ns later, pv.h). */
static inline void pv_func_line(pv_shard *s, uint64_t t, uint32_t id)
{
	if (!pv_in_window(s, t))
		return;
	pv_stream_func(&s->ev, pv_rel(s, t), id);
	if (s->ev.last_key > s->last)
		s->last = s->ev.last_key;
	if (s->acct)
		pv_acct_func(s, id);
}
/* n frames end at t (pv_write.c). */
void pv_pop_line(pv_shard *s, uint64_t t, size_t n);
/* Frames ids[lo .. hi) cut by lost data at t, innermost first. */
void pv_cut_line(pv_shard *s, uint64_t t, const uint32_t *ids, size_t lo, size_t hi);

/* ---- pv_comms.c, pv_labels.c ------------------------------------------ */
int pv_write_comms(pv_tool *pv, pv_stream *out, char *err, size_t errlen);
int pv_write_pcf(pv_tool *pv, const char *path);
int pv_write_row(pv_tool *pv, const char *path);

#endif
