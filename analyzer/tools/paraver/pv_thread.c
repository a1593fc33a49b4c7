/* SPDX-License-Identifier: MIT */
/* A thread row of the Paraver trace: its records become user-function
 * events (calls as the framework's call-stack tracker says), pthread-call
 * and synchronization-object events, user events, and the Running /
 * Synchronization states; thread creations, forks, names and locks are
 * noted for the communications, the .row and the .pcf. */
#define _GNU_SOURCE
#include "pv_thread.h"

#include <stdio.h>
#include <string.h>

#define WAIT_LOCK 1u
#define WAIT_COND 2u
#define WAIT_JOIN 4u
#define WAIT_BARRIER 8u

int pv_thread_init(pv_shard *s)
{
	pv_thread *c = calloc(1, sizeof *c);
	if (!c)
		return -1;
	pt_func_lookup_init(&c->fl, s->ctx, s->info->process);
	pt_callstack_init(&c->calls, s->info->header);
	s->core = c;
	return 0;
}

int pv_thread_failed(const pv_shard *s)
{
	return ((const pv_thread *)s->core)->oom;
}

/* ---- functions --------------------------------------------------------- */

static void calls_push(void *arg, pt_callstack *cs)
{
	pv_func_line(arg, cs->at[cs->depth - 1].t, cs->ids[cs->depth - 1]);
}

/* Calls open when the runtime lost data end where the data stops, each
 * marked with PV_EV_FUNC_CUT = its function, innermost first; the gap's
 * LOST record sets PV_EV_FUNC_CUT back to 0. */
static void calls_pop(void *arg, pt_callstack *cs, size_t n, uint64_t t, enum pt_call_end how)
{
	pv_shard *s = arg;
	if (how == PT_CALL_CUT) {
		pv_thread *c = s->core;
		pv_cut_line(s, t, cs->ids, cs->depth, cs->depth + n);
		c->gap_open = 1;
		c->found.cuts = 1;
	} else if (n == 1)
		pv_func_line(s, t, 0);
	else
		pv_pop_line(s, t, n);
}

static const pt_callstack_ops pv_calls = {calls_push, calls_pop};

void pv_thread_func_slow(pv_shard *s, uint64_t t, uint32_t id, int enter)
{
	pv_thread *c = s->core;
	pt_callstack_func(&c->calls, id, enter, t, &pv_calls, s);
	c->oom |= c->calls.oom;
}

/* ---- synchronization ----------------------------------------------------- */
static uint32_t lock_id(uint32_t pid, uint64_t addr)
{
	/* 31 bits, never 0: a .pcf label only holds int32 values, and ids
	 * must not depend on which worker saw a lock first */
	uint32_t id = (uint32_t)(pt_mix64(addr ^ ((uint64_t)pid << 48)) & 0x7fffffff);
	return id ? id : 1;
}

/* The 61000010 value of a lock, noted for the .pcf. */
static uint32_t note_lock(pv_shard *s, uint64_t addr, unsigned what)
{
	pv_thread *c = s->core;
	uint32_t pid = s->info->pid;
	uint32_t id = lock_id(pid, addr);
	int r = pv_pairset_add(&c->found.lock_seen, pid, addr);
	if (r > 0 && VEC_PUSH(c->found.locks, ((pv_lock_obj){pid, addr, id, what})))
		c->oom = 1;
	if (r < 0)
		c->oom = 1;
	return id;
}

/* 61000000 = value (and 61000010 = obj unless 0); end_too: the call is
 * instantaneous, both back to 0 at once. kind: the line's PV_SY_* mark
 * (0: none), for the budget (pv_codec.h). */
static void pthread_events(pv_shard *s, uint64_t t, unsigned value, uint32_t obj, int end_too,
                           unsigned kind)
{
	uint32_t types[4] = {PV_EV_PTHREAD, PV_EV_SYNC_OBJECT, PV_EV_PTHREAD, PV_EV_SYNC_OBJECT};
	int64_t values[4] = {value, obj, 0, 0};
	if (obj)
		pv_sync_events(s, t, end_too ? 4 : 2, types, values, kind, obj);
	else {
		uint32_t t2[2] = {PV_EV_PTHREAD, PV_EV_PTHREAD};
		int64_t v2[2] = {value, 0};
		pv_sync_events(s, t, end_too ? 2 : 1, t2, v2, kind, 0);
	}
}

/* The mark of the line that begins a wait (what: WAIT_*): a lock or
 * condition wait that nothing else overlaps is a request the budget may
 * leave out with its end; a wait that begins while a marked one is open
 * keeps that one. */
static unsigned wait_kind(pv_shard *s, unsigned what)
{
	pv_thread *c = s->core;
	if (!c->wait && (what == WAIT_LOCK || what == WAIT_COND)) {
		c->sync_req = what;
		return PV_SY_REQ;
	}
	return c->sync_req ? PV_SY_PIN : 0;
}

/* A wait begins (what: WAIT_*): Synchronization from t. */
static void wait_begins(pv_shard *s, uint64_t t, unsigned what)
{
	pv_thread *c = s->core;
	c->wait |= what;
	pv_set_state(s, t, PV_STATE_SYNC);
}

/* The mark of the line that ends a wait (what: WAIT_*). */
static unsigned end_kind(pv_thread *c, unsigned what)
{
	if (c->sync_req != what)
		return 0;
	c->sync_req = 0;
	return PV_SY_END;
}

/* A wait ends, if one of that kind was open: the pthread call (and its
 * object, obj_too) back to 0, and Running unless another wait is open. */
static void wait_ends(pv_shard *s, uint64_t t, unsigned what, int obj_too)
{
	pv_thread *c = s->core;
	if (!(c->wait & what))
		return;
	unsigned kind = end_kind(c, what);
	if (obj_too)
		pv_sync_events(s, t, 2, (uint32_t[]){PV_EV_PTHREAD, PV_EV_SYNC_OBJECT},
		               (int64_t[]){0, 0}, kind, 0);
	else
		pv_sync_events(s, t, 1, (uint32_t[]){PV_EV_PTHREAD}, (int64_t[]){0}, kind, 0);
	c->wait &= ~what;
	pv_set_state(s, t, c->wait ? PV_STATE_SYNC : s->base_state);
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

/* LOCK_* and BARRIER_* records. */
static void lock_record(pv_shard *s, const pt_event *ev)
{
	pv_thread *c = s->core;
	uint64_t t = ev->time_ns;
	if (ev->kind == PT_REC_BARRIER_END) {
		wait_ends(s, t, WAIT_BARRIER, 1);
		return;
	}
	pt_rec_lock lk;
	const pt_rec_lock *l = pt_rec_lock_get(ev->rec, &lk);
	if (!l)
		return;
	/* a family's locks (OpenMP's locks and critical sections) have its
	 * own events and states */
	if (ev->kind != PT_REC_BARRIER_BEGIN && pt_family_of_lock(ev->rec->arg))
		return;
	switch (ev->kind) {
	case PT_REC_LOCK_REQUEST:
	case PT_REC_BARRIER_BEGIN: {
		int barrier = ev->kind == PT_REC_BARRIER_BEGIN;
		unsigned type = barrier ? PT_LOCK_BARRIER : ev->rec->arg;
		unsigned what = barrier ? WAIT_BARRIER : WAIT_LOCK;
		pthread_events(s, t, lock_value(type, 0), note_lock(s, l->object, type), 0,
		               wait_kind(s, what));
		wait_begins(s, t, what);
		break;
	}
	case PT_REC_LOCK_ACQUIRED:
	case PT_REC_LOCK_FAILED:
		if (c->wait & WAIT_LOCK)
			wait_ends(s, t, WAIT_LOCK, 1);
		else /* uncontended: no request was recorded; the call is instantaneous */
			pthread_events(s, t, lock_value(ev->rec->arg, 0),
			               note_lock(s, l->object, ev->rec->arg), 1, PV_SY_INST);
		break;
	case PT_REC_LOCK_RELEASED:
		pthread_events(s, t, lock_value(ev->rec->arg, 1),
		               note_lock(s, l->object, ev->rec->arg), 1, PV_SY_INST);
		break;
	}
}

/* COND_* records. */
static void cond_record(pv_shard *s, const pt_event *ev)
{
	uint64_t t = ev->time_ns;
	const pt_rec_cond *cd = PT_REC_PAYLOAD(ev->rec, pt_rec_cond);
	switch (ev->kind) {
	case PT_REC_COND_WAIT_BEGIN:
		if (!cd)
			break;
		if (ev->rec->arg & PT_COND_FUTEX)
			pthread_events(s, t, PV_PT_FUTEX_WAIT, note_lock(s, cd->cond, PV_LOCK_FUTEX), 0,
			               wait_kind(s, WAIT_COND));
		else
			pthread_events(s, t, PV_PT_COND_WAIT, note_lock(s, cd->cond, PV_LOCK_COND), 0,
			               wait_kind(s, WAIT_COND));
		wait_begins(s, t, WAIT_COND);
		break;
	case PT_REC_COND_WAIT_END:
		wait_ends(s, t, WAIT_COND, 1);
		break;
	case PT_REC_COND_SIGNAL:
		if (cd && (ev->rec->arg & PT_COND_FUTEX))
			pthread_events(s, t, PV_PT_FUTEX_WAKE, note_lock(s, cd->cond, PV_LOCK_FUTEX), 1,
			               PV_SY_INST);
		else if (cd)
			pthread_events(s, t,
			               ev->rec->arg & PT_COND_BROADCAST ? PV_PT_COND_BROADCAST
			                                                : PV_PT_COND_SIGNAL,
			               note_lock(s, cd->cond, PV_LOCK_COND), 1, PV_SY_INST);
		break;
	}
}

/* ---- threads and processes ------------------------------------------------ */
static void note_link(pv_shard *s, int what, uint64_t seq, uint64_t t)
{
	pv_thread *c = s->core;
	pv_link_end e = {s->info->pid, seq, s->info->index, t};
	int r = what == PT_REC_THREAD_START ? VEC_PUSH(c->found.starts, e)
	        : what == PT_REC_FORK       ? VEC_PUSH(c->found.forks, e)
	                                    : VEC_PUSH(c->found.creates, e);
	if (r)
		c->oom = 1;
}

static char *dup_str(const pt_event *ev, size_t off)
{
	const char *x = pt_event_string(ev, off);
	return x ? strdup(x) : NULL;
}

/* THREAD_* records but joins, and FORK. */
static void thread_record(pv_shard *s, const pt_event *ev)
{
	pv_thread *c = s->core;
	uint64_t t = ev->time_ns;
	switch (ev->kind) {
	case PT_REC_THREAD_START: {
		const pt_rec_thread_start *ts = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_start);
		if (!ts)
			break;
		if (ts->create_seq)
			note_link(s, PT_REC_THREAD_START, ts->create_seq, t);
		break;
	}
	case PT_REC_THREAD_END: {
		const pt_rec_thread_end *te = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_end);
		if (te && (te->flags & PT_THREAD_END_EXIT))
			pthread_events(s, t, PV_PT_EXIT, 0, 1, 0);
		break;
	}
	case PT_REC_THREAD_NAME: {
		uint32_t tid;
		char *n = pt_event_thread_name(ev, &tid) && !tid ? dup_str(ev, 0) : NULL;
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
		pthread_events(s, t, PV_PT_CREATE, 0, 1, 0);
		if (tc->result == 0 && tc->create_seq)
			note_link(s, PT_REC_THREAD_CREATE, tc->create_seq, t);
		break;
	}
	case PT_REC_FORK: {
		const pt_rec_fork *f = PT_REC_PAYLOAD(ev->rec, pt_rec_fork);
		if (f)
			note_link(s, PT_REC_FORK, f->child_pid, t);
		break;
	}
	}
}

int pv_found_user_name(pv_found *f, const pt_event *ev)
{
	if (ev->kind == PT_REC_USER_TYPE) {
		const pt_rec_user_type *u = PT_REC_PAYLOAD(ev->rec, pt_rec_user_type);
		char *n = u ? dup_str(ev, sizeof *u) : NULL;
		if (n && VEC_PUSH(f->types, ((pv_named){u->type, (int64_t)u->flags, n}))) {
			free(n);
			return -1;
		}
	} else if (ev->kind == PT_REC_USER_VALUE_NAME) {
		const pt_rec_user_event *u = PT_REC_PAYLOAD(ev->rec, pt_rec_user_event);
		char *n = u ? dup_str(ev, sizeof *u) : NULL;
		if (n && VEC_PUSH(f->values, ((pv_named){u->type, u->value, n}))) {
			free(n);
			return -1;
		}
	}
	return 0;
}

/* USER_EVENT; USER_TYPE and USER_VALUE_NAME, which the runtime writes to
 * the process log (pv_process_event), are taken here too. */
static void user_record(pv_shard *s, const pt_event *ev)
{
	pv_thread *c = s->core;
	if (ev->kind != PT_REC_USER_EVENT) {
		if (pv_found_user_name(&c->found, ev))
			c->oom = 1;
		return;
	}
	const pt_rec_user_event *u = PT_REC_PAYLOAD(ev->rec, pt_rec_user_event);
	if (!u)
		return;
	pv_event(s, ev->time_ns, u->type, u->value);
	if (pv_pairset_add(&c->found.used, u->type, (uint64_t)u->value) < 0)
		c->oom = 1;
}

/* A function the runtime throttled: one line at the first call it did
 * not record, with the calls it counted after it and their time
 * estimated from the runtime's mean, the way the budget's summaries say
 * what they left out. */
static void throttle_record(pv_shard *s, const pt_event *ev)
{
	pv_thread *c = s->core;
	pt_throttled th;
	int r = pt_throttles_record(&c->thr, ev, &th);
	if (r < 0)
		c->oom = 1;
	uint32_t id = r > 0 ? pt_func_lookup_id(&c->fl, th.local_id) : 0;
	if (!id)
		return;
	pv_events(s, ev->time_ns, 3,
	          (uint32_t[]){PV_EV_THROTTLED, PV_EV_THROTTLED_CALLS, PV_EV_THROTTLED_NS},
	          (int64_t[]){id, (int64_t)th.count, (int64_t)(th.count * th.mean_ns)});
	c->found.throttled = 1;
}

void pv_thread_other(pv_shard *s, const pt_event *ev)
{
	pv_thread *c = s->core;
	uint64_t t = ev->time_ns;
	if (ev->kind == PT_REC_FUNC_ENTER_PC || ev->kind == PT_REC_FUNC_EXIT_PC) {
		const pt_rec_pc *pc = PT_REC_PAYLOAD(ev->rec, pt_rec_pc);
		if (pc)
			pv_thread_func(s, t, pt_func_lookup_pc(&c->fl, pc->pc),
			               ev->kind == PT_REC_FUNC_ENTER_PC);
		return;
	}
	if (ev->kind == PT_REC_FUNC_LANDED) {
		pv_thread_func_slow(s, t, pt_func_lookup_id(&c->fl, ev->func_id), PT_STEP_LANDED);
		return;
	}
	pt_callstack_record(&c->calls, ev, &pv_calls, s);
	switch (ev->kind) {
	case PT_REC_LOST:
		if (c->gap_open)
			pv_event(s, t, PV_EV_FUNC_CUT, 0);
		c->gap_open = 0;
		break;
	case PT_REC_THREAD_START:
	case PT_REC_THREAD_END:
	case PT_REC_THREAD_NAME:
	case PT_REC_THREAD_CREATE:
	case PT_REC_FORK:
		thread_record(s, ev);
		break;
	case PT_REC_THREAD_JOIN_BEGIN:
		pthread_events(s, t, PV_PT_JOIN, 0, 0, wait_kind(s, WAIT_JOIN));
		wait_begins(s, t, WAIT_JOIN);
		break;
	case PT_REC_THREAD_JOIN_END:
		wait_ends(s, t, WAIT_JOIN, 0);
		break;
	case PT_REC_USER_EVENT:
	case PT_REC_USER_TYPE:
	case PT_REC_USER_VALUE_NAME:
		user_record(s, ev);
		break;
	case PT_REC_THROTTLE:
	case PT_REC_THROTTLE_COUNTS:
		throttle_record(s, ev);
		break;
	case PT_REC_LOCK_REQUEST:
	case PT_REC_LOCK_ACQUIRED:
	case PT_REC_LOCK_FAILED:
	case PT_REC_LOCK_RELEASED:
	case PT_REC_BARRIER_BEGIN:
	case PT_REC_BARRIER_END:
		lock_record(s, ev);
		break;
	case PT_REC_COND_WAIT_BEGIN:
	case PT_REC_COND_WAIT_END:
	case PT_REC_COND_SIGNAL:
		cond_record(s, ev);
		break;
	default:
		break;
	}
}

void pv_thread_window(pv_shard *s, uint64_t t)
{
	pv_thread *c = s->core;
	pt_callstack *cs = &c->calls;
	uint64_t hi = s->win_lo + s->win_len;
	if (s->win_next == s->win_lo) {
		/* the window opens: the calls open then begin there */
		for (size_t i = 0; i < cs->depth; i++)
			pv_func_line(s, s->win_lo, cs->ids[i]);
		s->win_next = hi == UINT64_MAX ? UINT64_MAX : hi + 1;
		if (t < s->win_next)
			return;
	}
	/* it closes: the calls still open end there */
	pv_pop_line(s, hi, cs->depth);
	s->win_next = UINT64_MAX;
}

int pv_thread_waiting(const pv_shard *s)
{
	const pv_thread *c = s->core;
	return c && c->wait;
}

void pv_thread_end(pv_shard *s, uint64_t last, uint64_t wait_end)
{
	pv_thread *c = s->core;
	/* frames still open (exit, cancellation, killed) end here */
	pt_callstack_end(&c->calls, s->t0 + last, &pv_calls, s);
	/* a marked wait still open ends there, the only one open or not */
	unsigned kind = c->sync_req && c->wait == c->sync_req ? PV_SY_END : 0;
	if (c->wait & (WAIT_LOCK | WAIT_COND | WAIT_BARRIER))
		pv_sync_events(s, s->t0 + wait_end, 2,
		               (uint32_t[]){PV_EV_PTHREAD, PV_EV_SYNC_OBJECT}, (int64_t[]){0, 0},
		               kind, 0);
	else if (c->wait & WAIT_JOIN)
		pv_event(s, s->t0 + wait_end, PV_EV_PTHREAD, 0);
}

void pv_thread_free(pv_shard *s)
{
	pv_thread *c = s->core;
	if (!c)
		return;
	free(c->role.name);
	pv_found_free(&c->found);
	pt_callstack_free(&c->calls);
	pt_func_lookup_free(&c->fl);
	pt_throttles_free(&c->thr);
	free(c);
	s->core = NULL;
}

int pv_thread_exit(pv_shard *s, pv_tool *pv)
{
	pv_thread *c = s->core;
	int rc = pv_found_move(&pv->found, &c->found);
	if (c->oom)
		rc = -1;
	pv->roles[s->info->index] = c->role; /* the name is the tool's now */
	c->role.name = NULL;
	pv_thread_free(s);
	return rc;
}

/* ---- what the rows found ---------------------------------------------------- */
int pv_pairset_add(pv_pairset *s, uint64_t a, uint64_t b)
{
	if ((s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		uint64_t *k = calloc(ncap * 2, sizeof *k);
		if (!k)
			return -1;
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->k[2 * i] && !s->k[2 * i + 1])
				continue;
			size_t j = pt_mix64(s->k[2 * i] * 31 + s->k[2 * i + 1]) & (ncap - 1);
			while (k[2 * j] || k[2 * j + 1])
				j = (j + 1) & (ncap - 1);
			k[2 * j] = s->k[2 * i];
			k[2 * j + 1] = s->k[2 * i + 1];
		}
		free(s->k);
		s->k = k;
		s->cap = ncap;
	}
	size_t j = pt_mix64(a * 31 + b) & (s->cap - 1);
	for (; s->k[2 * j] || s->k[2 * j + 1]; j = (j + 1) & (s->cap - 1))
		if (s->k[2 * j] == a && s->k[2 * j + 1] == b)
			return 0;
	s->k[2 * j] = a;
	s->k[2 * j + 1] = b;
	s->n++;
	return 1;
}

void pv_pairset_free(pv_pairset *s)
{
	free(s->k);
	memset(s, 0, sizeof *s);
}

#define MOVE_VEC(dst, src)                                                                         \
	do {                                                                                       \
		for (size_t i_ = 0; i_ < (src).n; i_++)                                            \
			if (VEC_PUSH(dst, (src).v[i_]))                                            \
				rc = -1;                                                           \
		free((src).v);                                                                     \
		(src).v = NULL;                                                                    \
		(src).n = (src).cap = 0;                                                           \
	} while (0)

int pv_found_move(pv_found *dst, pv_found *src)
{
	int rc = 0;
	MOVE_VEC(dst->creates, src->creates);
	MOVE_VEC(dst->starts, src->starts);
	MOVE_VEC(dst->forks, src->forks);
	MOVE_VEC(dst->types, src->types);
	MOVE_VEC(dst->values, src->values);
	dst->cuts |= src->cuts;
	dst->throttled |= src->throttled;
	for (size_t i = 0; i < src->used.cap; i++)
		if ((src->used.k[2 * i] || src->used.k[2 * i + 1]) &&
		    pv_pairset_add(&dst->used, src->used.k[2 * i], src->used.k[2 * i + 1]) < 0)
			rc = -1;
	for (size_t i = 0; i < src->locks.n; i++) {
		pv_lock_obj *l = &src->locks.v[i];
		int r = pv_pairset_add(&dst->lock_seen, l->pid, l->addr);
		if (r < 0 || (r > 0 && VEC_PUSH(dst->locks, *l)))
			rc = -1;
	}
	pv_found_free(src);
	return rc;
}

void pv_found_free(pv_found *f)
{
	for (size_t i = 0; i < f->types.n; i++)
		free(f->types.v[i].name);
	for (size_t i = 0; i < f->values.n; i++)
		free(f->values.v[i].name);
	free(f->creates.v);
	free(f->starts.v);
	free(f->forks.v);
	free(f->types.v);
	free(f->values.v);
	free(f->locks.v);
	pv_pairset_free(&f->used);
	pv_pairset_free(&f->lock_seen);
	memset(f, 0, sizeof *f);
}
