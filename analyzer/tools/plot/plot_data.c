/* SPDX-License-Identifier: MIT */
/* The HTML page's own data (plot.h: pl_page_data), one JSON object beside
 * the profile's: the slices of the range selection (plot_range.h), the
 * facts of the headline, and the colour of each function (the palette's,
 * plot_palette.h: the page computes none of its own).
 *
 *   {"span_ns", "slice_ns", "slices", "rows_drawn", "shards",
 *    "functions": [{"name", "file", "line", "colour", "s": [[slice, excl_ns, calls]...]}],
 *    "waits": [{"thread": shard index, "kind": "lock"|"cond"|"join"|"barrier",
 *               "s": [[slice, ns]...]}],
 *    "locks": [{"pid", "address": "0x...", "s": [[slice, wait_ns, acquisitions]...]}],
 *    "wait", "sync": {"ns", "begin_ns", "kind", "thread", "pid", "address",
 *                     "joined": the joined thread's shard index or null} or null,
 *    "lost", "lost_limit", "lost_ns", "unclosed": [shard index...]} */
#include "plot.h"
#include "pt_fw_util.h"
#include "pt_text.h"
#include "pt_waits.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const wait_kind[PT_WAIT_KINDS] = {"lock", "cond", "join", "barrier"};

static void wait_json(FILE *f, const pl_model *m, const char *key, const pl_wait_max *w)
{
	fprintf(f, ",\n \"%s\": ", key);
	if (!w->ns) {
		fputs("null", f);
		return;
	}
	const pt_shard_info *in = &m->ctx->shards[w->shard];
	fprintf(
	    f,
	    "{\"ns\": %llu, \"begin_ns\": %llu, \"kind\": \"%s\", \"thread\": %zu, \"pid\": %u, "
	    "\"address\": \"0x%llx\"",
	    (unsigned long long)w->ns, (unsigned long long)w->begin, wait_kind[w->kind], w->shard,
	    in->pid, (unsigned long long)w->object);
	/* the joined thread: the shard of the process whose THREAD_START has
	 * the join's create_seq */
	const pt_process_info *p = &m->ctx->processes[in->process];
	size_t joined = SIZE_MAX;
	for (size_t i = p->first_shard; w->joined && i < p->first_shard + p->nshards; i++)
		if (m->facts.seq[i] == w->joined)
			joined = i;
	if (joined == SIZE_MAX)
		fputs(", \"joined\": null}", f);
	else
		fprintf(f, ", \"joined\": %zu}", joined);
}

/* The cells [i, j) of one thing as [[slice, v0(, v1)]...]. */
static void slices_json(FILE *f, const pr_cell *c, size_t i, size_t j, int both)
{
	fputs(", \"s\": [", f);
	for (size_t k = i; k < j; k++) {
		fprintf(f, "%s[%u,%llu", k > i ? "," : "", c[k].slice,
		        (unsigned long long)c[k].v[0]);
		if (both)
			fprintf(f, ",%llu", (unsigned long long)c[k].v[1]);
		fputc(']', f);
	}
	fputs("]}", f);
}

/* The functions' cells in the order of their names (then file, line), not
 * of their ids: ids are given in the order the workers first meet the
 * functions, which the number of workers changes, and the page must be the
 * same whatever -j. The cells of one function stay together, by slice. */
static const pt_trace_ctx *name_ctx;

static int cmp_func_cell(const void *x, const void *y)
{
	const pr_cell *a = x, *b = y;
	if (a->tag != b->tag || a->tag != PR_FUNC)
		return a->tag < b->tag ? -1 : a->tag > b->tag;
	if (a->id != b->id) {
		const pt_func_info *fa = pt_ctx_func_info(name_ctx, (uint32_t)a->id);
		const pt_func_info *fb = pt_ctx_func_info(name_ctx, (uint32_t)b->id);
		int d = strcmp(fa ? fa->name : "", fb ? fb->name : "");
		if (!d)
			d = strcmp(fa ? fa->file : "", fb ? fb->file : "");
		if (!d && fa && fb && fa->line != fb->line)
			d = fa->line < fb->line ? -1 : 1;
		if (d)
			return d;
		return a->id < b->id ? -1 : 1;
	}
	return a->slice < b->slice ? -1 : a->slice > b->slice;
}

int pl_page_data(FILE *f, const pl_model *m)
{
	const pr_map *r = &m->range;
	pr_cell *c = pr_sorted(r);
	if (!c)
		return -1;
	/* one thread writes the page: the comparator's context is not shared */
	name_ctx = m->ctx;
	size_t nfunc = 0;
	while (nfunc < r->n && c[nfunc].tag == PR_FUNC)
		nfunc++;
	pt_qsort(c, nfunc, sizeof *c, cmp_func_cell);
	uint64_t span = m->t_end - m->t0;
	fprintf(f,
	        "{\"span_ns\": %llu, \"slice_ns\": %llu, \"slices\": %llu, \"rows_drawn\": %zu, "
	        "\"shards\": %zu",
	        (unsigned long long)span, 1ull << r->shift,
	        (unsigned long long)(((span - 1) >> r->shift) + 1), m->nrows, m->ctx->nshards);
	const char *list[] = {"functions", "waits", "locks"};
	int open = -1;
	char colour[8];
	for (size_t i = 0, j; i < r->n; i = j) {
		for (j = i + 1; j < r->n && c[j].tag == c[i].tag && c[j].id == c[i].id; j++)
			;
		int which = c[i].tag == PR_FUNC ? 0 : c[i].tag < PR_LOCK(0) ? 1 : 2;
		fprintf(f, which == open ? ",\n  {" : "%s\n \"%s\": [\n  {", open < 0 ? "," : "],",
		        list[which]);
		open = which;
		if (which == 0) {
			const pt_func_info *fi = pt_ctx_func_info(m->ctx, (uint32_t)c[i].id);
			const char *name = fi && fi->name[0] ? fi->name : "?";
			fputs("\"name\": ", f);
			pt_json_str(f, name);
			fputs(", \"file\": ", f);
			pt_json_str(f, fi ? fi->file : "");
			pl_palette_colour(&m->pal, (uint32_t)c[i].id, name, colour);
			fprintf(f, ", \"line\": %u, \"colour\": \"%s\"", fi ? fi->line : 0, colour);
		} else if (which == 1) {
			fprintf(f, "\"thread\": %llu, \"kind\": \"%s\"",
			        (unsigned long long)c[i].id, wait_kind[c[i].tag - PR_WAIT(0)]);
		} else {
			size_t p = (c[i].tag - PR_LOCK(0)) >> 8;
			fprintf(f, "\"pid\": %u, \"address\": \"0x%llx\"", m->ctx->processes[p].pid,
			        (unsigned long long)c[i].id);
		}
		slices_json(f, c, i, j, which != 1);
	}
	fputs(open < 0 ? "" : "]", f);
	free(c);
	wait_json(f, m, "wait", &m->facts.wait);
	wait_json(f, m, "sync", &m->facts.sync);
	const pl_page_facts *x = &m->facts;
	fprintf(f, ",\n \"lost\": %llu, \"lost_limit\": %llu, \"lost_ns\": %llu, \"unclosed\": [",
	        (unsigned long long)x->lost, (unsigned long long)x->lost_limit,
	        (unsigned long long)x->lost_ns);
	for (size_t i = 0, n = 0; i < m->ctx->nshards; i++)
		if (x->unclosed[i])
			fprintf(f, "%s%zu", n++ ? ", " : "", i);
	fputs("]}\n", f);
	return ferror(f) ? -1 : 0;
}
