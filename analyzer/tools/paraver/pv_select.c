/* SPDX-License-Identifier: MIT */
/* What the Paraver writer writes of a trace (docs/ANALYZER.md, "Selecting
 * what is written"): the rows and the time window of the selection
 * (pt_select.h), applied while rows are written (pv_write.c drops lines
 * outside the window; a row not selected has an empty one); then, at
 * finish, the calls: those the selection leaves out and, when the .prv
 * would not fit the budget, the shortest ones (pv_budget.c chooses the
 * threshold, pv_thin.c rewrites the rows' event runs). */
#define _GNU_SOURCE
#include "pv_budget.h"

#include <stdio.h>
#include <string.h>

int pv_rows_init(pv_tool *pv, char *err, size_t errlen)
{
	const pt_trace_ctx *ctx = pv->ctx;
	size_t n = ctx->nshards ? ctx->nshards : 1;
	size_t np = ctx->nprocesses ? ctx->nprocesses : 1;
	pv->row = calloc(n, sizeof *pv->row);
	pv->task = calloc(n, sizeof *pv->task);
	pv->thread = calloc(n, sizeof *pv->thread);
	pv->ptask = calloc(np, sizeof *pv->ptask);
	unsigned *in_task = calloc(np, sizeof *in_task);
	if (!pv->row || !pv->task || !pv->thread || !pv->ptask || !in_task) {
		free(in_task);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* shards are in row order, task-major: the rows kept keep their
	 * order, numbered again from 1 (rows, tasks, threads in a task) */
	for (size_t i = 0; i < ctx->nshards; i++) {
		const pt_shard_info *in = &ctx->shards[i];
		if (!pt_select_shard(pv->sel, in))
			continue;
		if (!pv->ptask[in->process])
			pv->ptask[in->process] = ++pv->ntasks;
		pv->row[i] = ++pv->nrows;
		pv->task[i] = pv->ptask[in->process];
		pv->thread[i] = ++in_task[in->process];
	}
	free(in_task);
	if (!pv->nrows && ctx->nshards) {
		snprintf(err, errlen, "--threads/--processes select none of the trace's %zu rows",
		         ctx->nshards);
		return -1;
	}
	return 0;
}

void pv_window_init(pv_tool *pv)
{
	const pt_select *sel = pv->sel;
	pv->origin = pv->ctx->t0_ns;
	pv->win_hi = UINT64_MAX;
	if (pt_select_window(sel)) {
		/* --from moves time 0 there, as Paraver's cutter does */
		pv->origin = sel->win_lo;
		pv->win_hi = sel->win_hi;
	}
}

void pv_shard_select(pv_tool *pv, pv_shard *s)
{
	const pt_select *sel = pv->sel;
	const pt_shard_info *in = s->info;
	s->t0 = pv->origin;
	s->win_lo = 0;
	s->win_len = s->win_end = s->win_next = UINT64_MAX;
	if (!pv->row[in->index]) {
		s->win_lo = UINT64_MAX; /* t - win_lo > 0 for every real time */
		s->win_len = s->win_end = 0;
	} else if (pt_select_window(sel)) {
		s->win_lo = sel->win_lo;
		s->win_len = sel->win_hi - sel->win_lo;
		s->win_end = sel->win_hi == UINT64_MAX ? UINT64_MAX : sel->win_hi - pv->origin;
		if (in->kind == PT_FILE_THREAD)
			s->win_next = sel->win_lo;
	}
	if (pv->hist && pv->row[in->index] && in->kind == PT_FILE_THREAD)
		s->acct = pv_acct_new(pv, s); /* NULL: out of memory, no estimate for it */
}

/* ---- finish: the calls ---------------------------------------------------- */
static uint64_t runs_text(const pv_run *r, size_t n)
{
	uint64_t t = 0;
	for (size_t i = 0; i < n; i++)
		t += r[i].text;
	return t;
}

/* Synchronization calls the budget could leave out (the items of scalls
 * that are not family calls). */
static int sync_calls(const pv_hist *h)
{
	uint64_t n = 0;
	for (size_t i = 0; h && i < PV_SLOTS; i++)
		n += h->scalls[i];
	return h && n > h->fcalls;
}

static void free_thin(pv_tool *pv)
{
	for (size_t i = 0; i < pv->ctx->nshards; i++) {
		pv_run_free(&pv->thin[i]);
		pv_run_free(&pv->thin_st[i]);
	}
}

/* Calls the budget left out in this process's last .prv (tools.h). */
static uint64_t budget_cut_calls;

uint64_t pt_paraver_budget_cut(void)
{
	return budget_cut_calls;
}

static void take_stats(pv_tool *pv, const pv_thin_stats *st)
{
	budget_cut_calls = pv->threshold ? st->calls_left : 0;
	pv->calls_left = st->calls_left;
	pv->calls_total = st->calls_left + st->calls_kept;
	pv->ns_left = st->ns_left;
	pv->sync_left = st->sync_left;
	pv->sync_total = st->sync_left + st->sync_kept;
	pv->wait_left = st->wait_left;
	pv->fam_left = st->fam_left;
	pv->fam_total = st->fam_left + st->fam_kept;
	pv->fam_summarised = st->fam_summarised;
}

int pv_select_calls(pv_tool *pv, pv_run *merge, char *err, size_t errlen)
{
	const pt_trace_ctx *ctx = pv->ctx;
	size_t nruns = 2 * ctx->nshards + 2;
	memcpy(merge, pv->runs, nruns * sizeof *merge);
	uint64_t total = runs_text(pv->runs, nruns);
	pv->full_bytes = total;
	int calls = pt_select_calls(pv->sel);
	int over = pv->hist && total > pv->budget;
	if (!calls && !over && !pv->renumber)
		return 0;
	pv->thinned = calls || over;
	uint64_t min_ns = pv->sel ? pv->sel->min_ns : 0, est;
	unsigned k = pv->thinned; /* the threshold slot, for calls and synchronization calls */
	if (pv->hist && pv->thinned)
		k = pv_budget_choose(pv->hist, total, over ? pv->budget : UINT64_MAX, calls, &est);
	/* family calls are counted among the synchronization calls */
	int fam = pv->hist && pv->hist->fcalls;
	int sync = sync_calls(pv->hist);
	size_t n = ctx->nshards ? ctx->nshards : 1;
	pv->thin = calloc(n, sizeof *pv->thin);
	pv->thin_st = calloc(n, sizeof *pv->thin_st);
	if (!pv->thin || !pv->thin_st) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	uint64_t events = 0; /* the rows' event runs, replaced */
	for (size_t i = 0; i < ctx->nshards; i++)
		if (ctx->shards[i].kind == PT_FILE_THREAD && pv->runs[2 * i + 1].nrec)
			events += pv->runs[2 * i + 1].text;
	/* The estimate is close but not exact (which lines merge, the digits
	 * of the summaries, what a summary line holds): when the result still
	 * exceeds the budget, the next threshold up, from the original runs
	 * again. */
	for (int tries = 0;; tries++) {
		uint64_t th = pv_slot_threshold(k);
		pv_thin_stats st;
		pv->threshold = th > min_ns ? th : 0;
		pv->sync_threshold = sync ? th : 0;
		pv->fam_threshold = fam ? th : 0;
		if (pv_thin_runs(pv, th > min_ns ? th : min_ns, sync || fam ? th : 0, pv->thin,
		                 pv->thin_st, &st, err, errlen)) {
			free_thin(pv);
			return -1;
		}
		uint64_t now = total - events - st.text_st_before + st.text;
		if (!over || now <= pv->budget || k >= PV_SLOT_CUT || tries == 16) {
			take_stats(pv, &st);
			break;
		}
		free_thin(pv);
		memset(pv->thin, 0, ctx->nshards * sizeof *pv->thin);
		memset(pv->thin_st, 0, ctx->nshards * sizeof *pv->thin_st);
		k++;
	}
	for (size_t i = 0; i < ctx->nshards; i++) {
		if (pv->thin[i].nrec || pv->thin[i].path || pv->thin[i].pool)
			merge[2 * i + 1] = pv->thin[i];
		if (pv->thin_st[i].nrec || pv->thin_st[i].path || pv->thin_st[i].pool)
			merge[2 * i] = pv->thin_st[i];
	}
	return 0;
}

/* ---- what analyze says ------------------------------------------------------- */
static const char *fmt_count(uint64_t n, char *buf, size_t len)
{
	if (n >= 1000000)
		snprintf(buf, len, "%.1f M", (double)n / 1e6);
	else if (n >= 10000)
		snprintf(buf, len, "%.0f k", (double)n / 1e3);
	else
		snprintf(buf, len, "%llu", (unsigned long long)n);
	return buf;
}

static const char *fmt_bytes(uint64_t n, char *buf, size_t len)
{
	if (n >= 1000000000)
		snprintf(buf, len, "%.2f GB", (double)n / 1e9);
	else if (n >= 1000000)
		snprintf(buf, len, "%.0f MB", (double)n / 1e6);
	else
		snprintf(buf, len, "%.0f kB", (double)n / 1e3);
	return buf;
}

/* What went of the families' calls (pv_left_def), by the same threshold. */
static void print_family_calls(const pv_tool *pv, FILE *out, int after)
{
	char a[32], b[32], c[32];
	fputs(after ? ", and " : "", out);
	const char *sep = "";
	for (size_t i = 0; i < pt_nfamilies(); i++)
		if (pv->fam_summarised & 1u << i && pv_ext(i)->left) {
			fprintf(out, "%s%s", sep, pv_ext(i)->left->what);
			sep = " and ";
		}
	if (pv->fam_threshold == UINT64_MAX)
		fputs(" of every length", out);
	else
		fprintf(out, " shorter than %s", pt_fmt_ns(pv->fam_threshold, a, sizeof a));
	fprintf(out, " left out (%s of %s, summarised as their own events)",
	        fmt_count(pv->fam_left, b, sizeof b), fmt_count(pv->fam_total, c, sizeof c));
}

void pv_print_selection(const pv_tool *pv, FILE *out)
{
	const pt_select *sel = pv->sel;
	const pt_trace_ctx *ctx = pv->ctx;
	char a[32], b[32], c[32], d[32];
	if (pt_select_window(sel)) {
		fprintf(out, "paratrace: window %s to ",
		        pt_fmt_ns(sel->win_lo - ctx->t0_ns, a, sizeof a));
		if (sel->win_hi == UINT64_MAX)
			fputs("the end", out);
		else
			fputs(pt_fmt_ns(sel->win_hi - ctx->t0_ns, b, sizeof b), out);
		fprintf(out, " of the run; in the .prv, time 0 is %s after its start\n",
		        pt_fmt_ns(pv->origin - ctx->t0_ns, c, sizeof c));
	}
	const char *comms = pv->comms_left == 1 ? "communication" : "communications";
	if (pt_select_rows(sel)) {
		fprintf(out, "paratrace: %u of %zu rows", pv->nrows, ctx->nshards);
		if (pv->comms_left)
			fprintf(out, " (%llu %s with an end outside them%s left out)",
			        (unsigned long long)pv->comms_left, comms,
			        pt_select_window(sel) ? " or the window" : "");
		fputc('\n', out);
	} else if (pv->comms_left)
		fprintf(out, "paratrace: %llu %s with an end outside the window left out\n",
		        (unsigned long long)pv->comms_left, comms);
	if (!pv->thinned)
		return;
	fputs("paratrace: ", out);
	/* the budget's threshold (a selection's alone leaves neither) */
	int budget = pv->threshold || pv->sync_threshold || pv->fam_threshold;
	if (budget)
		fprintf(out, ".prv budget %s: ", fmt_bytes(pv->budget, a, sizeof a));
	/* only what went of the synchronization calls when every call stayed */
	int calls = (!pv->sync_threshold && !pv->fam_threshold) || pv->calls_left;
	if (calls) {
		if (pv->threshold == UINT64_MAX)
			fputs("every call left out", out);
		else if (pv->threshold)
			fprintf(out, "calls shorter than %s left out",
			        pt_fmt_ns(pv->threshold, b, sizeof b));
		else
			fputs("calls left out as selected", out);
		fprintf(out, " (%s of %s calls, %s of their time summarised as events %u/%u)",
		        fmt_count(pv->calls_left, c, sizeof c),
		        fmt_count(pv->calls_total, d, sizeof d), pt_fmt_ns(pv->ns_left, a, sizeof a),
		        PV_EV_LEFT_CALLS, PV_EV_LEFT_NS);
	}
	const char *and = calls ? ", and " : "";
	if (pv->sync_threshold == UINT64_MAX)
		fprintf(out, "%severy synchronization call%s", and, calls ? "" : " left out");
	else if (pv->sync_threshold)
		fprintf(out, "%ssynchronization calls that waited less than %s%s", and,
		        pt_fmt_ns(pv->sync_threshold, b, sizeof b), calls ? "" : " left out");
	if (pv->sync_threshold)
		fprintf(out, " (%s of %s, %s of waiting, as events %u/%u)",
		        fmt_count(pv->sync_left, c, sizeof c),
		        fmt_count(pv->sync_total, d, sizeof d),
		        pt_fmt_ns(pv->wait_left, a, sizeof a), PV_EV_LEFT_SYNC, PV_EV_LEFT_WAIT);
	if (pv->fam_threshold && pv->fam_left)
		print_family_calls(pv, out, calls || pv->sync_threshold);
	if (!calls && pv->calls_total)
		fprintf(out, "; every call kept (%s)", fmt_count(pv->calls_total, c, sizeof c));
	if (budget && pv->text > pv->budget)
		fprintf(out, "; the rest alone takes %s, more than the budget",
		        fmt_bytes(pv->text, c, sizeof c));
	if (budget)
		fprintf(out, "; --full for everything (%s), or a larger --budget",
		        fmt_bytes(pv->full_bytes, b, sizeof b));
	fputc('\n', out);
}
