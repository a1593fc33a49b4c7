/* SPDX-License-Identifier: MIT */
/* What part of a trace an output shows (`analyze` and `export` options,
 * docs/ANALYZER.md "Selecting what is written"): calls (shorter than a
 * duration, or of functions a regular expression names or leaves out), a
 * time window, and rows (threads, processes). The profile never uses it:
 * it always counts everything.
 *
 * The CLI parses the options into a pt_select and hands it to the
 * framework (pt_fw_options.select); built-in tools read it back through
 * pt_fw_select() (pt_framework.h), with the window already placed in the
 * run (percentages need the run's extent, known after the process logs
 * are read). */
#ifndef PT_SELECT_H
#define PT_SELECT_H

#include <paratrace/tool.h>
#include <regex.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pt_sel_range {
	uint64_t lo, hi; /* inclusive */
	int row;         /* threads: 1 = Paraver row numbers, 0 = tids */
} pt_sel_range;

typedef struct pt_select {
	/* calls */
	uint64_t min_ns; /* calls shorter than this are left out; 0: none */
	int has_include, has_exclude;
	regex_t include, exclude; /* on the demangled name (POSIX extended) */
	/* the time window: ns since the start of the run, or parts per
	 * billion of the run when *_pct (resolved by pt_select_place) */
	int has_from, has_to, from_pct, to_pct;
	uint64_t from, to;
	/* rows */
	pt_sel_range *threads, *procs;
	size_t nthreads, nprocs;
	/* placed in the run (absolute ns, inclusive); 0 and UINT64_MAX when
	 * no window was asked for */
	uint64_t win_lo, win_hi;
} pt_select;

/* Option parsers: 0, or -1 with a message in err. */
/* "250ns", "1.5us", "2ms", "0.5s"; a bare number is ns. */
int pt_select_parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen);
/* --from / --to: a duration since the start of the run, or "25%". */
int pt_select_set_time(pt_select *sel, int to, const char *s, char *err, size_t errlen);
/* --include / --exclude REGEX */
int pt_select_set_regex(pt_select *sel, int exclude, const char *re, char *err, size_t errlen);
/* --threads LIST (tids "7001,7003-7005", rows "r1-4"), --processes LIST (pids) */
int pt_select_add_list(pt_select *sel, int procs, const char *list, char *err, size_t errlen);
void pt_select_free(pt_select *sel);

/* Places the window in a run of [t0, end] (absolute ns): 0, or -1 with a
 * message when it holds nothing. */
int pt_select_place(pt_select *sel, uint64_t t0, uint64_t end, char *err, size_t errlen);

/* Anything about calls asked for (then outputs leave calls out). */
static inline int pt_select_calls(const pt_select *sel)
{
	return sel && (sel->min_ns || sel->has_include || sel->has_exclude);
}
static inline int pt_select_window(const pt_select *sel)
{
	return sel && (sel->has_from || sel->has_to);
}
/* 1 if the shard's row is written. */
int pt_select_shard(const pt_select *sel, const pt_shard_info *shard);
/* 1 if the rows are a subset of the trace's. */
static inline int pt_select_rows(const pt_select *sel)
{
	return sel && (sel->nthreads || sel->nprocs);
}

/* Per-shard cache of which functions --include/--exclude leave out
 * (function ids grow while shards run, as code addresses are resolved). */
typedef struct pt_sel_funcs {
	const pt_select *sel;
	const pt_trace_ctx *ctx;
	uint8_t *v; /* [id]: 0 not looked up, 1 kept, 2 left out */
	size_t n;
} pt_sel_funcs;

void pt_sel_funcs_init(pt_sel_funcs *f, const pt_select *sel, const pt_trace_ctx *ctx);
void pt_sel_funcs_free(pt_sel_funcs *f);
int pt_sel_funcs_lookup(pt_sel_funcs *f, uint32_t id);
/* 1 if calls of function `id` are left out whatever their duration. */
static inline int pt_sel_func_left(pt_sel_funcs *f, uint32_t id)
{
	if (!f->sel || !(f->sel->has_include || f->sel->has_exclude))
		return 0;
	if (id < f->n && f->v[id])
		return f->v[id] == 2;
	return pt_sel_funcs_lookup(f, id);
}

/* "2.1 us", "350 ns", "1.20 ms" (3 significant digits) into buf. */
const char *pt_fmt_ns(uint64_t ns, char *buf, size_t len);

#endif
