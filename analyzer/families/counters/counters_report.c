/* SPDX-License-Identifier: MIT */
/* The "counters" tool: counter totals per function, contention by call site,
 * a sampled flat profile. Contract in counters.h; record kinds in
 * <paratrace/format.h>; the Paraver events of the same records are in
 * counters_prv.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "counters_internal.h"

#include "pt_callstack.h"
#include "pt_func_lookup.h"
#include "pt_names.h"
#include "pt_text.h"
#include "tools.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define CT_SITE_DEPTH 3 /* frames that tell one call site from another */

enum { SITE_LOCK = 1, SITE_COND, SITE_CREATE };

typedef struct ct_site {
	int kind;
	size_t process;
	int n;
	uint64_t pcs[CT_SITE_DEPTH];
	uint64_t count, wait_ns, max_ns;
} ct_site;

typedef struct ct_tool {
	const pt_trace_ctx *ctx;
	ct_syms syms;
	pthread_mutex_t lock; /* everything below */
	ct_counters counters;
	/* [fid * CT_MAXC + counter]; fid 0 = outside any traced function */
	uint64_t *excl, *incl;
	size_t fcap; /* functions the arrays hold */
	ct_site *sites;
	size_t nsites, sites_cap;
	ct_pcmap samples;
	uint64_t nsamples, lost_samples, period_ns;
	uint64_t sampled_threads;
	int has_callstacks;
} ct_tool;

typedef struct ct_shard {
	ct_tool *tool;
	const pt_shard_info *info;
	pt_func_lookup fl;
	int gidx[256]; /* COUNTER_DEF index -> global counter, -1 unknown */
	pt_callstack calls;
	/* The stack's depth before the last record other than a CALLSTACK,
	 * when that record was a function record (frames it closed are still
	 * readable above the depth); SIZE_MAX otherwise. A COUNTERS record
	 * right after it counts the stack as it was before (see add_counters). */
	size_t count_depth;
	/* add_counters' "seen in this read" marks per function, so a
	 * recursive function's inclusive counts are added once */
	uint64_t *mark;
	size_t mark_cap;
	uint64_t reads;
	uint64_t *excl, *incl;
	size_t fcap;
	/* the sync record a CALLSTACK may follow */
	unsigned last_kind;
	int sync_kind, sync_has_stack, sync_n;
	uint64_t sync_t, sync_obj, sync_pcs[CT_SITE_DEPTH];
	ct_site *sites;
	size_t nsites, sites_cap;
	ct_pcmap samples;
	uint64_t nsamples, lost_samples, period_ns;
	char err[256];
} ct_shard;

static int ct_process_event(void *tool, size_t process, const pt_event *ev)
{
	return ct_syms_add(&((ct_tool *)tool)->syms, process, ev);
}

static void *ct_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	(void)options;
	ct_tool *t = calloc(1, sizeof *t);
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->ctx = ctx;
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

static void *ct_shard_init(void *tool, const pt_shard_info *shard, char *err, size_t errlen)
{
	ct_shard *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->tool = tool;
	s->info = shard;
	pt_func_lookup_init(&s->fl, s->tool->ctx, shard->process);
	pt_callstack_init(&s->calls, shard->header);
	s->count_depth = SIZE_MAX;
	for (int i = 0; i < 256; i++)
		s->gidx[i] = -1;
	return s;
}

static int shard_fail(ct_shard *s, const char *msg)
{
	snprintf(s->err, sizeof s->err, "%s", msg);
	return -1;
}

static int fcap_for(ct_shard *s, uint32_t fid)
{
	size_t cap = s->fcap;
	if (ct_grow((void **)&s->excl, &cap, (size_t)fid + 1, CT_MAXC * sizeof(uint64_t)))
		return -1;
	cap = s->fcap;
	if (ct_grow((void **)&s->incl, &cap, (size_t)fid + 1, CT_MAXC * sizeof(uint64_t)))
		return -1;
	s->fcap = cap;
	return 0;
}

/* The counters read nothing when frames begin or end: only the stack. */
static const pt_callstack_ops ct_calls = {NULL, NULL};

static inline int stack_func(ct_shard *s, const pt_event *ev)
{
	int enter;
	uint32_t fid = pt_event_func(ev, &s->fl, &enter);
	s->count_depth = s->calls.depth;
	if (!pt_callstack_step(&s->calls, fid, enter, ev->time_ns)) {
		pt_callstack_func(&s->calls, fid, enter, ev->time_ns, &ct_calls, s);
		if (s->calls.oom)
			return -1;
	}
	return 0;
}

/* Deltas cover the time since the previous read, spent by the stack as it
 * was before the record the COUNTERS record follows: an entry's frame is
 * not on it yet, an exit's frame still is. */
static int add_counters(ct_shard *s, const pt_event *ev)
{
	const pt_rec_head *h = ev->rec;
	const uint64_t *v = (const uint64_t *)(const void *)(h + 1);
	unsigned n = h->arg;
	if (ev->size < sizeof *h + (size_t)n * 8)
		return shard_fail(s, "COUNTERS record shorter than its count");
	size_t depth = s->count_depth != SIZE_MAX ? s->count_depth : s->calls.depth;
	const uint32_t *stack = s->calls.ids;
	uint32_t top = depth ? stack[depth - 1] : 0, most = top;
	for (size_t d = 0; d < depth; d++)
		if (stack[d] > most)
			most = stack[d];
	if (fcap_for(s, most) ||
	    ct_grow((void **)&s->mark, &s->mark_cap, (size_t)most + 1, sizeof *s->mark))
		return shard_fail(s, "out of memory");
	uint64_t read = ++s->reads;
	for (unsigned i = 0; i < n; i++) {
		int g = s->gidx[i];
		if (g < 0)
			continue;
		s->excl[(size_t)top * CT_MAXC + g] += v[i];
		if (!depth)
			s->incl[g] += v[i];
	}
	/* inclusive: every function on the stack, once however often it recurs */
	for (size_t d = 0; d < depth; d++) {
		uint32_t f = stack[d];
		if (s->mark[f] == read)
			continue;
		s->mark[f] = read;
		for (unsigned i = 0; i < n; i++)
			if (s->gidx[i] >= 0)
				s->incl[(size_t)f * CT_MAXC + s->gidx[i]] += v[i];
	}
	return 0;
}

static int add_site(ct_shard *s, int kind, uint64_t wait_ns)
{
	size_t i;
	for (i = 0; i < s->nsites; i++) {
		ct_site *x = &s->sites[i];
		if (x->kind == kind && x->n == s->sync_n &&
		    !memcmp(x->pcs, s->sync_pcs, (size_t)s->sync_n * sizeof x->pcs[0]))
			break;
	}
	if (i == s->nsites) {
		if (ct_grow((void **)&s->sites, &s->sites_cap, s->nsites + 1, sizeof *s->sites))
			return -1;
		ct_site *x = &s->sites[s->nsites++];
		x->kind = kind;
		x->process = s->info->process;
		x->n = s->sync_n;
		memcpy(x->pcs, s->sync_pcs, sizeof x->pcs);
	}
	ct_site *x = &s->sites[i];
	x->count++;
	x->wait_ns += wait_ns;
	if (wait_ns > x->max_ns)
		x->max_ns = wait_ns;
	return 0;
}

/* A CALLSTACK record: the call site of the sync record just before it. */
static int callstack_record(ct_shard *s, const pt_event *ev)
{
	const pt_rec_head *h = ev->rec;
	size_t n = h->arg;
	if (ev->size < sizeof *h + n * 8)
		return shard_fail(s, "CALLSTACK record shorter than its count");
	s->tool->has_callstacks = 1; /* a flag set, never cleared: benign race */
	const uint64_t *pcs = (const uint64_t *)(const void *)(h + 1);
	if (s->last_kind != PT_REC_LOCK_REQUEST && s->last_kind != PT_REC_COND_WAIT_BEGIN &&
	    s->last_kind != PT_REC_THREAD_CREATE)
		return 0;
	s->sync_n = n < CT_SITE_DEPTH ? (int)n : CT_SITE_DEPTH;
	memset(s->sync_pcs, 0, sizeof s->sync_pcs);
	memcpy(s->sync_pcs, pcs, (size_t)s->sync_n * 8);
	s->sync_has_stack = 1;
	if (s->sync_kind == SITE_CREATE) {
		if (add_site(s, SITE_CREATE, 0))
			return shard_fail(s, "out of memory");
		s->sync_has_stack = 0;
	}
	return 0;
}

/* Lock, condition and thread-creation records: where a call site (a
 * CALLSTACK record after them) starts and ends. */
static int sync_record(ct_shard *s, const pt_event *ev)
{
	unsigned kind = ev->kind;
	switch (kind) {
	case PT_REC_LOCK_REQUEST:
	case PT_REC_COND_WAIT_BEGIN: {
		const uint64_t *obj = PT_REC_PAYLOAD(ev->rec, uint64_t);
		s->sync_kind = kind == PT_REC_LOCK_REQUEST ? SITE_LOCK : SITE_COND;
		s->sync_t = ev->time_ns;
		s->sync_obj = obj ? *obj : 0;
		s->sync_has_stack = 0;
		break;
	}
	case PT_REC_THREAD_CREATE:
		s->sync_kind = SITE_CREATE;
		s->sync_has_stack = 0;
		break;
	default: { /* LOCK_ACQUIRED, LOCK_FAILED, COND_WAIT_END */
		int want = kind == PT_REC_COND_WAIT_END ? SITE_COND : SITE_LOCK;
		if (s->sync_has_stack && s->sync_kind == want) {
			uint64_t wait = ev->time_ns > s->sync_t ? ev->time_ns - s->sync_t : 0;
			if (add_site(s, want, wait))
				return shard_fail(s, "out of memory");
		}
		s->sync_has_stack = 0;
		break;
	}
	}
	return 0;
}

/* SAMPLING_START, SAMPLE, and LOST records (samples dropped in the runtime). */
static int sample_record(ct_shard *s, const pt_event *ev)
{
	const pt_rec_head *h = ev->rec;
	switch (ev->kind) {
	case PT_REC_SAMPLING_START: {
		const pt_rec_sampling_start *p = PT_REC_PAYLOAD(h, pt_rec_sampling_start);
		if (p)
			s->period_ns = p->period_ns;
		break;
	}
	case PT_REC_SAMPLE: {
		const pt_rec_sample *p = PT_REC_PAYLOAD(h, pt_rec_sample);
		if (!p)
			return shard_fail(s, "SAMPLE record without a pc");
		if (ct_pcmap_add(&s->samples, s->info->process, p->pc, 1))
			return shard_fail(s, "out of memory");
		s->nsamples++;
		break;
	}
	case PT_REC_LOST: {
		const pt_rec_lost *p = PT_REC_PAYLOAD(h, pt_rec_lost);
		if (p && p->reason == PT_LOST_REENTRANT && s->period_ns)
			s->lost_samples += p->records;
		break;
	}
	}
	return 0;
}

static int ct_shard_event(void *state, const pt_event *ev)
{
	ct_shard *s = state;
	const pt_rec_head *h = ev->rec;
	unsigned kind = ev->kind;
	int rc = 0;
	/* the four function kinds, consecutive (format.h): the bulk, first;
	 * then a longjmp's landing */
	if ((kind >= PT_REC_FUNC_ENTER && kind <= PT_REC_FUNC_EXIT_PC) ||
	    kind == PT_REC_FUNC_LANDED) {
		if (stack_func(s, ev))
			return shard_fail(s, "out of memory");
		s->last_kind = kind;
		return 0;
	}
	pt_callstack_record(&s->calls, ev, &ct_calls, s);
	if (kind == PT_REC_COUNTERS) {
		rc = add_counters(s, ev);
		s->count_depth = SIZE_MAX;
		return rc;
	}
	if (kind == PT_REC_CALLSTACK)
		return callstack_record(s, ev); /* last_kind stays the sync record's */
	s->count_depth = SIZE_MAX;
	switch (kind) {
	case PT_REC_COUNTER_DEF: {
		const pt_rec_counter_def *d = PT_REC_PAYLOAD(h, pt_rec_counter_def);
		const char *name = d ? pt_event_string(ev, sizeof *d) : NULL;
		if (!name)
			return shard_fail(s, "COUNTER_DEF without a name");
		pthread_mutex_lock(&s->tool->lock);
		s->gidx[h->arg] = ct_counter_index(&s->tool->counters, d, name);
		pthread_mutex_unlock(&s->tool->lock);
		break;
	}
	case PT_REC_LOCK_REQUEST:
	case PT_REC_COND_WAIT_BEGIN:
	case PT_REC_THREAD_CREATE:
	case PT_REC_LOCK_ACQUIRED:
	case PT_REC_LOCK_FAILED:
	case PT_REC_COND_WAIT_END:
		rc = sync_record(s, ev);
		break;
	case PT_REC_SAMPLING_START:
	case PT_REC_SAMPLE:
	case PT_REC_LOST:
		rc = sample_record(s, ev);
		break;
	default:
		break;
	}
	s->last_kind = kind;
	return rc;
}

static const char *ct_shard_error(void *state)
{
	return ((ct_shard *)state)->err;
}

static int ct_shard_exit(void *state, uint64_t last_ns, int complete)
{
	(void)last_ns;
	(void)complete;
	ct_shard *s = state;
	ct_tool *t = s->tool;
	int ret = 0;
	pthread_mutex_lock(&t->lock);
	size_t cap = t->fcap;
	if (s->fcap && (ct_grow((void **)&t->excl, &cap, s->fcap, CT_MAXC * 8) ||
			(cap = t->fcap, ct_grow((void **)&t->incl, &cap, s->fcap, CT_MAXC * 8))))
		ret = -1;
	else if (s->fcap)
		t->fcap = cap;
	for (size_t i = 0; !ret && i < s->fcap * CT_MAXC; i++) {
		t->excl[i] += s->excl[i];
		t->incl[i] += s->incl[i];
	}
	for (size_t i = 0; !ret && i < s->nsites; i++) {
		ct_site *x = &s->sites[i];
		size_t j;
		for (j = 0; j < t->nsites; j++) {
			ct_site *y = &t->sites[j];
			if (y->kind == x->kind && y->process == x->process && y->n == x->n &&
			    !memcmp(y->pcs, x->pcs, sizeof x->pcs))
				break;
		}
		if (j == t->nsites) {
			if (ct_grow((void **)&t->sites, &t->sites_cap, t->nsites + 1, sizeof *t->sites)) {
				ret = -1;
				break;
			}
			t->sites[t->nsites] = *x;
			t->sites[t->nsites].count = t->sites[t->nsites].wait_ns = 0;
			t->sites[t->nsites].max_ns = 0;
			t->nsites++;
		}
		ct_site *y = &t->sites[j];
		y->count += x->count;
		y->wait_ns += x->wait_ns;
		if (x->max_ns > y->max_ns)
			y->max_ns = x->max_ns;
	}
	for (size_t i = 0; !ret && i < s->samples.cap; i++)
		if (s->samples.v[i].pc &&
		    ct_pcmap_add(&t->samples, s->samples.v[i].process, s->samples.v[i].pc,
			      s->samples.v[i].n))
			ret = -1;
	t->nsamples += s->nsamples;
	t->lost_samples += s->lost_samples;
	if (s->period_ns) {
		t->period_ns = s->period_ns;
		t->sampled_threads++;
	}
	pthread_mutex_unlock(&t->lock);
	pt_callstack_free(&s->calls);
	free(s->mark);
	free(s->excl);
	free(s->incl);
	free(s->sites);
	free(s->samples.v);
	pt_func_lookup_free(&s->fl);
	if (ret)
		snprintf(s->err, sizeof s->err, "out of memory");
	free(s);
	return ret;
}

/* ---- printing ---------------------------------------------------------- */

static int find_counter(const ct_counters *cs, uint32_t type, uint64_t config, const char *alt1,
			const char *alt2)
{
	for (int i = 0; i < cs->n; i++) {
		if (cs->v[i].flags & PT_COUNTER_MANUAL)
			continue;
		if ((cs->v[i].type == type && cs->v[i].config == config) ||
		    !strcmp(cs->v[i].name, alt1) || (alt2 && !strcmp(cs->v[i].name, alt2)))
			return i;
	}
	return -1;
}

typedef struct ct_row {
	uint32_t fid;
	uint64_t key;
} ct_row;

static int row_cmp(const void *a, const void *b)
{
	const ct_row *x = a, *y = b;
	return x->key < y->key ? 1 : x->key > y->key ? -1 : (x->fid > y->fid) - (x->fid < y->fid);
}

static void print_counters(ct_tool *t, FILE *out)
{
	ct_counters *cs = &t->counters;
	int shown = 0;
	for (int c = 0; c < cs->n; c++)
		shown += !(cs->v[c].flags & PT_COUNTER_MANUAL);
	if (!shown || !t->fcap)
		return;
	int ins = find_counter(cs, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions",
			       NULL);
	int cyc = find_counter(cs, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles",
			       "cpu-cycles");
	fprintf(out, "\nCounters per function (exclusive; inclusive in brackets)\n");
	/* Rows sorted by the first counter's exclusive total. */
	ct_row *rows = calloc(t->fcap, sizeof *rows);
	size_t nrows = 0;
	for (uint32_t f = 0; rows && f < t->fcap; f++) {
		uint64_t any = 0;
		for (int c = 0; c < cs->n; c++)
			any |= t->excl[(size_t)f * CT_MAXC + c] | t->incl[(size_t)f * CT_MAXC + c];
		if (any)
			rows[nrows++] = (ct_row){f, t->excl[(size_t)f * CT_MAXC]};
	}
	qsort(rows, nrows, sizeof *rows, row_cmp);
	fprintf(out, "  %-32s", "function");
	char esc[256];
	for (int c = 0; c < cs->n; c++)
		if (!(cs->v[c].flags & PT_COUNTER_MANUAL)) {
			pt_text_escape(esc, sizeof esc, cs->v[c].name);
			fprintf(out, " %26s", esc);
		}
	if (ins >= 0 && cyc >= 0)
		fprintf(out, " %6s", "IPC");
	for (int c = 0; ins >= 0 && c < cs->n; c++)
		if (strstr(cs->v[c].name, "miss") && !(cs->v[c].flags & PT_COUNTER_MANUAL)) {
			pt_text_escape(esc, sizeof esc, cs->v[c].name);
			fprintf(out, " %14s/1k", esc);
		}
	fputc('\n', out);
	for (size_t r = 0; r < nrows; r++) {
		uint32_t f = rows[r].fid;
		const pt_func_info *fi = f ? pt_ctx_func_info(t->ctx, f) : NULL;
		char name[64];
		pt_name_fit(name, sizeof name,
			    f == 0 ? "(outside traced functions)" : fi ? fi->name : "?", 32);
		fprintf(out, "  %-32s", name);
		const uint64_t *e = &t->excl[(size_t)f * CT_MAXC], *in = &t->incl[(size_t)f * CT_MAXC];
		for (int c = 0; c < cs->n; c++) {
			if (cs->v[c].flags & PT_COUNTER_MANUAL)
				continue;
			char buf[64];
			snprintf(buf, sizeof buf, "%" PRIu64 " [%" PRIu64 "]", e[c], in[c]);
			fprintf(out, " %26s", buf);
		}
		if (ins >= 0 && cyc >= 0) {
			if (e[cyc])
				fprintf(out, " %6.2f", (double)e[ins] / (double)e[cyc]);
			else
				fprintf(out, " %6s", "-");
		}
		for (int c = 0; ins >= 0 && c < cs->n; c++) {
			if (!strstr(cs->v[c].name, "miss") || (cs->v[c].flags & PT_COUNTER_MANUAL))
				continue;
			if (e[ins])
				fprintf(out, " %17.3f", 1000.0 * (double)e[c] / (double)e[ins]);
			else
				fprintf(out, " %17s", "-");
		}
		fputc('\n', out);
	}
	free(rows);
	for (int c = 0; c < cs->n; c++)
		if (cs->v[c].flags & PT_COUNTER_USER_ONLY) {
			fputs("  (", out);
			pt_text_put(out, cs->v[c].name, 0);
			fputs(" counts user space only: perf_event_paranoid)\n", out);
		}
}

static void frame_text(const ct_tool *t, char *buf, size_t len, size_t process, uint64_t pc)
{
	pt_sym s;
	const char *file;
	unsigned line;
	if (ct_sym_of(&t->syms, process, pc, 1, &s) != 0)
		snprintf(buf, len, "0x%" PRIx64, pc);
	else if (ct_line_of(&t->syms, process, pc, 1, &file, &line) == 0)
		snprintf(buf, len, "%s (%s:%u)", s.name, ct_base_name(file), line);
	else
		snprintf(buf, len, "%s", s.name);
}

typedef struct ct_site_row {
	int kind;
	char *text;
	uint64_t count, wait_ns, max_ns;
} ct_site_row;

static int site_row_cmp(const void *a, const void *b)
{
	const ct_site_row *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	if (x->wait_ns != y->wait_ns)
		return x->wait_ns < y->wait_ns ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->text, y->text);
}

/* Sites are told apart by their return addresses; two calls on one source
 * line (an unrolled loop, several processes) print the same and are shown
 * as one row. */
static void print_sites(ct_tool *t, FILE *out)
{
	if (!t->nsites)
		return;
	ct_site_row *rows = calloc(t->nsites, sizeof *rows);
	size_t nrows = 0;
	for (size_t i = 0; rows && i < t->nsites; i++) {
		ct_site *x = &t->sites[i];
		char text[2048] = "", frame[512];
		for (int k = 0; k < x->n; k++) {
			frame_text(t, frame, sizeof frame, x->process, x->pcs[k]);
			size_t used = strlen(text);
			snprintf(text + used, sizeof text - used, "%s%s", k ? " < " : "", frame);
		}
		size_t j;
		for (j = 0; j < nrows; j++)
			if (rows[j].kind == x->kind && !strcmp(rows[j].text, text))
				break;
		if (j == nrows) {
			if (!(rows[j].text = strdup(text)))
				continue;
			rows[j].kind = x->kind;
			nrows++;
		}
		rows[j].count += x->count;
		rows[j].wait_ns += x->wait_ns;
		if (x->max_ns > rows[j].max_ns)
			rows[j].max_ns = x->max_ns;
	}
	qsort(rows, nrows, sizeof *rows, site_row_cmp);
	static const char *const titles[] = {
		NULL, "Lock contention by call site (PARATRACE_CALLSTACK)",
		"Condition waits by call site", "Thread creation by call site"};
	int shown = 0;
	for (size_t i = 0; i < nrows; i++) {
		ct_site_row *x = &rows[i];
		if (shown != x->kind) {
			shown = x->kind;
			fprintf(out, "\n%s\n", titles[x->kind]);
			if (x->kind == SITE_CREATE)
				fprintf(out, "  %10s  %s\n", "threads", "call site < callers");
			else
				fprintf(out, "  %10s %12s %12s  %s\n",
					x->kind == SITE_LOCK ? "contended" : "waits", "wait ms",
					"max ms", "call site < callers");
		}
		if (x->kind == SITE_CREATE)
			fprintf(out, "  %10" PRIu64 "  ", x->count);
		else
			fprintf(out, "  %10" PRIu64 " %12.3f %12.3f  ", x->count, x->wait_ns / 1e6,
			        x->max_ns / 1e6);
		pt_text_put(out, x->text, 0);
		fputc('\n', out);
		free(x->text);
	}
	free(rows);
}

typedef struct ct_flat {
	char *name, *where;
	uint64_t n;
} ct_flat;

static int flat_cmp(const void *a, const void *b)
{
	const ct_flat *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void print_samples(ct_tool *t, FILE *out)
{
	if (!t->nsamples)
		return;
	ct_flat *rows = calloc(t->samples.n ? t->samples.n : 1, sizeof *rows);
	size_t nrows = 0;
	for (size_t i = 0; rows && i < t->samples.cap; i++) {
		ct_pcount *p = &t->samples.v[i];
		if (!p->pc)
			continue;
		pt_sym s;
		char name[512], where[512];
		if (ct_sym_of(&t->syms, p->process, p->pc, 0, &s) == 0) {
			snprintf(name, sizeof name, "%s", s.name);
			if (s.file)
				snprintf(where, sizeof where, "%s", ct_base_name(s.file));
			else
				snprintf(where, sizeof where, "%s", ct_base_name(s.module));
		} else {
			snprintf(name, sizeof name, "(unknown code)");
			where[0] = 0;
		}
		size_t j;
		for (j = 0; j < nrows; j++)
			if (!strcmp(rows[j].name, name) && !strcmp(rows[j].where, where))
				break;
		if (j == nrows) {
			rows[j].name = strdup(name);
			rows[j].where = strdup(where);
			if (!rows[j].name || !rows[j].where) {
				free(rows[j].name);
				free(rows[j].where);
				continue;
			}
			nrows++;
		}
		rows[j].n += p->n;
	}
	qsort(rows, nrows, sizeof *rows, flat_cmp);
	fprintf(out, "\nSampled flat profile (PARATRACE_SAMPLING");
	if (t->period_ns)
		fprintf(out, ", period %.3f ms of CPU time", t->period_ns / 1e6);
	fprintf(out, "; %" PRIu64 " samples in %" PRIu64 " thread%s", t->nsamples,
		t->sampled_threads, t->sampled_threads == 1 ? "" : "s");
	if (t->lost_samples)
		fprintf(out, ", %" PRIu64 " dropped inside the runtime", t->lost_samples);
	/* No time column: the kernel fires CPU-time timers on its scheduler
	 * tick, so a sample stands for at least one period, often more. */
	fprintf(out, ")\n  %8s %7s  %s\n", "samples", "%", "function (file)");
	for (size_t j = 0; j < nrows; j++) {
		fprintf(out, "  %8" PRIu64 " %6.2f%%  ", rows[j].n,
		        100.0 * (double)rows[j].n / (double)t->nsamples);
		pt_text_put(out, rows[j].name, 0);
		if (rows[j].where[0]) {
			fputs(" (", out);
			pt_text_put(out, rows[j].where, 0);
			fputc(')', out);
		}
		fputc('\n', out);
		free(rows[j].name);
		free(rows[j].where);
	}
	free(rows);
}

static int ct_print_results(void *tool, FILE *out)
{
	ct_tool *t = tool;
	print_counters(t, out);
	print_sites(t, out);
	print_samples(t, out);
	return 0;
}

static void ct_destroy(void *tool)
{
	ct_tool *t = tool;
	if (!t)
		return;
	ct_counters_free(&t->counters);
	free(t->excl);
	free(t->incl);
	free(t->sites);
	free(t->samples.v);
	pthread_mutex_destroy(&t->lock);
	ct_syms_free(&t->syms);
	free(t);
}

static const pt_tool ct_tool_def = {
	.api_version = PT_TOOL_API_VERSION,
	.name = "counters",
	.description = "counter totals per function (IPC, misses per 1k instructions), "
		       "contention by call site, sampled flat profile",
	.process_event = ct_process_event,
	.init = ct_init,
	.shard_init = ct_shard_init,
	.shard_event = ct_shard_event,
	.shard_exit = ct_shard_exit,
	.shard_error = ct_shard_error,
	.print_results = ct_print_results,
	.destroy = ct_destroy,
};

const pt_tool *pt_tool_counters(void)
{
	return &ct_tool_def;
}
