/* SPDX-License-Identifier: MIT */
/* Parsing and testing a selection (pt_select.h). */
#define _GNU_SOURCE
#include "pt_select.h"

#include "pt_fw_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A non-negative decimal number with an optional fraction; *end after it.
 * -1 on anything else. */
static int parse_decimal(const char *s, double *v, const char **end)
{
	if (!(*s >= '0' && *s <= '9') && *s != '.')
		return -1;
	char *e;
	errno = 0;
	double x = strtod(s, &e);
	if (errno || e == s || !isfinite(x) || x < 0)
		return -1;
	/* strtod also reads hex and exponents: only digits and one dot */
	for (const char *p = s; p < e; p++)
		if (!(*p >= '0' && *p <= '9') && *p != '.')
			return -1;
	*v = x;
	*end = e;
	return 0;
}

static int unit_ns(const char *u, double *mult)
{
	static const struct {
		const char *name;
		double mult;
	} units[] = {{"", 1}, {"ns", 1}, {"us", 1e3}, {"\xc2\xb5s", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(u, units[i].name)) {
			*mult = units[i].mult;
			return 0;
		}
	return -1;
}

int pt_select_parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	double v, mult;
	const char *e;
	if (parse_decimal(s, &v, &e) || unit_ns(e, &mult) || v * mult >= 1.8e19) {
		snprintf(err, errlen, "'%s' is not a duration (e.g. 500ns, 2.5us, 10ms, 1s)", s);
		return -1;
	}
	*ns = (uint64_t)llround(v * mult);
	return 0;
}

int pt_select_set_time(pt_select *sel, int to, const char *s, char *err, size_t errlen)
{
	size_t n = strlen(s);
	uint64_t v;
	int pct = n > 1 && s[n - 1] == '%';
	if (pct) {
		double x;
		const char *e;
		if (parse_decimal(s, &x, &e) || e != s + n - 1 || x > 100) {
			snprintf(err, errlen, "'%s' is not a share of the run (0%% to 100%%)", s);
			return -1;
		}
		v = (uint64_t)llround(x * 1e7); /* parts per billion */
	} else if (pt_select_parse_duration(s, &v, err, errlen)) {
		snprintf(err, errlen,
		         "'%s' is not a time since the start of the run (e.g. 1.5ms, 2s) or a "
		         "share of it (25%%)",
		         s);
		return -1;
	}
	if (to) {
		sel->has_to = 1;
		sel->to_pct = pct;
		sel->to = v;
	} else {
		sel->has_from = 1;
		sel->from_pct = pct;
		sel->from = v;
	}
	return 0;
}

int pt_select_set_regex(pt_select *sel, int exclude, const char *re, char *err, size_t errlen)
{
	regex_t *r = exclude ? &sel->exclude : &sel->include;
	int *has = exclude ? &sel->has_exclude : &sel->has_include;
	if (*has) {
		snprintf(err, errlen, "only one --%s (combine with |)",
		         exclude ? "exclude" : "include");
		return -1;
	}
	int rc = regcomp(r, re, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[256];
		regerror(rc, r, msg, sizeof msg);
		snprintf(err, errlen, "bad regular expression '%s': %s", re, msg);
		return -1;
	}
	*has = 1;
	return 0;
}

static int parse_u64(const char *s, const char **end, uint64_t *v)
{
	if (*s < '0' || *s > '9')
		return -1;
	char *e;
	errno = 0;
	unsigned long long x = strtoull(s, &e, 10);
	if (errno)
		return -1;
	*v = x;
	*end = e;
	return 0;
}

int pt_select_add_list(pt_select *sel, int procs, const char *list, char *err, size_t errlen)
{
	const char *p = list;
	for (;;) {
		pt_sel_range r = {0, 0, 0};
		if (!procs && (*p == 'r' || *p == 'R')) {
			r.row = 1;
			p++;
		}
		const char *e;
		if (parse_u64(p, &e, &r.lo))
			goto bad;
		r.hi = r.lo;
		p = e;
		if (*p == '-') {
			p++;
			if (r.row && (*p == 'r' || *p == 'R'))
				p++;
			if (parse_u64(p, &e, &r.hi) || r.hi < r.lo)
				goto bad;
			p = e;
		}
		if (r.row && r.lo == 0)
			goto bad; /* rows count from 1 */
		pt_sel_range **v = procs ? &sel->procs : &sel->threads;
		size_t *nv = procs ? &sel->nprocs : &sel->nthreads;
		pt_sel_range *nr = realloc(*v, (*nv + 1) * sizeof *nr);
		if (!nr) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		nr[(*nv)++] = r;
		*v = nr;
		if (!*p)
			return 0;
		if (*p++ != ',')
			goto bad;
	}
bad:
	snprintf(err, errlen,
	         procs ? "'%s' is not a list of pids (e.g. 4711,4720-4725)"
	               : "'%s' is not a list of tids or rows (e.g. 4711,4713-4715 or r1-4)",
	         list);
	return -1;
}

void pt_select_free(pt_select *sel)
{
	if (sel->has_include)
		regfree(&sel->include);
	if (sel->has_exclude)
		regfree(&sel->exclude);
	free(sel->threads);
	free(sel->procs);
	memset(sel, 0, sizeof *sel);
}

static uint64_t place(uint64_t v, int pct, uint64_t t0, uint64_t end)
{
	if (!pct)
		return t0 + v > t0 ? t0 + v : UINT64_MAX;
	long double span = (long double)(end - t0);
	return t0 + (uint64_t)(span * (long double)v / 1e9L + 0.5L);
}

int pt_select_place(pt_select *sel, uint64_t t0, uint64_t end, char *err, size_t errlen)
{
	sel->win_lo = 0;
	sel->win_hi = UINT64_MAX;
	if (!pt_select_window(sel))
		return 0;
	if (end < t0)
		end = t0;
	sel->win_lo = sel->has_from ? place(sel->from, sel->from_pct, t0, end) : t0;
	if (sel->has_to)
		sel->win_hi = place(sel->to, sel->to_pct, t0, end);
	if (sel->win_hi <= sel->win_lo || sel->win_lo > end) {
		char a[32], b[32], c[32];
		snprintf(err, errlen, "the window --from %s --to %s holds nothing of a run of %s",
		         pt_fmt_ns(sel->win_lo - t0, a, sizeof a),
		         sel->win_hi == UINT64_MAX ? "(end)"
		                                   : pt_fmt_ns(sel->win_hi - t0, b, sizeof b),
		         pt_fmt_ns(end - t0, c, sizeof c));
		return -1;
	}
	return 0;
}

static int in_ranges(const pt_sel_range *v, size_t n, int row, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].row == row && x >= v[i].lo && x <= v[i].hi)
			return 1;
	return 0;
}

int pt_select_shard(const pt_select *sel, const pt_shard_info *shard)
{
	if (!sel)
		return 1;
	if (sel->nprocs && !in_ranges(sel->procs, sel->nprocs, 0, shard->pid))
		return 0;
	if (!sel->nthreads)
		return 1;
	/* a GPU stream's row has no tid of its own: named by its row */
	return in_ranges(sel->threads, sel->nthreads, 1, shard->row) ||
	       (shard->kind != PT_FILE_GPU &&
	        in_ranges(sel->threads, sel->nthreads, 0, shard->tid));
}

void pt_sel_funcs_init(pt_sel_funcs *f, const pt_select *sel, const pt_trace_ctx *ctx)
{
	memset(f, 0, sizeof *f);
	f->sel = sel;
	f->ctx = ctx;
}

void pt_sel_funcs_free(pt_sel_funcs *f)
{
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

int pt_sel_funcs_lookup(pt_sel_funcs *f, uint32_t id)
{
	const pt_select *sel = f->sel;
	const pt_func_info *fi = id && f->ctx ? pt_ctx_func_info(f->ctx, id) : NULL;
	const char *name = fi && fi->name ? fi->name : "";
	int left = (sel->has_include && regexec(&sel->include, name, 0, NULL, 0) != 0) ||
	           (sel->has_exclude && regexec(&sel->exclude, name, 0, NULL, 0) == 0);
	if (id >= f->n) {
		size_t n;
		uint8_t *v = pt_grow_zeroed(f->v, f->n, id, 1, 64, &n);
		if (!v)
			return left; /* not cached: asked again next time */
		f->v = v;
		f->n = n;
	}
	f->v[id] = left ? 2 : 1;
	return left;
}

const char *pt_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	static const char *const units[] = {"ns", "us", "ms", "s"};
	double v = (double)ns;
	int u = 0;
	while (u < 3 && v >= 1000) {
		v /= 1000;
		u++;
	}
	/* three digits: "350 ns", "2.10 us", "12.0 ms" */
	if (u == 0 || v >= 100)
		snprintf(buf, len, "%.0f %s", v, units[u]);
	else
		snprintf(buf, len, v >= 10 ? "%.1f %s" : "%.2f %s", v, units[u]);
	return buf;
}
