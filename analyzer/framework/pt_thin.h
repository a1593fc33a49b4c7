/* SPDX-License-Identifier: MIT */
/* Leaving calls out of an output, and summarising what was left out
 * (docs/ANALYZER.md "Selecting what is written"): a call is left out when
 * its function is not selected (--include/--exclude) or it lasted less
 * than a threshold; what a left-out call was is not lost but counted in
 * the innermost call around it that stays (or the thread, at top level):
 * how many calls were left out there and how much time they took.
 *
 * Two halves, because a call's fate is known only at its end (or once it
 * has lasted the threshold) while an output is written in time order:
 *
 *   pt_thin_in   sees the items in order and decides each entry: left out
 *                (a call of an unselected function at once; one that ends
 *                within the threshold at its end) or kept (once it has
 *                lasted the threshold, or when lost data cut it: its
 *                duration is unknown). Decisions come in entry order; the
 *                oldest undecided entry holds back the ones after it.
 *   pt_thin_out  sees the same items again, each entry with its decision,
 *                and writes through the tool's callbacks: kept entries and
 *                ends, and the summaries. A tool either reads its items
 *                twice (the Paraver writer: its temporary streams) or
 *                holds them until decided (the timeline export).
 *
 * Summaries: the left-out calls between two written items of the same
 * kept call (or of the thread) are one summary, written at the end of the
 * last of them: `calls` left-out calls (nested ones included) and `ns`, the
 * time they took that no kept call shows (a left-out call's time less the
 * kept calls inside it, counted once for nested left-out calls). So a
 * summary sits inside the call whose time it explains, and a view of the
 * output still adds up. A tool may leave out other items of its own
 * (the Paraver writer: short synchronization calls and families' calls,
 * for its budget): pt_thin_out_left counts them into the same summaries,
 * and pt_thin_out_left_own has the tool's summary say what they were. */
#ifndef PT_THIN_H
#define PT_THIN_H

#include "pt_select.h"

#include <stddef.h>
#include <stdint.h>

enum { PT_THIN_UNDECIDED = 0, PT_THIN_KEEP = 1, PT_THIN_LEAVE = 2 };

typedef struct pt_thin_in_frame {
	uint64_t t;
	uint64_t seq; /* of its entry */
} pt_thin_in_frame;

typedef struct pt_thin_in {
	uint64_t min_ns; /* shorter calls are left out */
	pt_sel_funcs funcs;
	pt_thin_in_frame *st;
	size_t depth, cap;
	size_t first_open; /* frames below are decided */
	uint8_t *dec;      /* ring: decision of entry seq at [seq & mask] */
	size_t dmask;
	uint64_t seq_next; /* entries seen */
	uint64_t seq_base; /* oldest entry whose decision is still wanted */
	int oom;
} pt_thin_in;

/* min_ns: shorter calls left out; sel: --include/--exclude (NULL: none). */
void pt_thin_in_init(pt_thin_in *in, uint64_t min_ns, const pt_select *sel,
                     const pt_trace_ctx *ctx);
void pt_thin_in_free(pt_thin_in *in);
void pt_thin_in_enter(pt_thin_in *in, uint64_t t, uint32_t id);
/* n frames end at t (cut: by lost data, so their duration is unknown). */
void pt_thin_in_exit(pt_thin_in *in, uint64_t t, size_t n, int cut);
/* Any other item at t: time moves on. */
void pt_thin_in_other(pt_thin_in *in, uint64_t t);
/* No more items: what is undecided is kept. */
void pt_thin_in_end(pt_thin_in *in);
/* Entry seq's decision (PT_THIN_*); seq < seq_next. */
static inline int pt_thin_in_decision(const pt_thin_in *in, uint64_t seq)
{
	return in->dec[seq & in->dmask];
}
/* Decisions before seq are no longer wanted. */
static inline void pt_thin_in_release(pt_thin_in *in, uint64_t seq)
{
	if (seq > in->seq_base)
		in->seq_base = seq;
}

typedef struct pt_thin_ops {
	void (*enter)(void *arg, uint64_t t, uint32_t id);
	/* a kept call ends (cut: by lost data) */
	void (*exit)(void *arg, uint64_t t, uint32_t id, int cut);
	/* left-out calls: `calls` of them took `ns` that no kept call shows;
	 * and `sync` items left out by the tool, that waited `wait` ns */
	void (*summary)(void *arg, uint64_t t, uint64_t calls, uint64_t ns, uint64_t sync,
	                uint64_t wait);
} pt_thin_ops;

typedef struct pt_thin_out_frame {
	uint64_t t;
	uint64_t inside; /* a left-out frame: time of the kept calls in it */
	uint32_t id;
	int kept;
} pt_thin_out_frame;

typedef struct pt_thin_out {
	const pt_thin_ops *ops;
	void *arg;
	pt_thin_out_frame *st;
	size_t depth, cap;
	/* what the innermost kept call (or the thread) has left out since
	 * its last written item */
	uint64_t pend_calls, pend_ns, pend_t;
	uint64_t pend_sync, pend_wait; /* the tool's own items (pt_thin_out_left) */
	uint64_t pend_own;             /* other items of the tool's, which it sums itself */
	/* totals */
	uint64_t calls_left, ns_left, calls_kept;
	uint64_t sync_left, wait_left;
	int oom;
} pt_thin_out;

void pt_thin_out_init(pt_thin_out *out, const pt_thin_ops *ops, void *arg);
void pt_thin_out_free(pt_thin_out *out);
void pt_thin_out_enter(pt_thin_out *out, uint64_t t, uint32_t id, int kept);
void pt_thin_out_exit(pt_thin_out *out, uint64_t t, size_t n, int cut);
/* Before the tool writes an item of its own at t: the summary due first. */
static inline void pt_thin_out_other(pt_thin_out *out, uint64_t t)
{
	(void)t;
	if (out->pend_calls || out->pend_sync || out->pend_own) {
		out->ops->summary(out->arg, out->pend_t, out->pend_calls, out->pend_ns,
		                  out->pend_sync, out->pend_wait);
		out->pend_calls = out->pend_ns = out->pend_sync = out->pend_wait = 0;
		out->pend_own = 0;
	}
}
/* The tool leaves out n items of its own at t (the end of the last),
 * that waited `wait` ns: counted in the summary due. */
static inline void pt_thin_out_left(pt_thin_out *out, uint64_t t, uint64_t n, uint64_t wait)
{
	out->pend_sync += n;
	out->pend_wait += wait;
	out->pend_t = t;
	out->sync_left += n;
	out->wait_left += wait;
}
/* The tool leaves out an item of its own at t whose summary it writes
 * itself (in its summary callback, which the next summary due calls). */
static inline void pt_thin_out_left_own(pt_thin_out *out, uint64_t t)
{
	out->pend_own++;
	out->pend_t = t;
}
/* No more items: the last summary. */
static inline void pt_thin_out_end(pt_thin_out *out)
{
	pt_thin_out_other(out, UINT64_MAX);
}

#endif
