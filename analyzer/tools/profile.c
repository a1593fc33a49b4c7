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
 *   threads: lifetime (first to last record), running vs waiting (lock,
 *     condition, join, barrier).
 * Options: "text" (default), "csv", "json", "short" (the summary analyze
 * prints), "top=N" rows per table (0 = all).
 */
#define _GNU_SOURCE
#include "pt_callstack.h"
#include "pt_func_lookup.h"
#include "pt_names.h"
#include "tools.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define PF_CONTENDED_NS 1000

typedef struct fstat {
	uint64_t calls, incl, incl_max, excl, excl_max;
	uint64_t cut; /* calls cut by lost data: counted, not timed */
} fstat;

/* Calls whose times are known: the means divide by them. */
static inline uint64_t timed_calls(const fstat *x)
{
	return x->calls > x->cut ? x->calls - x->cut : 0;
}

static inline uint64_t mean(uint64_t total, const fstat *x)
{
	uint64_t n = timed_calls(x);
	return n ? total / n : 0;
}

typedef struct caller_wait {
	uint32_t id;
	uint64_t wait;
} caller_wait;

typedef struct lstat {
	uint32_t pid;
	uint64_t addr;
	unsigned what; /* pt_lock_type; 100 = condition */
	uint64_t acq, contended, wait, wait_max, failed;
	caller_wait *callers; /* small list: functions that waited */
	size_t ncallers;
} lstat;

enum { W_LOCK, W_COND, W_JOIN, W_BARRIER, W_N };

typedef struct tstat {
	size_t shard;
	uint64_t first, last;
	uint64_t wait[W_N];
	uint64_t events;
	char *name; /* THREAD_NAME */
	int main;
} tstat;

typedef struct pf_tool {
	const pt_trace_ctx *ctx;
	int format; /* 0 text, 1 csv, 2 json */
	int short_form;
	unsigned top;
	pthread_mutex_t lock;
	fstat *f;
	size_t nf;
	lstat *l;
	size_t nl, capl;
	tstat *t; /* per shard */
} pf_tool;

typedef struct pf_shard {
	pf_tool *pf;
	const pt_shard_info *info;
	fstat *f;
	uint32_t *active; /* per id: activations on the stack */
	size_t nf;
	pt_callstack calls; /* frames' aux: time in callees */
	lstat *l;
	size_t nl, capl;
	size_t *lmap; /* open addressing over l: index + 1 */
	size_t lmap_cap;
	/* pending waits */
	uint64_t req_t, cond_t, join_t, bar_t;
	size_t req_lock, cond_lock, bar_lock;
	int req_open, cond_open, join_open, bar_open, req_stack;
	uint32_t req_caller, cond_caller, bar_caller;
	pt_func_lookup fl;
	tstat ts;
	int oom;
	char err[128];
} pf_shard;

static int grow_funcs_slow(pf_shard *s, uint32_t id)
{
	size_t n = s->nf ? s->nf : 64;
	while (n <= id)
		n *= 2;
	fstat *f = realloc(s->f, n * sizeof *f);
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
	s->f[id].calls++;
}

/* Frame i of the stack ended at t; its caller, if any, is frame i - 1
 * (whose aux sums the time of its callees). */
static inline void call_ends(pf_shard *s, pt_callstack *cs, size_t i, uint64_t t)
{
	const pt_frame_at *at = &cs->at[i];
	uint32_t id = cs->ids[i];
	uint64_t incl = t > at->t ? t - at->t : 0;
	uint64_t excl = incl > at->aux ? incl - at->aux : 0;
	fstat *f = &s->f[id];
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
	if (enter) {
		if (pt_callstack_enter_fast(cs, id, t)) {
			call_begins(s, id);
			return;
		}
	} else if (pt_callstack_exit_fast(cs, id, t)) {
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
		lstat *l = &s->l[s->lmap[j] - 1];
		if (l->addr == addr && l->pid == pid)
			return s->lmap[j] - 1;
	}
	if (s->nl == s->capl) {
		size_t ncap = s->capl ? s->capl * 2 : 16;
		lstat *n = realloc(s->l, ncap * sizeof *n);
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

static int add_caller(lstat *l, uint32_t id, uint64_t wait)
{
	for (size_t i = 0; i < l->ncallers; i++)
		if (l->callers[i].id == id) {
			l->callers[i].wait += wait;
			return 0;
		}
	caller_wait *n = realloc(l->callers, (l->ncallers + 1) * sizeof *n);
	if (!n)
		return -1;
	l->callers = n;
	l->callers[l->ncallers++] = (caller_wait){id, wait};
	return 0;
}

static void waited(pf_shard *s, size_t li, uint64_t wait, uint32_t caller, int contended)
{
	if (li == SIZE_MAX) {
		s->oom = 1;
		return;
	}
	lstat *l = &s->l[li];
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

/* ---- callbacks --------------------------------------------------------- */
static void *pf_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	pf_tool *pf = calloc(1, sizeof *pf);
	if (!pf || !(pf->t = calloc(ctx->nshards + 1, sizeof *pf->t))) {
		free(pf);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pf->ctx = ctx;
	pf->top = 25;
	pthread_mutex_init(&pf->lock, NULL);
	if (options) {
		if (strstr(options, "csv"))
			pf->format = 1;
		if (strstr(options, "json"))
			pf->format = 2;
		if (strstr(options, "short")) {
			pf->short_form = 1;
			pf->top = 10;
		}
		const char *t = strstr(options, "top=");
		if (t)
			pf->top = (unsigned)strtoul(t + 4, NULL, 10);
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
	pt_func_lookup_init(&s->fl, s->pf->ctx, info->process);
	pt_callstack_init(&s->calls);
	s->ts.shard = info->index;
	s->ts.first = info->first_ns;
	return s;
}

static int pf_shard_event(void *st, const pt_event *ev)
{
	pf_shard *s = st;
	const pt_shard_info *in = s->info;
	uint64_t t = ev->time_ns;
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
	pt_callstack_record(&s->calls, ev, &pf_calls, s);
	switch (ev->kind) {
	case PT_REC_THREAD_START: {
		const pt_rec_thread_start *x = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_start);
		if (x && (x->flags & PT_THREAD_MAIN))
			s->ts.main = 1;
		break;
	}
	case PT_REC_THREAD_NAME: {
		const char *n = pt_event_string(ev, 0);
		if (n) {
			free(s->ts.name);
			s->ts.name = strdup(n);
		}
		break;
	}
	case PT_REC_LOCK_REQUEST: {
		pt_rec_lock lk;
		const pt_rec_lock *l = pt_rec_lock_get(ev->rec, &lk);
		if (!l)
			break;
		s->req_lock = lock_slot(s, in->pid, l->object, ev->rec->arg);
		s->req_t = t;
		s->req_open = 1;
		s->req_stack = 0;
		s->req_caller = top_id(s);
		break;
	}
	case PT_REC_CALLSTACK:
		if (s->req_open)
			s->req_stack = 1; /* attached to a blocking request */
		break;
	case PT_REC_LOCK_ACQUIRED:
	case PT_REC_LOCK_FAILED: {
		pt_rec_lock lk;
		const pt_rec_lock *l = pt_rec_lock_get(ev->rec, &lk);
		if (!l)
			break;
		size_t li = s->req_open ? s->req_lock : lock_slot(s, in->pid, l->object, ev->rec->arg);
		uint64_t w = s->req_open && t > s->req_t ? t - s->req_t : 0;
		if (ev->kind == PT_REC_LOCK_ACQUIRED)
			waited(s, li, w, s->req_open ? s->req_caller : top_id(s),
			       w >= PF_CONTENDED_NS || s->req_stack);
		else if (li != SIZE_MAX) {
			s->l[li].failed++;
			s->l[li].wait += w;
		}
		s->ts.wait[W_LOCK] += w;
		s->req_open = 0;
		break;
	}
	case PT_REC_COND_WAIT_BEGIN: {
		const pt_rec_cond *c = PT_REC_PAYLOAD(ev->rec, pt_rec_cond);
		if (!c)
			break;
		s->cond_lock = lock_slot(s, in->pid, c->cond, 100);
		s->cond_t = t;
		s->cond_open = 1;
		s->cond_caller = top_id(s);
		break;
	}
	case PT_REC_COND_WAIT_END:
		if (s->cond_open) {
			uint64_t w = t - s->cond_t;
			waited(s, s->cond_lock, w, s->cond_caller, 0);
			s->ts.wait[W_COND] += w;
			s->cond_open = 0;
		}
		break;
	case PT_REC_BARRIER_BEGIN: {
		pt_rec_lock lk;
		const pt_rec_lock *l = pt_rec_lock_get(ev->rec, &lk);
		if (!l)
			break;
		s->bar_lock = lock_slot(s, in->pid, l->object, PT_LOCK_BARRIER);
		s->bar_t = t;
		s->bar_open = 1;
		s->bar_caller = top_id(s);
		break;
	}
	case PT_REC_BARRIER_END:
		if (s->bar_open) {
			uint64_t w = t - s->bar_t;
			waited(s, s->bar_lock, w, s->bar_caller, 0);
			s->ts.wait[W_BARRIER] += w;
			s->bar_open = 0;
		}
		break;
	case PT_REC_THREAD_JOIN_BEGIN:
		s->join_t = t;
		s->join_open = 1;
		break;
	case PT_REC_THREAD_JOIN_END:
		if (s->join_open) {
			s->ts.wait[W_JOIN] += t - s->join_t;
			s->join_open = 0;
		}
		break;
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
	return ((pf_shard *)st)->err;
}

static int pf_shard_exit(void *st, uint64_t last_ns, int complete)
{
	(void)complete;
	pf_shard *s = st;
	pf_tool *pf = s->pf;
	/* frames still open end at the last record (exit, killed) */
	pt_callstack_end(&s->calls, last_ns, &pf_calls, s);
	if (s->req_open)
		s->ts.wait[W_LOCK] += last_ns - s->req_t;
	if (s->cond_open)
		s->ts.wait[W_COND] += last_ns - s->cond_t;
	if (s->bar_open)
		s->ts.wait[W_BARRIER] += last_ns - s->bar_t;
	if (s->join_open)
		s->ts.wait[W_JOIN] += last_ns - s->join_t;
	s->ts.last = last_ns;
	int rc = 0;
	pthread_mutex_lock(&pf->lock);
	pf->t[s->info->index] = s->ts;
	if (s->nf > pf->nf) {
		fstat *f = realloc(pf->f, s->nf * sizeof *f);
		if (f) {
			memset(f + pf->nf, 0, (s->nf - pf->nf) * sizeof *f);
			pf->f = f;
			pf->nf = s->nf;
		} else
			rc = -1;
	}
	for (size_t i = 0; i < s->nf && i < pf->nf; i++) {
		fstat *a = &pf->f[i], *b = &s->f[i];
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
		lstat *b = &s->l[i];
		size_t k = 0;
		while (k < pf->nl && !(pf->l[k].addr == b->addr && pf->l[k].pid == b->pid))
			k++;
		if (k == pf->nl) {
			if (pf->nl == pf->capl) {
				size_t ncap = pf->capl ? pf->capl * 2 : 16;
				lstat *n = realloc(pf->l, ncap * sizeof *n);
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
		lstat *a = &pf->l[k];
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
	free(s);
	return rc;
}

/* ---- printing ---------------------------------------------------------- */
static void fmt_dur(char *buf, size_t n, uint64_t ns)
{
	if (ns >= 10000000000ull)
		snprintf(buf, n, "%.1fs", (double)ns / 1e9);
	else if (ns >= 1000000000ull)
		snprintf(buf, n, "%.2fs", (double)ns / 1e9);
	else if (ns >= 10000000ull)
		snprintf(buf, n, "%.1fms", (double)ns / 1e6);
	else if (ns >= 1000000ull)
		snprintf(buf, n, "%.2fms", (double)ns / 1e6);
	else if (ns >= 10000ull)
		snprintf(buf, n, "%.1fus", (double)ns / 1e3);
	else if (ns >= 1000ull)
		snprintf(buf, n, "%.2fus", (double)ns / 1e3);
	else
		snprintf(buf, n, "%lluns", (unsigned long long)ns);
}

/* Fits a thread's label in w columns: its start is cut (the end, the
 * thread's name, says most). Function names: pt_name_fit. */
static void fit_label(char *out, size_t outlen, const char *label, size_t w)
{
	size_t n = strlen(label);
	if (n > w && w > 2)
		snprintf(out, outlen, "..%s", label + (n - (w - 2)));
	else
		snprintf(out, outlen, "%s", label);
}

static unsigned term_width(FILE *out)
{
	struct winsize ws;
	if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 60)
		return ws.ws_col;
	return 100;
}

static const pf_tool *sort_pf;
static int cmp_func(const void *a, const void *b)
{
	const fstat *x = &sort_pf->f[*(const uint32_t *)a], *y = &sort_pf->f[*(const uint32_t *)b];
	if (x->excl != y->excl)
		return x->excl > y->excl ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}
static int cmp_lockwait(const void *a, const void *b)
{
	const lstat *x = a, *y = b;
	if (x->wait != y->wait)
		return x->wait > y->wait ? -1 : 1;
	if (x->acq != y->acq)
		return x->acq > y->acq ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const char *what_name(unsigned what)
{
	switch (what) {
	case PT_LOCK_MUTEX: return "mutex";
	case PT_LOCK_RWLOCK_READ: return "rwlock-rd";
	case PT_LOCK_RWLOCK_WRITE: return "rwlock-wr";
	case PT_LOCK_SPIN: return "spinlock";
	case PT_LOCK_SEMAPHORE: return "semaphore";
	case PT_LOCK_C11_MTX: return "mtx_t";
	case PT_LOCK_BARRIER: return "barrier";
	case 100: return "condition";
	default: return "lock";
	}
}

static const char *func_name(const pf_tool *pf, uint32_t id)
{
	const pt_func_info *fi = id ? pt_ctx_func_info(pf->ctx, id) : NULL;
	return fi ? fi->name : "-";
}

static uint32_t top_caller(const lstat *l)
{
	uint32_t id = 0;
	uint64_t best = 0;
	for (size_t i = 0; i < l->ncallers; i++)
		if (l->callers[i].wait > best) {
			best = l->callers[i].wait;
			id = l->callers[i].id;
		}
	return id;
}

static void thread_label(const pf_tool *pf, const tstat *t, char *buf, size_t n)
{
	const pt_shard_info *s = &pf->ctx->shards[t->shard];
	const pt_process_info *p = &pf->ctx->processes[s->process];
	if (s->kind == PT_FILE_GPU)
		snprintf(buf, n, "%s %u gpu%llu", p->program, s->pid, (unsigned long long)s->gpu_stream);
	else
		snprintf(buf, n, "%s %u/%u%s%s", p->program, s->pid, s->tid,
			 t->name ? " " : (t->main ? " main" : ""), t->name ? t->name : "");
}

static void json_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c < 0x20)
			fprintf(o, "\\u%04x", c);
		else
			fputc(c, o);
	}
	fputc('"', o);
}

static void csv_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', o);
		fputc(*s, o);
	}
	fputc('"', o);
}

/* What every format prints from: totals and the order of the rows. */
typedef struct pf_view {
	uint64_t total, waiting, wait_kind[W_N];
	size_t nthreads;
	uint32_t *ids; /* functions called, by exclusive time */
	size_t nids, nf_show, nl_show;
	double tot; /* total, never 0: shares divide by it */
} pf_view;

static int view_prepare(pf_tool *pf, pf_view *v)
{
	const pt_trace_ctx *ctx = pf->ctx;
	memset(v, 0, sizeof *v);
	for (size_t i = 0; i < ctx->nshards; i++) {
		const tstat *t = &pf->t[i];
		if (ctx->shards[i].kind != PT_FILE_THREAD || t->last < t->first)
			continue;
		v->nthreads++;
		v->total += t->last - t->first;
		for (int k = 0; k < W_N; k++) {
			v->waiting += t->wait[k];
			v->wait_kind[k] += t->wait[k];
		}
	}
	v->ids = malloc((pf->nf + 1) * sizeof *v->ids);
	if (!v->ids)
		return -1;
	for (uint32_t i = 1; i < pf->nf; i++)
		if (pf->f[i].calls)
			v->ids[v->nids++] = i;
	sort_pf = pf;
	pt_qsort(v->ids, v->nids, sizeof *v->ids, cmp_func);
	pt_qsort(pf->l, pf->nl, sizeof *pf->l, cmp_lockwait);
	v->nf_show = pf->top && pf->top < v->nids ? pf->top : v->nids;
	v->nl_show = pf->top && pf->top < pf->nl ? pf->top : pf->nl;
	if (pf->short_form && v->nl_show > 5)
		v->nl_show = 5;
	v->tot = v->total ? (double)v->total : 1.0;
	return 0;
}

/* A thread's lifetime and the time it waited. */
static void thread_times(const tstat *t, uint64_t *life, uint64_t *wait)
{
	*life = t->last > t->first ? t->last - t->first : 0;
	*wait = 0;
	for (int k = 0; k < W_N; k++)
		*wait += t->wait[k];
}

/* JSON: everything, no truncation. */
static void print_json(pf_tool *pf, const pf_view *v, FILE *o)
{
	const pt_trace_ctx *ctx = pf->ctx;
	char name[512];
	fprintf(o, "{\n \"total_thread_ns\": %llu,\n \"functions\": [", (unsigned long long)v->total);
	for (size_t i = 0; i < v->nids; i++) {
		const fstat *x = &pf->f[v->ids[i]];
		const pt_func_info *fi = pt_ctx_func_info(ctx, v->ids[i]);
		fprintf(o, "%s\n  {\"name\": ", i ? "," : "");
		json_str(o, fi->name);
		fputs(", \"file\": ", o);
		json_str(o, fi->file);
		fprintf(o, ", \"line\": %u, \"calls\": %llu, \"incl_ns\": %llu, \"incl_mean_ns\": %llu, "
			   "\"incl_max_ns\": %llu, \"excl_ns\": %llu, \"excl_mean_ns\": %llu, "
			   "\"excl_max_ns\": %llu, \"share\": %.6f, \"cut_calls\": %llu}",
			fi->line, (unsigned long long)x->calls, (unsigned long long)x->incl,
			(unsigned long long)mean(x->incl, x), (unsigned long long)x->incl_max,
			(unsigned long long)x->excl, (unsigned long long)mean(x->excl, x),
			(unsigned long long)x->excl_max, (double)x->excl / v->tot,
			(unsigned long long)x->cut);
	}
	fputs("\n ],\n \"locks\": [", o);
	for (size_t i = 0; i < pf->nl; i++) {
		const lstat *l = &pf->l[i];
		fprintf(o, "%s\n  {\"kind\": \"%s\", \"address\": \"0x%llx\", \"pid\": %u, "
			   "\"acquisitions\": %llu, \"contended\": %llu, \"failed\": %llu, "
			   "\"wait_ns\": %llu, \"wait_max_ns\": %llu, \"top_waiter\": ",
			i ? "," : "", what_name(l->what), (unsigned long long)l->addr, l->pid,
			(unsigned long long)l->acq, (unsigned long long)l->contended,
			(unsigned long long)l->failed, (unsigned long long)l->wait,
			(unsigned long long)l->wait_max);
		json_str(o, func_name(pf, top_caller(l)));
		fputc('}', o);
	}
	fputs("\n ],\n \"threads\": [", o);
	for (size_t i = 0; i < ctx->nshards; i++) {
		const tstat *t = &pf->t[i];
		const pt_shard_info *s = &ctx->shards[i];
		uint64_t life, w;
		thread_times(t, &life, &w);
		fprintf(o, "%s\n  {\"pid\": %u, \"tid\": %u, \"kind\": \"%s\", \"name\": ", i ? "," : "",
			s->pid, s->tid, s->kind == PT_FILE_GPU ? "gpu" : "thread");
		thread_label(pf, t, name, sizeof name);
		json_str(o, name);
		fprintf(o, ", \"start_ns\": %llu, \"lifetime_ns\": %llu, \"running_ns\": %llu, "
			   "\"wait_lock_ns\": %llu, \"wait_cond_ns\": %llu, \"wait_join_ns\": %llu, "
			   "\"wait_barrier_ns\": %llu, \"events\": %llu}",
			(unsigned long long)(t->first > ctx->t0_ns ? t->first - ctx->t0_ns : 0),
			(unsigned long long)life, (unsigned long long)(life > w ? life - w : 0),
			(unsigned long long)t->wait[W_LOCK], (unsigned long long)t->wait[W_COND],
			(unsigned long long)t->wait[W_JOIN], (unsigned long long)t->wait[W_BARRIER],
			(unsigned long long)t->events);
	}
	fputs("\n ]\n}\n", o);
}

/* CSV: one table per section, the first column names it. */
static void print_csv(pf_tool *pf, const pf_view *v, FILE *o)
{
	const pt_trace_ctx *ctx = pf->ctx;
	char name[512];
	fputs("table,name,file,line,calls,incl_ns,incl_mean_ns,incl_max_ns,excl_ns,excl_mean_ns,"
	      "excl_max_ns,share,cut_calls\n",
	      o);
	for (size_t i = 0; i < v->nids; i++) {
		const fstat *x = &pf->f[v->ids[i]];
		const pt_func_info *fi = pt_ctx_func_info(ctx, v->ids[i]);
		fputs("function,", o);
		csv_str(o, fi->name);
		fputc(',', o);
		csv_str(o, fi->file);
		fprintf(o, ",%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.6f,%llu\n", fi->line,
			(unsigned long long)x->calls, (unsigned long long)x->incl,
			(unsigned long long)mean(x->incl, x), (unsigned long long)x->incl_max,
			(unsigned long long)x->excl, (unsigned long long)mean(x->excl, x),
			(unsigned long long)x->excl_max, (double)x->excl / v->tot,
			(unsigned long long)x->cut);
	}
	fputs("\ntable,kind,address,pid,acquisitions,contended,failed,wait_ns,wait_max_ns,top_waiter\n",
	      o);
	for (size_t i = 0; i < pf->nl; i++) {
		const lstat *l = &pf->l[i];
		fprintf(o, "lock,%s,0x%llx,%u,%llu,%llu,%llu,%llu,%llu,", what_name(l->what),
			(unsigned long long)l->addr, l->pid, (unsigned long long)l->acq,
			(unsigned long long)l->contended, (unsigned long long)l->failed,
			(unsigned long long)l->wait, (unsigned long long)l->wait_max);
		csv_str(o, func_name(pf, top_caller(l)));
		fputc('\n', o);
	}
	fputs("\ntable,pid,tid,name,start_ns,lifetime_ns,running_ns,wait_lock_ns,wait_cond_ns,"
	      "wait_join_ns,wait_barrier_ns,events\n",
	      o);
	for (size_t i = 0; i < ctx->nshards; i++) {
		const tstat *t = &pf->t[i];
		const pt_shard_info *s = &ctx->shards[i];
		uint64_t life, w;
		thread_times(t, &life, &w);
		thread_label(pf, t, name, sizeof name);
		fprintf(o, "thread,%u,%u,", s->pid, s->tid);
		csv_str(o, name);
		fprintf(o, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
			(unsigned long long)(t->first > ctx->t0_ns ? t->first - ctx->t0_ns : 0),
			(unsigned long long)life, (unsigned long long)(life > w ? life - w : 0),
			(unsigned long long)t->wait[W_LOCK], (unsigned long long)t->wait[W_COND],
			(unsigned long long)t->wait[W_JOIN], (unsigned long long)t->wait[W_BARRIER],
			(unsigned long long)t->events);
	}
}

static void text_summary(const pf_view *v, FILE *o)
{
	char a[32], b[32], c[32];
	uint64_t total = v->total, waiting = v->waiting;
	double tot = v->tot;
	fmt_dur(a, sizeof a, total);
	fmt_dur(b, sizeof b, total > waiting ? total - waiting : 0);
	fmt_dur(c, sizeof c, waiting);
	fprintf(o, "\nProfile: %zu threads, %s of thread time\n  running %s (%.1f%%), waiting %s"
		   " (%.1f%%): locks %.1f%%, conds %.1f%%, joins %.1f%%, barriers %.1f%%\n",
		v->nthreads, a, b, 100.0 * (double)(total - (waiting < total ? waiting : total)) / tot,
		c, 100.0 * (double)waiting / tot, 100.0 * (double)v->wait_kind[W_LOCK] / tot,
		100.0 * (double)v->wait_kind[W_COND] / tot, 100.0 * (double)v->wait_kind[W_JOIN] / tot,
		100.0 * (double)v->wait_kind[W_BARRIER] / tot);
}

static void text_functions(pf_tool *pf, const pf_view *v, unsigned nw, FILE *o)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], name[512];
	if (!v->nids)
		return;
	fprintf(o, "\nFunctions by exclusive time (%zu of %zu)\n", v->nf_show, v->nids);
	fprintf(o, "%-*s %8s %8s %8s %8s %8s %8s %8s %6s\n", (int)nw, "function", "calls", "incl",
		"mean", "max", "excl", "mean", "max", "%time");
	uint64_t cut = 0;
	for (size_t i = 0; i < v->nf_show; i++) {
		const fstat *x = &pf->f[v->ids[i]];
		const pt_func_info *fi = pt_ctx_func_info(pf->ctx, v->ids[i]);
		char calls[32];
		snprintf(calls, sizeof calls, "%llu%s", (unsigned long long)x->calls, x->cut ? "*" : "");
		cut += x->cut;
		pt_name_fit(name, sizeof name, fi->name, nw);
		fmt_dur(a, sizeof a, x->incl);
		fmt_dur(b, sizeof b, mean(x->incl, x));
		fmt_dur(c, sizeof c, x->incl_max);
		fmt_dur(d, sizeof d, x->excl);
		fmt_dur(e, sizeof e, mean(x->excl, x));
		fmt_dur(f, sizeof f, x->excl_max);
		fprintf(o, "%-*s %8s %8s %8s %8s %8s %8s %8s %5.1f%%\n", (int)nw, name, calls, a, b, c,
			d, e, f, 100.0 * (double)x->excl / v->tot);
	}
	if (cut)
		fprintf(o, "* %llu of these calls were open when the runtime lost data: they end where"
			   " the data\n  stops; their times are unknown, left out of the times above\n",
			(unsigned long long)cut);
}

static void text_locks(pf_tool *pf, const pf_view *v, unsigned nw, FILE *o)
{
	char a[32], b[32], c[32], g[32], name[512];
	if (!pf->nl)
		return;
	fprintf(o, "\nLocks by wait time (%zu of %zu)\n", v->nl_show, pf->nl);
	unsigned lw = nw > 22 ? nw - 8 : 14;
	fprintf(o, "%-10s %-18s %8s %8s %8s %8s %8s  %s\n", "kind", "object", "acquired", "contend",
		"wait", "mean", "max", "waited most in");
	for (size_t i = 0; i < v->nl_show; i++) {
		const lstat *l = &pf->l[i];
		fmt_dur(a, sizeof a, l->wait);
		fmt_dur(b, sizeof b, l->acq ? l->wait / l->acq : 0);
		fmt_dur(c, sizeof c, l->wait_max);
		snprintf(g, sizeof g, "0x%llx", (unsigned long long)l->addr);
		pt_name_fit(name, sizeof name, func_name(pf, top_caller(l)), lw);
		fprintf(o, "%-10s %-18s %8llu %8llu %8s %8s %8s  %s\n", what_name(l->what), g,
			(unsigned long long)l->acq, (unsigned long long)l->contended, a, b, c, name);
	}
}

static void text_threads(pf_tool *pf, unsigned nw, FILE *o)
{
	const pt_trace_ctx *ctx = pf->ctx;
	char a[32], b[32], c[32], d[32], e[32], f[32], name[512];
	fprintf(o, "\nThreads\n%-*s %10s %8s %8s %8s %8s %8s %6s\n", (int)nw, "thread", "lifetime",
		"running", "locks", "conds", "joins", "barrier", "%wait");
	for (size_t i = 0; i < ctx->nshards; i++) {
		const tstat *t = &pf->t[i];
		uint64_t life, w;
		thread_times(t, &life, &w);
		char label[256];
		thread_label(pf, t, label, sizeof label);
		fit_label(name, sizeof name, label, nw);
		fmt_dur(a, sizeof a, life);
		fmt_dur(b, sizeof b, life > w ? life - w : 0);
		fmt_dur(c, sizeof c, t->wait[W_LOCK]);
		fmt_dur(d, sizeof d, t->wait[W_COND]);
		fmt_dur(e, sizeof e, t->wait[W_JOIN]);
		fmt_dur(f, sizeof f, t->wait[W_BARRIER]);
		fprintf(o, "%-*s %10s %8s %8s %8s %8s %8s %5.1f%%\n", (int)nw, name, a, b, c, d, e, f,
			life ? 100.0 * (double)w / (double)life : 0.0);
	}
}

static int pf_print(void *tool, FILE *o)
{
	pf_tool *pf = tool;
	if (pf->ctx->quiet && pf->short_form)
		return 0;
	pf_view v;
	if (view_prepare(pf, &v))
		return -1;
	if (pf->format == 2) {
		print_json(pf, &v, o);
	} else if (pf->format == 1) {
		print_csv(pf, &v, o);
	} else {
		/* columns of 8 after the name; the name takes what is left */
		unsigned width = term_width(o);
		unsigned nw = width > 70 + 12 ? width - 70 : 12;
		if (nw > 60)
			nw = 60;
		text_summary(&v, o);
		text_functions(pf, &v, nw, o);
		text_locks(pf, &v, nw, o);
		if (!pf->short_form)
			text_threads(pf, nw, o);
	}
	free(v.ids);
	return 0;
}

static void pf_destroy(void *tool)
{
	pf_tool *pf = tool;
	for (size_t i = 0; i < pf->nl; i++)
		free(pf->l[i].callers);
	for (size_t i = 0; i < pf->ctx->nshards; i++)
		free(pf->t[i].name);
	free(pf->l);
	free(pf->f);
	free(pf->t);
	pthread_mutex_destroy(&pf->lock);
	free(pf);
}

static const pt_tool profile_tool = {
	.api_version = PT_TOOL_API_VERSION,
	.name = "profile",
	.description = "per function, lock and thread times",
	.init = pf_init,
	.shard_init = pf_shard_init,
	.shard_event = pf_shard_event,
	.shard_exit = pf_shard_exit,
	.shard_error = pf_shard_error,
	.print_results = pf_print,
	.destroy = pf_destroy,
};

const pt_tool *pt_tool_profile(void)
{
	return &profile_tool;
}
