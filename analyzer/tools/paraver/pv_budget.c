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
 * Summaries: leaving calls out writes one summary line per run of them
 * between two written items of a kept call (pt_thin.h). A call c in call P
 * starts such a run for the thresholds k with slot(c) < k <= slot(P) (c
 * left out, P kept) when the item before c in P stays: a kept sibling
 * (slot(prev) >= k), or a line of another kind, or nothing (P's start),
 * or c holds a line of another kind itself (which splits runs). So each
 * call adds one line's bytes to the thresholds (slot(c), min(slot(prev),
 * slot(P))] of a difference array; slot(P) is known only at P's end, so
 * the open-ended ones wait in P's `open` until then. Left-out calls of a
 * function --include/--exclude leaves out contain kept ones that split
 * runs in a way this does not follow; the estimate is checked after the
 * thinning anyway (pv_thin.c). */
#define _GNU_SOURCE
#include "pv_budget.h"
#include "pv_codec.h"

#include <string.h>

#define PREV_NONE 0xff /* the item before was not a call (or there was none) */
/* a summary line: prefix, key, ":61000030:" count ":61000031:" ns "\n" */
#define SUMMARY_FIXED 29

typedef struct acct_frame {
	uint64_t key;
	uint64_t open; /* summary bytes of runs that start in it, open-ended */
	uint32_t id;
	uint8_t prev;   /* slot of the last item in it, or PREV_NONE */
	uint8_t split;  /* it holds a line of another kind */
	uint8_t forced; /* its function is left out */
} acct_frame;

struct pv_acct {
	pv_hist h;
	acct_frame *f;
	size_t depth, cap;
	acct_frame root; /* the thread: always kept */
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
	a->prefix_len = s->ev.prefix_len;
	a->root.prev = PREV_NONE;
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

static void push(pv_acct *a, uint64_t key, uint32_t id)
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
	a->f[a->depth++] =
	    (acct_frame){key, 0, id, PREV_NONE, 0, (uint8_t)pt_sel_func_left(&a->funcs, id)};
}

static void pop(pv_acct *a, uint64_t key, int cut)
{
	if (!a->depth)
		return;
	acct_frame c = a->f[--a->depth];
	acct_frame *p = a->depth ? &a->f[a->depth - 1] : &a->root;
	uint64_t d = key - c.key;
	unsigned slot = c.forced ? 0 : cut ? PV_SLOT_CUT : d < a->min_ns ? 0 : 1 + pv_bucket(d);
	pv_hist *h = &a->h;
	h->bytes[slot] += 2 * a->prefix_len + pv_digits(c.key) + pv_digits(key) +
	                  func_text_len(c.id) + func_text_len(0);
	h->calls[slot]++;
	/* the runs that started in c, open-ended, stay up to c's slot */
	h->runs[slot + 1] -= (int64_t)c.open;
	if (!p->forced) {
		uint64_t est = a->prefix_len + pv_digits(key) + SUMMARY_FIXED;
		if (p->prev == PREV_NONE || c.split) {
			h->runs[slot + 1] += (int64_t)est;
			p->open += est;
		} else if (p->prev > slot) {
			h->runs[slot + 1] += (int64_t)est;
			h->runs[p->prev + 1] -= (int64_t)est;
		}
	}
	p->prev = (uint8_t)slot;
	p->split |= c.split;
}

void pv_acct_func(pv_shard *s, uint32_t id)
{
	if (id)
		push(s->acct, s->ev.last_key, id);
	else
		pop(s->acct, s->ev.last_key, 0);
}

void pv_acct_pop(pv_shard *s, size_t n, int cut)
{
	while (n--)
		pop(s->acct, s->ev.last_key, cut);
}

void pv_acct_text(pv_shard *s)
{
	pv_acct *a = s->acct;
	acct_frame *f = a->depth ? &a->f[a->depth - 1] : &a->root;
	f->prev = PREV_NONE;
	f->split = 1;
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
