/* SPDX-License-Identifier: MIT */
/* The call-stack tracker's general path (pt_callstack.h has the rule). */
#include "pt_callstack.h"

#include <stdlib.h>
#include <string.h>

void pt_callstack_init(pt_callstack *cs, const pt_file_header *h)
{
	memset(cs, 0, sizeof *cs);
	/* FUNC_LANDED came with 3.8; before it the runtime wrote the pair */
	cs->pairs = h && (h->version_major < 3 || (h->version_major == 3 && h->version_minor < 8));
}

void pt_callstack_free(pt_callstack *cs)
{
	free(cs->ids);
	free(cs->at);
	memset(cs, 0, sizeof *cs);
}

/* fast_limit, which keeps the inline paths off while a landing waits */
static void open_fast_paths(pt_callstack *cs)
{
	cs->fast_limit = cs->landing ? 0 : cs->cap;
}

static int grow(pt_callstack *cs)
{
	size_t ncap = cs->cap ? cs->cap * 2 : 64;
	uint32_t *ids = realloc(cs->ids, ncap * sizeof *ids);
	if (!ids)
		return -1;
	cs->ids = ids;
	pt_frame_at *at = realloc(cs->at, ncap * sizeof *at);
	if (!at)
		return -1;
	cs->at = at;
	cs->cap = ncap;
	open_fast_paths(cs);
	return 0;
}

static void push(pt_callstack *cs, uint32_t id, uint64_t t, const pt_callstack_ops *ops, void *arg)
{
	if (cs->depth == cs->cap && grow(cs)) {
		cs->oom = 1;
		return;
	}
	cs->ids[cs->depth] = id;
	cs->at[cs->depth++] = (pt_frame_at){t, 0};
	if (ops->push)
		ops->push(arg, cs);
}

static void pop(pt_callstack *cs, size_t n, uint64_t t, enum pt_call_end how,
                const pt_callstack_ops *ops, void *arg)
{
	if (!n)
		return;
	cs->depth -= n;
	if (ops->pop)
		ops->pop(arg, cs, n, t, how);
}

/* The innermost open frame of function id, as an index; -1 if none. */
static long innermost(const pt_callstack *cs, uint32_t id)
{
	for (size_t i = cs->depth; i-- > 0;)
		if (cs->ids[i] == id)
			return (long)i;
	return -1;
}

/* The landing frame's EXIT was its return after all: it ends then. */
static void close_landing(pt_callstack *cs, const pt_callstack_ops *ops, void *arg)
{
	cs->landing = 0;
	open_fast_paths(cs);
	pop(cs, 1, cs->landing_t, PT_CALL_RETURNED, ops, arg);
}

void pt_callstack_func(pt_callstack *cs, uint32_t id, int enter, uint64_t t,
                       const pt_callstack_ops *ops, void *arg)
{
	cs->last_t = t;
	if (cs->landing) {
		if (enter == PT_STEP_ENTER && id == cs->ids[cs->landing - 1]) {
			/* a longjmp landed in it: the same call goes on */
			cs->landing = 0;
			open_fast_paths(cs);
			return;
		}
		close_landing(cs, ops, arg);
	}
	if (!id)
		return;
	if (enter == PT_STEP_ENTER) {
		push(cs, id, t, ops, arg);
		return;
	}
	long i = innermost(cs, id);
	if (enter == PT_STEP_LANDED) {
		/* the frames entered after it are gone; with none of its own
		 * open (its entry predates the log), all were */
		pop(cs, cs->depth - (size_t)(i + 1), t, PT_CALL_UNWOUND, ops, arg);
		return;
	}
	if (i < 0)
		return; /* its entry predates the log */
	size_t above = cs->depth - 1 - (size_t)i;
	if (!above) {
		pop(cs, 1, t, PT_CALL_RETURNED, ops, arg);
		return;
	}
	pop(cs, above, t, PT_CALL_UNWOUND, ops, arg);
	if (!cs->pairs) {
		/* a landing has a record of its own: this is a return */
		pop(cs, 1, t, PT_CALL_RETURNED, ops, arg);
		return;
	}
	cs->landing = cs->depth;
	cs->landing_t = t;
	open_fast_paths(cs);
}

void pt_callstack_record_slow(pt_callstack *cs, const pt_event *ev, const pt_callstack_ops *ops,
                              void *arg)
{
	switch (ev->kind) {
	case PT_REC_TIME: /* what may come between a landing's two hooks */
	case PT_REC_COUNTERS:
	case PT_REC_COUNTER_VALUE:
	case PT_REC_SAMPLE:
		return;
	case PT_REC_LOST: {
		const pt_rec_lost *l = PT_REC_PAYLOAD(ev->rec, pt_rec_lost);
		if (l && l->reason == PT_LOST_REENTRANT)
			return; /* a signal handler's records: the thread's own are all there */
		if (cs->landing)
			close_landing(cs, ops, arg);
		pop(cs, cs->depth, cs->last_t, PT_CALL_CUT, ops, arg);
		return;
	}
	default:
		close_landing(cs, ops, arg);
	}
}

void pt_callstack_end(pt_callstack *cs, uint64_t t, const pt_callstack_ops *ops, void *arg)
{
	if (cs->landing)
		close_landing(cs, ops, arg);
	pop(cs, cs->depth, t, PT_CALL_LOG_END, ops, arg);
}
