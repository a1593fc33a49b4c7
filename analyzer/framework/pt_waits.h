/* SPDX-License-Identifier: MIT */
/* A thread's waits, read from its records in one place for every tool that
 * shows them (the profile, the timeline exports, plot, the intervals):
 *
 *   lock    LOCK_REQUEST (mutex, rwlock, spinlock, semaphore, mtx_t) until
 *           LOCK_ACQUIRED or LOCK_FAILED; an acquisition without a request
 *           (uncontended: the runtime records none) is a wait of 0 that
 *           never began (begun = 0)
 *   cond    COND_WAIT_BEGIN until COND_WAIT_END
 *   join    THREAD_JOIN_BEGIN until THREAD_JOIN_END
 *   barrier BARRIER_BEGIN until BARRIER_END
 *
 * One wait of each kind is open at a time (a thread waits for one thing);
 * an end with no open wait of its kind is ignored (its begin predates the
 * log), but for an uncontended lock. Waits still open when the log ends
 * end there (pt_waits_close).
 *
 *   pt_wait w;
 *   switch (pt_waits_record(&ws, ev, &w)) {
 *   case PT_WAITS_BEGAN: ... w.kind, w.begin, w.object
 *   case PT_WAITS_ENDED: ... w.begin .. w.end (w.begun), w.failed
 *   }
 */
#ifndef PT_WAITS_H
#define PT_WAITS_H

#include <paratrace/log.h>
#include <string.h>

enum { PT_WAIT_LOCK, PT_WAIT_COND, PT_WAIT_JOIN, PT_WAIT_BARRIER, PT_WAIT_KINDS };
enum { PT_WAITS_NONE, PT_WAITS_BEGAN, PT_WAITS_ENDED };

typedef struct pt_wait {
	int kind;        /* PT_WAIT_* */
	uint64_t begin;  /* = end for a wait that never began */
	uint64_t end;    /* PT_WAITS_ENDED */
	uint64_t object; /* the lock, condition or barrier (its address); 0 for a join */
	unsigned type;   /* locks: PT_LOCK_* of the request; barriers: PT_LOCK_BARRIER;
	                  * conditions: COND_WAIT_BEGIN's flags (PT_COND_FUTEX) */
	int begun;       /* PT_WAITS_ENDED: its begin was seen */
	int failed;      /* LOCK_FAILED */
} pt_wait;

typedef struct pt_waits {
	pt_wait open[PT_WAIT_KINDS];
	int is_open[PT_WAIT_KINDS];
} pt_waits;

static inline void pt_waits_init(pt_waits *ws)
{
	memset(ws, 0, sizeof *ws);
}

static inline int pt_waits_begin(pt_waits *ws, pt_wait *w, int kind, uint64_t t, uint64_t object,
                                 unsigned type)
{
	*w = (pt_wait){kind, t, t, object, type, 1, 0};
	ws->open[kind] = *w;
	ws->is_open[kind] = 1;
	return PT_WAITS_BEGAN;
}

/* The open wait of `kind` ends at t: PT_WAITS_ENDED with it in *w, or
 * PT_WAITS_NONE if none was open. */
static inline int pt_waits_close(pt_waits *ws, int kind, uint64_t t, pt_wait *w)
{
	if (!ws->is_open[kind])
		return PT_WAITS_NONE;
	ws->is_open[kind] = 0;
	*w = ws->open[kind];
	w->end = t > w->begin ? t : w->begin;
	return PT_WAITS_ENDED;
}

/* Any record of the thread: what it does to its waits (PT_WAITS_*). */
static inline int pt_waits_record(pt_waits *ws, const pt_event *ev, pt_wait *w)
{
	uint64_t t = ev->time_ns;
	pt_rec_lock lk;
	const pt_rec_lock *l;
	const pt_rec_cond *c;
	switch (ev->kind) {
	case PT_REC_LOCK_REQUEST:
		l = pt_rec_lock_get(ev->rec, &lk);
		return l ? pt_waits_begin(ws, w, PT_WAIT_LOCK, t, l->object, ev->rec->arg)
		         : PT_WAITS_NONE;
	case PT_REC_LOCK_ACQUIRED:
	case PT_REC_LOCK_FAILED: {
		int r = pt_waits_close(ws, PT_WAIT_LOCK, t, w);
		if (r == PT_WAITS_NONE) {
			l = pt_rec_lock_get(ev->rec, &lk);
			if (!l)
				return PT_WAITS_NONE;
			*w = (pt_wait){PT_WAIT_LOCK, t, t, l->object, ev->rec->arg, 0, 0};
		}
		w->failed = ev->kind == PT_REC_LOCK_FAILED;
		return PT_WAITS_ENDED;
	}
	case PT_REC_COND_WAIT_BEGIN:
		c = PT_REC_PAYLOAD(ev->rec, pt_rec_cond);
		return c ? pt_waits_begin(ws, w, PT_WAIT_COND, t, c->cond, ev->rec->arg)
		         : PT_WAITS_NONE;
	case PT_REC_COND_WAIT_END:
		return pt_waits_close(ws, PT_WAIT_COND, t, w);
	case PT_REC_THREAD_JOIN_BEGIN:
		return pt_waits_begin(ws, w, PT_WAIT_JOIN, t, 0, 0);
	case PT_REC_THREAD_JOIN_END:
		return pt_waits_close(ws, PT_WAIT_JOIN, t, w);
	case PT_REC_BARRIER_BEGIN:
		l = pt_rec_lock_get(ev->rec, &lk);
		return l ? pt_waits_begin(ws, w, PT_WAIT_BARRIER, t, l->object, PT_LOCK_BARRIER)
		         : PT_WAITS_NONE;
	case PT_REC_BARRIER_END:
		return pt_waits_close(ws, PT_WAIT_BARRIER, t, w);
	default:
		return PT_WAITS_NONE;
	}
}

#endif
