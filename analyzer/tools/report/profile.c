/* SPDX-License-Identifier: MIT */
/* The profile tool: per function, per lock and per thread figures.
 *
 *   functions: calls; inclusive and exclusive time (total, mean, max);
 *     share of all threads' lifetime. A function active several times on
 *     one stack (recursion) counts its inclusive time once, for the
 *     outermost activation. Calls as the framework's call-stack tracker
 *     says (analyzer/framework/pt_callstack.h).
 *   locks (mutex, rwlock, spinlock, semaphore, mtx_t, barrier, condition):
 *     acquisitions (condition: waits; barrier: arrivals), contended ones,
 *     total / max wait, and the function that waited longest for it (top
 *     of the user-function stack at the request). Contended = the request
 *     waited >= PF_CONTENDED_NS or a CALLSTACK record was attached to it
 *     (the runtime writes one only when the lock was busy).
 *   functions the runtime throttled on a thread (format/throttle.h): their
 *     calls there after the THROTTLE record are counted, not recorded; they
 *     are in `calls`, and their times are estimated from the thread's
 *     recorded calls of the function (their means), in incl and excl and
 *     said apart (est_incl, est_excl). The callers' exclusive time still
 *     holds those calls' time, which no record took off it.
 *   threads: lifetime (first to last record), running vs waiting (lock,
 *     condition, join, barrier).
 * The families' parts (report.h) gather inside this tool's pass and print
 * inside its tables; in the JSON, the families' sections run inside it
 * too: one object for the whole report.
 * Options: "text" (default), "csv", "json", "short" (the summary analyze
 * prints), "top=N" rows per table (0 = all), "select" (report: the
 * framework's selection applies, pt_select.h: its rows only, and inside its
 * window only the part of each call, wait and lifetime the window holds; a
 * call counts when it overlaps the window. profile_print.c leaves out the
 * functions --include/--exclude leave out, and says what went).
 */
#define _GNU_SOURCE
#include "profile.h"
#include "pt_callstack.h"
#include "pt_framework.h"
#include "pt_func_lookup.h"
#include "pt_select.h"
#include "pt_throttle.h"
#include "pt_waits.h"
#include "tools.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct pf_shard {
	pf_tool *pf;
	const pt_shard_info *info;
	pf_func *f;
	uint32_t *active; /* per id: activations on the stack */
	size_t nf;
	pt_callstack calls; /* frames' aux: time in callees */
	pf_lock *l;
	size_t nl, capl;
	size_t *lmap; /* open addressing over l: index + 1 */
	size_t lmap_cap;
	/* pending waits (PF_W_* = PT_WAIT_*): their lock and who waited */
	pt_waits waits;
	size_t wlock[PT_WAIT_KINDS];
	uint32_t wcaller[PT_WAIT_KINDS];
	int req_stack; /* a CALLSTACK came with the open lock request */
	pt_func_lookup fl;
	pt_throttles thr;
	pf_thread ts;
	int skip;          /* a row the selection leaves out */
	uint64_t thr_left; /* throttled calls a window leaves out */
	int clip;        /* a window: [lo, hi] */
	uint64_t lo, hi;
	void *fam[PT_MAX_FAMILIES]; /* the families' parts' shard states */
	pt_nest_shard inner;        /* the sections inside (JSON) */
	int oom;
	char err[128];
} pf_shard;

static int grow_funcs_slow(pf_shard *s, uint32_t id)
{
	size_t n = s->nf ? s->nf : 64;
	while (n <= id)
		n *= 2;
	pf_func *f = realloc(s->f, n * sizeof *f);
	if (!f)
		return -1;
	s->f = f;
	uint32_t *a = realloc(s->active, n * sizeof *a);
	if (!a)
		return -1;
	s->active = a;
	memset(s->f + s->nf, 0, (n - s->nf) * sizeof *f);
	memset(s->active + s->nf, 0, (n - s->nf) * sizeof *a);
	s->nf = n;
	return 0;
}

static inline int grow_funcs(pf_shard *s, uint32_t id)
{
	return id < s->nf ? 0 : grow_funcs_slow(s, id);
}

/* A call of function id began. */
static inline void call_begins(pf_shard *s, uint32_t id)
{
	if (grow_funcs(s, id)) {
		s->oom = 1;
		return;
	}
	s->active[id]++;
	if (!s->clip) /* in a window: counted at its end, if it overlaps */
		s->f[id].calls++;
}

/* What of [b, e] the window holds. */
static inline uint64_t overlap(const pf_shard *s, uint64_t b, uint64_t e)
{
	uint64_t lo = b > s->lo ? b : s->lo, hi = e < s->hi ? e : s->hi;
	return hi > lo ? hi - lo : 0;
}

/* A call, wait or life that ends where the window begins, or begins where
 * it ends, is outside; one of no length is inside when its instant is. */
static inline int overlaps(const pf_shard *s, uint64_t b, uint64_t e)
{
	return e > b ? b < s->hi && e > s->lo : b >= s->lo && b <= s->hi;
}

/* Frame i of the stack ended at t; its caller, if any, is frame i - 1
 * (whose aux sums the time of its callees). */
static inline void call_ends(pf_shard *s, pt_callstack *cs, size_t i, uint64_t t)
{
	const pt_frame_at *at = &cs->at[i];
	uint32_t id = cs->ids[i];
	uint64_t incl = t > at->t ? t - at->t : 0;
	pf_func *f = &s->f[id];
	if (s->clip) {
		/* its callees' aux is clipped alike: excl is its own time inside */
		if (overlaps(s, at->t, t))
			f->calls++;
		incl = overlap(s, at->t, t);
	}
	uint64_t excl = incl > at->aux ? incl - at->aux : 0;
	if (--s->active[id] == 0)
		f->incl += incl;
	if (incl > f->incl_max)
		f->incl_max = incl;
	f->excl += excl;
	if (excl > f->excl_max)
		f->excl_max = excl;
	if (i)
		cs->at[i - 1].aux += incl;
}

static void calls_push(void *arg, pt_callstack *cs)
{
	call_begins(arg, cs->ids[cs->depth - 1]);
}

/* Frame i was open when data was lost: how long it ran is unknown. */
static void call_cut(pf_shard *s, pt_callstack *cs, size_t i)
{
	uint32_t id = cs->ids[i];
	s->active[id]--;
	if (s->clip && !overlaps(s, cs->at[i].t, cs->last_t))
		return;
	if (s->clip)
		s->f[id].calls++;
	s->f[id].cut++;
}

static void calls_pop(void *arg, pt_callstack *cs, size_t n, uint64_t t, enum pt_call_end how)
{
	for (size_t i = cs->depth + n; i-- > cs->depth;)
		if (how == PT_CALL_CUT)
			call_cut(arg, cs, i);
		else
			call_ends(arg, cs, i, t);
}

static const pt_callstack_ops pf_calls = {calls_push, calls_pop};

static void func_record(pf_shard *s, uint32_t id, int enter, uint64_t t)
{
	pt_callstack *cs = &s->calls;
	if (enter == PT_STEP_ENTER) {
		if (pt_callstack_enter_fast(cs, id, t)) {
			call_begins(s, id);
			return;
		}
	} else if (enter == PT_STEP_EXIT && pt_callstack_exit_fast(cs, id, t)) {
		call_ends(s, cs, cs->depth, t);
		return;
	}
	pt_callstack_func(cs, id, enter, t, &pf_calls, s);
}

static size_t lock_slot(pf_shard *s, uint32_t pid, uint64_t addr, unsigned what)
{
	if ((s->nl + 1) * 2 > s->lmap_cap) {
		size_t ncap = s->lmap_cap ? s->lmap_cap * 2 : 64;
		size_t *m = calloc(ncap, sizeof *m);
		if (!m)
			return SIZE_MAX;
		for (size_t i = 0; i < s->nl; i++) {
			size_t j = pt_mix64(s->l[i].addr ^ s->l[i].pid) & (ncap - 1);
			while (m[j])
				j = (j + 1) & (ncap - 1);
			m[j] = i + 1;
		}
		free(s->lmap);
		s->lmap = m;
		s->lmap_cap = ncap;
	}
	size_t j = pt_mix64(addr ^ pid) & (s->lmap_cap - 1);
	for (; s->lmap[j]; j = (j + 1) & (s->lmap_cap - 1)) {
		pf_lock *l = &s->l[s->lmap[j] - 1];
		if (l->addr == addr && l->pid == pid)
			return s->lmap[j] - 1;
	}
	if (s->nl == s->capl) {
		size_t ncap = s->capl ? s->capl * 2 : 16;
		pf_lock *n = realloc(s->l, ncap * sizeof *n);
		if (!n)
			return SIZE_MAX;
		s->l = n;
		s->capl = ncap;
	}
	memset(&s->l[s->nl], 0, sizeof s->l[s->nl]);
	s->l[s->nl].pid = pid;
	s->l[s->nl].addr = addr;
	s->l[s->nl].what = what;
	s->lmap[j] = s->nl + 1;
	return s->nl++;
}

static int add_caller(pf_lock *l, uint32_t id, uint64_t wait)
{
	for (size_t i = 0; i < l->ncallers; i++)
		if (l->callers[i].id == id) {
			l->callers[i].wait += wait;
			return 0;
		}
	pf_caller *n = realloc(l->callers, (l->ncallers + 1) * sizeof *n);
	if (!n)
		return -1;
	l->callers = n;
	l->callers[l->ncallers++] = (pf_caller){id, wait};
	return 0;
}

static void waited(pf_shard *s, size_t li, uint64_t wait, uint32_t caller, int contended)
{
	if (li == SIZE_MAX) {
		s->oom = 1;
		return;
	}
	pf_lock *l = &s->l[li];
	l->acq++;
	l->wait += wait;
	if (wait > l->wait_max)
		l->wait_max = wait;
	if (contended)
		l->contended++;
	if (wait && add_caller(l, caller, wait))
		s->oom = 1;
}

static uint32_t top_id(pf_shard *s)
{
	return s->calls.depth ? s->calls.ids[s->calls.depth - 1] : 0;
}

static void throttle_record(pf_shard *s, const pt_event *ev)
{
	pt_throttled th;
	int r = pt_throttles_record(&s->thr, ev, &th);
	if (r < 0)
		s->oom = 1;
	if (r <= 0)
		return;
	uint32_t id = pt_func_lookup_id(&s->fl, th.local_id);
	if (!id)
		return;
	if (s->clip) {
		/* when those calls were made is not known: not in a window */
		s->thr_left += th.count;
		return;
	}
	if (grow_funcs(s, id)) {
		s->oom = 1;
		return;
	}
	pf_func *f = &s->f[id];
	f->throttled += th.count;
	if (!f->since || th.since_ns < f->since)
		f->since = th.since_ns;
	f->rt_mean = th.mean_ns;
}

/* The thread's throttled calls join its recorded ones, with times
 * estimated from the recorded calls' means (the runtime's mean when it
 * recorded none that ended). */
static void throttle_estimate(pf_func *f)
{
	uint64_t n = timed_calls(f);
	uint64_t mi = n ? f->incl / n : f->rt_mean, me = n ? f->excl / n : f->rt_mean;
	f->est_incl = f->throttled * mi;
	f->est_excl = f->throttled * me;
	f->calls += f->throttled;
	f->incl += f->est_incl;
	f->excl += f->est_excl;
}

/* ---- callbacks --------------------------------------------------------- */
static void pf_destroy(void *tool);

static void add_inner(void *arg, const pf_section *sec)
{
	pf_tool *pf = arg;
	if (!pf->inner_err[0])
		pt_nest_add(&pf->inner, sec->tool(), pf->ctx, "json", pf->inner_err,
		            sizeof pf->inner_err);
}

static void *pf_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	pf_tool *pf = calloc(1, sizeof *pf);
	if (!pf || !(pf->t = calloc(ctx->nshards + 1, sizeof *pf->t)) ||
	    !(pf->hide = calloc(ctx->nshards + 1, 1))) {
		if (pf)
			free(pf->t);
		free(pf);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pf->ctx = ctx;
	pf->top = 25;
	pthread_mutex_init(&pf->lock, NULL);
	for (; pf->nfam < pt_nfamilies(); pf->nfam++) {
		const pf_family *x = pf_fam(pf->nfam);
		if (x && x->init && x->init(ctx, &pf->fam[pf->nfam])) {
			snprintf(err, errlen, "out of memory");
			pf_destroy(pf);
			return NULL;
		}
	}
	if (options) {
		if (strstr(options, "select"))
			pf->sel = pt_fw_select(ctx); /* its window is placed by shard_init */
		if (strstr(options, "csv"))
			pf->format = 1;
		if (strstr(options, "json"))
			pf->format = 2;
		if (strstr(options, "short")) {
			pf->short_form = 1;
			pf->top = 10;
		}
		if (strstr(options, "wide"))
			pf->wide = 1;
		const char *t = strstr(options, "top=");
		if (t)
			pf->top = (unsigned)strtoul(t + 4, NULL, 10);
	}
	if (pf->format == 2) {
		pt_report_sections(PF_IN_JSON, add_inner, pf);
		if (pf->inner_err[0]) {
			snprintf(err, errlen, "%s", pf->inner_err);
			pf_destroy(pf);
			return NULL;
		}
	}
	return pf;
}

static void *pf_shard_init(void *tool, const pt_shard_info *info, char *err, size_t errlen)
{
	pf_shard *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->pf = tool;
	s->info = info;
	if (pt_nest_shard_init(&s->pf->inner, &s->inner, info, err, errlen)) {
		free(s);
		return NULL;
	}
	pt_func_lookup_init(&s->fl, s->pf->ctx, info->process);
	pt_callstack_init(&s->calls, info->header);
	s->ts.shard = info->index;
	s->ts.first = info->first_ns;
	const pt_select *sel = s->pf->sel;
	s->skip = sel && !pt_select_shard(sel, info);
	s->pf->hide[info->index] = (uint8_t)s->skip;
	if (pt_select_window(sel)) {
		s->clip = 1;
		s->lo = sel->win_lo;
		s->hi = sel->win_hi;
	}
	return s;
}

static int pf_shard_event(void *st, const pt_event *ev)
{
	pf_shard *s = st;
	const pt_shard_info *in = s->info;
	uint64_t t = ev->time_ns;
	if (s->pf->inner.n && pt_nest_shard_event(&s->pf->inner, &s->inner, ev))
		return -1;
	if (s->skip)
		return 0;
	if (!s->clip || (t >= s->lo && t <= s->hi))
		s->ts.events++;
	if (in->kind != PT_FILE_THREAD)
		return 0;
	int is_enter;
	uint32_t id = pt_event_func(ev, &s->fl, &is_enter);
	if (id) {
		func_record(s, id, is_enter, t);
		if (s->oom || s->calls.oom)
			return snprintf(s->err, sizeof s->err, "out of memory"), -1;
		return 0;
	}
	if (ev->kind == PT_REC_THROTTLE || ev->kind == PT_REC_THROTTLE_COUNTS) {
		throttle_record(s, ev);
		return s->oom ? (snprintf(s->err, sizeof s->err, "out of memory"), -1) : 0;
	}
	pt_callstack_record(&s->calls, ev, &pf_calls, s);
	for (size_t i = 0; i < s->pf->nfam; i++) {
		const pf_family *x = pf_fam(i);
		if (x && x->event &&
		    ((ev->kind >= x->kind_first && ev->kind <= x->kind_last) ||
		     (x->all_after_first && s->fam[i])) &&
		    x->event(s->pf->fam[i], &s->fam[i], in, ev))
			s->oom = 1;
	}
	switch (ev->kind) {
	case PT_REC_THREAD_NAME: {
		uint32_t tid;
		const char *n = pt_event_thread_name(ev, &tid);
		if (n && !tid) {
			free(s->ts.name);
			s->ts.name = strdup(n);
		}
		break;
	}
	case PT_REC_CALLSTACK:
		if (s->waits.is_open[PT_WAIT_LOCK])
			s->req_stack = 1; /* attached to a blocking request */
		break;
	}
	pt_wait w;
	switch (pt_waits_record(&s->waits, ev, &w)) {
	case PT_WAITS_BEGAN:
		s->wcaller[w.kind] = top_id(s);
		if (w.kind == PT_WAIT_LOCK)
			s->req_stack = 0;
		if (w.kind != PT_WAIT_JOIN)
			s->wlock[w.kind] = lock_slot(s, in->pid, w.object,
			                             w.kind != PT_WAIT_COND        ? w.type
			                             : w.type & PT_COND_FUTEX ? 101
			                                                      : 100);
		break;
	case PT_WAITS_ENDED: {
		uint64_t d = w.end - w.begin;
		if (s->clip) {
			if (!overlaps(s, w.begin, w.end)) {
				if (w.kind == PT_WAIT_LOCK)
					s->req_stack = 0;
				break;
			}
			d = overlap(s, w.begin, w.end);
		}
		s->ts.wait[w.kind] += d;
		if (w.kind == PT_WAIT_JOIN)
			break;
		size_t li = w.begun ? s->wlock[w.kind] : lock_slot(s, in->pid, w.object, w.type);
		uint32_t caller = w.begun ? s->wcaller[w.kind] : top_id(s);
		if (w.failed) {
			if (li != SIZE_MAX) {
				s->l[li].failed++;
				s->l[li].wait += d;
			}
		} else
			waited(s, li, d, caller,
			       w.kind == PT_WAIT_LOCK &&
			           (d >= PF_CONTENDED_NS || (w.begun && s->req_stack)));
		/* the stack belonged to this request only: the free acquisitions
		 * after it (no request, no stack) are not contended */
		if (w.kind == PT_WAIT_LOCK)
			s->req_stack = 0;
		break;
	}
	default:
		break;
	}
	if (s->oom) {
		snprintf(s->err, sizeof s->err, "out of memory");
		return -1;
	}
	return 0;
}

static const char *pf_shard_error(void *st)
{
	pf_shard *s = st;
	const char *inner = s->err[0] ? NULL : pt_nest_shard_error(&s->pf->inner, &s->inner);
	return inner ? inner : s->err;
}

static int pf_shard_exit(void *st, uint64_t last_ns, int complete)
{
	pf_shard *s = st;
	pf_tool *pf = s->pf;
	/* frames still open end at the last record (exit, killed) */
	pt_callstack_end(&s->calls, last_ns, &pf_calls, s);
	pt_wait w;
	const pt_process_info *proc = &pf->ctx->processes[s->info->process];
	s->ts.unclosed = !complete && !proc->exited;
	for (int k = 0; k < PT_WAIT_KINDS; k++)
		if (pt_waits_close(&s->waits, k, last_ns, &w)) {
			if (s->ts.unclosed)
				s->ts.open_since[k] = w.begin ? w.begin : 1;
			else
				s->ts.wait[k] += s->clip ? overlap(s, w.begin, w.end) : w.end - w.begin;
		}
	s->ts.last = last_ns;
	if (s->clip) {
		/* its life inside the window; none: not shown */
		if (!overlaps(s, s->ts.first, last_ns))
			pf->hide[s->info->index] = 1;
		else if (!s->ts.unclosed)
			pf_clip_life(&s->ts, s->lo, s->hi);
	}
	int rc = 0;
	if (pt_nest_shard_exit(&pf->inner, &s->inner, last_ns, complete))
		rc = -1;
	pthread_mutex_lock(&pf->lock);
	for (size_t i = 0; i < pf->nfam; i++) {
		const pf_family *x = pf_fam(i);
		if (x && x->shard_exit && x->shard_exit(pf->fam[i], s->fam[i], s->info, &s->ts, last_ns))
			rc = -1;
	}
	pf->t[s->info->index] = s->ts;
	pf->thr_left += s->thr_left;
	if (s->nf > pf->nf) {
		pf_func *f = realloc(pf->f, s->nf * sizeof *f);
		if (f) {
			memset(f + pf->nf, 0, (s->nf - pf->nf) * sizeof *f);
			pf->f = f;
			pf->nf = s->nf;
		} else
			rc = -1;
	}
	for (size_t i = 0; i < s->nf && i < pf->nf; i++) {
		pf_func *a = &pf->f[i], *b = &s->f[i];
		if (b->throttled)
			throttle_estimate(b);
		a->throttled += b->throttled;
		a->est_incl += b->est_incl;
		a->est_excl += b->est_excl;
		if (b->since && (!a->since || b->since < a->since))
			a->since = b->since;
		a->calls += b->calls;
		a->cut += b->cut;
		a->incl += b->incl;
		a->excl += b->excl;
		if (b->incl_max > a->incl_max)
			a->incl_max = b->incl_max;
		if (b->excl_max > a->excl_max)
			a->excl_max = b->excl_max;
	}
	for (size_t i = 0; i < s->nl; i++) {
		pf_lock *b = &s->l[i];
		size_t k = 0;
		while (k < pf->nl && !(pf->l[k].addr == b->addr && pf->l[k].pid == b->pid))
			k++;
		if (k == pf->nl) {
			if (pf->nl == pf->capl) {
				size_t ncap = pf->capl ? pf->capl * 2 : 16;
				pf_lock *n = realloc(pf->l, ncap * sizeof *n);
				if (!n) {
					rc = -1;
					free(b->callers);
					continue;
				}
				pf->l = n;
				pf->capl = ncap;
			}
			pf->l[pf->nl++] = *b; /* takes its callers list */
			continue;
		}
		pf_lock *a = &pf->l[k];
		a->acq += b->acq;
		a->contended += b->contended;
		a->wait += b->wait;
		a->failed += b->failed;
		if (b->wait_max > a->wait_max)
			a->wait_max = b->wait_max;
		for (size_t c = 0; c < b->ncallers; c++)
			if (add_caller(a, b->callers[c].id, b->callers[c].wait))
				rc = -1;
		free(b->callers);
	}
	pthread_mutex_unlock(&pf->lock);
	free(s->f);
	free(s->active);
	pt_callstack_free(&s->calls);
	free(s->l);
	free(s->lmap);
	pt_func_lookup_free(&s->fl);
	pt_throttles_free(&s->thr);
	free(s);
	return rc;
}

static void pf_destroy(void *tool)
{
	pf_tool *pf = tool;
	for (size_t i = 0; i < pf->nl; i++)
		free(pf->l[i].callers);
	free(pf->hide);
	for (size_t i = 0; i < pf->ctx->nshards; i++)
		free(pf->t[i].name);
	free(pf->l);
	free(pf->f);
	free(pf->t);
	for (size_t i = 0; i < pf->nfam; i++)
		if (pf_fam(i) && pf_fam(i)->destroy)
			pf_fam(i)->destroy(pf->fam[i]);
	pt_nest_destroy(&pf->inner);
	pthread_mutex_destroy(&pf->lock);
	free(pf);
}

static int pf_process_event(void *tool, size_t process, const pt_event *ev)
{
	pf_tool *pf = tool;
	for (size_t i = 0; i < pf->nfam; i++)
		if (pf_fam(i) && pf_fam(i)->process_event)
			pf_fam(i)->process_event(pf->fam[i], process, ev);
	return pt_nest_process_event(&pf->inner, process, ev);
}

/* The threads of a process that never recorded its end (killed, or still
 * running) were alive until its last record, whichever log holds it: a
 * thread's log that ends without its CLOSE ends there, and so do the
 * waits open in it (a join, a lock request the kill cut short). */
static void end_unclosed(pf_tool *pf)
{
	const pt_trace_ctx *ctx = pf->ctx;
	for (size_t p = 0; p < ctx->nprocesses; p++) {
		const pt_process_info *pi = &ctx->processes[p];
		uint64_t end = pt_fw_process_last(ctx, p);
		for (size_t i = pi->first_shard; i < pi->first_shard + pi->nshards; i++) {
			pf_thread *t = &pf->t[i];
			if (ctx->shards[i].process != p || ctx->shards[i].kind != PT_FILE_THREAD ||
			    !t->unclosed || t->last > end)
				continue;
			uint64_t lo = 0, hi = UINT64_MAX;
			if (pt_select_window(pf->sel)) {
				lo = pf->sel->win_lo;
				hi = pf->sel->win_hi;
			}
			for (int k = 0; k < PF_W_N; k++) {
				uint64_t b = t->open_since[k] > lo ? t->open_since[k] : lo;
				uint64_t e = end < hi ? end : hi;
				if (t->open_since[k])
					t->wait[k] += e > b ? e - b : 0;
			}
			if (t->last >= t->first)
				t->last = end;
			if (t->last >= t->first && pt_select_window(pf->sel))
				pf_clip_life(t, lo, hi);
		}
	}
}

static int pf_finish(void *tool, char *err, size_t errlen)
{
	end_unclosed(tool);
	return pt_nest_finish(&((pf_tool *)tool)->inner, err, errlen);
}

static const pt_tool profile_tool = {
	.api_version = PT_TOOL_API_VERSION,
	.name = "profile",
	.description = "per function, lock and thread times",
	.init = pf_init,
	.process_event = pf_process_event,
	.shard_init = pf_shard_init,
	.shard_event = pf_shard_event,
	.shard_exit = pf_shard_exit,
	.shard_error = pf_shard_error,
	.finish = pf_finish,
	.print_results = pf_print,
	.destroy = pf_destroy,
};

const pt_tool *pt_tool_profile(void)
{
	return &profile_tool;
}
