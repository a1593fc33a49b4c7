/* SPDX-License-Identifier: MIT */
/* The diff of two profiles (pt_diff.h): rows matched by key, then printed
 * as tables, CSV or JSON. */
#define _GNU_SOURCE
#include "pt_diff.h"
#include "pt_fw_util.h"
#include "pt_names.h"
#include "pt_text.h"
#include "tools.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_METRICS 3

/* One table: the profile's array `member`, three figures of each row (the
 * last `ntime` of them times in ns), the one it is sorted by. */
typedef struct dtable {
	const char *member, *title, *what;
	const char *metric[DIFF_METRICS]; /* names in the JSON; NULL: computed */
	const char *label[DIFF_METRICS];  /* CSV and JSON names */
	const char *col[DIFF_METRICS];    /* the tables' columns */
	int time[DIFF_METRICS];
	int sort;
} dtable;

static const dtable tables[] = {
    {"functions",
     "Functions by the change of exclusive time",
     "function",
     {"calls", "incl_ns", "excl_ns"},
     {"calls", "incl_ns", "excl_ns"},
     {"calls", "incl", "excl"},
     {0, 1, 1},
     2},
    {"locks",
     "Locks by the change of wait time",
     "lock",
     {"acquisitions", "contended", "wait_ns"},
     {"acquisitions", "contended", "wait_ns"},
     {"acquired", "contended", "wait"},
     {0, 0, 1},
     2},
    {"threads",
     "Threads by the change of lifetime",
     "thread",
     {"lifetime_ns", "running_ns", NULL},
     {"lifetime_ns", "running_ns", "waiting_ns"},
     {"lifetime", "running", "waiting"},
     {1, 1, 1},
     0},
};

typedef struct drow {
	char *key;  /* matches rows across the sides */
	char *name; /* shown */
	double v[2][DIFF_METRICS];
	int in[2];
} drow;

typedef struct dside_row {
	char *key, *name;
	double v[DIFF_METRICS];
} dside_row;

/* "prog pid 7000 tid 7001 (worker)" -> "prog (worker)": what a thread is,
 * without the numbers a new run changes. */
static char *thread_key(const char *name)
{
	char *k = strdup(name ? name : "");
	if (!k)
		return NULL;
	/* a thread no name names is labelled by its creator's tid */
	static const char *const drop[] = {" pid ", " tid ", "created by "};
	for (int d = 0; d < 3; d++) {
		char *p = strstr(k, drop[d]);
		if (!p)
			continue;
		char *e = p + strlen(drop[d]);
		while (*e >= '0' && *e <= '9')
			e++;
		if (d == 2)
			p += strlen("created by"); /* "(created by)" */
		memmove(p, e, strlen(e) + 1);
	}
	return k;
}

static int row_of(const dtable *t, const pt_json *r, dside_row *out)
{
	memset(out, 0, sizeof *out);
	for (int m = 0; m < DIFF_METRICS; m++)
		out->v[m] = t->metric[m] ? pt_json_num(r, t->metric[m]) : 0;
	const char *name = pt_json_strv(r, "name");
	if (t == &tables[0]) {
		const char *file = pt_json_strv(r, "file");
		if (asprintf(&out->key, "%s\x1f%s", name ? name : "?", file ? file : "") < 0)
			out->key = NULL;
		out->name = strdup(name ? name : "?");
	} else if (t == &tables[1]) {
		const char *kind = pt_json_strv(r, "kind"), *obj = pt_json_strv(r, "object");
		if (asprintf(&out->key, "%s %s", kind ? kind : "lock", obj ? obj : "?") < 0)
			out->key = NULL;
		out->name = out->key ? strdup(out->key) : NULL;
	} else {
		static const char *const waits[] = {"wait_lock_ns", "wait_cond_ns", "wait_join_ns",
		                                    "wait_barrier_ns"};
		for (int w = 0; w < 4; w++)
			out->v[2] += pt_json_num(r, waits[w]);
		out->key = thread_key(name);
		out->name = out->key ? strdup(out->key) : NULL;
	}
	return out->key && out->name ? 0 : -1;
}

static int cmp_side(const void *a, const void *b)
{
	return strcmp(((const dside_row *)a)->key, ((const dside_row *)b)->key);
}

static void free_side(dside_row *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].name);
	}
	free(v);
}

/* A side's rows, sorted by key; threads of one label numbered "#2", ... in
 * their order in the profile. NULL with *n = 0: none; (size_t)-1: ENOMEM. */
static dside_row *side_rows(const dtable *t, const pt_json *profile, size_t *n)
{
	const pt_json *arr = pt_json_get(profile, t->member);
	*n = 0;
	if (!arr || arr->type != PT_JSON_ARRAY || !arr->n)
		return NULL;
	dside_row *v = calloc(arr->n, sizeof *v);
	if (!v)
		goto oom;
	for (size_t i = 0; i < arr->n; i++, (*n)++)
		if (row_of(t, &arr->kids[i], &v[i]))
			goto oom;
	/* from the last, so that the keys compared are not numbered yet */
	for (size_t i = t == &tables[2] ? *n : 0; i-- > 0;) {
		unsigned k = 1;
		for (size_t j = 0; j < i; j++)
			k += !strcmp(v[j].key, v[i].key);
		char *key;
		if (k > 1 && asprintf(&key, "%s #%u", v[i].key, k) >= 0) {
			free(v[i].key);
			free(v[i].name);
			v[i].key = key;
			v[i].name = strdup(key);
			if (!v[i].name)
				goto oom;
		}
	}
	pt_qsort(v, *n, sizeof *v, cmp_side);
	return v;
oom:
	free_side(v, *n + (v && *n < arr->n));
	*n = (size_t)-1;
	return NULL;
}

static const dtable *sort_t;
static double delta(const drow *r, int m)
{
	return r->v[1][m] - r->v[0][m];
}

static int cmp_change(const void *a, const void *b)
{
	const drow *x = a, *y = b;
	double dx = fabs(delta(x, sort_t->sort)), dy = fabs(delta(y, sort_t->sort));
	if (dx != dy)
		return dx > dy ? -1 : 1;
	for (int m = 0; m < DIFF_METRICS; m++) {
		dx = fabs(delta(x, m));
		dy = fabs(delta(y, m));
		if (dx != dy)
			return dx > dy ? -1 : 1;
	}
	return strcmp(x->key, y->key);
}

/* Both sides' rows merged by key, by the biggest change. */
static drow *merge(const dtable *t, const pt_diff_side *s[2], size_t *nout)
{
	size_t n[2];
	dside_row *v[2];
	*nout = 0;
	v[0] = side_rows(t, s[0]->profile, &n[0]);
	v[1] = side_rows(t, s[1]->profile, &n[1]);
	drow *out = NULL;
	if (n[0] == (size_t)-1 || n[1] == (size_t)-1)
		goto done;
	out = calloc(n[0] + n[1] + 1, sizeof *out);
	if (!out)
		goto done;
	size_t i = 0, j = 0;
	while (i < n[0] || j < n[1]) {
		int c = i == n[0] ? 1 : j == n[1] ? -1 : strcmp(v[0][i].key, v[1][j].key);
		drow *r = &out[(*nout)++];
		dside_row *from = c <= 0 ? &v[0][i] : &v[1][j];
		r->key = from->key;
		r->name = from->name;
		from->key = from->name = NULL;
		if (c <= 0) {
			memcpy(r->v[0], v[0][i].v, sizeof r->v[0]);
			r->in[0] = 1;
			i++;
		}
		if (c >= 0) {
			memcpy(r->v[1], v[1][j].v, sizeof r->v[1]);
			r->in[1] = 1;
			free(v[1][j].key);
			free(v[1][j].name);
			v[1][j].key = v[1][j].name = NULL;
			j++;
		}
	}
	sort_t = t;
	pt_qsort(out, *nout, sizeof *out, cmp_change);
done:
	free_side(v[0], n[0] == (size_t)-1 ? 0 : n[0]);
	free_side(v[1], n[1] == (size_t)-1 ? 0 : n[1]);
	return out;
}

static void free_rows(drow *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].key);
		free(r[i].name);
	}
	free(r);
}

/* "x1.50", "new", "gone", "-" (0 both), into buf; the JSON's number or
 * null through *num. */
static const char *ratio(const drow *r, int m, char *buf, size_t len, double *num)
{
	double a = r->v[0][m], b = r->v[1][m];
	*num = NAN;
	if (!r->in[0])
		return "new";
	if (!r->in[1])
		return "gone";
	if (a == 0)
		return b == 0 ? "-" : "new";
	*num = b / a;
	snprintf(buf, len, "x%.2f", *num);
	return buf;
}

static void fmt_value(char *buf, size_t len, double v, int time)
{
	if (time)
		pt_fmt_dur(buf, len, (uint64_t)(v > 0 ? v : 0));
	else
		snprintf(buf, len, "%.0f", v);
}

static void fmt_delta(char *buf, size_t len, double d, int time)
{
	if (len < 2)
		return;
	buf[0] = d > 0 ? '+' : d < 0 ? '-' : 0;
	fmt_value(buf + (buf[0] != 0), len - 1, fabs(d), time);
}

static void text_table(const dtable *t, const drow *r, size_t n, unsigned top, FILE *o)
{
	int s = t->sort;
	size_t show = top && top < n ? top : n, changed = 0;
	for (size_t i = 0; i < n; i++)
		changed += delta(&r[i], s) != 0 || r[i].in[0] != r[i].in[1];
	if (!n)
		return;
	fprintf(o, "\n%s (B - A): %zu of %zu changed\n", t->title, changed, n);
	char ca[32], cb[32];
	snprintf(ca, sizeof ca, "%s A", t->col[s]);
	snprintf(cb, sizeof cb, "%s B", t->col[s]);
	fprintf(o, "%-32s %10s %10s %9s %7s", t->what, ca, cb, "B - A", "B/A");
	for (int m = 0; m < DIFF_METRICS; m++)
		if (m != s) {
			snprintf(ca, sizeof ca, "%s A", t->col[m]);
			snprintf(cb, sizeof cb, "%s B", t->col[m]);
			fprintf(o, "  %12s %12s", ca, cb);
		}
	fputc('\n', o);
	for (size_t i = 0; i < show; i++) {
		char name[256], a[32], b[32], d[32], q[32];
		double num;
		pt_name_fit(name, sizeof name, r[i].name, 32);
		fmt_value(a, sizeof a, r[i].v[0][s], t->time[s]);
		fmt_value(b, sizeof b, r[i].v[1][s], t->time[s]);
		fmt_delta(d, sizeof d, delta(&r[i], s), t->time[s]);
		fprintf(o, "%-32s %9s %9s %9s %7s", name, r[i].in[0] ? a : "-",
		        r[i].in[1] ? b : "-", d, ratio(&r[i], s, q, sizeof q, &num));
		for (int m = 0; m < DIFF_METRICS; m++)
			if (m != s) {
				fmt_value(a, sizeof a, r[i].v[0][m], t->time[m]);
				fmt_value(b, sizeof b, r[i].v[1][m], t->time[m]);
				fprintf(o, "  %12s %12s", r[i].in[0] ? a : "-",
				        r[i].in[1] ? b : "-");
			}
		fputc('\n', o);
	}
}

static void csv_table(const dtable *t, const drow *r, size_t n, FILE *o)
{
	fputs("table,name,in_a,in_b", o);
	for (int m = 0; m < DIFF_METRICS; m++)
		fprintf(o, ",%s_a,%s_b,%s_delta,%s_ratio", t->label[m], t->label[m], t->label[m],
		        t->label[m]);
	fputc('\n', o);
	for (size_t i = 0; i < n; i++) {
		fprintf(o, "%s,", t->what);
		pt_csv_str(o, r[i].name);
		fprintf(o, ",%d,%d", r[i].in[0], r[i].in[1]);
		for (int m = 0; m < DIFF_METRICS; m++) {
			char q[32];
			double num;
			ratio(&r[i], m, q, sizeof q, &num);
			fprintf(o, ",%.0f,%.0f,%.0f,", r[i].v[0][m], r[i].v[1][m], delta(&r[i], m));
			if (!isnan(num))
				fprintf(o, "%.6f", num);
		}
		fputc('\n', o);
	}
	fputc('\n', o);
}

static void json_table(const dtable *t, const drow *r, size_t n, FILE *o)
{
	fprintf(o, ",\n \"%s\": [", t->member);
	for (size_t i = 0; i < n; i++) {
		fprintf(o, "%s\n  {\"name\": ", i ? "," : "");
		pt_json_str(o, r[i].name);
		fprintf(o, ", \"in_a\": %s, \"in_b\": %s", r[i].in[0] ? "true" : "false",
		        r[i].in[1] ? "true" : "false");
		for (int m = 0; m < DIFF_METRICS; m++) {
			char q[32];
			double num;
			ratio(&r[i], m, q, sizeof q, &num);
			fprintf(o,
			        ", \"%s\": {\"a\": %.0f, \"b\": %.0f, \"delta\": %.0f, \"ratio\": ",
			        t->label[m], r[i].v[0][m], r[i].v[1][m], delta(&r[i], m));
			if (isnan(num))
				fputs("null}", o);
			else
				fprintf(o, "%.6f}", num);
		}
		fputc('}', o);
	}
	fputs("\n ]", o);
}

static void header(const pt_diff_side *s[2], int format, FILE *o)
{
	static const char *const ab[] = {"A", "B"};
	if (format == PT_DIFF_JSON) {
		fputs("{\"a\": ", o);
		pt_json_str(o, s[0]->label);
		fputs(", \"b\": ", o);
		pt_json_str(o, s[1]->label);
		fprintf(o, ", \"total_thread_ns\": {\"a\": %.0f, \"b\": %.0f}",
		        pt_json_num(s[0]->profile, "total_thread_ns"),
		        pt_json_num(s[1]->profile, "total_thread_ns"));
		return;
	}
	if (format == PT_DIFF_CSV)
		return;
	for (int k = 0; k < 2; k++) {
		char name[1024], d[32];
		pt_text_fit(name, sizeof name, s[k]->label, 200, 1);
		pt_fmt_dur(d, sizeof d, (uint64_t)pt_json_num(s[k]->profile, "total_thread_ns"));
		fprintf(o, "%s: %s (%s of thread time)\n", ab[k], name, d);
	}
}

int pt_diff_print(const pt_diff_side *a, const pt_diff_side *b, int format, unsigned top, FILE *o,
                  char *err, size_t errlen)
{
	const pt_diff_side *s[2] = {a, b};
	for (int k = 0; k < 2; k++)
		if (!pt_json_get(s[k]->profile, "functions") ||
		    !pt_json_get(s[k]->profile, "threads")) {
			snprintf(err, errlen,
			         "%s: not a profile ('paratrace report --json' writes one)",
			         s[k]->label);
			return -1;
		}
	header(s, format, o);
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
		size_t n;
		drow *r = merge(&tables[t], s, &n);
		if (!r) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (format == PT_DIFF_JSON)
			json_table(&tables[t], r, n, o);
		else if (format == PT_DIFF_CSV)
			csv_table(&tables[t], r, n, o);
		else
			text_table(&tables[t], r, n, top, o);
		free_rows(r, n);
	}
	if (format == PT_DIFF_JSON)
		fputs("\n}\n", o);
	return 0;
}
