/* SPDX-License-Identifier: MIT */
/* The Paraver events of counters, call stacks and samples (counters.h:
 * pt_counters_prv_*), which the family's Paraver part
 * (counters_paraver.c) merges into the writer's output. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "counters_internal.h"
#include "pt_text.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define CT_PRV_CALLER_FUNC 70000000u
#define CT_PRV_CALLER_LINE 80000000u
#define CT_PRV_SAMPLE_FUNC 30000000u
#define CT_PRV_SAMPLE_LINE 30000100u

/* "line (file)" labels, ids from 1, in order of first use. */
typedef struct ct_strtab {
	char **v; /* [id - 1] */
	size_t n, cap;
	uint32_t *map; /* open addressing: id, 0 = empty */
	size_t map_cap;
} ct_strtab;

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

static uint32_t strtab_id(ct_strtab *t, const char *s)
{
	if ((t->n + 1) * 2 > t->map_cap) {
		size_t cap = t->map_cap ? t->map_cap * 2 : 256;
		uint32_t *m = calloc(cap, sizeof *m);
		if (!m)
			return 0;
		for (size_t i = 0; i < t->n; i++) {
			size_t h = str_hash(t->v[i]) & (cap - 1);
			while (m[h])
				h = (h + 1) & (cap - 1);
			m[h] = (uint32_t)i + 1;
		}
		free(t->map);
		t->map = m;
		t->map_cap = cap;
	}
	size_t h = str_hash(s) & (t->map_cap - 1);
	while (t->map[h]) {
		if (!strcmp(t->v[t->map[h] - 1], s))
			return t->map[h];
		h = (h + 1) & (t->map_cap - 1);
	}
	char *copy = strdup(s);
	if (!copy || ct_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v)) {
		free(copy);
		return 0;
	}
	t->v[t->n++] = copy;
	t->map[h] = (uint32_t)t->n;
	return (uint32_t)t->n;
}

static void strtab_free(ct_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->map);
	memset(t, 0, sizeof *t);
}

struct pt_counters_prv {
	const pt_trace_ctx *ctx;
	ct_syms syms;
	pthread_mutex_t lock; /* everything below */
	ct_counters counters;
	ct_strtab lines;
	ct_pcmap line_ids;                     /* (process, looked-up pc) -> line id */
	unsigned caller_levels, sample_levels; /* deepest level emitted */
	/* final values (pt_counters_prv_renumber), NULL until then */
	const uint32_t *func_value;
	uint32_t nfunc;
	uint32_t *line_value; /* [line id - 1] */
};

struct pt_counters_prv_shard {
	pt_counters_prv *c;
	const pt_shard_info *info;
	uint32_t type[256]; /* COUNTER_DEF index -> Paraver type, 0 unknown */
	unsigned last_kind;
};

pt_counters_prv *pt_counters_prv_new(const pt_trace_ctx *ctx)
{
	pt_counters_prv *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->ctx = ctx;
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

int pt_counters_prv_process_event(pt_counters_prv *c, size_t process, const pt_event *ev)
{
	return ct_syms_add(&c->syms, process, ev);
}

pt_counters_prv_shard *pt_counters_prv_shard_new(pt_counters_prv *c, const pt_shard_info *shard)
{
	pt_counters_prv_shard *s = calloc(1, sizeof *s);
	if (s) {
		s->c = c;
		s->info = shard;
	}
	return s;
}

void pt_counters_prv_shard_free(pt_counters_prv_shard *s)
{
	free(s);
}

static uint32_t line_id(pt_counters_prv *c, size_t process, uint64_t pc, int return_address)
{
	uint64_t key = return_address ? pc - 1 : pc;
	pthread_mutex_lock(&c->lock);
	ct_pcount *e = ct_pcmap_slot(&c->line_ids, process, key);
	uint32_t id = e ? (uint32_t)e->n : 0;
	pthread_mutex_unlock(&c->lock);
	if (id)
		return id;
	pt_sym s;
	const char *file;
	unsigned line;
	char buf[1024];
	if (ct_line_of(&c->syms, process, pc, return_address, &file, &line) == 0)
		snprintf(buf, sizeof buf, "%u (%s)", line, ct_base_name(file));
	else if (ct_sym_of(&c->syms, process, pc, return_address, &s) == 0)
		snprintf(buf, sizeof buf, "%s (%s)", s.name, ct_base_name(s.module));
	else
		snprintf(buf, sizeof buf, "0x%" PRIx64, pc);
	pthread_mutex_lock(&c->lock);
	id = strtab_id(&c->lines, buf);
	/* The map may have grown meanwhile: look the slot up again. */
	if (id && (e = ct_pcmap_slot(&c->line_ids, process, key)) != NULL)
		e->n = id;
	pthread_mutex_unlock(&c->lock);
	return id;
}

/* One call stack as events level 1..n: function ids (the analyzer's, shared
 * with the user-function events) and line ids. */
static void stack_events(pt_counters_prv_shard *s, uint64_t time_ns, const uint64_t *pcs,
                         unsigned n, uint32_t ftype, uint32_t ltype, int first_exact,
                         pt_prv_emit_fn emit, void *arg)
{
	pt_counters_prv *c = s->c;
	size_t process = s->info->process;
	for (unsigned k = 0; k < n; k++) {
		int ra = !(first_exact && k == 0);
		uint64_t pc = ra ? pcs[k] - 1 : pcs[k];
		uint32_t fid = pt_ctx_func_id_pc(c->ctx, process, pc);
		uint32_t lid = line_id(c, process, pcs[k], ra);
		emit(arg, time_ns, ftype + k + 1, fid);
		if (lid)
			emit(arg, time_ns, ltype + k + 1, lid);
	}
	pthread_mutex_lock(&c->lock);
	unsigned *levels = ftype == CT_PRV_CALLER_FUNC ? &c->caller_levels : &c->sample_levels;
	if (n > *levels)
		*levels = n;
	pthread_mutex_unlock(&c->lock);
}

void pt_counters_prv_event(pt_counters_prv_shard *s, const pt_event *ev, pt_prv_emit_fn emit,
                           void *arg)
{
	const pt_rec_head *h = ev->rec;
	switch (ev->kind) {
	case PT_REC_COUNTER_DEF: {
		const pt_rec_counter_def *d = PT_REC_PAYLOAD(h, pt_rec_counter_def);
		const char *name = d ? pt_event_string(ev, sizeof *d) : NULL;
		if (!name)
			break;
		pthread_mutex_lock(&s->c->lock);
		int g = ct_counter_index(&s->c->counters, d, name);
		s->type[h->arg] = g >= 0 ? s->c->counters.v[g].prv : 0;
		pthread_mutex_unlock(&s->c->lock);
		break;
	}
	case PT_REC_COUNTERS: {
		const uint64_t *v = (const uint64_t *)(const void *)(h + 1);
		for (unsigned i = 0; i < h->arg && sizeof *h + (i + 1) * 8 <= ev->size; i++)
			if (s->type[i])
				emit(arg, ev->time_ns, s->type[i], (int64_t)v[i]);
		break;
	}
	case PT_REC_COUNTER_VALUE: {
		const pt_rec_counter_value *p = PT_REC_PAYLOAD(h, pt_rec_counter_value);
		if (p && s->type[h->arg])
			emit(arg, ev->time_ns, s->type[h->arg], (int64_t)p->value);
		break;
	}
	case PT_REC_CALLSTACK: {
		unsigned n = h->arg;
		if (sizeof *h + (size_t)n * 8 > ev->size)
			break;
		if (s->last_kind == PT_REC_LOCK_REQUEST || s->last_kind == PT_REC_COND_WAIT_BEGIN ||
		    s->last_kind == PT_REC_THREAD_CREATE)
			stack_events(s, ev->time_ns, (const uint64_t *)(const void *)(h + 1), n,
			             CT_PRV_CALLER_FUNC, CT_PRV_CALLER_LINE, 0, emit, arg);
		return; /* attached to the record before it */
	}
	case PT_REC_SAMPLE: {
		unsigned n = h->arg + 1u; /* the pc, then its callers */
		if (sizeof *h + (size_t)n * 8 > ev->size)
			break;
		stack_events(s, ev->time_ns, (const uint64_t *)(const void *)(h + 1), n,
		             CT_PRV_SAMPLE_FUNC, CT_PRV_SAMPLE_LINE, 1, emit, arg);
		break;
	}
	default:
		break;
	}
	s->last_kind = ev->kind;
}

static int cmp_line(const void *a, const void *b, void *arg)
{
	char *const *v = arg;
	return strcmp(v[*(const uint32_t *)a], v[*(const uint32_t *)b]);
}

int pt_counters_prv_renumber(pt_counters_prv *c, const uint32_t *func_value, uint32_t nfunc)
{
	int changed = 0;
	c->func_value = func_value;
	c->nfunc = nfunc;
	if (c->caller_levels || c->sample_levels)
		for (uint32_t id = 1; id <= nfunc && !changed; id++)
			changed = func_value[id] != id;
	size_t n = c->lines.n;
	uint32_t *order = malloc((n ? n : 1) * sizeof *order);
	free(c->line_value);
	c->line_value = malloc((n ? n : 1) * sizeof *c->line_value);
	if (!order || !c->line_value) {
		free(order);
		free(c->line_value);
		c->line_value = NULL; /* numbered as they came */
		return changed;
	}
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof *order, cmp_line, c->lines.v);
	for (uint32_t r = 0; r < n; r++) {
		c->line_value[order[r]] = r + 1;
		changed |= order[r] != r;
	}
	free(order);
	return changed;
}

int pt_counters_prv_final_value(const pt_counters_prv *c, uint32_t type, int64_t *value)
{
	int func = (type > CT_PRV_CALLER_FUNC && type <= CT_PRV_CALLER_FUNC + 100) ||
	           (type > CT_PRV_SAMPLE_FUNC && type < CT_PRV_SAMPLE_LINE);
	int line = (type > CT_PRV_CALLER_LINE && type <= CT_PRV_CALLER_LINE + 100) ||
	           (type > CT_PRV_SAMPLE_LINE && type < CT_PRV_SAMPLE_LINE + 100);
	int64_t v = *value;
	if (func && c->func_value && v > 0 && (uint64_t)v <= c->nfunc)
		*value = c->func_value[v];
	else if (line && c->line_value && v > 0 && (uint64_t)v <= c->lines.n)
		*value = c->line_value[v - 1];
	return *value != v;
}

static void pcf_func_values(pt_counters_prv *c, FILE *pcf)
{
	fprintf(pcf, "VALUES\n0 (none)\n");
	uint32_t n = pt_ctx_func_count(c->ctx);
	uint32_t *by_value = c->func_value ? calloc(n + 1, sizeof *by_value) : NULL;
	for (uint32_t id = 1; by_value && id <= n && id <= c->nfunc; id++)
		if (c->func_value[id] <= n)
			by_value[c->func_value[id]] = id;
	for (uint32_t v = 1; v <= n; v++) {
		const pt_func_info *fi = pt_ctx_func_info(c->ctx, by_value ? by_value[v] : v);
		if (fi) {
			fprintf(pcf, "%u ", v);
			pt_label_put(pcf, fi->name);
			fputc('\n', pcf);
		}
	}
	free(by_value);
	fputc('\n', pcf);
}

static void pcf_line_values(pt_counters_prv *c, FILE *pcf)
{
	fprintf(pcf, "VALUES\n0 (none)\n");
	size_t n = c->lines.n;
	const char **by_value = c->line_value ? calloc(n + 1, sizeof *by_value) : NULL;
	for (size_t i = 0; by_value && i < n; i++)
		by_value[c->line_value[i] - 1] = c->lines.v[i];
	for (size_t i = 0; i < n; i++) {
		fprintf(pcf, "%zu ", i + 1);
		pt_label_put(pcf, by_value ? by_value[i] : c->lines.v[i]);
		fputc('\n', pcf);
	}
	free(by_value);
	fputc('\n', pcf);
}

void pt_counters_prv_pcf(pt_counters_prv *c, FILE *pcf)
{
	if (c->counters.n) {
		fprintf(pcf, "EVENT_TYPE\n");
		for (int i = 0; i < c->counters.n; i++) {
			const ct_counter *k = &c->counters.v[i];
			/* 7: Extrae's first column for hardware counters (ignored by Paraver). */
			fprintf(pcf, "7  %u  ", k->prv);
			pt_label_put(pcf, k->name);
			if (k->flags & PT_COUNTER_MANUAL)
				fputs(" (PT_COUNTER: count since the thread's first read)", pcf);
			else if (k->papi)
				fprintf(pcf, " (%s)", k->papi);
			fputc('\n', pcf);
		}
		fputc('\n', pcf);
	}
	/* Every type of one block shares its VALUES: one block per kind. */
	if (c->caller_levels) {
		fprintf(pcf, "EVENT_TYPE\n");
		for (unsigned l = 1; l <= c->caller_levels; l++)
			fprintf(pcf, "0  %u  Caller at level %u\n", CT_PRV_CALLER_FUNC + l, l);
		pcf_func_values(c, pcf);
		fprintf(pcf, "EVENT_TYPE\n");
		for (unsigned l = 1; l <= c->caller_levels; l++)
			fprintf(pcf, "0  %u  Caller line at level %u\n", CT_PRV_CALLER_LINE + l, l);
		pcf_line_values(c, pcf);
	}
	if (c->sample_levels) {
		fprintf(pcf, "EVENT_TYPE\n");
		for (unsigned l = 1; l <= c->sample_levels; l++)
			fprintf(pcf, "0  %u  Sampled function at level %u\n",
			        CT_PRV_SAMPLE_FUNC + l, l);
		pcf_func_values(c, pcf);
		fprintf(pcf, "EVENT_TYPE\n");
		for (unsigned l = 1; l <= c->sample_levels; l++)
			fprintf(pcf, "0  %u  Sampled line at level %u\n", CT_PRV_SAMPLE_LINE + l,
			        l);
		pcf_line_values(c, pcf);
	}
}

void pt_counters_prv_free(pt_counters_prv *c)
{
	if (!c)
		return;
	ct_counters_free(&c->counters);
	strtab_free(&c->lines);
	free(c->line_ids.v);
	free(c->line_value);
	pthread_mutex_destroy(&c->lock);
	ct_syms_free(&c->syms);
	free(c);
}
