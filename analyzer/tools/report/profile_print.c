/* SPDX-License-Identifier: MIT */
/* The profile's tables: text (sized to the terminal), CSV, JSON
 * (docs/ANALYZER.md, "The profile"). */
#define _GNU_SOURCE
#include "profile.h"
#include "pt_framework.h"
#include "pt_fw_util.h"
#include "pt_names.h"
#include "pt_select.h"
#include "pt_text.h"
#include "row_label.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

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
	const pf_func *x = &sort_pf->f[*(const uint32_t *)a], *y = &sort_pf->f[*(const uint32_t *)b];
	if (x->excl != y->excl)
		return x->excl > y->excl ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}
static int cmp_lockwait(const void *a, const void *b)
{
	const pf_lock *x = a, *y = b;
	if (x->wait != y->wait)
		return x->wait > y->wait ? -1 : 1;
	if (x->acq != y->acq)
		return x->acq > y->acq ? -1 : 1;
	/* Down to what names the lock: the table is merged from the workers
	 * in the order they finish, and equal rows must not follow it. */
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->what < y->what ? -1 : x->what > y->what;
}

static const char *what_name(unsigned what)
{
	switch (what) {
	case PT_LOCK_MUTEX:
		return "mutex";
	case PT_LOCK_RWLOCK_READ:
		return "rwlock-rd";
	case PT_LOCK_RWLOCK_WRITE:
		return "rwlock-wr";
	case PT_LOCK_SPIN:
		return "spinlock";
	case PT_LOCK_SEMAPHORE:
		return "semaphore";
	case PT_LOCK_C11_MTX:
		return "mtx_t";
	case PT_LOCK_BARRIER:
		return "barrier";
	case 100:
		return "condition";
	case 101:
		return "futex";
	default: {
		const char *n = pt_family_lock_name(what);
		return n ? n : "lock";
	}
	}
}

static const char *func_name(const pf_tool *pf, uint32_t id)
{
	const pt_func_info *fi = id ? pt_ctx_func_info(pf->ctx, id) : NULL;
	return fi ? fi->name : "-";
}

/* A lock as the outputs name it: its symbol ("result_mu", "q+0x28"), else
 * its address. */
static const char *lock_object(const pf_tool *pf, const pf_lock *l, char *buf, size_t n)
{
	if (pt_fw_object_name(pf->ctx, l->pid, l->addr, buf, n))
		snprintf(buf, n, "0x%llx", (unsigned long long)l->addr);
	return buf;
}

static uint32_t top_caller(const pf_lock *l)
{
	uint32_t id = 0;
	uint64_t best = 0;
	/* Equal waits: the lower id, not the first the workers' merge put in. */
	for (size_t i = 0; i < l->ncallers; i++)
		if (l->callers[i].wait > best ||
		    (l->callers[i].wait == best && best && l->callers[i].id < id)) {
			best = l->callers[i].wait;
			id = l->callers[i].id;
		}
	return id;
}

static void thread_label(const pf_tool *pf, const pf_thread *t, char *buf, size_t n)
{
	const pt_shard_info *s = &pf->ctx->shards[t->shard];
	if (s->kind == PT_FILE_GPU)
		pt_device_row_label(pf->ctx, s, buf, n);
	else
		pt_thread_row_label(pf->ctx, s, t->name, buf, n);
}

/* What every format prints from: totals and the order of the rows. */
typedef struct pf_view {
	uint64_t total, waiting, wait_kind[PF_W_N];
	size_t nthreads;
	uint32_t *ids; /* functions called, by exclusive time */
	size_t nids, nf_show, nl_show;
	/* what the selection left out: functions (--include/--exclude), rows */
	size_t nf_left, nthreads_left;
	uint64_t calls_left, excl_left;
	double tot; /* total, never 0: shares divide by it */
} pf_view;

static int view_prepare(pf_tool *pf, pf_view *v)
{
	const pt_trace_ctx *ctx = pf->ctx;
	memset(v, 0, sizeof *v);
	for (size_t i = 0; i < ctx->nshards; i++) {
		const pf_thread *t = &pf->t[i];
		if (pf->hide[i]) {
			v->nthreads_left += ctx->shards[i].kind == PT_FILE_THREAD;
			continue;
		}
		if (ctx->shards[i].kind != PT_FILE_THREAD || t->last < t->first)
			continue;
		v->nthreads++;
		v->total += t->last - t->first;
		for (int k = 0; k < PF_W_N; k++) {
			v->waiting += t->wait[k];
			v->wait_kind[k] += t->wait[k];
		}
	}
	v->ids = malloc((pf->nf + 1) * sizeof *v->ids);
	if (!v->ids)
		return -1;
	pt_sel_funcs sf;
	pt_sel_funcs_init(&sf, pf->sel, ctx);
	for (uint32_t i = 1; i < pf->nf; i++) {
		if (!pf->f[i].calls)
			continue;
		if (pt_sel_func_left(&sf, i)) {
			v->nf_left++;
			v->calls_left += pf->f[i].calls;
			v->excl_left += pf->f[i].excl;
		} else
			v->ids[v->nids++] = i;
	}
	pt_sel_funcs_free(&sf);
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
static void thread_times(const pf_thread *t, uint64_t *life, uint64_t *wait)
{
	*life = t->last > t->first ? t->last - t->first : 0;
	*wait = 0;
	for (int k = 0; k < PF_W_N; k++)
		*wait += t->wait[k];
}

/* ---- what the selection left out (report's selection options) ---- */
static uint64_t run_ns(const pt_trace_ctx *ctx)
{
	return ctx->t_end_ns > ctx->t0_ns ? ctx->t_end_ns - ctx->t0_ns : 0;
}

static void text_selection(const pf_tool *pf, const pf_view *v, FILE *o)
{
	const pt_select *sel = pf->sel;
	const pt_trace_ctx *ctx = pf->ctx;
	char a[32], b[32], c[32];
	if (pt_select_window(sel))
		fprintf(o, "  selected: the window %s to %s of a %s run (what lies outside it left out)\n",
		        pt_fmt_ns(sel->win_lo - ctx->t0_ns, a, sizeof a),
		        sel->win_hi == UINT64_MAX ? "the end"
		                                  : pt_fmt_ns(sel->win_hi - ctx->t0_ns, b, sizeof b),
		        pt_fmt_ns(run_ns(ctx), c, sizeof c));
	if (v->nthreads_left)
		fprintf(o, "  selected: %zu threads (%zu left out)\n", v->nthreads, v->nthreads_left);
	if (pt_select_calls(sel)) {
		pt_fmt_dur(a, sizeof a, v->excl_left);
		fprintf(o, "  selected: %zu functions (%zu left out: %llu calls, %s exclusive)\n",
		        v->nids, v->nf_left, (unsigned long long)v->calls_left, a);
	}
	if (pf->thr_left)
		fprintf(o, "  left out: %llu calls the runtime throttled (counted, not recorded: when "
		           "they ran is not known)\n",
		        (unsigned long long)pf->thr_left);
}

/* The window's ends (the whole run when none) and the run's length, ns
 * since its start. */
static void window_ns(const pf_tool *pf, unsigned long long out[3])
{
	const pt_select *sel = pf->sel;
	uint64_t t0 = pf->ctx->t0_ns, run = run_ns(pf->ctx);
	int win = pt_select_window(sel);
	out[0] = win ? sel->win_lo - t0 : 0;
	out[1] = !win || sel->win_hi == UINT64_MAX ? run : sel->win_hi - t0;
	out[2] = run;
}

static void json_selection(const pf_tool *pf, const pf_view *v, FILE *o)
{
	unsigned long long w[3];
	window_ns(pf, w);
	fprintf(o, "\n \"selection\": {\"from_ns\": %llu, \"to_ns\": %llu, \"run_ns\": %llu, "
	           "\"threads\": %zu, \"threads_left_out\": %zu, \"functions_left_out\": %zu, "
	           "\"calls_left_out\": %llu, \"excl_left_out_ns\": %llu, "
	           "\"throttled_left_out\": %llu},",
	        w[0], w[1], w[2], v->nthreads, v->nthreads_left, v->nf_left,
	        (unsigned long long)v->calls_left, (unsigned long long)v->excl_left,
	        (unsigned long long)pf->thr_left);
}

static void csv_selection(const pf_tool *pf, const pf_view *v, FILE *o)
{
	unsigned long long w[3];
	window_ns(pf, w);
	fputs("\ntable,from_ns,to_ns,run_ns,threads,threads_left_out,functions_left_out,"
	      "calls_left_out,excl_left_out_ns,throttled_left_out\n",
	      o);
	fprintf(o, "selection,%llu,%llu,%llu,%zu,%zu,%zu,%llu,%llu,%llu\n", w[0], w[1], w[2],
	        v->nthreads, v->nthreads_left, v->nf_left, (unsigned long long)v->calls_left,
	        (unsigned long long)v->excl_left, (unsigned long long)pf->thr_left);
}

/* When the runtime began to throttle the function (first thread), from
 * the trace's start; 0 when it never did. */
static uint64_t since_rel(const pf_tool *pf, const pf_func *x)
{
	if (!x->since)
		return 0;
	return x->since > pf->ctx->t0_ns ? x->since - pf->ctx->t0_ns : 1;
}

/* JSON: everything, no truncation. */
static int print_json(pf_tool *pf, const pf_view *v, FILE *o)
{
	const pt_trace_ctx *ctx = pf->ctx;
	char name[512], obj[256];
	fprintf(o, "{\n \"total_thread_ns\": %llu,", (unsigned long long)v->total);
	if (pf->sel)
		json_selection(pf, v, o);
	fputs("\n \"functions\": [", o);
	for (size_t i = 0; i < v->nids; i++) {
		const pf_func *x = &pf->f[v->ids[i]];
		const pt_func_info *fi = pt_ctx_func_info(ctx, v->ids[i]);
		fprintf(o, "%s\n  {\"name\": ", i ? "," : "");
		pt_json_str(o, fi->name);
		fputs(", \"file\": ", o);
		pt_json_str(o, fi->file);
		fprintf(
		    o,
		    ", \"line\": %u, \"calls\": %llu, \"incl_ns\": %llu, \"incl_mean_ns\": %llu, "
		    "\"incl_max_ns\": %llu, \"excl_ns\": %llu, \"excl_mean_ns\": %llu, "
		    "\"excl_max_ns\": %llu, \"share\": %.6f, \"cut_calls\": %llu, "
		    "\"throttled_calls\": %llu, \"throttled_since_ns\": %llu, "
		    "\"estimated_incl_ns\": %llu, \"estimated_excl_ns\": %llu, \"estimated\": %s}",
		    fi->line, (unsigned long long)x->calls, (unsigned long long)x->incl,
		    (unsigned long long)mean(x->incl, x), (unsigned long long)x->incl_max,
		    (unsigned long long)x->excl, (unsigned long long)mean(x->excl, x),
		    (unsigned long long)x->excl_max, (double)x->excl / v->tot,
		    (unsigned long long)x->cut, (unsigned long long)x->throttled,
		    (unsigned long long)since_rel(pf, x), (unsigned long long)x->est_incl,
		    (unsigned long long)x->est_excl, x->throttled ? "true" : "false");
	}
	fputs("\n ],\n \"locks\": [", o);
	for (size_t i = 0; i < pf->nl; i++) {
		const pf_lock *l = &pf->l[i];
		fprintf(o,
		        "%s\n  {\"kind\": \"%s\", \"address\": \"0x%llx\", \"pid\": %u, "
		        "\"acquisitions\": %llu, \"contended\": %llu, \"failed\": %llu, "
		        "\"wait_ns\": %llu, \"wait_max_ns\": %llu, \"top_waiter\": ",
		        i ? "," : "", what_name(l->what), (unsigned long long)l->addr, l->pid,
		        (unsigned long long)l->acq, (unsigned long long)l->contended,
		        (unsigned long long)l->failed, (unsigned long long)l->wait,
		        (unsigned long long)l->wait_max);
		pt_json_str(o, func_name(pf, top_caller(l)));
		fputs(", \"object\": ", o);
		pt_json_str(o, lock_object(pf, l, obj, sizeof obj));
		fputc('}', o);
	}
	fputs("\n ],\n \"threads\": [", o);
	for (size_t i = 0, n = 0; i < ctx->nshards; i++) {
		const pf_thread *t = &pf->t[i];
		const pt_shard_info *s = &ctx->shards[i];
		uint64_t life, w;
		if (pf->hide[i])
			continue;
		thread_times(t, &life, &w);
		fprintf(o, "%s\n  {\"pid\": %u, \"tid\": %u, \"kind\": \"%s\", \"name\": ",
		        n++ ? "," : "", s->pid, s->tid, s->kind == PT_FILE_GPU ? "gpu" : "thread");
		thread_label(pf, t, name, sizeof name);
		pt_json_str(o, name);
		fprintf(o,
		        ", \"start_ns\": %llu, \"lifetime_ns\": %llu, \"running_ns\": %llu, "
		        "\"wait_lock_ns\": %llu, \"wait_cond_ns\": %llu, \"wait_join_ns\": %llu, "
		        "\"wait_barrier_ns\": %llu, \"events\": %llu}",
		        (unsigned long long)(t->first > ctx->t0_ns ? t->first - ctx->t0_ns : 0),
		        (unsigned long long)life, (unsigned long long)(life > w ? life - w : 0),
		        (unsigned long long)t->wait[PF_W_LOCK], (unsigned long long)t->wait[PF_W_COND],
		        (unsigned long long)t->wait[PF_W_JOIN], (unsigned long long)t->wait[PF_W_BARRIER],
		        (unsigned long long)t->events);
	}
	fputs("\n ]", o);
	for (size_t i = 0; i < pf->nfam; i++)
		if (pf_fam(i) && pf_fam(i)->print_json)
			pf_fam(i)->print_json(pf->fam[i], o);
	if (pt_interval_json())
		fprintf(o, ",\n \"intervals\": %s", pt_interval_json());
	for (size_t i = 0; i < pf->inner.n; i++)
		if (pf->inner.tool[i]->print_results &&
		    pf->inner.tool[i]->print_results(pf->inner.state[i], o))
			return -1;
	fputs("\n}\n", o);
	return 0;
}

/* CSV: one table per section, the first column names it. */
static void print_csv(pf_tool *pf, const pf_view *v, FILE *o)
{
	const pt_trace_ctx *ctx = pf->ctx;
	char name[512], obj[256];
	fputs("table,name,file,line,calls,incl_ns,incl_mean_ns,incl_max_ns,excl_ns,excl_mean_ns,"
	      "excl_max_ns,share,cut_calls,throttled_calls,throttled_since_ns,estimated_incl_ns,"
	      "estimated_excl_ns\n",
	      o);
	for (size_t i = 0; i < v->nids; i++) {
		const pf_func *x = &pf->f[v->ids[i]];
		const pt_func_info *fi = pt_ctx_func_info(ctx, v->ids[i]);
		fputs("function,", o);
		pt_csv_str(o, fi->name);
		fputc(',', o);
		pt_csv_str(o, fi->file);
		fprintf(o, ",%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.6f,%llu,%llu,%llu,%llu,%llu\n",
		        fi->line, (unsigned long long)x->calls, (unsigned long long)x->incl,
		        (unsigned long long)mean(x->incl, x), (unsigned long long)x->incl_max,
		        (unsigned long long)x->excl, (unsigned long long)mean(x->excl, x),
		        (unsigned long long)x->excl_max, (double)x->excl / v->tot,
		        (unsigned long long)x->cut, (unsigned long long)x->throttled,
		        (unsigned long long)since_rel(pf, x), (unsigned long long)x->est_incl,
		        (unsigned long long)x->est_excl);
	}
	fputs("\ntable,kind,address,pid,acquisitions,contended,failed,wait_ns,wait_max_ns,top_"
	      "waiter,object\n",
	      o);
	for (size_t i = 0; i < pf->nl; i++) {
		const pf_lock *l = &pf->l[i];
		fprintf(o, "lock,%s,0x%llx,%u,%llu,%llu,%llu,%llu,%llu,", what_name(l->what),
		        (unsigned long long)l->addr, l->pid, (unsigned long long)l->acq,
		        (unsigned long long)l->contended, (unsigned long long)l->failed,
		        (unsigned long long)l->wait, (unsigned long long)l->wait_max);
		pt_csv_str(o, func_name(pf, top_caller(l)));
		fputc(',', o);
		pt_csv_str(o, lock_object(pf, l, obj, sizeof obj));
		fputc('\n', o);
	}
	fputs("\ntable,pid,tid,name,start_ns,lifetime_ns,running_ns,wait_lock_ns,wait_cond_ns,"
	      "wait_join_ns,wait_barrier_ns,events\n",
	      o);
	for (size_t i = 0; i < ctx->nshards; i++) {
		const pf_thread *t = &pf->t[i];
		const pt_shard_info *s = &ctx->shards[i];
		uint64_t life, w;
		if (pf->hide[i])
			continue;
		thread_times(t, &life, &w);
		thread_label(pf, t, name, sizeof name);
		fprintf(o, "thread,%u,%u,", s->pid, s->tid);
		pt_csv_str(o, name);
		fprintf(o, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
		        (unsigned long long)(t->first > ctx->t0_ns ? t->first - ctx->t0_ns : 0),
		        (unsigned long long)life, (unsigned long long)(life > w ? life - w : 0),
		        (unsigned long long)t->wait[PF_W_LOCK], (unsigned long long)t->wait[PF_W_COND],
		        (unsigned long long)t->wait[PF_W_JOIN], (unsigned long long)t->wait[PF_W_BARRIER],
		        (unsigned long long)t->events);
	}
	for (size_t i = 0; i < pf->nfam; i++)
		if (pf_fam(i) && pf_fam(i)->print_csv)
			pf_fam(i)->print_csv(pf->fam[i], o);
	if (pf->sel)
		csv_selection(pf, v, o);
}

static void text_summary(const pf_view *v, FILE *o)
{
	char a[32], b[32], c[32];
	uint64_t total = v->total, waiting = v->waiting;
	double tot = v->tot;
	pt_fmt_dur(a, sizeof a, total);
	pt_fmt_dur(b, sizeof b, total > waiting ? total - waiting : 0);
	pt_fmt_dur(c, sizeof c, waiting);
	fprintf(
	    o,
	    "\nProfile: %zu threads, %s of thread time\n  running %s (%.1f%%), waiting %s"
	    " (%.1f%%): locks %.1f%%, conds %.1f%%, joins %.1f%%, barriers %.1f%%\n",
	    v->nthreads, a, b, 100.0 * (double)(total - (waiting < total ? waiting : total)) / tot,
	    c, 100.0 * (double)waiting / tot, 100.0 * (double)v->wait_kind[PF_W_LOCK] / tot,
	    100.0 * (double)v->wait_kind[PF_W_COND] / tot, 100.0 * (double)v->wait_kind[PF_W_JOIN] / tot,
	    100.0 * (double)v->wait_kind[PF_W_BARRIER] / tot);
}

/* --wide: the name column as wide as the widest name shown (functions,
 * threads), so that no name is shortened. */
static unsigned wide_column(const pf_tool *pf, const pf_view *v)
{
	char buf[1024];
	size_t nw = 12;
	for (size_t i = 0; i < v->nf_show; i++) {
		size_t n = pt_name_fit(buf, sizeof buf, func_name(pf, v->ids[i]), sizeof buf - 1);
		nw = n > nw ? n : nw;
	}
	for (size_t i = 0; i < pf->ctx->nshards; i++) {
		char label[512];
		thread_label(pf, &pf->t[i], label, sizeof label);
		size_t n = pt_text_fit(buf, sizeof buf, label, sizeof buf - 1, 1);
		nw = n > nw ? n : nw;
	}
	return (unsigned)nw;
}

static void text_functions(pf_tool *pf, const pf_view *v, unsigned nw, FILE *o)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], name[512];
	if (!v->nids)
		return;
	fprintf(o, "\nFunctions by exclusive time (%zu of %zu)\n", v->nf_show, v->nids);
	fprintf(o, "%-*s %8s %8s %8s %8s %8s %8s %8s %6s\n", (int)nw, "function", "calls", "incl",
	        "mean", "max", "excl", "mean", "max", "%time");
	uint64_t cut = 0, throttled = 0, nthrottled = 0;
	for (size_t i = 0; i < v->nf_show; i++) {
		const pf_func *x = &pf->f[v->ids[i]];
		const pt_func_info *fi = pt_ctx_func_info(pf->ctx, v->ids[i]);
		char calls[32];
		snprintf(calls, sizeof calls, "%s%llu%s", x->throttled ? "~" : "",
		         (unsigned long long)x->calls, x->cut ? "*" : "");
		cut += x->cut;
		if (x->throttled) {
			throttled += x->throttled;
			nthrottled++;
		}
		pt_name_fit(name, sizeof name, fi->name, nw);
		pt_fmt_dur(a, sizeof a, x->incl);
		pt_fmt_dur(b, sizeof b, mean(x->incl, x));
		pt_fmt_dur(c, sizeof c, x->incl_max);
		pt_fmt_dur(d, sizeof d, x->excl);
		pt_fmt_dur(e, sizeof e, mean(x->excl, x));
		pt_fmt_dur(f, sizeof f, x->excl_max);
		fprintf(o, "%-*s %8s %8s %8s %8s %8s %8s %8s %5.1f%%\n", (int)nw, name, calls, a, b,
		        c, d, e, f, 100.0 * (double)x->excl / v->tot);
	}
	if (cut)
		fprintf(
		    o,
		    "* %llu of these calls were open when the runtime lost data: they end where"
		    " the data\n  stops; their times are unknown, left out of the times above\n",
		    (unsigned long long)cut);
	if (throttled)
		fprintf(
		    o,
		    "~ throttled by the runtime (hot and short): %llu calls of %llu of these "
		    "functions were\n  counted, not recorded; the counts are exact, their times "
		    "estimated from the\n  recorded calls\n",
		    (unsigned long long)throttled, (unsigned long long)nthrottled);
}

static void text_locks(pf_tool *pf, const pf_view *v, unsigned nw, FILE *o)
{
	char a[32], b[32], c[32], g[64], name[512], obj[256];
	if (!pf->nl)
		return;
	fprintf(o, "\nLocks by wait time (%zu of %zu)\n", v->nl_show, pf->nl);
	unsigned lw = nw > 22 ? nw - 8 : 14;
	fprintf(o, "%-10s %-18s %8s %8s %8s %8s %8s  %s\n", "kind", "object", "acquired", "contend",
	        "wait", "mean", "max", "waited most in");
	for (size_t i = 0; i < v->nl_show; i++) {
		const pf_lock *l = &pf->l[i];
		pt_fmt_dur(a, sizeof a, l->wait);
		pt_fmt_dur(b, sizeof b, l->acq ? l->wait / l->acq : 0);
		pt_fmt_dur(c, sizeof c, l->wait_max);
		pt_name_fit(g, sizeof g, lock_object(pf, l, obj, sizeof obj), 18);
		pt_name_fit(name, sizeof name, func_name(pf, top_caller(l)), lw);
		fprintf(o, "%-10s %-18s %8llu %8llu %8s %8s %8s  %s\n", what_name(l->what), g,
		        (unsigned long long)l->acq, (unsigned long long)l->contended, a, b, c,
		        name);
	}
}

static void text_threads(pf_tool *pf, unsigned nw, FILE *o)
{
	const pt_trace_ctx *ctx = pf->ctx;
	char a[32], b[32], c[32], d[32], e[32], f[32], name[512];
	fprintf(o, "\nThreads\n%-*s %10s %8s %8s %8s %8s %8s %6s\n", (int)nw, "thread", "lifetime",
	        "running", "locks", "conds", "joins", "barrier", "%wait");
	for (size_t i = 0; i < ctx->nshards; i++) {
		const pf_thread *t = &pf->t[i];
		uint64_t life, w;
		if (pf->hide[i])
			continue;
		thread_times(t, &life, &w);
		char label[256];
		thread_label(pf, t, label, sizeof label);
		/* its start is cut: the end, the thread's name, says most */
		pt_text_fit(name, sizeof name, label, nw, 1);
		pt_fmt_dur(a, sizeof a, life);
		pt_fmt_dur(b, sizeof b, life > w ? life - w : 0);
		pt_fmt_dur(c, sizeof c, t->wait[PF_W_LOCK]);
		pt_fmt_dur(d, sizeof d, t->wait[PF_W_COND]);
		pt_fmt_dur(e, sizeof e, t->wait[PF_W_JOIN]);
		pt_fmt_dur(f, sizeof f, t->wait[PF_W_BARRIER]);
		fprintf(o, "%-*s %10s %8s %8s %8s %8s %8s %5.1f%%\n", (int)nw, name, a, b, c, d, e,
		        f, life ? 100.0 * (double)w / (double)life : 0.0);
	}
}

int pf_print(void *tool, FILE *o)
{
	pf_tool *pf = tool;
	if (pf->ctx->quiet && pf->short_form)
		return 0;
	pf_view v;
	if (view_prepare(pf, &v))
		return -1;
	int rc = 0;
	if (pf->format == 2) {
		rc = print_json(pf, &v, o);
	} else if (pf->format == 1) {
		print_csv(pf, &v, o);
	} else {
		/* columns of 8 after the name; the name takes what is left */
		unsigned width = term_width(o);
		unsigned nw = width > 70 + 12 ? width - 70 : 12;
		if (nw > 60)
			nw = 60;
		if (pf->wide)
			nw = wide_column(pf, &v);
		text_summary(&v, o);
		if (pf->sel)
			text_selection(pf, &v, o);
		text_functions(pf, &v, nw, o);
		text_locks(pf, &v, nw, o);
		for (size_t i = 0; i < pf->nfam; i++)
			if (pf_fam(i) && pf_fam(i)->print_text)
				pf_fam(i)->print_text(pf->fam[i], nw, pf->short_form,
				                      pf->short_form ? 5 : pf->top, o);
		if (!pf->short_form)
			text_threads(pf, nw, o);
	}
	free(v.ids);
	return rc;
}
