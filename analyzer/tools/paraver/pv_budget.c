/* SPDX-License-Identifier: MIT */
/* The .prv's size budget: while a row's lines are written, what each call
 * costs in the .prv goes into a histogram by the call's duration, with
 * what leaving calls out would add (the summaries, pv_thin.c), so that
 * after the pass, without reading anything again, finish can pick the
 * shortest duration threshold whose .prv fits (pv_budget_choose).
 *
 * Slots: 0 calls left out whatever the threshold (--include/--exclude,
 * --min-duration), 1 + pv_bucket(duration) for the others, PV_SLOT_CUT for
 * calls cut by lost data (never left out: their duration is unknown).
 * Threshold slot k leaves out the calls of slots below k.
 *
 * Summaries: every line written flushes what was left out since the line
 * before (pt_thin.h), so for threshold k there is one summary line per gap
 * between two written lines that holds the end of a left-out call: per
 * end e (of a call c, slot(c) < k) whose previous item, going back over
 * the entries of left-out calls only, is a written line. The item just
 * before e decides it:
 *   - a line of another kind (always written): e starts a gap for every
 *     k > slot(c);
 *   - the end of a call x (c's last callee, or a frame that ended with c):
 *     for k in (slot(c), slot(x)], when x is written;
 *   - c's own entry (c made no other line): going back over the chain of
 *     entries right before it (c's, its caller's if nothing came between,
 *     ...), to the item before the outermost one, the chain's terminal
 *     (a line, an end, or the start of the row): for k in (slot(c),
 *     max(slots of the chain, slot(terminal))].
 * Each end adds one line's bytes to a difference array over thresholds;
 * an upper end known only when the chain's outermost call ends waits in
 * that frame (`sub`, `cmax`) until then. The result is checked after the
 * thinning anyway (pv_select.c). */
#define _GNU_SOURCE
#include "pv_budget.h"
#include "pv_codec.h"

#include <string.h>

#define NO_SLOT 0xffff /* a terminal that is always written (a line, the row's start) */
/* a summary line: prefix, key, ":61000030:" count ":61000031:" ns "\n" */
#define SUMMARY_FIXED 29

typedef struct acct_frame {
	uint64_t key;
	uint64_t sub;   /* a chain root: summary bytes whose upper end waits for its end */
	uint32_t bytes; /* of its entry's line */
	uint32_t root;  /* the outermost frame of its chain of entries (itself if none) */
	uint16_t term;  /* a chain root: slot of the end before it, or NO_SLOT */
	uint16_t cmax;  /* a chain root: the largest slot of its chain's frames */
	uint8_t forced; /* its function is left out */
} acct_frame;

enum { LAST_LINE, LAST_ENTRY, LAST_END };

struct pv_acct {
	pv_hist h;
	acct_frame *f;
	size_t depth, cap;
	int regex;          /* --include/--exclude given: look functions up */
	int last;           /* LAST_*: the row's previous item */
	unsigned last_slot; /* LAST_END: its call's slot */
	pt_sel_funcs funcs;
	uint64_t min_ns;
	size_t prefix_len;
	int oom;
};

unsigned pv_bucket(uint64_t d)
{
	if (d < 4)
		return (unsigned)d;
	unsigned e = 63u - (unsigned)__builtin_clzll(d);
	return 4 * (e - 1) + (unsigned)((d >> (e - 2)) & 3);
}

uint64_t pv_bucket_lo(unsigned b)
{
	if (b < 4)
		return b;
	unsigned e = b / 4 + 1, m = b % 4;
	return (uint64_t)(4 + m) << (e - 2);
}

uint64_t pv_slot_threshold(unsigned k)
{
	if (k == 0)
		return 0;
	if (k >= PV_SLOT_CUT)
		return UINT64_MAX;
	return pv_bucket_lo(k - 1);
}

pv_acct *pv_acct_new(const pv_tool *pv, const pv_shard *s)
{
	pv_acct *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	pt_sel_funcs_init(&a->funcs, pv->sel, pv->ctx);
	a->min_ns = pv->sel ? pv->sel->min_ns : 0;
	a->regex = pv->sel && (pv->sel->has_include || pv->sel->has_exclude);
	a->prefix_len = s->ev.prefix_len;
	a->last = LAST_LINE; /* the row's start: as a written line */
	return a;
}

void pv_acct_free(pv_acct *a)
{
	if (!a)
		return;
	pt_sel_funcs_free(&a->funcs);
	free(a->f);
	free(a);
}

void pv_hist_add(pv_hist *dst, const pv_hist *src)
{
	for (size_t i = 0; i < PV_SLOTS; i++) {
		dst->bytes[i] += src->bytes[i];
		dst->calls[i] += src->calls[i];
	}
	for (size_t i = 0; i <= PV_SLOTS; i++)
		dst->runs[i] += src->runs[i];
}

const pv_hist *pv_acct_hist(const pv_acct *a)
{
	return &a->h;
}

/* The stream has just written a line at key: its key's digits (cached by
 * the stream). */
static inline unsigned key_digits(const pv_shard *s)
{
	return s->ev.key_digits;
}

static void push(pv_acct *a, uint64_t key, uint32_t id, unsigned kd)
{
	if (a->depth == a->cap) {
		size_t ncap = a->cap ? 2 * a->cap : 64;
		acct_frame *f = realloc(a->f, ncap * sizeof *f);
		if (!f) {
			a->oom = 1; /* an estimate: the frame is not counted */
			return;
		}
		a->f = f;
		a->cap = ncap;
	}
	uint32_t d = (uint32_t)a->depth++;
	acct_frame *f = &a->f[d];
	uint32_t bytes = (uint32_t)(a->prefix_len + kd + func_text_len(id));
	*f = (acct_frame){
	    key, 0, bytes, d, NO_SLOT, 0, (uint8_t)(a->regex && pt_sel_func_left(&a->funcs, id))};
	if (a->last == LAST_ENTRY && d > 0)
		f->root = a->f[d - 1].root; /* the chain of entries goes on */
	else if (a->last == LAST_END)
		f->term = (uint16_t)a->last_slot;
	a->last = LAST_ENTRY;
}

static void pop(pv_acct *a, uint64_t key, int cut, unsigned kd)
{
	if (!a->depth)
		return;
	uint32_t d = (uint32_t)--a->depth;
	acct_frame c = a->f[d];
	uint64_t dur = key - c.key;
	unsigned slot = c.forced ? 0 : cut ? PV_SLOT_CUT : dur < a->min_ns ? 0 : 1 + pv_bucket(dur);
	pv_hist *h = &a->h;
	h->bytes[slot] += c.bytes + a->prefix_len + kd + func_text_len(0);
	h->calls[slot]++;
	/* the gaps this end starts: thresholds (slot, upper] */
	int64_t est = (int64_t)(a->prefix_len + kd + SUMMARY_FIXED);
	if (a->last == LAST_LINE) {
		h->runs[slot + 1] += est;
	} else if (a->last == LAST_END) {
		if (a->last_slot > slot) {
			h->runs[slot + 1] += est;
			h->runs[a->last_slot + 1] -= est;
		}
	} else if (c.root == d) {
		/* its own entry alone: up to the end before it */
		h->runs[slot + 1] += est;
		if (c.term != NO_SLOT)
			h->runs[(c.term > slot ? c.term : slot) + 1] -= est;
	} else {
		h->runs[slot + 1] += est;
		a->f[c.root].sub += (uint64_t)est; /* up to the chain's end, later */
	}
	if (c.root != d) {
		acct_frame *r = &a->f[c.root];
		if (slot > r->cmax)
			r->cmax = (uint16_t)slot;
	} else if (c.sub && c.term != NO_SLOT) {
		unsigned top = slot > c.cmax ? slot : c.cmax;
		if (c.term > top)
			top = c.term;
		h->runs[top + 1] -= (int64_t)c.sub;
	}
	a->last = LAST_END;
	a->last_slot = slot;
}

void pv_acct_func(pv_shard *s, uint32_t id)
{
	if (id)
		push(s->acct, s->ev.last_key, id, key_digits(s));
	else
		pop(s->acct, s->ev.last_key, 0, key_digits(s));
}

void pv_acct_pop(pv_shard *s, size_t n, int cut)
{
	while (n--)
		pop(s->acct, s->ev.last_key, cut, key_digits(s));
}

void pv_acct_text(pv_shard *s)
{
	s->acct->last = LAST_LINE;
}

unsigned pv_budget_choose(const pv_hist *h, uint64_t total, uint64_t budget, unsigned k_min,
                          uint64_t *est)
{
	int64_t func = 0;
	for (size_t i = 0; i < PV_SLOTS; i++)
		func += (int64_t)h->bytes[i];
	int64_t other = (int64_t)total - func;
	if (other < 0)
		other = 0;
	int64_t kept = func, runs = 0, e = (int64_t)total;
	int64_t fit = budget > INT64_MAX ? INT64_MAX : (int64_t)budget;
	unsigned k = 0;
	for (;;) {
		if (k >= k_min && e <= fit)
			break;
		if (k + 1 >= PV_SLOTS)
			break; /* nothing left to leave out */
		kept -= (int64_t)h->bytes[k];
		k++;
		runs += h->runs[k];
		e = other + kept + (runs > 0 ? runs : 0);
	}
	*est = e > 0 ? (uint64_t)e : 0;
	return k;
}
