/* SPDX-License-Identifier: MIT */
/* The .prv's size budget: while a row's lines are written, what each call
 * and each synchronization call (and each family call, pv_left_def,
 * accounted as a synchronization call that waits as long as it lasts)
 * costs in the .prv goes into a histogram by its duration (a
 * synchronization call's: how long it waited), with what leaving them out
 * would add (the summaries, pv_thin.c), so that after the pass, without
 * reading anything again, finish can pick the shortest duration threshold
 * whose .prv fits (pv_budget_choose). One threshold for all: the shortest
 * items go first whatever they are, so a family of short items
 * (uncontended locks by the million) never takes every call with it while
 * it stays.
 *
 * Slots: 0 calls left out whatever the threshold (--include/--exclude,
 * --min-duration), 1 + pv_bucket(duration) for the others, PV_SLOT_CUT for
 * calls cut by lost data (never left out: their duration is unknown). A
 * synchronization call that does not wait is slot 1, a wait 1 +
 * pv_bucket(its length). Threshold slot k leaves out the items of slots
 * below k.
 *
 * Summaries: every line written flushes what was left out since the line
 * before (pt_thin.h), so for threshold k there is one summary line per gap
 * between two written lines that holds a left-out item that a summary
 * counts: the end of a call, a synchronization call that did not wait, the
 * end of a wait. Per such item e of slot s (left out for k > s), the items
 * just before it that leave nothing to count when left out (the entries of
 * calls, the request of a wait) are skipped, back to the first that counts
 * or is always written, the terminal (a line of another kind, the start of
 * the row): e starts a gap for k in (s, max(slots of the skipped items,
 * slot of the terminal)]. So:
 *   - a line of another kind just before: every k > s;
 *   - an item that counts (x): k in (s, slot(x)];
 *   - entries (the chain of entries right before e, whose slots are known
 *     only at their ends): up to the largest of the chain's and its
 *     terminal's slots, settled when the chain's outermost call ends
 *     (`sub`, `cmax` in that frame).
 * Each such e adds one line's bytes to a difference array over thresholds.
 * A wait's request skipped by its own end is skipped exactly; one that
 * something else follows counts as written (an estimate on the large side,
 * and rare). So is the summary line's size: that of the kind that starts
 * it. The result is checked after the thinning anyway (pv_select.c). */
#define _GNU_SOURCE
#include "pv_budget.h"
#include "pv_codec.h"

#include <string.h>

#define NO_SLOT 0xffff /* a terminal that is always written (a line, the row's start) */
/* a summary line: prefix, key, ":61000030:" count ":61000031:" ns "\n" */
#define SUMMARY_FIXED 29
/* one of synchronization calls: ":61000032:" count ":61000033:" ns "\n" */
#define SUMMARY_SYNC_FIXED 27

typedef struct acct_frame {
	uint64_t key;
	uint64_t sub;   /* a chain root: summary bytes whose upper end waits for its end */
	uint32_t bytes; /* of its entry's line */
	uint32_t root;  /* the outermost frame of its chain of entries (itself if none) */
	uint16_t term;  /* a chain root: slot of the item before it, or NO_SLOT */
	uint16_t cmax;  /* a chain root: the largest slot of its chain's frames */
	uint8_t forced; /* its function is left out */
} acct_frame;

/* the row's previous item: a line always written, an entry, an item a
 * summary counts (LAST_END, of slot last_slot), a wait's request */
enum { LAST_LINE, LAST_ENTRY, LAST_END, LAST_REQ };

struct pv_acct {
	pv_hist h;
	acct_frame *f;
	size_t depth, cap;
	int regex;          /* --include/--exclude given: look functions up */
	int last;           /* LAST_* */
	unsigned last_slot; /* LAST_END: its slot */
	pt_sel_funcs funcs;
	uint64_t min_ns;
	size_t prefix_len;
	int oom;
	/* the request whose wait is open */
	int req;
	uint64_t req_key, req_bytes;
	unsigned req_states; /* digits of the two states leaving it out merges */
	int req_last; /* the item before it (last, last_slot) */
	unsigned req_last_slot;
	size_t st_prefix_len;
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
	a->st_prefix_len = s->st.prefix_len;
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
		dst->sbytes[i] += src->sbytes[i];
		dst->scalls[i] += src->scalls[i];
	}
	for (size_t i = 0; i <= PV_SLOTS; i++)
		dst->runs[i] += src->runs[i];
	dst->fcalls += src->fcalls;
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

/* The item before an entry or a counted item: a request something else
 * follows counts as a written line. */
static int last_item(const pv_acct *a)
{
	return a->last == LAST_REQ ? LAST_LINE : a->last;
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
	int last = last_item(a);
	if (last == LAST_ENTRY && d > 0)
		f->root = a->f[d - 1].root; /* the chain of entries goes on */
	else if (last == LAST_END)
		f->term = (uint16_t)a->last_slot;
	a->last = LAST_ENTRY;
}

/* A counted item of slot `slot` whose previous item is not its own entry
 * (est: its summary line's bytes): the gaps it starts, thresholds (slot,
 * upper]. */
static void counted(pv_acct *a, unsigned slot, int64_t est)
{
	pv_hist *h = &a->h;
	switch (last_item(a)) {
	case LAST_END:
		if (a->last_slot > slot) {
			h->runs[slot + 1] += est;
			h->runs[a->last_slot + 1] -= est;
		}
		break;
	case LAST_ENTRY:
		if (a->depth) { /* inside the innermost frame, right after its entry */
			h->runs[slot + 1] += est;
			a->f[a->f[a->depth - 1].root].sub += (uint64_t)est; /* later */
			break;
		}
		/* fall through */
	default:
		h->runs[slot + 1] += est;
	}
	a->last = LAST_END;
	a->last_slot = slot;
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
	int64_t est = (int64_t)(a->prefix_len + kd + SUMMARY_FIXED);
	if (last_item(a) != LAST_ENTRY) {
		counted(a, slot, est);
	} else if (c.root == d) {
		/* its own entry alone: up to the item before it */
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

/* A synchronization call's or a family call's line (kind: PV_SY_*); est:
 * the fixed bytes of the summary line leaving it out adds; states (at a
 * request): the digits of the state values of the two state lines leaving
 * the item out merges into the one before (its own and the one after). */
static int acct_item(pv_shard *s, unsigned kind, size_t len, unsigned est_fixed,
                     unsigned states);

static unsigned digits(unsigned v)
{
	unsigned n = 1;
	while (v >= 10)
		v /= 10, n++;
	return n;
}

void pv_acct_sync(pv_shard *s, unsigned kind, size_t len)
{
	/* a wait: Synchronization, then Running */
	acct_item(s, kind, len, SUMMARY_SYNC_FIXED, 2);
}

/* A family call is accounted as a synchronization call that waits for as
 * long as it lasts: its begin a request, its end the wait's end. */
void pv_acct_call(pv_shard *s, unsigned kind, size_t len, const pv_left_def *d, uint32_t states)
{
	/* each pair about ":40000090:" and 4 digits; the line's "\n" */
	unsigned fixed = 1 + 14 * (unsigned)(1 + (d->ns_type != 0) + d->ntally);
	unsigned sd = digits(states & 0xffff) + digits(states >> 16);
	if (acct_item(s, kind == PV_FC_BEGIN ? PV_SY_REQ : PV_SY_END, len, fixed, sd))
		s->acct->h.fcalls++;
}

/* 1 when the line completes an item the budget may leave out. */
static int acct_item(pv_shard *s, unsigned kind, size_t len, unsigned est_fixed,
                     unsigned states)
{
	pv_acct *a = s->acct;
	unsigned kd = key_digits(s);
	uint64_t key = s->ev.last_key, bytes = a->prefix_len + kd + len;
	unsigned slot = 1; /* no wait */
	switch (kind) {
	case PV_SY_REQ:
		a->req = 1;
		a->req_key = key;
		a->req_bytes = bytes;
		a->req_states = states;
		a->req_last = a->last;
		a->req_last_slot = a->last_slot;
		a->last = LAST_REQ;
		return 0;
	case PV_SY_END:
		if (!a->req) { /* its request is not in the .prv: kept */
			a->last = LAST_LINE;
			return 0;
		}
		a->req = 0;
		slot = 1 + pv_bucket(key - a->req_key);
		/* the request's line, and the state lines leaving the wait out
		 * merges (Synchronization and the Running after it; a family
		 * call's state and the one after): prefix, begin ":" end ":"
		 * state "\n" each */
		bytes += a->req_bytes + 2 * (a->st_prefix_len + 2 * kd + 3) + a->req_states;
		if (a->last == LAST_REQ) { /* its request goes with it: skipped */
			a->last = a->req_last;
			a->last_slot = a->req_last_slot;
		}
		break;
	case PV_SY_INST:
		break;
	default: /* PV_SY_PIN: the open request stays */
		a->req = 0;
		a->last = LAST_LINE;
		return 0;
	}
	a->h.sbytes[slot] += bytes;
	a->h.scalls[slot]++;
	counted(a, slot, (int64_t)(a->prefix_len + kd + est_fixed));
	return 1;
}

unsigned pv_budget_choose(const pv_hist *h, uint64_t total, uint64_t budget, unsigned k_min,
                          uint64_t *est)
{
	int64_t items = 0;
	for (size_t i = 0; i < PV_SLOTS; i++)
		items += (int64_t)(h->bytes[i] + h->sbytes[i]);
	int64_t other = (int64_t)total - items;
	if (other < 0)
		other = 0;
	int64_t kept = items, runs = 0, e = (int64_t)total;
	int64_t fit = budget > INT64_MAX ? INT64_MAX : (int64_t)budget;
	unsigned k = 0;
	for (;;) {
		if (k >= k_min && e <= fit)
			break;
		if (k + 1 >= PV_SLOTS)
			break; /* nothing left to leave out */
		kept -= (int64_t)(h->bytes[k] + h->sbytes[k]);
		k++;
		runs += h->runs[k];
		e = other + kept + (runs > 0 ? runs : 0);
	}
	*est = e > 0 ? (uint64_t)e : 0;
	return k;
}
