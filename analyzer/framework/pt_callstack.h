/* SPDX-License-Identifier: MIT */
/* The analyzer's call-stack tracker: what a thread's function records mean,
 * in one place. Every tool that follows calls (the Paraver writer, the
 * profile, the counters, the timeline exports) keeps one per shard and
 * feeds it the shard's records, so all of them see the same calls.
 *
 * The rule (docs/ANALYZER.md, "Call stacks"; docs/ABI.md says what the
 * pass and the runtime guarantee):
 *   - an ENTER opens a frame (a call) on top of the stack;
 *   - an EXIT of the innermost frame's function closes it (a return);
 *   - a LANDED (FUNC_LANDED, format 3.8: a longjmp landed in the innermost
 *     open frame of its function) closes every frame above that frame at
 *     its time (PT_CALL_UNWOUND); the frame stays open and no call begins.
 *     With no open frame of its function (its entry predates the log)
 *     every open frame was entered after it: all close;
 *   - an EXIT of a function further down closes every frame above its
 *     innermost frame at the EXIT's time (frames a longjmp skipped, or an
 *     exception through frames without exit hook: PT_CALL_UNWOUND), then
 *     that frame (a return). In a log older than 3.8 (pairs set), if the
 *     next function record is an ENTER of that same function, that is
 *     how the runtime reported a longjmp landing in it ("exit f, enter f"
 *     right after setjmp returned again): the frame stays open, the call
 *     goes on, and the ENTER is no new call. Otherwise the frame closed at
 *     the EXIT's time. Records other than function records do not decide,
 *     but close it first (except those that may come between the two
 *     hooks: TIME, COUNTERS, COUNTER_VALUE, SAMPLE);
 *   - an EXIT that matches no open frame is ignored (its entry predates
 *     the log);
 *   - records of function id 0 (nothing names the function) are ignored;
 *   - a LOST record of data the runtime could not write (disk full, no
 *     memory, size limit) cuts every open frame: each ends at the last
 *     record before the gap (PT_CALL_CUT; how long it really ran is
 *     unknown), and the exits that come after the gap find no frame. A
 *     signal handler's dropped events (reason reentrant) cut nothing;
 *   - frames still open when the log ends close at its last record.
 * Before 3.8, a longjmp that skipped no recorded frame (they were
 * throttled, or it came from code without hooks) showed as a plain "exit
 * f, enter f", which such a log cannot tell from a return and a new call:
 * it counts as one.
 *
 * Cost: the common records (an entry, an exit of the innermost frame) take
 * pt_callstack_step(), inline, a few instructions with the same work for
 * an entry and an exit; the rest goes through pt_callstack_func(), which
 * reports what happened through the tool's callbacks; every other record
 * goes through pt_callstack_record(), a test and a store unless something
 * waits for it. A frame is ids[i]
 * (its function) and, for tools that read them, at[i] (entry time and a
 * word of the tool's own); a closed frame stays readable just above depth
 * until a later entry reuses its slot.
 *
 *   if (!pt_callstack_step_timed(&cs, id, enter, t))
 *           pt_callstack_func(&cs, id, enter, t, &my_ops, me);
 *   else if (enter)  ... the new frame is cs.ids[cs.depth - 1]
 *   else             ... the closed frame is cs.ids[cs.depth]
 * where enter is a pt_func_step (pt_event_func gives it): a landing never
 * takes the inline paths.
 */
#ifndef PT_CALLSTACK_H
#define PT_CALLSTACK_H

#include <paratrace/log.h>
#include <stddef.h>
#include <stdint.h>

/* What a function record does to the stack (the `enter` of the calls
 * below): an exit and an entry are 0 and 1, as a test of the kind gives. */
enum pt_func_step {
	PT_STEP_EXIT = 0,
	PT_STEP_ENTER = 1,
	PT_STEP_LANDED = 2, /* FUNC_LANDED */
};

typedef struct pt_frame_at {
	uint64_t t;   /* when the call began (pt_event time_ns) */
	uint64_t aux; /* the tool's own word, 0 at entry (the profile: time in callees) */
} pt_frame_at;

/* How frames ended (the `how` of pop). */
enum pt_call_end {
	PT_CALL_RETURNED, /* its EXIT record */
	PT_CALL_UNWOUND,  /* closed by the EXIT of a frame below it */
	PT_CALL_LOG_END,  /* still open when the log ended */
	PT_CALL_CUT,      /* open when data was lost: ended at the gap, duration unknown */
};

typedef struct pt_callstack {
	uint32_t *ids;   /* analyzer function id of each frame, outermost first */
	pt_frame_at *at; /* same index: set by pt_callstack_func and _step_timed */
	size_t depth;
	/* the inline paths work while depth < fast_limit: cap, or 0 while a
	 * landing waits for its re-entry */
	size_t fast_limit;
	size_t cap;
	/* A landing (pairs only): the innermost frame's EXIT came after frames
	 * above it; the next function record says whether it was a longjmp
	 * landing (frame landing - 1 goes on) or a return (it ends at
	 * landing_t). */
	size_t landing;
	uint64_t landing_t;
	uint64_t last_t; /* the last record's time (TIME records aside): a gap starts there */
	int pairs;       /* a log before 3.8: a landing is "EXIT f, ENTER f" */
	int oom;         /* an entry was dropped for want of memory */
} pt_callstack;

/* Either callback may be NULL. */
typedef struct pt_callstack_ops {
	/* A call began: the new innermost frame is index cs->depth - 1. */
	void (*push)(void *arg, pt_callstack *cs);
	/* n frames ended at t: indices cs->depth .. cs->depth + n - 1, the
	 * innermost last; they ended innermost first. */
	void (*pop)(void *arg, pt_callstack *cs, size_t n, uint64_t t, enum pt_call_end how);
} pt_callstack_ops;

/* For the records of a log with header h (NULL: this version's). */
void pt_callstack_init(pt_callstack *cs, const pt_file_header *h);
void pt_callstack_free(pt_callstack *cs);

/* The common case: an entry (id != 0), or the exit of the innermost frame,
 * with room on the stack. Returns 1 when done (the stack moved by one;
 * the caller does its own work for that frame), 0 when the record needs
 * pt_callstack_func (a landing always does). Leaves at[] alone: for tools
 * that read no times. */
static inline int pt_callstack_step(pt_callstack *cs, uint32_t id, int enter, uint64_t t)
{
	size_t d = cs->depth;
	if (d >= cs->fast_limit || enter > PT_STEP_ENTER)
		return 0;
	uint32_t top = cs->ids[d ? d - 1 : 0];
	int common = enter ? id != 0 : d != 0 && top == id;
	if (!common)
		return 0;
	cs->ids[d] = id; /* an exit writes the slot above the frame it closes: harmless */
	cs->depth = d + 2 * (size_t)enter - 1;
	cs->last_t = t;
	return 1;
}

/* The same for tools that read at[]: an entry's time is noted. */
static inline int pt_callstack_step_timed(pt_callstack *cs, uint32_t id, int enter, uint64_t t)
{
	size_t d = cs->depth;
	if (!pt_callstack_step(cs, id, enter, t))
		return 0;
	cs->at[d] = (pt_frame_at){t, 0};
	return 1;
}

/* For tools that branch on entry vs exit anyway (PT_STEP_ENTER,
 * PT_STEP_EXIT; a landing is neither): the common entry (noting its
 * time), and the common exit. 1 when done, 0: use pt_callstack_func. */
static inline int pt_callstack_enter_fast(pt_callstack *cs, uint32_t id, uint64_t t)
{
	size_t d = cs->depth;
	if (d >= cs->fast_limit || !id)
		return 0;
	cs->ids[d] = id;
	cs->at[d] = (pt_frame_at){t, 0};
	cs->depth = d + 1;
	cs->last_t = t;
	return 1;
}

static inline int pt_callstack_exit_fast(pt_callstack *cs, uint32_t id, uint64_t t)
{
	size_t d = cs->depth;
	/* d - 1 wraps at depth 0 */
	if (d - 1 >= cs->fast_limit || cs->ids[d - 1] != id)
		return 0;
	cs->depth = d - 1;
	cs->last_t = t;
	return 1;
}

/* Any function record (id 0: ignored; enter: a pt_func_step), with the
 * tool's callbacks. */
void pt_callstack_func(pt_callstack *cs, uint32_t id, int enter, uint64_t t,
                       const pt_callstack_ops *ops, void *arg);

void pt_callstack_record_slow(pt_callstack *cs, const pt_event *ev, const pt_callstack_ops *ops,
                              void *arg);

/* Every record that is not a function record, before the tool handles it:
 * a frame waiting since a landing closes first, a LOST record cuts. */
static inline void pt_callstack_record(pt_callstack *cs, const pt_event *ev,
                                       const pt_callstack_ops *ops, void *arg)
{
	if (cs->landing || ev->kind == PT_REC_LOST)
		pt_callstack_record_slow(cs, ev, ops, arg);
	if (ev->kind != PT_REC_TIME)
		cs->last_t = ev->time_ns;
}

/* The log ended at t: every open frame closes there (PT_CALL_LOG_END). */
void pt_callstack_end(pt_callstack *cs, uint64_t t, const pt_callstack_ops *ops, void *arg);

#endif
