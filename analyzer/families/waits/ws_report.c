/* SPDX-License-Identifier: MIT */
/* The report's wait-state section (docs/ANALYZER.md, "Wait states"): the
 * waits by pattern, rank, thread and call path with what caused them; the
 * computations that made others wait (their delay cost); the critical
 * path by function and rank. Options "text|csv|json,top=N". Printed when
 * the trace has more than one thread. */
#define _GNU_SOURCE
#include "pt_fw_util.h"
#include "pt_text.h"
#include "tools.h"
#include "waits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct wr_tool {
	ws_set set;
	ws_result res;
	int format; /* 0 text, 1 csv, 2 json members, 3 a JSON object (the HTML page's) */
	unsigned top;
	int done;
} wr_tool;

typedef struct wr_shard {
	ws_reader *r; /* NULL: not a thread log */
} wr_shard;

static void *wr_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	wr_tool *t = calloc(1, sizeof *t);
	if (!t || ws_set_init(&t->set, ctx)) {
		free(t);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->top = 25;
	if (options) {
		t->format = strstr(options, "csv") ? 1 : strstr(options, "json") ? 2 : 0;
		const char *top = strstr(options, "top=");
		if (top)
			t->top = (unsigned)strtoul(top + 4, NULL, 10);
	}
	return t;
}

static int wr_process_event(void *tool, size_t process, const pt_event *ev)
{
	ws_set_process_event(&((wr_tool *)tool)->set, process, ev);
	return 0;
}

static void *wr_shard_init(void *tool, const pt_shard_info *in, char *err, size_t errlen)
{
	wr_tool *t = tool;
	wr_shard *s = calloc(1, sizeof *s);
	if (s && (in->kind == PT_FILE_THREAD || in->kind == PT_FILE_GPU) &&
	    !(s->r = ws_reader_new(&t->set, in))) {
		free(s);
		s = NULL;
	}
	if (!s)
		snprintf(err, errlen, "out of memory");
	return s;
}

static int wr_shard_event(void *st, const pt_event *ev)
{
	wr_shard *s = st;
	if (s->r)
		ws_reader_event(s->r, ev);
	return 0;
}

static int wr_shard_exit(void *st, uint64_t last_ns, int complete)
{
	(void)complete;
	wr_shard *s = st;
	int rc = s->r ? ws_reader_end(s->r, last_ns) : 0;
	free(s);
	return rc;
}

static const char *wr_shard_error(void *st)
{
	(void)st;
	return "out of memory";
}

static int wr_finish(void *tool, char *err, size_t errlen)
{
	wr_tool *t = tool;
	if (ws_analyze(&t->set, &t->res)) {
		snprintf(err, errlen, "wait states: out of memory");
		return -1;
	}
	t->done = 1;
	return 0;
}

/* ---- rows ----------------------------------------------------------------- */
/* The waits of one (pattern, thread, call path), and the cause that made
 * it wait most. */
typedef struct wr_row {
	uint32_t pattern, shard, path;
	uint64_t n, ns;
	uint32_t cause, cause_name;
	uint64_t cause_ns;
	/* breaks ties in the order: ids of paths and functions follow which
	 * worker met them first, and the order must not change with -j */
	const char *path_str;
} wr_row;

typedef struct wr_cause {
	uint32_t shard, name;
	uint64_t n, ns;
	const char *name_str; /* as path_str */
} wr_cause;

static int cmp_inst_row(const void *a, const void *b)
{
	const ws_inst *x = a, *y = b;
	if (x->pattern != y->pattern)
		return x->pattern < y->pattern ? -1 : 1;
	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	if (x->path != y->path)
		return x->path < y->path ? -1 : 1;
	if (x->cause != y->cause)
		return x->cause < y->cause ? -1 : 1;
	return x->cause_name < y->cause_name ? -1 : x->cause_name > y->cause_name;
}

static int cmp_row(const void *a, const void *b)
{
	const wr_row *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->pattern != y->pattern)
		return x->pattern < y->pattern ? -1 : 1;
	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	int c = strcmp(x->path_str, y->path_str);
	if (c)
		return c;
	return x->path < y->path ? -1 : x->path > y->path;
}

static int cmp_cause(const void *a, const void *b)
{
	const wr_cause *x = a, *y = b;
	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int cmp_cause_ns(const void *a, const void *b)
{
	const wr_cause *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	int c = strcmp(x->name_str, y->name_str);
	return c ? c : cmp_cause(a, b);
}

static const char *path_of(const wr_tool *t, uint32_t id);

/* The rows (most time first) and the causes (most delay first). */
static int collect(wr_tool *t, wr_row **rows, size_t *nrows, wr_cause **causes, size_t *ncauses)
{
	size_t n = t->res.inst.n;
	ws_inst *v = malloc((n + 1) * sizeof *v);
	wr_row *r = malloc((n + 1) * sizeof *r);
	wr_cause *c = malloc((n + 1) * sizeof *c);
	if (!v || !r || !c) {
		free(v);
		free(r);
		free(c);
		return -1;
	}
	if (n)
		memcpy(v, t->res.inst.v, n * sizeof *v);
	pt_qsort(v, n, sizeof *v, cmp_inst_row);
	size_t nr = 0, nc = 0;
	uint64_t run_ns = 0; /* of the current (row, cause) */
	for (size_t i = 0; i < n; i++) {
		const ws_inst *x = &v[i];
		int same_row = nr && r[nr - 1].pattern == x->pattern &&
		               r[nr - 1].shard == x->shard && r[nr - 1].path == x->path;
		if (!same_row) {
			r[nr++] =
			    (wr_row){x->pattern, x->shard,           x->path, 0, 0, WS_NONE, 0,
			             0,          path_of(t, x->path)};
			run_ns = 0;
		} else if (i &&
		           (v[i - 1].cause != x->cause || v[i - 1].cause_name != x->cause_name))
			run_ns = 0;
		wr_row *w = &r[nr - 1];
		w->n++;
		w->ns += x->end - x->begin;
		run_ns += x->end - x->begin;
		if (run_ns > w->cause_ns) {
			w->cause_ns = run_ns;
			w->cause = x->cause;
			w->cause_name = x->cause_name;
		}
		if (x->cause != WS_NONE)
			c[nc++] = (wr_cause){x->cause, x->cause_name, 1, x->end - x->begin,
			                     ws_name(&t->set, x->cause_name)};
	}
	free(v);
	pt_qsort(r, nr, sizeof *r, cmp_row);
	pt_qsort(c, nc, sizeof *c, cmp_cause);
	size_t o = 0;
	for (size_t i = 0; i < nc; i++) {
		if (o && c[o - 1].shard == c[i].shard && c[o - 1].name == c[i].name) {
			c[o - 1].n += c[i].n;
			c[o - 1].ns += c[i].ns;
		} else
			c[o++] = c[i];
	}
	pt_qsort(c, o, sizeof *c, cmp_cause_ns);
	*rows = r;
	*nrows = nr;
	*causes = c;
	*ncauses = o;
	return 0;
}

static const ws_thread *th(const wr_tool *t, uint32_t sh)
{
	return &t->set.th[sh];
}

static const char *path_of(const wr_tool *t, uint32_t id)
{
	return id < t->set.paths.s.n ? t->set.paths.s.v[id] : "?";
}

/* ---- text, CSV, JSON ----------------------------------------------------- */
static void print_text(wr_tool *t, FILE *o, const wr_row *r, size_t nr, const wr_cause *c,
                       size_t nc)
{
	uint64_t total = 0;
	for (size_t i = 0; i < nr; i++)
		total += r[i].ns;
	char a[32], b[32], who[48], name[64], path[64];
	unsigned top = t->top ? t->top : UINT32_MAX;
	pt_fmt_dur(a, sizeof a, total);
	fprintf(o, "\nWait states: who made whom wait (%zu of %zu rows, %s waited)\n",
	        nr < top ? nr : (size_t)top, nr, a);
	/* 100 columns: the pattern to the call path take 74 */
	if (nr) {
		fprintf(o, "%-15s %4s %6s %6s %9s  %-26s  %s\n", "pattern", "rank", "thread",
		        "waits", "time", "waiting in (call path)", "caused most by");
		for (size_t i = 0; i < nr && i < top; i++) {
			pt_fmt_dur(a, sizeof a, r[i].ns);
			pt_text_fit(path, sizeof path, path_of(t, r[i].path), 26, 1);
			name[0] = 0;
			if (r[i].cause != WS_NONE) {
				ws_where(&t->set, r[i].cause, who, sizeof who - 1);
				strcat(who, " ");
				size_t n = strlen(who);
				size_t room = n < 24 ? 26 - n : 2;
				pt_text_fit(name, sizeof name, ws_name(&t->set, r[i].cause_name),
				            room, 0);
			} else
				snprintf(who, sizeof who, "-");
			fprintf(o, "%-15s %4d %6u %6llu %9s  %-26s  %s%s\n",
			        ws_pattern_name(r[i].pattern), th(t, r[i].shard)->rank,
			        th(t, r[i].shard)->thread, (unsigned long long)r[i].n, a, path, who,
			        name);
		}
	}
	if (nc) {
		fprintf(o, "\nWhat made others wait: delay cost (%zu of %zu)\n",
		        nc < top ? nc : (size_t)top, nc);
		fprintf(o, "%-40s %4s %6s %6s %9s\n", "function", "rank", "thread", "waits",
		        "caused");
		for (size_t i = 0; i < nc && i < top; i++) {
			const ws_thread *ct = th(t, c[i].shard);
			char what[160], thread[16];
			pt_fmt_dur(a, sizeof a, c[i].ns);
			if (ct->gpu) { /* a kernel or copy: on its stream */
				ws_gpu_label(&t->set, c[i].shard, who, sizeof who);
				snprintf(what, sizeof what, "%s on %s", ws_name(&t->set, c[i].name),
				         who);
				snprintf(thread, sizeof thread, "gpu");
			} else {
				snprintf(what, sizeof what, "%s", ws_name(&t->set, c[i].name));
				snprintf(thread, sizeof thread, "%u", ct->thread);
			}
			pt_text_fit(name, sizeof name, what, 40, 0);
			fprintf(o, "%-40s %4d %6s %6llu %9s\n", name, ct->rank, thread,
			        (unsigned long long)c[i].n, a);
		}
	}
	const ws_result *res = &t->res;
	ws_cp *f = NULL;
	size_t nf = ws_path_functions(res, &f);
	pt_fmt_dur(a, sizeof a, res->path_ns);
	pt_fmt_dur(b, sizeof b, res->path_begin - t->set.ctx->t0_ns);
	fprintf(o, "\nCritical path: %s, from %s into the run (%zu of %zu functions)\n", a, b,
	        nf < top ? nf : (size_t)top, nf);
	fprintf(o, "%-40s %9s %6s  %s\n", "function", "time", "share", "on ranks");
	for (size_t i = 0; i < nf && i < top; i++) {
		pt_fmt_dur(a, sizeof a, f[i].ns);
		pt_text_fit(name, sizeof name, ws_name(&t->set, f[i].name), 40, 0);
		fprintf(o, "%-40s %9s %5.1f%%  ", name, a,
		        res->path_ns ? 100.0 * (double)f[i].ns / (double)res->path_ns : 0.0);
		/* the ranks, most first, in the 41 columns left */
		size_t used = 0;
		for (size_t k = 0; k < res->path.n; k++)
			if (res->path.v[k].name == f[i].name) {
				char e[64];
				pt_fmt_dur(b, sizeof b, res->path.v[k].ns);
				int n = snprintf(e, sizeof e, "%s%d: %s", used ? ", " : "",
				                 res->path.v[k].rank, b);
				if (n < 0 || used + (size_t)n > 41 - 5) {
					fputs(", ...", o);
					break;
				}
				fputs(e, o);
				used += (size_t)n;
			}
		fputc('\n', o);
	}
	free(f);
}

static void print_csv(wr_tool *t, FILE *o, const wr_row *r, size_t nr)
{
	fputs("\ntable,pattern,rank,thread,call_path,instances,time_ns\n", o);
	for (size_t i = 0; i < nr; i++) {
		fprintf(o, "wait_state,%s,%d,%u,", ws_pattern_name(r[i].pattern),
		        th(t, r[i].shard)->rank, th(t, r[i].shard)->thread);
		pt_csv_str(o, path_of(t, r[i].path));
		fprintf(o, ",%llu,%llu\n", (unsigned long long)r[i].n, (unsigned long long)r[i].ns);
	}
	fputs("\ntable,function,rank,time_ns\n", o);
	for (size_t i = 0; i < t->res.path.n; i++) {
		fputs("critical_path,", o);
		pt_csv_str(o, ws_name(&t->set, t->res.path.v[i].name));
		fprintf(o, ",%d,%llu\n", t->res.path.v[i].rank,
		        (unsigned long long)t->res.path.v[i].ns);
	}
}

/* "rank": R, "thread": T; a GPU stream's "thread": null, "gpu": its row's label */
static void json_where(wr_tool *t, FILE *o, uint32_t sh)
{
	const ws_thread *w = th(t, sh);
	if (w->gpu) {
		char l[64];
		ws_gpu_label(&t->set, sh, l, sizeof l);
		fprintf(o, "\"rank\": %d, \"thread\": null, \"gpu\": ", w->rank);
		pt_json_str(o, l);
	} else
		fprintf(o, "\"rank\": %d, \"thread\": %u", w->rank, w->thread);
}

static void print_json(wr_tool *t, FILE *o, const wr_row *r, size_t nr, const wr_cause *c,
                       size_t nc)
{
	fputs(t->format == 3 ? "{\n \"wait_states\": [" : ",\n \"wait_states\": [", o);
	for (size_t i = 0; i < nr; i++) {
		fprintf(o,
		        "%s\n  {\"pattern\": \"%s\", \"rank\": %d, \"thread\": %u, \"call_path\": ",
		        i ? "," : "", ws_pattern_name(r[i].pattern), th(t, r[i].shard)->rank,
		        th(t, r[i].shard)->thread);
		pt_json_str(o, path_of(t, r[i].path));
		fprintf(o, ", \"instances\": %llu, \"time_ns\": %llu, \"cause\": ",
		        (unsigned long long)r[i].n, (unsigned long long)r[i].ns);
		if (r[i].cause == WS_NONE)
			fputs("null}", o);
		else {
			fputc('{', o);
			json_where(t, o, r[i].cause);
			fputs(", \"function\": ", o);
			pt_json_str(o, ws_name(&t->set, r[i].cause_name));
			fprintf(o, ", \"time_ns\": %llu}}", (unsigned long long)r[i].cause_ns);
		}
	}
	fputs("\n ],\n \"wait_causes\": [", o);
	for (size_t i = 0; i < nc; i++) {
		fprintf(o, "%s\n  {\"function\": ", i ? "," : "");
		pt_json_str(o, ws_name(&t->set, c[i].name));
		fputs(", ", o);
		json_where(t, o, c[i].shard);
		fprintf(o, ", \"instances\": %llu, \"delay_ns\": %llu}", (unsigned long long)c[i].n,
		        (unsigned long long)c[i].ns);
	}
	const ws_result *res = &t->res;
	fprintf(
	    o,
	    "\n ],\n \"critical_path\": {\"time_ns\": %llu, \"begin_ns\": %llu, \"end_ns\": %llu, "
	    "\"functions\": [",
	    (unsigned long long)res->path_ns,
	    (unsigned long long)(res->path_begin - t->set.ctx->t0_ns),
	    (unsigned long long)(res->path_end - t->set.ctx->t0_ns));
	for (size_t i = 0; i < res->path.n; i++) {
		fprintf(o, "%s\n  {\"function\": ", i ? "," : "");
		pt_json_str(o, ws_name(&t->set, res->path.v[i].name));
		fprintf(o, ", \"rank\": %d, \"time_ns\": %llu}", res->path.v[i].rank,
		        (unsigned long long)res->path.v[i].ns);
	}
	fputs(t->format == 3 ? "\n ]}\n}\n" : "\n ]}", o);
}

static int wr_print_results(void *tool, FILE *o)
{
	wr_tool *t = tool;
	if (!t->done)
		return 0;
	size_t threads = 0;
	for (size_t i = 0; i < t->set.ctx->nshards; i++)
		threads += t->set.th[i].used;
	if (threads < 2) /* one thread (without a GPU) waits for nobody */
		return 0;
	wr_row *r;
	wr_cause *c;
	size_t nr, nc;
	if (collect(t, &r, &nr, &c, &nc))
		return -1;
	if (t->format == 1)
		print_csv(t, o, r, nr);
	else if (t->format >= 2)
		print_json(t, o, r, nr, c, nc);
	else
		print_text(t, o, r, nr, c, nc);
	free(r);
	free(c);
	return 0;
}

static void wr_destroy(void *tool)
{
	wr_tool *t = tool;
	if (!t)
		return;
	ws_result_free(&t->res);
	ws_set_free(&t->set);
	free(t);
}

/* The HTML page's section: the same, its JSON an object of its own. */
static void *wr_init_html(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	wr_tool *t = wr_init(ctx, options, err, errlen);
	if (t)
		t->format = 3;
	return t;
}

static const pt_tool wr_def = {
    .api_version = PT_TOOL_API_VERSION,
    .name = "waits",
    .description = "wait states, their causes and the critical path",
    .init = wr_init,
    .process_event = wr_process_event,
    .shard_init = wr_shard_init,
    .shard_event = wr_shard_event,
    .shard_exit = wr_shard_exit,
    .shard_error = wr_shard_error,
    .finish = wr_finish,
    .print_results = wr_print_results,
    .destroy = wr_destroy,
};

const pt_tool *pt_tool_waits(void)
{
	return &wr_def;
}

static pt_tool wr_html_def;

const pt_tool *pt_tool_waits_html(void)
{
	if (!wr_html_def.init) {
		wr_html_def = wr_def;
		wr_html_def.name = "waits-html";
		wr_html_def.init = wr_init_html;
	}
	return &wr_html_def;
}
