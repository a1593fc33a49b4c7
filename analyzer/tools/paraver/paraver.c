/* The Paraver writer tool: NAME.prv / .pcf / .row (see ../shared/PARAVER.md
 * and pv.h for how lines are produced and merged).
 *
 * Model: one application; one task per process (forked children included);
 * one thread per thread log, then one per GPU log of that process (like
 * Extrae's GPU stream rows); one CPU per thread row (Extrae's resource
 * model), so a record's CPU field is its row.
 *
 * Per thread row:
 *   state 2 Not created  from 0 to the log's first record
 *   state 1 Running      from there to its last record, except
 *   state 5 Synchronization while waiting for a lock, a condition, a join
 *                        or a barrier (request -> acquired/failed, etc.)
 *   nothing (0 Idle)     after the last record
 * Call-stack resync: a FUNC_EXIT whose id is not on top of the stack pops
 * frames until it matches (each popped frame ends at that time); an EXIT
 * with no matching frame is ignored; frames still open at the end of the
 * log (longjmp, exit, cancellation, a killed program) end at its last time.
 */
#define _GNU_SOURCE
#include "pv.h"
#include "pt_callstack.h"
#include "pt_func_lookup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* ---- small growable arrays and hash sets ----------------------------- */
#define VEC(T)            \
	struct {          \
		T *v;     \
		size_t n; \
		size_t cap; \
	}

static int vec_grow(void **v, size_t *cap, size_t n, size_t elem)
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
#define VEC_PUSH(vec, x) \
	(vec_grow((void **)&(vec).v, &(vec).cap, (vec).n, sizeof *(vec).v) ? -1 : ((vec).v[(vec).n++] = (x), 0))

/* set of (a, b) pairs, a/b != (0,0); open addressing */
typedef struct pairset {
	uint64_t *k; /* 2 per slot */
	uint32_t *aux;
	size_t cap, n;
} pairset;

static int pairset_add(pairset *s, uint64_t a, uint64_t b, uint32_t aux)
{
	if ((s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		uint64_t *k = calloc(ncap * 2, sizeof *k);
		uint32_t *x = calloc(ncap, sizeof *x);
		if (!k || !x) {
			free(k);
			free(x);
			return -1;
		}
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->k[2 * i] && !s->k[2 * i + 1])
				continue;
			size_t j = pt_mix64(s->k[2 * i] * 31 + s->k[2 * i + 1]) & (ncap - 1);
			while (k[2 * j] || k[2 * j + 1])
				j = (j + 1) & (ncap - 1);
			k[2 * j] = s->k[2 * i];
			k[2 * j + 1] = s->k[2 * i + 1];
			x[j] = s->aux[i];
		}
		free(s->k);
		free(s->aux);
		s->k = k;
		s->aux = x;
		s->cap = ncap;
	}
	size_t j = pt_mix64(a * 31 + b) & (s->cap - 1);
	for (; s->k[2 * j] || s->k[2 * j + 1]; j = (j + 1) & (s->cap - 1))
		if (s->k[2 * j] == a && s->k[2 * j + 1] == b)
			return 0;
	s->k[2 * j] = a;
	s->k[2 * j + 1] = b;
	s->aux[j] = aux;
	s->n++;
	return 1;
}

static void pairset_free(pairset *s)
{
	free(s->k);
	free(s->aux);
	memset(s, 0, sizeof *s);
}

/* ---- records collected for the whole trace --------------------------- */
typedef struct link_end {
	uint32_t pid;
	uint64_t seq;  /* create_seq, or child pid for forks */
	size_t shard;
	uint64_t time; /* relative ns */
} link_end;

typedef struct named {
	uint32_t type;
	int64_t value;
	char *name;
} named;

typedef struct lock_obj {
	uint32_t pid;
	uint64_t addr;
	uint32_t id;
	unsigned what; /* enum pt_lock_type, or 100 = condition variable */
} lock_obj;

typedef struct role {
	char *name;       /* THREAD_NAME */
	uint32_t creator; /* tid, 0 unknown */
	uint64_t routine;
	int main;
} role;

typedef struct pv_tool {
	const pt_trace_ctx *ctx;
	unsigned ext_kind_min; /* the lowest record kind any extension takes */
	char *name; /* output base */
	int gz;
	char *tmpdir;
	pv_shard **shards;
	pthread_mutex_t lock; /* below, updated at shard exit */
	VEC(link_end) creates;
	VEC(link_end) starts;
	VEC(link_end) forks;
	VEC(named) types;
	VEC(named) values;
	pairset used; /* (type, value) of user events */
	VEC(lock_obj) locks;
	pairset lock_seen; /* (pid, addr) */
	role *roles;       /* per shard */
	uint64_t max_time; /* relative ns */
	uint64_t records;
	void *ext[PV_MAX_EXT];
	size_t next_ext;
	int failed_ext;
	char prv_path[PATH_MAX];
	uint64_t prv_bytes;
} pv_tool;

#define WAIT_LOCK 1u
#define WAIT_COND 2u
#define WAIT_JOIN 4u
#define WAIT_BARRIER 8u

typedef struct core {
	pt_callstack calls;
	unsigned wait;
	unsigned req_value; /* 61000000 value of the pending lock request */
	uint64_t req_id;
	pt_func_lookup fl; /* function ids: the process's table, the pc cache */
	VEC(link_end) creates;
	VEC(link_end) starts;
	VEC(link_end) forks;
	VEC(named) types;
	VEC(named) values;
	pairset used;
	VEC(lock_obj) locks;
	pairset lock_seen;
	role role;
	int oom;
} core;

/* ---- writers --------------------------------------------------------- */
static inline uint64_t rel(const pv_shard *s, uint64_t t)
{
	return t > s->t0 ? t - s->t0 : 0;
}

/* The merge writes "2:cpu:appl:task:thread:" and the time (the key);
 * the stream stores the ":type:value..." rest. */
static inline char *line_begin(pv_shard *s, uint64_t trel, char **start)
{
	char *p = pv_stream_reserve(&s->ev, trel);
	*start = p;
	if (s->ev.last_key > s->last) /* the key, clamped so the stream stays sorted */
		s->last = s->ev.last_key;
	return p;
}

static inline char *pair(char *p, uint32_t type, int64_t value)
{
	*p++ = ':';
	p = pv_u64(p, type);
	*p++ = ':';
	return pv_i64(p, value);
}

static inline void line_end(pv_shard *s, char *start, char *p)
{
	*p++ = '\n';
	pv_stream_commit(&s->ev, (size_t)(p - start));
}

void pv_events(pv_shard *s, uint64_t time_ns, size_t n, const uint32_t *types,
	       const int64_t *values)
{
	uint64_t t = rel(s, time_ns);
	while (n) {
		/* ~40 bytes per pair: stay well inside PV_LINE_MAX */
		size_t k = n > 64 ? 64 : n;
		char *start, *p = line_begin(s, t, &start);
		for (size_t i = 0; i < k; i++)
			p = pair(p, types[i], values[i]);
		line_end(s, start, p);
		types += k;
		values += k;
		n -= k;
	}
}

void pv_event(pv_shard *s, uint64_t time_ns, uint32_t type, int64_t value)
{
	pv_events(s, time_ns, 1, &type, &value);
}

static void state_line(pv_shard *s, uint64_t b, uint64_t e, unsigned state)
{
	char *start = pv_stream_reserve(&s->st, b), *p = start;
	*p++ = ':';
	p = pv_u64(p, e);
	*p++ = ':';
	p = pv_u64(p, state);
	*p++ = '\n';
	pv_stream_commit(&s->st, (size_t)(p - start));
	if (e > s->last)
		s->last = e;
}

void pv_set_state(pv_shard *s, uint64_t time_ns, unsigned state)
{
	uint64_t t = rel(s, time_ns);
	if (t < s->state_begin)
		t = s->state_begin;
	if (state == s->state)
		return;
	/* Extrae drops empty states; so do we (begin == end) */
	if (s->state != PV_STATE_IDLE && t > s->state_begin)
		state_line(s, s->state_begin, t, s->state);
	s->state = state;
	s->state_begin = t;
}

int pv_fail(pv_shard *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof s->err, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- the core's record handling ------------------------------------- */
static uint32_t lock_id(uint32_t pid, uint64_t addr)
{
	/* 31 bits, never 0: a .pcf label only holds int32 values, and ids
	 * must not depend on which worker saw a lock first */
	uint32_t id = (uint32_t)(pt_mix64(addr ^ ((uint64_t)pid << 48)) & 0x7fffffff);
	return id ? id : 1;
}

static uint32_t note_lock(pv_shard *s, uint64_t addr, unsigned what)
{
	core *c = s->core;
	uint32_t pid = s->info->pid;
	uint32_t id = lock_id(pid, addr);
	int r = pairset_add(&c->lock_seen, pid, addr, 0);
	if (r > 0 && VEC_PUSH(c->locks, ((lock_obj){pid, addr, id, what})))
		c->oom = 1;
	if (r < 0)
		c->oom = 1;
	return id;
}

static void pthread_events(pv_shard *s, uint64_t t, unsigned value, uint32_t obj, int end_too)
{
	uint32_t types[4] = {PV_EV_PTHREAD, PV_EV_SYNC_OBJECT, PV_EV_PTHREAD, PV_EV_SYNC_OBJECT};
	int64_t values[4] = {value, obj, 0, 0};
	if (obj)
		pv_events(s, t, end_too ? 4 : 2, types, values);
	else {
		uint32_t t2[2] = {PV_EV_PTHREAD, PV_EV_PTHREAD};
		int64_t v2[2] = {value, 0};
		pv_events(s, t, end_too ? 2 : 1, t2, v2);
	}
}

static void update_state(pv_shard *s, uint64_t t)
{
	core *c = s->core;
	pv_set_state(s, t, c->wait ? PV_STATE_SYNC : PV_STATE_RUNNING);
}

static unsigned lock_value(unsigned type, int release)
{
	switch (type) {
	case PT_LOCK_RWLOCK_READ:
		return release ? PV_PT_RWLOCK_UNLOCK : PV_PT_RWLOCK_RD;
	case PT_LOCK_RWLOCK_WRITE:
		return release ? PV_PT_RWLOCK_UNLOCK : PV_PT_RWLOCK_WR;
	case PT_LOCK_SPIN:
		return release ? PV_PT_SPIN_UNLOCK : PV_PT_SPIN_LOCK;
	case PT_LOCK_SEMAPHORE:
		return release ? PV_PT_SEM_POST : PV_PT_SEM_WAIT;
	case PT_LOCK_C11_MTX:
		return release ? PV_PT_MTX_UNLOCK : PV_PT_MTX_LOCK;
	case PT_LOCK_BARRIER:
		return PV_PT_BARRIER_WAIT;
	default:
		return release ? PV_PT_MUTEX_UNLOCK : PV_PT_MUTEX_LOCK;
	}
}

/* Ends `n` frames at time t: one (60000019 0, 60000119 0) pair each, so
 * Paraver's stacked view pops them all. */
static void pop_frames(pv_shard *s, uint64_t t, size_t n)
{
	uint32_t types[64];
	int64_t values[64] = {0};
	for (int i = 0; i < 64; i += 2) {
		types[i] = PV_EV_USER_FUNC;
		types[i + 1] = PV_EV_USER_FUNC_LINE;
	}
	while (n) {
		size_t k = n > 32 ? 32 : n;
		pv_events(s, t, 2 * k, types, values);
		n -= k;
	}
}

/* The 60000019/60000119 line of an entry (id) or an exit (0) at t. */
static inline void func_line(pv_shard *s, uint64_t t, uint32_t id)
{
	pv_stream_func(&s->ev, rel(s, t), id);
	if (s->ev.last_key > s->last) /* the key, clamped so the stream stays sorted */
		s->last = s->ev.last_key;
}

static void calls_push(void *arg, pt_callstack *cs)
{
	func_line(arg, cs->at[cs->depth - 1].t, cs->ids[cs->depth - 1]);
}

static void calls_pop(void *arg, pt_callstack *cs, size_t n, uint64_t t, enum pt_call_end how)
{
	(void)cs;
	(void)how;
	if (n == 1)
		func_line(arg, t, 0);
	else
		pop_frames(arg, t, n);
}

static const pt_callstack_ops pv_calls = {calls_push, calls_pop};

/* A function record (enter: 1 or 0). The common cases, an entry and an
 * exit of the innermost frame, write their line without branching on
 * which of the two it is: that is as unpredictable as the call tree. */
static inline void func_record(pv_shard *s, uint64_t t, uint32_t id, int enter)
{
	core *c = s->core;
	if (pt_callstack_step(&c->calls, id, enter)) {
		func_line(s, t, id & (uint32_t)-enter);
	} else {
		pt_callstack_func(&c->calls, id, enter, t, &pv_calls, s);
		c->oom |= c->calls.oom;
	}
}

static char *dup_str(const pt_event *ev, size_t off)
{
	const char *x = pt_event_string(ev, off);
	return x ? strdup(x) : NULL;
}

static void core_event(pv_shard *s, const pt_event *ev)
{
	core *c = s->core;
	uint64_t t = ev->time_ns;
	if (ev->kind == PT_REC_FUNC_ENTER || ev->kind == PT_REC_FUNC_EXIT) {
		func_record(s, t, pt_func_lookup_id(&c->fl, ev->func_id),
			    ev->kind == PT_REC_FUNC_ENTER);
		return;
	}
	switch (ev->kind) {
	case PT_REC_FUNC_ENTER_PC:
	case PT_REC_FUNC_EXIT_PC: {
		const pt_rec_pc *pc = PT_REC_PAYLOAD(ev->rec, pt_rec_pc);
		if (pc)
			func_record(s, t, pt_func_lookup_pc(&c->fl, pc->pc),
				    ev->kind == PT_REC_FUNC_ENTER_PC);
		break;
	}
	case PT_REC_THREAD_START: {
		const pt_rec_thread_start *ts = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_start);
		if (!ts)
			break;
		c->role.creator = ts->creator_tid;
		c->role.routine = ts->start_routine;
		c->role.main = !!(ts->flags & PT_THREAD_MAIN);
		if (ts->create_seq &&
		    VEC_PUSH(c->starts, ((link_end){s->info->pid, ts->create_seq, s->info->index,
						   rel(s, t)})))
			c->oom = 1;
		break;
	}
	case PT_REC_THREAD_END: {
		const pt_rec_thread_end *te = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_end);
		if (te && (te->flags & PT_THREAD_END_EXIT))
			pthread_events(s, t, PV_PT_EXIT, 0, 1);
		break;
	}
	case PT_REC_THREAD_NAME: {
		char *n = dup_str(ev, 0);
		if (n) {
			free(c->role.name);
			c->role.name = n;
		}
		break;
	}
	case PT_REC_THREAD_CREATE: {
		const pt_rec_thread_create *tc = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_create);
		if (!tc)
			break;
		pthread_events(s, t, PV_PT_CREATE, 0, 1);
		if (tc->result == 0 && tc->create_seq &&
		    VEC_PUSH(c->creates, ((link_end){s->info->pid, tc->create_seq, s->info->index,
						    rel(s, t)})))
			c->oom = 1;
		break;
	}
	case PT_REC_THREAD_JOIN_BEGIN:
		pthread_events(s, t, PV_PT_JOIN, 0, 0);
		c->wait |= WAIT_JOIN;
		update_state(s, t);
		break;
	case PT_REC_THREAD_JOIN_END:
		if (c->wait & WAIT_JOIN) {
			pv_event(s, t, PV_EV_PTHREAD, 0);
			c->wait &= ~WAIT_JOIN;
			update_state(s, t);
		}
		break;
	case PT_REC_USER_EVENT: {
		const pt_rec_user_event *u = PT_REC_PAYLOAD(ev->rec, pt_rec_user_event);
		if (!u)
			break;
		pv_event(s, t, u->type, u->value);
		if (pairset_add(&c->used, u->type, (uint64_t)u->value, 0) < 0)
			c->oom = 1;
		break;
	}
	case PT_REC_USER_TYPE: {
		const pt_rec_user_type *u = PT_REC_PAYLOAD(ev->rec, pt_rec_user_type);
		char *n = u ? dup_str(ev, sizeof *u) : NULL;
		if (n && VEC_PUSH(c->types, ((named){u->type, (int64_t)u->flags, n}))) {
			free(n);
			c->oom = 1;
		}
		break;
	}
	case PT_REC_USER_VALUE_NAME: {
		const pt_rec_user_event *u = PT_REC_PAYLOAD(ev->rec, pt_rec_user_event);
		char *n = u ? dup_str(ev, sizeof *u) : NULL;
		if (n && VEC_PUSH(c->values, ((named){u->type, u->value, n}))) {
			free(n);
			c->oom = 1;
		}
		break;
	}
	case PT_REC_LOCK_REQUEST:
	case PT_REC_BARRIER_BEGIN: {
		pt_rec_lock lk;
		const pt_rec_lock *l = pt_rec_lock_get(ev->rec, &lk);
		if (!l)
			break;
		unsigned type = ev->kind == PT_REC_BARRIER_BEGIN ? PT_LOCK_BARRIER : ev->rec->arg;
		uint32_t id = note_lock(s, l->object, type);
		unsigned v = lock_value(type, 0);
		pthread_events(s, t, v, id, 0);
		c->wait |= ev->kind == PT_REC_BARRIER_BEGIN ? WAIT_BARRIER : WAIT_LOCK;
		c->req_value = v;
		c->req_id = id;
		update_state(s, t);
		break;
	}
	case PT_REC_LOCK_ACQUIRED:
	case PT_REC_LOCK_FAILED: {
		pt_rec_lock lk;
		const pt_rec_lock *l = pt_rec_lock_get(ev->rec, &lk);
		if (!l)
			break;
		if (c->wait & WAIT_LOCK) {
			uint32_t types[2] = {PV_EV_PTHREAD, PV_EV_SYNC_OBJECT};
			int64_t values[2] = {0, 0};
			pv_events(s, t, 2, types, values);
			c->wait &= ~WAIT_LOCK;
			update_state(s, t);
		} else {
			/* uncontended: no request was recorded; show the call as instantaneous */
			uint32_t id = note_lock(s, l->object, ev->rec->arg);
			pthread_events(s, t, lock_value(ev->rec->arg, 0), id, 1);
		}
		break;
	}
	case PT_REC_BARRIER_END:
		if (c->wait & WAIT_BARRIER) {
			uint32_t types[2] = {PV_EV_PTHREAD, PV_EV_SYNC_OBJECT};
			int64_t values[2] = {0, 0};
			pv_events(s, t, 2, types, values);
			c->wait &= ~WAIT_BARRIER;
			update_state(s, t);
		}
		break;
	case PT_REC_LOCK_RELEASED: {
		pt_rec_lock lk;
		const pt_rec_lock *l = pt_rec_lock_get(ev->rec, &lk);
		if (!l)
			break;
		uint32_t id = note_lock(s, l->object, ev->rec->arg);
		pthread_events(s, t, lock_value(ev->rec->arg, 1), id, 1);
		break;
	}
	case PT_REC_COND_WAIT_BEGIN: {
		const pt_rec_cond *cd = PT_REC_PAYLOAD(ev->rec, pt_rec_cond);
		if (!cd)
			break;
		pthread_events(s, t, PV_PT_COND_WAIT, note_lock(s, cd->cond, 100), 0);
		c->wait |= WAIT_COND;
		update_state(s, t);
		break;
	}
	case PT_REC_COND_WAIT_END:
		if (c->wait & WAIT_COND) {
			uint32_t types[2] = {PV_EV_PTHREAD, PV_EV_SYNC_OBJECT};
			int64_t values[2] = {0, 0};
			pv_events(s, t, 2, types, values);
			c->wait &= ~WAIT_COND;
			update_state(s, t);
		}
		break;
	case PT_REC_COND_SIGNAL: {
		const pt_rec_cond *cd = PT_REC_PAYLOAD(ev->rec, pt_rec_cond);
		if (!cd)
			break;
		pthread_events(s, t, ev->rec->arg ? PV_PT_COND_BROADCAST : PV_PT_COND_SIGNAL,
			       note_lock(s, cd->cond, 100), 1);
		break;
	}
	case PT_REC_FORK: {
		const pt_rec_fork *f = PT_REC_PAYLOAD(ev->rec, pt_rec_fork);
		if (f && VEC_PUSH(c->forks, ((link_end){s->info->pid, f->child_pid,
							 s->info->index, rel(s, t)})))
			c->oom = 1;
		break;
	}
	default:
		break;
	}
}

/* ---- tool callbacks -------------------------------------------------- */
static size_t n_ext(void)
{
	size_t n = 0;
	while (pv_extensions[n] && n < PV_MAX_EXT)
		n++;
	return n;
}

static void *pv_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	pv_tool *pv = calloc(1, sizeof *pv);
	if (!pv) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pv->ctx = ctx;
	pthread_mutex_init(&pv->lock, NULL);
	pv->ext_kind_min = UINT_MAX;
	for (size_t i = 0; i < n_ext(); i++)
		if (pv_extensions[i]->kind_first < pv->ext_kind_min)
			pv->ext_kind_min = pv_extensions[i]->kind_first;
	/* options: "gz" writes NAME.prv.gz */
	pv->gz = options && strstr(options, "gz") != NULL;
	pv->name = strdup(ctx->output ? ctx->output : "trace");
	pv->shards = calloc(ctx->nshards + 1, sizeof *pv->shards);
	pv->roles = calloc(ctx->nshards + 1, sizeof *pv->roles);
	size_t tl = strlen(pv->name) + 32;
	pv->tmpdir = malloc(tl);
	if (!pv->name || !pv->shards || !pv->roles || !pv->tmpdir) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	snprintf(pv->tmpdir, tl, "%s.prv.tmp-XXXXXX", pv->name);
	if (!mkdtemp(pv->tmpdir)) {
		snprintf(err, errlen, "cannot create %s: %s", pv->tmpdir, strerror(errno));
		free(pv->tmpdir);
		pv->tmpdir = NULL;
		goto fail;
	}
	/* the merge keeps every stream of a time range open at once */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (size_t i = 0; i < n_ext(); i++)
		pv->ext[i] = pv_extensions[i]->init ? pv_extensions[i]->init(ctx) : NULL;
	return pv;
fail:
	free(pv->name);
	free(pv->shards);
	free(pv->roles);
	free(pv);
	return NULL;
}

static int pv_process_event(void *tool, size_t process, const pt_event *ev)
{
	pv_tool *pv = tool;
	for (size_t i = 0; i < n_ext(); i++)
		if (pv_extensions[i]->process_event)
			pv_extensions[i]->process_event(pv->ext[i], process, ev);
	return 0;
}

static void *pv_shard_init(void *tool, const pt_shard_info *info, char *err, size_t errlen)
{
	pv_tool *pv = tool;
	pv_shard *s = calloc(1, sizeof *s);
	core *c = calloc(1, sizeof *c);
	if (!s || !c) {
		free(s);
		free(c);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->info = info;
	s->ctx = pv->ctx;
	s->pv = pv;
	s->t0 = pv->ctx->t0_ns;
	s->core = c;
	pt_func_lookup_init(&c->fl, pv->ctx, info->process);
	pt_callstack_init(&c->calls);
	s->ev.fd = s->st.fd = -1;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%zu.ev", pv->tmpdir, info->index);
	s->ev_prefix_len = (size_t)snprintf(s->ev_prefix, sizeof s->ev_prefix, "2:%u:1:%u:%u:",
					    info->row, info->task, info->thread);
	s->st_prefix_len = (size_t)snprintf(s->st_prefix, sizeof s->st_prefix, "1:%u:1:%u:%u:",
					    info->row, info->task, info->thread);
	int rc = pv_stream_open(&s->ev, path, s->ev_prefix);
	snprintf(path, sizeof path, "%s/%zu.st", pv->tmpdir, info->index);
	if (!rc)
		rc = pv_stream_open(&s->st, path, s->st_prefix);
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, strerror(s->ev.error ? s->ev.error : s->st.error));
		pv_stream_free(&s->ev);
		pv_stream_free(&s->st);
		free(c);
		free(s);
		return NULL;
	}
	/* before its first record the thread did not exist yet; a GPU stream
	 * row has none of that: its records carry device times that can be
	 * earlier than the log (CUPTI delivers buffers after the work ran) */
	uint64_t first = info->kind == PT_FILE_GPU ? 0 : rel(s, info->first_ns);
	if (info->first_ns && first > 0)
		state_line(s, 0, first, PV_STATE_NOT_CREATED);
	s->state_begin = first;
	s->state = info->kind == PT_FILE_THREAD ? PV_STATE_RUNNING : PV_STATE_IDLE;
	for (size_t i = 0; i < n_ext(); i++)
		s->ext[i] = pv_extensions[i]->shard_init ? pv_extensions[i]->shard_init(pv->ext[i], s)
							 : NULL;
	pv->shards[info->index] = s;
	return s;
}

static int pv_shard_event(void *st, const pt_event *ev)
{
	pv_shard *s = st;
	if (s->info->kind == PT_FILE_THREAD)
		core_event(s, ev);
	/* function records, the bulk, are below every extension's kinds */
	for (size_t i = 0; ev->kind >= s->pv->ext_kind_min && pv_extensions[i] && i < PV_MAX_EXT;
	     i++) {
		const pv_extension *x = pv_extensions[i];
		if (ev->kind >= x->kind_first && ev->kind <= x->kind_last && x->event &&
		    x->event(s->pv->ext[i], s->ext[i], s, ev))
			return -1;
	}
	if (s->ev.error || s->st.error)
		return pv_fail(s, "writing %s: %s", s->ev.error ? s->ev.path : s->st.path,
			       strerror(s->ev.error ? s->ev.error : s->st.error));
	if (((core *)s->core)->oom)
		return pv_fail(s, "out of memory");
	return 0;
}

static const char *pv_shard_error(void *st)
{
	return ((pv_shard *)st)->err;
}

#define MOVE_VEC(dst, src)                                           \
	do {                                                         \
		for (size_t i_ = 0; i_ < (src).n; i_++)              \
			if (VEC_PUSH(dst, (src).v[i_]))              \
				oom = 1;                             \
		free((src).v);                                       \
		(src).v = NULL;                                      \
		(src).n = (src).cap = 0;                             \
	} while (0)

static int pv_shard_exit(void *st, uint64_t last_ns, int complete)
{
	(void)complete;
	pv_shard *s = st;
	pv_tool *pv = s->pv;
	core *c = s->core;
	uint64_t last = rel(s, last_ns);
	if (last < s->last)
		last = s->last;
	/* frames still open (exit, cancellation, killed) end here */
	pt_callstack_end(&c->calls, s->t0 + last, &pv_calls, s);
	if (c->wait & (WAIT_LOCK | WAIT_COND | WAIT_BARRIER))
		pv_events(s, s->t0 + last, 2, (uint32_t[]){PV_EV_PTHREAD, PV_EV_SYNC_OBJECT},
			  (int64_t[]){0, 0});
	else if (c->wait & WAIT_JOIN)
		pv_event(s, s->t0 + last, PV_EV_PTHREAD, 0);
	pv_set_state(s, s->t0 + last, PV_STATE_IDLE);
	int oom = c->oom;
	pthread_mutex_lock(&pv->lock);
	MOVE_VEC(pv->creates, c->creates);
	MOVE_VEC(pv->starts, c->starts);
	MOVE_VEC(pv->forks, c->forks);
	MOVE_VEC(pv->types, c->types);
	MOVE_VEC(pv->values, c->values);
	for (size_t i = 0; i < c->used.cap; i++)
		if ((c->used.k[2 * i] || c->used.k[2 * i + 1]) &&
		    pairset_add(&pv->used, c->used.k[2 * i], c->used.k[2 * i + 1], 0) < 0)
			oom = 1;
	for (size_t i = 0; i < c->locks.n; i++) {
		lock_obj *l = &c->locks.v[i];
		int r = pairset_add(&pv->lock_seen, l->pid, l->addr, 0);
		if (r < 0 || (r > 0 && VEC_PUSH(pv->locks, *l)))
			oom = 1;
	}
	pv->roles[s->info->index] = c->role;
	for (size_t i = 0; i < n_ext(); i++)
		if (pv_extensions[i]->shard_exit)
			pv_extensions[i]->shard_exit(pv->ext[i], s->ext[i], s);
	if (s->last > pv->max_time)
		pv->max_time = s->last;
	pv->records += s->ev.nrec + s->st.nrec;
	pthread_mutex_unlock(&pv->lock);
	free(c->locks.v);
	pairset_free(&c->lock_seen);
	pairset_free(&c->used);
	pt_callstack_free(&c->calls);
	pt_func_lookup_free(&c->fl);
	free(c);
	s->core = NULL;
	int rc = pv_stream_finish(&s->ev);
	if (pv_stream_finish(&s->st))
		rc = -1;
	if (rc)
		pv_fail(s, "writing temporary files: %s",
			strerror(s->ev.error ? s->ev.error : s->st.error));
	return rc || oom ? -1 : 0;
}

/* ---- finish: comms, header, merge, .pcf, .row ------------------------ */
static int cmp_link(const void *a, const void *b)
{
	const link_end *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

typedef struct comm {
	uint64_t ts, tr;
	size_t from, to;
	int tag;
	int64_t size;
} comm;

static int cmp_comm(const void *a, const void *b)
{
	const comm *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* Thread creation (tag 1) and fork (tag 2) as communications from the
 * creating thread to the first record of the created thread/process. */
static int write_comms(pv_tool *pv, pv_stream *out, char *err, size_t errlen)
{
	const pt_trace_ctx *ctx = pv->ctx;
	VEC(comm) cs = {0};
	pt_qsort(pv->creates.v, pv->creates.n, sizeof *pv->creates.v, cmp_link);
	pt_qsort(pv->starts.v, pv->starts.n, sizeof *pv->starts.v, cmp_link);
	size_t j = 0;
	for (size_t i = 0; i < pv->creates.n; i++) {
		const link_end *c = &pv->creates.v[i];
		while (j < pv->starts.n && cmp_link(&pv->starts.v[j], c) < 0 &&
		       (pv->starts.v[j].pid < c->pid ||
			(pv->starts.v[j].pid == c->pid && pv->starts.v[j].seq < c->seq)))
			j++;
		if (j < pv->starts.n && pv->starts.v[j].pid == c->pid && pv->starts.v[j].seq == c->seq)
			if (VEC_PUSH(cs, ((comm){c->time, pv->starts.v[j].time, c->shard,
						 pv->starts.v[j].shard, 1, 0})))
				goto oom;
	}
	for (size_t i = 0; i < pv->forks.n; i++) {
		const link_end *f = &pv->forks.v[i];
		for (size_t p = 0; p < ctx->nprocesses; p++) {
			const pt_process_info *pi = &ctx->processes[p];
			if (pi->pid != f->seq || !pi->nshards)
				continue;
			const pt_shard_info *to = &ctx->shards[pi->first_shard];
			uint64_t tr = to->first_ns > ctx->t0_ns ? to->first_ns - ctx->t0_ns : 0;
			if (VEC_PUSH(cs, ((comm){f->time, tr, f->shard, to->index, 2, 0})))
				goto oom;
			break;
		}
	}
	for (size_t k = 0; pv_extensions[k]; k++) {
		pv_comm *ec = NULL;
		size_t m = pv_extensions[k]->comms ? pv_extensions[k]->comms(pv->ext[k], &ec) : 0;
		for (size_t i = 0; i < m; i++) {
			uint64_t ts = ec[i].send_ns > ctx->t0_ns ? ec[i].send_ns - ctx->t0_ns : 0;
			uint64_t tr = ec[i].recv_ns > ctx->t0_ns ? ec[i].recv_ns - ctx->t0_ns : 0;
			if (ec[i].from >= ctx->nshards || ec[i].to >= ctx->nshards)
				continue;
			if (VEC_PUSH(cs, ((comm){ts, tr, ec[i].from, ec[i].to, ec[i].tag, ec[i].size}))) {
				free(ec);
				goto oom;
			}
		}
		free(ec);
	}
	pt_qsort(cs.v, cs.n, sizeof *cs.v, cmp_comm);
	for (size_t i = 0; i < cs.n; i++) {
		const comm *c = &cs.v[i];
		const pt_shard_info *a = &ctx->shards[c->from], *b = &ctx->shards[c->to];
		char *start = pv_stream_reserve(out, c->ts), *p = start;
		p += sprintf(p, "3:%u:1:%u:%u:", a->row, a->task, a->thread);
		p = pv_u64(p, c->ts);
		*p++ = ':';
		p = pv_u64(p, c->ts);
		p += sprintf(p, ":%u:1:%u:%u:", b->row, b->task, b->thread);
		p = pv_u64(p, c->tr);
		*p++ = ':';
		p = pv_u64(p, c->tr);
		p += sprintf(p, ":%lld:%d\n", (long long)c->size, c->tag);
		pv_stream_commit(out, (size_t)(p - start));
		if (c->tr > pv->max_time)
			pv->max_time = c->tr;
	}
	free(cs.v);
	return 0;
oom:
	free(cs.v);
	snprintf(err, errlen, "out of memory");
	return -1;
}

static size_t header(pv_tool *pv, char *buf, size_t len)
{
	const pt_trace_ctx *ctx = pv->ctx;
	char date[64] = "";
	time_t secs = (time_t)(ctx->realtime0_ns / 1000000000ull);
	struct tm tm;
	if (ctx->realtime0_ns && localtime_r(&secs, &tm))
		strftime(date, sizeof date, "%d/%m/%Y at %H:%M", &tm);
	uint64_t end = pv->max_time;
	if (ctx->t_end_ns > ctx->t0_ns && ctx->t_end_ns - ctx->t0_ns > end)
		end = ctx->t_end_ns - ctx->t0_ns;
	size_t n = (size_t)snprintf(buf, len, "#Paraver (%s):%llu_ns:1(%zu):1:", date,
				    (unsigned long long)end, ctx->nshards);
	unsigned ntasks = 0;
	for (size_t p = 0; p < ctx->nprocesses; p++)
		if (ctx->processes[p].task > ntasks)
			ntasks = ctx->processes[p].task;
	n += (size_t)snprintf(buf + n, len - n, "%u(", ntasks);
	for (unsigned t = 1; t <= ntasks; t++)
		for (size_t p = 0; p < ctx->nprocesses; p++)
			if (ctx->processes[p].task == t) {
				if (n + 32 > len)
					return 0;
				n += (size_t)snprintf(buf + n, len - n, "%s%zu:1", t > 1 ? "," : "",
						      ctx->processes[p].nshards);
			}
	n += (size_t)snprintf(buf + n, len - n, "),0\n");
	return n < len ? n : 0;
}

static void pcf_escape_line(FILE *f, const char *s)
{
	/* labels are the rest of a line: no newlines inside */
	for (; *s; s++)
		fputc(*s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s, f);
}

static const char *const state_names[] = {
	"Idle", "Running", "Not created", "Waiting a message", "Blocking Send",
	"Synchronization", "Test/Probe", "Scheduling and Fork/Join", "Wait/WaitAll",
	"Blocked", "Immediate Send", "Immediate Receive", "I/O", "Group Communication",
	"Tracing Disabled", "Others", "Send Receive", "Memory transfer", "Profiling",
	"On-line analysis", "Remote memory access", "Atomic memory operation",
	"Memory ordering operation", "Distributed locking", "Overhead", "One-sided op",
	"Startup latency", "Waiting links", "Data copy", "RTT", "Allocating memory",
	"Freeing memory", "Configuring accelerator", "Stream Registration"};

static const char *const pthread_names[PV_PT_MAX] = {
	[PV_PT_END] = "End", [PV_PT_EXIT] = "pthread_exit", [PV_PT_CREATE] = "pthread_create",
	[PV_PT_JOIN] = "pthread_join", [PV_PT_DETACH] = "pthread_detach",
	[PV_PT_RWLOCK_WR] = "pthread_rwlock_wrlock", [PV_PT_RWLOCK_RD] = "pthread_rwlock_rdlock",
	[PV_PT_RWLOCK_UNLOCK] = "pthread_rwlock_unlock", [PV_PT_MUTEX_LOCK] = "pthread_mutex_lock",
	[PV_PT_MUTEX_UNLOCK] = "pthread_mutex_unlock", [PV_PT_COND_SIGNAL] = "pthread_cond_signal",
	[PV_PT_COND_BROADCAST] = "pthread_cond_broadcast",
	[PV_PT_COND_WAIT] = "pthread_cond_wait", [PV_PT_BARRIER_WAIT] = "pthread_barrier_wait",
	[PV_PT_SPIN_LOCK] = "pthread_spin_lock", [PV_PT_SPIN_UNLOCK] = "pthread_spin_unlock",
	[PV_PT_SEM_WAIT] = "sem_wait", [PV_PT_SEM_POST] = "sem_post", [PV_PT_MTX_LOCK] = "mtx_lock",
	[PV_PT_MTX_UNLOCK] = "mtx_unlock"};

static const char *lock_kind(unsigned what)
{
	switch (what) {
	case PT_LOCK_MUTEX: return "mutex";
	case PT_LOCK_RWLOCK_READ:
	case PT_LOCK_RWLOCK_WRITE: return "rwlock";
	case PT_LOCK_SPIN: return "spinlock";
	case PT_LOCK_SEMAPHORE: return "semaphore";
	case PT_LOCK_C11_MTX: return "mtx_t";
	case PT_LOCK_BARRIER: return "barrier";
	case 100: return "condition";
	default: return "lock";
	}
}

static int cmp_named(const void *a, const void *b)
{
	const named *x = a, *y = b;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

static int cmp_lock(const void *a, const void *b)
{
	const lock_obj *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int write_pcf(pv_tool *pv, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	const pt_trace_ctx *ctx = pv->ctx;
	fputs("DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n"
	      "LOOK_BACK           100\nSPEED               1\nFLAG_ICONS          ENABLED\n"
	      "NUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n\n"
	      "DEFAULT_SEMANTIC\n\nTHREAD_FUNC          State As Is\n\n\nSTATES\n",
	      f);
	for (size_t i = 0; i < sizeof state_names / sizeof state_names[0]; i++)
		fprintf(f, "%-4zu %s\n", i, state_names[i]);
	/* Extrae's colours for the states paratrace writes */
	fputs("\n\nSTATES_COLOR\n0    {117,195,255}\n1    {0,0,255}\n2    {255,255,255}\n"
	      "5    {179,0,0}\n17   {255,0,96}\n\n\n",
	      f);

	fprintf(f, "EVENT_TYPE\n0    %u    User function\nVALUES\n0      End\n", PV_EV_USER_FUNC);
	uint32_t nf = pt_ctx_func_count(ctx);
	for (uint32_t id = 1; id <= nf; id++) {
		const pt_func_info *fi = pt_ctx_func_info(ctx, id);
		fprintf(f, "%-6u ", id);
		pcf_escape_line(f, fi->name);
		if (fi->file[0]) {
			fputs(" [", f);
			pcf_escape_line(f, fi->file);
			if (fi->line)
				fprintf(f, ":%u", fi->line);
			fputc(']', f);
		}
		fputc('\n', f);
	}
	fprintf(f, "\n\nEVENT_TYPE\n0    %u    User function line\nVALUES\n0      End\n",
		PV_EV_USER_FUNC_LINE);
	for (uint32_t id = 1; id <= nf; id++) {
		const pt_func_info *fi = pt_ctx_func_info(ctx, id);
		/* Extrae's label shape: "<line> (<file>)" */
		fprintf(f, "%-6u %u (", id, fi->line);
		pcf_escape_line(f, fi->file[0] ? fi->file : "?");
		fputs(")\n", f);
	}

	fprintf(f, "\n\nEVENT_TYPE\n0    %u    pthread call\nVALUES\n", PV_EV_PTHREAD);
	for (int v = 0; v < PV_PT_MAX; v++)
		if (pthread_names[v])
			fprintf(f, "%-6d %s\n", v, pthread_names[v]);

	fprintf(f, "\n\nEVENT_TYPE\n0    %u    Synchronization object\nVALUES\n0      End\n",
		PV_EV_SYNC_OBJECT);
	pt_qsort(pv->locks.v, pv->locks.n, sizeof *pv->locks.v, cmp_lock);
	for (size_t i = 0; i < pv->locks.n; i++) {
		const lock_obj *l = &pv->locks.v[i];
		if (i && pv->locks.v[i - 1].id == l->id) /* 31-bit id collision: one label, both named */
			fprintf(f, "%-6u (same id as above) %s 0x%llx (pid %u)\n", l->id,
				lock_kind(l->what), (unsigned long long)l->addr, l->pid);
		else
			fprintf(f, "%-6u %s 0x%llx (pid %u)\n", l->id, lock_kind(l->what),
				(unsigned long long)l->addr, l->pid);
	}

	/* user event types: named ones and every type used */
	pt_qsort(pv->types.v, pv->types.n, sizeof *pv->types.v, cmp_named);
	pt_qsort(pv->values.v, pv->values.n, sizeof *pv->values.v, cmp_named);
	size_t nused = 0;
	named *used = calloc(pv->used.n + 1, sizeof *used);
	for (size_t i = 0; used && i < pv->used.cap; i++)
		if (pv->used.k[2 * i] || pv->used.k[2 * i + 1])
			used[nused++] = (named){(uint32_t)pv->used.k[2 * i],
						(int64_t)pv->used.k[2 * i + 1], NULL};
	if (used)
		pt_qsort(used, nused, sizeof *used, cmp_named);
	/* every distinct type from both lists */
	size_t it = 0, iu = 0, iv = 0;
	while (it < pv->types.n || iu < nused) {
		uint32_t type;
		if (it < pv->types.n && (iu >= nused || pv->types.v[it].type <= used[iu].type))
			type = pv->types.v[it].type;
		else
			type = used[iu].type;
		const char *name = NULL;
		int scope = 0;
		for (; it < pv->types.n && pv->types.v[it].type == type; it++) {
			name = pv->types.v[it].name; /* the last definition wins */
			scope = (pv->types.v[it].value & PT_USER_TYPE_SCOPE) != 0;
		}
		fprintf(f, "\n\nEVENT_TYPE\n0    %u    ", type);
		if (name)
			pcf_escape_line(f, name);
		else
			fprintf(f, "User event %u", type);
		fputc('\n', f);
		/* values: named ones, plus the used ones without a name (shown as
		 * numbers, so every value in the trace has a label) */
		while (iv < pv->values.n && pv->values.v[iv].type < type)
			iv++;
		size_t v0 = iv;
		size_t u0 = iu;
		while (iu < nused && used[iu].type == type)
			iu++;
		size_t nv = 0;
		while (iv < pv->values.n && pv->values.v[iv].type == type)
			iv++, nv++;
		if (nv == 0 && !scope)
			continue; /* a numeric type: no VALUES section */
		fputs("VALUES\n", f);
		if (scope)
			fputs("0      End\n", f);
		for (size_t k = v0; k < iv; k++) {
			if (k > v0 && pv->values.v[k].value == pv->values.v[k - 1].value)
				continue;
			if (scope && pv->values.v[k].value == 0)
				continue;
			fprintf(f, "%-6lld ", (long long)pv->values.v[k].value);
			pcf_escape_line(f, pv->values.v[k].name);
			fputc('\n', f);
		}
		for (size_t k = u0; k < iu; k++) {
			int64_t v = used[k].value;
			if (v > INT32_MAX || v < INT32_MIN)
				continue; /* Paraver cannot label it (std::stoi) */
			int named_v = scope && v == 0;
			for (size_t q = v0; q < iv && !named_v; q++)
				named_v = pv->values.v[q].value == v;
			if (!named_v)
				fprintf(f, "%-6lld %lld\n", (long long)v, (long long)v);
		}
	}
	free(used);
	for (size_t i = 0; i < n_ext(); i++)
		if (pv_extensions[i]->write_pcf)
			pv_extensions[i]->write_pcf(pv->ext[i], f);
	return fclose(f);
}

static void row_label(pv_tool *pv, size_t i, char *buf, size_t len)
{
	const pt_trace_ctx *ctx = pv->ctx;
	const pt_shard_info *s = &ctx->shards[i];
	const pt_process_info *p = &ctx->processes[s->process];
	for (size_t k = 0; k < n_ext(); k++)
		if (pv_extensions[k]->row_label &&
		    pv_extensions[k]->row_label(pv->ext[k], s, buf, len) == 0)
			return;
	if (s->kind == PT_FILE_GPU) {
		snprintf(buf, len, "%s pid %u GPU stream %llu", p->program, s->pid,
			 (unsigned long long)s->gpu_stream);
		return;
	}
	const role *r = &pv->roles[i];
	char what[256];
	if (r->name)
		snprintf(what, sizeof what, "%s", r->name);
	else if (r->main || s->tid == s->pid)
		snprintf(what, sizeof what, "main");
	else {
		uint32_t id = r->routine ? pt_ctx_func_id_pc(ctx, s->process, r->routine) : 0;
		const pt_func_info *fi = id ? pt_ctx_func_info(ctx, id) : NULL;
		if (fi && fi->name[0] && strncmp(fi->name, "0x", 2))
			snprintf(what, sizeof what, "%s", fi->name);
		else if (r->creator)
			snprintf(what, sizeof what, "created by %u", r->creator);
		else
			snprintf(what, sizeof what, "thread");
	}
	for (char *c = what; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	snprintf(buf, len, "%s pid %u tid %u (%s)", p->program, s->pid, s->tid, what);
}

static int write_row(pv_tool *pv, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	const pt_trace_ctx *ctx = pv->ctx;
	char host[256] = "localhost";
	gethostname(host, sizeof host - 1);
	fprintf(f, "LEVEL CPU SIZE %zu\n", ctx->nshards);
	for (size_t i = 0; i < ctx->nshards; i++)
		fprintf(f, "%zu.%s\n", i + 1, host);
	fprintf(f, "\nLEVEL NODE SIZE 1\n%s\n", host);
	unsigned ntasks = 0;
	for (size_t p = 0; p < ctx->nprocesses; p++)
		if (ctx->processes[p].task > ntasks)
			ntasks = ctx->processes[p].task;
	fprintf(f, "\nLEVEL APPL SIZE 1\n%s\n", ctx->nprocesses ? ctx->processes[0].program : "?");
	fprintf(f, "\nLEVEL TASK SIZE %u\n", ntasks);
	for (unsigned t = 1; t <= ntasks; t++)
		for (size_t p = 0; p < ctx->nprocesses; p++)
			if (ctx->processes[p].task == t)
				fprintf(f, "%s pid %u\n", ctx->processes[p].program,
					ctx->processes[p].pid);
	fprintf(f, "\nLEVEL THREAD SIZE %zu\n", ctx->nshards);
	for (size_t i = 0; i < ctx->nshards; i++) {
		char label[512];
		row_label(pv, i, label, sizeof label);
		fprintf(f, "%s\n", label);
	}
	return fclose(f);
}

static int gz_member(const char *in, size_t n, char **out, size_t *outlen)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	size_t cap = deflateBound(&z, n) + 64;
	*out = malloc(cap);
	if (!*out) {
		deflateEnd(&z);
		return -1;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)*out;
	z.avail_out = (uInt)cap;
	int rc = deflate(&z, Z_FINISH);
	*outlen = cap - z.avail_out;
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -1;
}

static void merge_progress(void *arg, uint64_t done, uint64_t total)
{
	pv_tool *pv = arg;
	char what[64];
	const char *base = strrchr(pv->prv_path, '/');
	snprintf(what, sizeof what, "writing %.48s", base ? base + 1 : pv->prv_path);
	pv->ctx->ops->progress(pv->ctx, what, done, total);
}

static int pv_finish(void *tool, char *err, size_t errlen)
{
	pv_tool *pv = tool;
	const pt_trace_ctx *ctx = pv->ctx;
	pv_stream comms;
	char path[PATH_MAX];
	char tmp_prv[PATH_MAX] = "", tmp_pcf[PATH_MAX] = "", tmp_row[PATH_MAX] = "";
	snprintf(path, sizeof path, "%s/comms", pv->tmpdir);
	if (pv_stream_open(&comms, path, NULL)) {
		snprintf(err, errlen, "%s: %s", path, strerror(comms.error));
		pv_stream_free(&comms);
		return -1;
	}
	int rc = -1;
	pv_stream **streams = calloc(2 * ctx->nshards + 1, sizeof *streams);
	char *hdr = malloc(64 + 32 * ctx->nshards + 16 * ctx->nprocesses);
	char *gzh = NULL;
	int fd = -1;
	if (!streams || !hdr) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (write_comms(pv, &comms, err, errlen))
		goto out;
	if (pv_stream_finish(&comms)) {
		snprintf(err, errlen, "%s: %s", comms.path, strerror(comms.error));
		goto out;
	}
	size_t n = 0;
	for (size_t i = 0; i < ctx->nshards; i++) {
		pv_shard *s = pv->shards[i];
		if (!s)
			continue;
		streams[n++] = &s->st;
		streams[n++] = &s->ev;
	}
	streams[n++] = &comms;
	size_t hlen = header(pv, hdr, 64 + 32 * ctx->nshards + 16 * ctx->nprocesses);
	snprintf(pv->prv_path, sizeof pv->prv_path, "%s.prv%s", pv->name, pv->gz ? ".gz" : "");
	/* The three files are written in the temporary folder (beside the
	 * output, so on its file system) and renamed into place at the end:
	 * a run that fails leaves the previous trace as it was, and Paraver
	 * never opens a half-written one. */
	snprintf(tmp_prv, sizeof tmp_prv, "%s/out.prv", pv->tmpdir);
	snprintf(tmp_pcf, sizeof tmp_pcf, "%s/out.pcf", pv->tmpdir);
	snprintf(tmp_row, sizeof tmp_row, "%s/out.row", pv->tmpdir);
	fd = open(tmp_prv, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", tmp_prv, strerror(errno));
		goto out;
	}
	const char *h = hdr;
	size_t hl = hlen;
	if (pv->gz) {
		if (gz_member(hdr, hlen, &gzh, &hl)) {
			snprintf(err, errlen, "compressing: out of memory");
			goto out;
		}
		h = gzh;
	}
	if (pwrite(fd, h, hl, 0) != (ssize_t)hl) {
		snprintf(err, errlen, "%s: %s", pv->prv_path, strerror(errno));
		goto out;
	}
	if (pv_merge_progress(streams, n, fd, hl, ctx->nworkers, pv->gz, merge_progress, pv, err,
			      errlen))
		goto out;
	struct stat stt;
	if (fstat(fd, &stt) == 0)
		pv->prv_bytes = (uint64_t)stt.st_size;
	if (close(fd)) {
		fd = -1;
		snprintf(err, errlen, "%s: %s", pv->prv_path, strerror(errno));
		goto out;
	}
	fd = -1;
	if (write_pcf(pv, tmp_pcf)) {
		snprintf(err, errlen, "%s: %s", tmp_pcf, strerror(errno));
		goto out;
	}
	if (write_row(pv, tmp_row)) {
		snprintf(err, errlen, "%s: %s", tmp_row, strerror(errno));
		goto out;
	}
	const char *tmps[3] = {tmp_prv, tmp_pcf, tmp_row};
	const char *exts[3] = {pv->gz ? ".prv.gz" : ".prv", ".pcf", ".row"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s%s", pv->name, exts[i]);
		if (rename(tmps[i], path)) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto out;
		}
	}
	pv->records += comms.nrec;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc && tmp_prv[0]) /* what was not renamed into place */
		for (const char *const *t = (const char *const[]){tmp_prv, tmp_pcf, tmp_row, NULL}; *t;
		     t++)
			unlink(*t);
	pv_stream_free(&comms);
	free(streams);
	free(hdr);
	free(gzh);
	return rc;
}

static int pv_print(void *tool, FILE *out)
{
	pv_tool *pv = tool;
	if (pv->ctx->quiet || !pv->prv_path[0])
		return 0;
	fprintf(out, "Paraver trace: %s (%.1f MB, %llu records), %s.pcf, %s.row\n", pv->prv_path,
		(double)pv->prv_bytes / 1e6, (unsigned long long)pv->records, pv->name, pv->name);
	return 0;
}

static void pv_destroy(void *tool)
{
	pv_tool *pv = tool;
	for (size_t i = 0; i < pv->ctx->nshards; i++) {
		pv_shard *s = pv->shards[i];
		if (!s)
			continue;
		pv_stream_free(&s->ev);
		pv_stream_free(&s->st);
		free(s);
		free(pv->roles[i].name);
	}
	for (size_t i = 0; i < n_ext(); i++)
		if (pv_extensions[i]->destroy)
			pv_extensions[i]->destroy(pv->ext[i]);
	if (pv->tmpdir)
		rmdir(pv->tmpdir);
	for (size_t i = 0; i < pv->types.n; i++)
		free(pv->types.v[i].name);
	for (size_t i = 0; i < pv->values.n; i++)
		free(pv->values.v[i].name);
	free(pv->types.v);
	free(pv->values.v);
	free(pv->creates.v);
	free(pv->starts.v);
	free(pv->forks.v);
	free(pv->locks.v);
	pairset_free(&pv->used);
	pairset_free(&pv->lock_seen);
	free(pv->roles);
	free(pv->shards);
	free(pv->tmpdir);
	free(pv->name);
	pthread_mutex_destroy(&pv->lock);
	free(pv);
}

static const pt_tool paraver_tool = {
	.api_version = PT_TOOL_API_VERSION,
	.name = "paraver",
	.description = "Paraver trace (NAME.prv, .pcf, .row)",
	.init = pv_init,
	.process_event = pv_process_event,
	.shard_init = pv_shard_init,
	.shard_event = pv_shard_event,
	.shard_exit = pv_shard_exit,
	.shard_error = pv_shard_error,
	.finish = pv_finish,
	.print_results = pv_print,
	.destroy = pv_destroy,
};

const pt_tool *pt_tool_paraver(void)
{
	return &paraver_tool;
}
