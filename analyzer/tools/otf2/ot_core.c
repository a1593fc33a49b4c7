/* SPDX-License-Identifier: MIT */
/* The OTF2 export's events of the core (ot_internal.h): regions kept
 * nested per location, the API regions' registry, and what a thread's
 * records of threads, locks and waits become: ThreadCreate/Begin/End/Wait
 * on the process's thread contingent (communicator = process index),
 * ThreadAcquireLock/ReleaseLock with each lock's id and the acquisition's
 * number on its location (which pairs it with its release; the order of
 * one lock's acquisitions across threads is their times'), the calls that wait as regions of the
 * pthread paradigm, and lost data as MeasurementOnOff. */
#define _GNU_SOURCE
#include "ot_internal.h"

#include "pt_fw_util.h"

#include <stdlib.h>
#include <string.h>

/* ---- regions, nested per location ---------------------------------------- */

/* The region on the location's stack; -1: out of memory (nothing written). */
static int push(ot_loc *l, uint32_t region)
{
	if (l->depth == l->cap) {
		size_t ncap = l->cap ? 2 * l->cap : 64;
		uint32_t *v = realloc(l->open, ncap * sizeof *v);
		if (!v) {
			l->oom = 1;
			return -1;
		}
		l->open = v;
		l->cap = ncap;
	}
	l->open[l->depth++] = region;
	return 0;
}

void ot_enter(ot_loc *l, uint64_t t, uint32_t region)
{
	if (!push(l, region))
		OTF2_EvtWriter_Enter(l->w, NULL, ot_time(l, t), region);
}

void ot_enter_with(ot_loc *l, uint64_t t, uint32_t region, uint32_t attr, uint64_t value)
{
	if (!l->attrs && !(l->attrs = OTF2_AttributeList_New())) {
		l->oom = 1;
		return;
	}
	if (push(l, region))
		return;
	OTF2_AttributeList_AddUint64(l->attrs, attr, value);
	OTF2_EvtWriter_Enter(l->w, l->attrs, ot_time(l, t), region);
}

void ot_leave(ot_loc *l, uint64_t t, uint32_t region)
{
	size_t d = l->depth;
	while (d && l->open[d - 1] != region)
		d--;
	if (!d)
		return;
	OTF2_TimeStamp ts = ot_time(l, t);
	while (l->depth >= d)
		OTF2_EvtWriter_Leave(l->w, NULL, ts, l->open[--l->depth]);
}

void ot_leave_all(ot_loc *l, uint64_t t)
{
	OTF2_TimeStamp ts = ot_time(l, t);
	while (l->depth)
		OTF2_EvtWriter_Leave(l->w, NULL, ts, l->open[--l->depth]);
}

/* ---- names ---------------------------------------------------------------- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return pt_mix64(h);
}

static int names_grow(ot_names *t)
{
	size_t ncap = t->cap ? 2 * t->cap : 256;
	ot_name *v = calloc(ncap, sizeof *v);
	uint32_t *by = malloc(ncap * sizeof *by);
	if (!v || !by) {
		free(v);
		free(by);
		return -1;
	}
	for (size_t k = 0; k < t->n; k++) {
		ot_name *e = &t->v[t->by[k]];
		size_t i = hash_str(e->s) & (ncap - 1);
		while (v[i].s)
			i = (i + 1) & (ncap - 1);
		v[i] = *e;
		by[k] = (uint32_t)i;
	}
	free(t->v);
	free(t->by);
	t->v = v;
	t->by = by;
	t->cap = ncap;
	return 0;
}

ot_name *ot_names_get(ot_names *t, const char *s, int *added)
{
	*added = 0;
	if (2 * (t->n + 1) > t->cap && names_grow(t))
		return NULL;
	size_t i = hash_str(s) & (t->cap - 1);
	while (t->v[i].s) {
		if (!strcmp(t->v[i].s, s))
			return &t->v[i];
		i = (i + 1) & (t->cap - 1);
	}
	if (!(t->v[i].s = strdup(s)))
		return NULL;
	t->v[i].ref = (uint32_t)t->n;
	t->by[t->n++] = (uint32_t)i;
	*added = 1;
	return &t->v[i];
}

void ot_names_free(ot_names *t)
{
	for (size_t k = 0; k < t->n; k++)
		free(t->v[t->by[k]].s);
	free(t->v);
	free(t->by);
	memset(t, 0, sizeof *t);
}

uint32_t ot_region(ot_tool *t, const char *name, OTF2_RegionRole role, OTF2_Paradigm paradigm)
{
	int added;
	pthread_mutex_lock(&t->lock);
	ot_name *e = ot_names_get(&t->regions, name, &added);
	uint32_t ref = e ? OT_API_REGIONS + e->ref : OT_API_REGIONS;
	if (e && added) {
		e->role = (uint8_t)role;
		e->paradigm = (uint8_t)paradigm;
	}
	pthread_mutex_unlock(&t->lock);
	return ref;
}

uint32_t ot_metric(ot_tool *t, const char *name, int papi, int manual)
{
	int added;
	pthread_mutex_lock(&t->lock);
	ot_name *e = ot_names_get(&t->metrics, name, &added);
	uint32_t ref = e ? e->ref : UINT32_MAX;
	if (e && added) {
		e->role = (uint8_t)(papi != 0);
		e->paradigm = (uint8_t)(manual != 0);
	}
	pthread_mutex_unlock(&t->lock);
	return ref;
}

uint32_t ot_comm_block(ot_tool *t)
{
	return ++t->comm_blocks * OT_COMM_BLOCK;
}

/* ---- locks ---------------------------------------------------------------- */

static uint64_t lock_hash(uint32_t pid, uint64_t object)
{
	return pt_mix64(object ^ ((uint64_t)pid << 40));
}

/* The slot of (pid, object) in l (id 0: free), or NULL: out of memory. */
static ot_lock_key *locks_slot(ot_locks *l, uint32_t pid, uint64_t object)
{
	if (2 * (l->n + 1) > l->cap) {
		size_t ncap = l->cap ? 2 * l->cap : 64;
		ot_lock_key *v = calloc(ncap, sizeof *v);
		if (!v)
			return NULL;
		for (size_t k = 0; k < l->cap; k++)
			if (l->v[k].id) {
				size_t i = lock_hash(l->v[k].pid, l->v[k].object) & (ncap - 1);
				while (v[i].id)
					i = (i + 1) & (ncap - 1);
				v[i] = l->v[k];
			}
		free(l->v);
		l->v = v;
		l->cap = ncap;
	}
	size_t i = lock_hash(pid, object) & (l->cap - 1);
	while (l->v[i].id && (l->v[i].pid != pid || l->v[i].object != object))
		i = (i + 1) & (l->cap - 1);
	return &l->v[i];
}

int ot_locks_add(ot_locks *l, uint32_t pid, uint64_t object)
{
	ot_lock_key *k = locks_slot(l, pid, object);
	if (!k)
		return -1;
	if (!k->id) {
		*k = (ot_lock_key){object, pid, 1};
		l->n++;
	}
	return 0;
}

void ot_locks_free(ot_locks *l)
{
	free(l->v);
	memset(l, 0, sizeof *l);
}

/* The lock's id: made of its address alone, so that every shard of its
 * process gives it the same one, whichever worker or analyzer process
 * writes the shard: its low 32 bits, which tell apart any two locks
 * within 4 GB of each other (an array, a heap, the program's data); two
 * locks whose addresses differ only above would be one lock to a reader
 * (the tool counts them: lock_clashes). The shard keeps the locks it met
 * for that. */
static int lock_id(ot_shard *s, uint64_t object, uint32_t *id)
{
	*id = (uint32_t)object;
	return ot_locks_add(&s->cache, s->loc.info->pid, object);
}

/* ---- the core's records ------------------------------------------------- */

/* The lock types whose acquisitions are lock events: held by one thread
 * from acquisition to release (semaphores are not). */
static int is_lock(unsigned type)
{
	return type != PT_LOCK_SEMAPHORE && type != PT_LOCK_BARRIER;
}

static OTF2_Paradigm lock_paradigm(unsigned type)
{
	const pt_family *f = pt_family_of_lock(type);
	return f && f->otf2 ? f->otf2->lock_paradigm : OTF2_PARADIGM_PTHREAD;
}

/* The two calls on a lock: the one that takes it and the one that
 * releases it (the rows of lock_call_region's names, of ot_shard's
 * lock_call_at). */
enum { TAKE, RELEASE };

/* The region of the call that takes or releases a lock of this type. */
static uint32_t lock_call_region(ot_tool *t, unsigned type, int call)
{
	static const char *const names[2][PT_LOCK_C11_MTX + 1] = {
	    [TAKE] =
	        {
	            [PT_LOCK_MUTEX] = "pthread_mutex_lock",
	            [PT_LOCK_RWLOCK_READ] = "pthread_rwlock_rdlock",
	            [PT_LOCK_RWLOCK_WRITE] = "pthread_rwlock_wrlock",
	            [PT_LOCK_SPIN] = "pthread_spin_lock",
	            [PT_LOCK_SEMAPHORE] = "sem_wait",
	            [PT_LOCK_C11_MTX] = "mtx_lock",
	        },
	    [RELEASE] =
	        {
	            [PT_LOCK_MUTEX] = "pthread_mutex_unlock",
	            [PT_LOCK_RWLOCK_READ] = "pthread_rwlock_unlock",
	            [PT_LOCK_RWLOCK_WRITE] = "pthread_rwlock_unlock",
	            [PT_LOCK_SPIN] = "pthread_spin_unlock",
	            [PT_LOCK_SEMAPHORE] = "sem_post",
	            [PT_LOCK_C11_MTX] = "mtx_unlock",
	        },
	};
	if (type < sizeof names[call] / sizeof names[call][0] && names[call][type])
		return ot_region(t, names[call][type], OTF2_REGION_ROLE_FUNCTION,
		                 OTF2_PARADIGM_PTHREAD);
	const char *n = pt_family_lock_name(type);
	char buf[128];
	snprintf(buf, sizeof buf, "%s%s", n ? n : "lock", call == RELEASE ? " release" : "");
	return ot_region(t, buf, OTF2_REGION_ROLE_CRITICAL, lock_paradigm(type));
}

/* The region, through the shard's cache. */
static uint32_t lock_call_cached(ot_shard *s, unsigned type, int call)
{
	if (type >= OT_LOCK_TYPES)
		return lock_call_region(s->tool, type, call);
	uint32_t *at = &s->lock_call_at[call][type];
	if (!*at)
		*at = lock_call_region(s->tool, type, call);
	return *at;
}

static uint32_t cached(ot_shard *s, uint32_t *at, const char *name, OTF2_RegionRole role)
{
	if (!*at)
		*at = ot_region(s->tool, name, role, OTF2_PARADIGM_PTHREAD);
	return *at;
}

static int hold(ot_shard *s, uint32_t id, uint64_t order)
{
	if (s->nheld == s->capheld) {
		size_t ncap = s->capheld ? 2 * s->capheld : 16;
		ot_held *v = realloc(s->held, ncap * sizeof *v);
		if (!v)
			return -1;
		s->held = v;
		s->capheld = ncap;
	}
	s->held[s->nheld++] = (ot_held){id, order};
	return 0;
}

/* The acquisition a release ends (the latest of that lock); 0: none seen
 * (acquired before the log began). */
static int release(ot_shard *s, uint32_t id, uint64_t *order)
{
	for (size_t i = s->nheld; i-- > 0;)
		if (s->held[i].id == id) {
			*order = s->held[i].order;
			memmove(&s->held[i], &s->held[i + 1], (s->nheld - i - 1) * sizeof *s->held);
			s->nheld--;
			return 1;
		}
	return 0;
}

static int lock_event(ot_shard *s, const pt_event *ev)
{
	ot_loc *l = &s->loc;
	uint64_t tm = ev->time_ns;
	unsigned type = ev->rec->arg;
	pt_rec_lock lk;
	const pt_rec_lock *x = pt_rec_lock_get(ev->rec, &lk);
	if (!x)
		return 0;
	switch (ev->kind) {
	case PT_REC_LOCK_REQUEST:
		s->lock_region = lock_call_cached(s, type, TAKE);
		s->lock_type = type;
		ot_enter_with(l, tm, s->lock_region, OT_ATTR_OBJECT, x->object);
		return 0;
	case PT_REC_LOCK_ACQUIRED:
	case PT_REC_LOCK_FAILED: {
		/* uncontended: the call had no request; it began and ended here */
		uint32_t r = s->lock_region ? s->lock_region : lock_call_cached(s, type, TAKE);
		if (!s->lock_region)
			ot_enter_with(l, tm, r, OT_ATTR_OBJECT, x->object);
		if (ev->kind == PT_REC_LOCK_ACQUIRED && is_lock(type)) {
			uint32_t id;
			if (lock_id(s, x->object, &id))
				return -1;
			uint64_t order = s->acquisitions++;
			if (hold(s, id, order))
				return -1;
			OTF2_EvtWriter_ThreadAcquireLock(l->w, NULL, ot_time(l, tm),
			                                 lock_paradigm(type), id, (uint32_t)order);
		}
		ot_leave(l, tm, r);
		s->lock_region = 0;
		return 0;
	}
	case PT_REC_LOCK_RELEASED: {
		uint32_t r = lock_call_cached(s, type, RELEASE);
		ot_enter_with(l, tm, r, OT_ATTR_OBJECT, x->object);
		uint32_t id;
		uint64_t order;
		if (is_lock(type)) {
			if (lock_id(s, x->object, &id))
				return -1;
			if (release(s, id, &order))
				OTF2_EvtWriter_ThreadReleaseLock(l->w, NULL, ot_time(l, tm),
				                                 lock_paradigm(type), id,
				                                 (uint32_t)order);
		}
		ot_leave(l, tm, r);
		return 0;
	}
	default:
		return 0;
	}
}

/* A wait in a call: its region from begin to end, on `object` (0: none). */
static void wait_begin(ot_shard *s, uint64_t t, uint32_t region, uint64_t object)
{
	s->wait_region = region;
	if (object)
		ot_enter_with(&s->loc, t, region, OT_ATTR_OBJECT, object);
	else
		ot_enter(&s->loc, t, region);
}

static void wait_end(ot_shard *s, uint64_t t)
{
	if (s->wait_region)
		ot_leave(&s->loc, t, s->wait_region);
	s->wait_region = 0;
}

int ot_core_event(ot_shard *s, const pt_event *ev, uint64_t before)
{
	ot_loc *l = &s->loc;
	uint64_t t = ev->time_ns;
	/* the thread contingent of the process: its communicator */
	OTF2_CommRef comm = (OTF2_CommRef)l->info->process;
	switch (ev->kind) {
	case PT_REC_LOCK_REQUEST:
	case PT_REC_LOCK_ACQUIRED:
	case PT_REC_LOCK_FAILED:
	case PT_REC_LOCK_RELEASED:
		return lock_event(s, ev);
	case PT_REC_COND_WAIT_BEGIN: {
		const pt_rec_cond *c = PT_REC_PAYLOAD(ev->rec, pt_rec_cond);
		wait_begin(
		    s, t,
		    cached(s, &s->cond_region, "pthread_cond_wait", OTF2_REGION_ROLE_FUNCTION),
		    c ? c->cond : 0);
		break;
	}
	case PT_REC_BARRIER_BEGIN: {
		pt_rec_lock lk;
		const pt_rec_lock *b = pt_rec_lock_get(ev->rec, &lk);
		wait_begin(
		    s, t,
		    cached(s, &s->barrier_region, "pthread_barrier_wait", OTF2_REGION_ROLE_BARRIER),
		    b ? b->object : 0);
		break;
	}
	case PT_REC_COND_WAIT_END:
	case PT_REC_BARRIER_END:
		wait_end(s, t);
		break;
	case PT_REC_THREAD_JOIN_BEGIN: {
		const pt_rec_thread_join *x = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_join);
		s->join_seq = x ? x->create_seq : 0;
		wait_begin(
		    s, t, cached(s, &s->join_region, "pthread_join", OTF2_REGION_ROLE_FUNCTION), 0);
		break;
	}
	case PT_REC_THREAD_JOIN_END: {
		const pt_rec_thread_join *x = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_join);
		uint64_t seq = x && x->create_seq ? x->create_seq : s->join_seq;
		if (s->wait_region && seq && x && x->result == 0)
			OTF2_EvtWriter_ThreadWait(l->w, NULL, ot_time(l, t), comm, seq);
		wait_end(s, t);
		break;
	}
	case PT_REC_THREAD_CREATE: {
		const pt_rec_thread_create *x = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_create);
		int c11 = x && (x->flags & PT_THREAD_C11);
		uint32_t r =
		    cached(s, &s->create_region[c11], c11 ? "thrd_create" : "pthread_create",
		           OTF2_REGION_ROLE_FUNCTION);
		ot_enter(l, t, r);
		if (x && x->create_seq && x->result == 0)
			OTF2_EvtWriter_ThreadCreate(l->w, NULL, ot_time(l, t), comm, x->create_seq);
		ot_leave(l, t, r);
		break;
	}
	case PT_REC_THREAD_START: {
		const pt_rec_thread_start *x = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_start);
		if (x && x->create_seq) {
			s->start_seq = x->create_seq;
			OTF2_EvtWriter_ThreadBegin(l->w, NULL, ot_time(l, t), comm, x->create_seq);
		}
		break;
	}
	case PT_REC_THREAD_END:
		/* the regions still open end with the thread */
		ot_leave_all(l, t);
		if (s->start_seq && !s->ended)
			OTF2_EvtWriter_ThreadEnd(l->w, NULL, ot_time(l, t), comm, s->start_seq);
		s->ended = 1;
		break;
	case PT_REC_LOST: {
		const pt_rec_lost *x = PT_REC_PAYLOAD(ev->rec, pt_rec_lost);
		if (x && x->reason == PT_LOST_REENTRANT)
			break;
		/* the measurement was off from the last record before the gap */
		OTF2_EvtWriter_MeasurementOnOff(l->w, NULL, ot_time(l, before ? before : t),
		                                OTF2_MEASUREMENT_OFF);
		OTF2_EvtWriter_MeasurementOnOff(l->w, NULL, ot_time(l, t), OTF2_MEASUREMENT_ON);
		break;
	}
	default:
		break;
	}
	return 0;
}

void ot_core_end(ot_shard *s, uint64_t last_ns)
{
	wait_end(s, last_ns);
	if (s->lock_region)
		ot_leave(&s->loc, last_ns, s->lock_region);
	s->lock_region = 0;
}
