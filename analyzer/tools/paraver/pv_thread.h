/* SPDX-License-Identifier: MIT */
/* A thread row's state (s->core) and what the tool calls of pv_thread.c.
 * Apart from pv_internal.h because the inline record path below calls
 * into pv_thread.c: the files pv_thread.c itself writes through (pv_write.c
 * and below) must not include it. */
#ifndef PT_PV_THREAD_H
#define PT_PV_THREAD_H

#include "pt_throttle.h"
#include "pv_internal.h"

typedef struct pv_thread {
	pt_callstack calls;
	pt_func_lookup fl; /* function ids: the process's table, the pc cache */
	unsigned wait;     /* what the thread waits for (pv_thread.c) */
	unsigned sync_req; /* the wait (WAIT_*) whose request was marked PV_SY_REQ */
	pv_found found;
	pv_role role;
	int gap_open; /* calls were cut at a gap: PV_EV_FUNC_CUT 0 at its LOST record */
	pt_throttles thr; /* THROTTLE_COUNTS seen */
	int oom;
} pv_thread;

int pv_thread_init(pv_shard *s);
/* A function record but the common ones (pv_thread_func); enter: an
 * enum pt_func_step. */
void pv_thread_func_slow(pv_shard *s, uint64_t t, uint32_t id, int enter);
/* Every record of a thread log but FUNC_ENTER/FUNC_EXIT (pv_thread_event),
 * FUNC_LANDED included. */
void pv_thread_other(pv_shard *s, const pt_event *ev);

/* A function record (enter: 1 or 0). The common cases, an entry and an
 * exit of the innermost frame, write their line without branching on
 * which of the two it is: that is as unpredictable as the call tree. */
static inline void pv_thread_func(pv_shard *s, uint64_t t, uint32_t id, int enter)
{
	pv_thread *c = s->core;
	if (pt_callstack_step(&c->calls, id, enter, t))
		pv_func_line(s, t, id & (uint32_t)-enter);
	else
		pv_thread_func_slow(s, t, id, enter);
}

/* Every record of a thread log; function records, the bulk, inline. */
static inline void pv_thread_event(pv_shard *s, const pt_event *ev)
{
	if (ev->kind == PT_REC_FUNC_ENTER || ev->kind == PT_REC_FUNC_EXIT) {
		pv_thread *c = s->core;
		pv_thread_func(s, ev->time_ns, pt_func_lookup_id(&c->fl, ev->func_id),
		               ev->kind == PT_REC_FUNC_ENTER);
		return;
	}
	pv_thread_other(s, ev);
}
/* A record at t at or past s->win_next: the window opens (calls open then
 * get their entry at its start) or closes (calls open then end there). */
void pv_thread_window(pv_shard *s, uint64_t t);
/* 1 when the thread's records could not be kept (out of memory). */
int pv_thread_failed(const pv_shard *s);
/* 1 when a lock, condition, join or barrier wait is open. */
int pv_thread_waiting(const pv_shard *s);
/* The log ended at `last` (relative ns): open frames close there, the
 * open wait at wait_end (>= last). */
void pv_thread_end(pv_shard *s, uint64_t last, uint64_t wait_end);
/* Under the tool's lock: what the thread found goes to the tool; frees
 * s->core. -1 on ENOMEM. */
int pv_thread_exit(pv_shard *s, pv_tool *pv);
/* Frees s->core, what it found with it. */
void pv_thread_free(pv_shard *s);

#endif
