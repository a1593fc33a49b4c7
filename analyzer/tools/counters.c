/* The "counters" tool: counter totals per function, contention by call site,
 * a sampled flat profile, and the Paraver events of counters, call stacks
 * and samples. Contract in counters.h; record kinds in <paratrace/format.h>. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "counters.h"

#include "pt_callstack.h"
#include "pt_func_lookup.h"
#include "pt_symbols.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CT_MAXC 32      /* distinct counter names in one trace */
#define CT_SITE_DEPTH 3 /* frames that tell one call site from another */

/* ---- symbols of each process (filled by the pre-pass) ------------------- */

/* One symbol table per process, fed by process_event in the serial
 * pre-pass and only read (pt_symtab is thread-safe) while shards run. */
typedef struct ct_syms {
	pt_symtab **st;
	size_t n;
} ct_syms;

static int syms_add(ct_syms *y, size_t process, const pt_event *ev)
{
	if (process >= y->n) {
		pt_symtab **p = realloc(y->st, (process + 1) * sizeof *p);
		if (!p)
			return -1;
		memset(p + y->n, 0, (process + 1 - y->n) * sizeof *p);
		y->st = p;
		y->n = process + 1;
	}
	if (!y->st[process] && !(y->st[process] = pt_symtab_new()))
		return -1;
	pt_symtab_add(y->st[process], ev);
	return 0;
}

static void syms_free(ct_syms *y)
{
	for (size_t i = 0; i < y->n; i++)
		if (y->st[i])
			pt_symtab_free(y->st[i]);
	free(y->st);
	y->st = NULL;
	y->n = 0;
}

/* Symbol of a code address; a return address points after its call, whose
 * line is the one wanted, so it is looked up one byte earlier. */
static int sym_of(const ct_syms *y, size_t process, uint64_t pc, int return_address, pt_sym *out)
{
	pt_symtab *st = process < y->n ? y->st[process] : NULL;
	return st ? pt_symtab_pc(st, return_address ? pc - 1 : pc, out) : -1;
}

/* File and line of the statement at pc (the call, for a return address). */
static int line_of(const ct_syms *y, size_t process, uint64_t pc, int return_address,
		   const char **file, unsigned *line)
{
	pt_symtab *st = process < y->n ? y->st[process] : NULL;
	return st ? pt_symtab_pc_line(st, return_address ? pc - 1 : pc, file, line) : -1;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "";
}

/* ---- counter identities ------------------------------------------------ */

/* PAPI preset indices (papiStdEventDefs.h), which Extrae writes as
 * 42000000 + index. */
typedef struct ct_papi {
	uint32_t type;
	uint64_t config;
	unsigned index;
	const char *name;
} ct_papi;

#define HWC(cache, op, result) \
	((uint64_t)(cache) | (uint64_t)(op) << 8 | (uint64_t)(result) << 16)
static const ct_papi ct_papi_map[] = {
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 59, "PAPI_TOT_CYC"},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 50, "PAPI_TOT_INS"},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 90, "PAPI_L3_TCA"},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 8, "PAPI_L3_TCM"},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 55, "PAPI_BR_INS"},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 46, "PAPI_BR_MSP"},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 57, "PAPI_RES_STL"},
	{PERF_TYPE_HW_CACHE,
	 HWC(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), 0,
	 "PAPI_L1_DCM"},
	{PERF_TYPE_HW_CACHE,
	 HWC(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), 1,
	 "PAPI_L1_ICM"},
	{PERF_TYPE_HW_CACHE,
	 HWC(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
	 20, "PAPI_TLB_DM"},
	{PERF_TYPE_HW_CACHE,
	 HWC(PERF_COUNT_HW_CACHE_ITLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
	 21, "PAPI_TLB_IM"},
};

uint32_t pt_counters_prv_type(uint32_t perf_type, uint64_t perf_config, const char *name,
			      const char **papi)
{
	for (size_t i = 0; i < sizeof ct_papi_map / sizeof ct_papi_map[0]; i++) {
		if (ct_papi_map[i].type == perf_type && ct_papi_map[i].config == perf_config) {
			if (papi)
				*papi = ct_papi_map[i].name;
			return 42000000u + ct_papi_map[i].index;
		}
	}
	if (papi)
		*papi = NULL;
	uint32_t h = 2166136261u; /* FNV-1a: stable from run to run */
	for (const char *p = name ? name : ""; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	return 44000000u + h % 1000000u;
}

typedef struct ct_counter {
	char *name;
	uint32_t type, flags;
	uint64_t config;
	uint32_t prv;
	const char *papi;
} ct_counter;

typedef struct ct_counters {
	ct_counter v[CT_MAXC];
	int n;
} ct_counters;

/* Global index of a COUNTER_DEF's counter (by name), -1 if full. Caller
 * holds the lock that protects cs. */
static int counter_index(ct_counters *cs, const pt_rec_counter_def *d, const char *name)
{
	/* PT_COUNTER values (since the first read) and configured counters'
	 * deltas are different series even under one name. */
	uint32_t manual = d->flags & PT_COUNTER_MANUAL;
	for (int i = 0; i < cs->n; i++)
		if (!strcmp(cs->v[i].name, name) && (cs->v[i].flags & PT_COUNTER_MANUAL) == manual)
			return i;
	if (cs->n == CT_MAXC)
		return -1;
	ct_counter *c = &cs->v[cs->n];
	c->name = strdup(name);
	if (!c->name)
		return -1;
	c->type = d->type;
	c->config = d->config;
	c->flags = d->flags;
	if (manual) {
		char key[300];
		snprintf(key, sizeof key, "PT_COUNTER %s", name);
		c->prv = pt_counters_prv_type(UINT32_MAX, 0, key, NULL);
		c->papi = NULL;
	} else {
		c->prv = pt_counters_prv_type(d->type, d->config, name, &c->papi);
	}
	/* Two names hashing to one type would share a Paraver row label. */
	for (int i = 0; i < cs->n; i++)
		if (cs->v[i].prv == c->prv && c->prv >= 44000000u)
			c->prv = 44000000u + (c->prv - 44000000u + 1) % 1000000u, i = -1;
	return cs->n++;
}

static void counters_free(ct_counters *cs)
{
	for (int i = 0; i < cs->n; i++)
		free(cs->v[i].name);
	cs->n = 0;
}

/* ---- small growable arrays -------------------------------------------- */

static int grow_slow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * elem);
	if (!q)
		return -1;
	memset((char *)q + *cap * elem, 0, (n - *cap) * elem);
	*p = q;
	*cap = n;
	return 0;
}

/* Inline check: runs for every function record of every shard. */
static inline int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	return need <= *cap ? 0 : grow_slow(p, cap, need, elem);
}

/* ======================================================================= */
/* Report tool                                                              */

enum { SITE_LOCK = 1, SITE_COND, SITE_CREATE };

typedef struct ct_site {
	int kind;
	size_t process;
	int n;
	uint64_t pcs[CT_SITE_DEPTH];
	uint64_t count, wait_ns, max_ns;
} ct_site;

typedef struct ct_pcount {
	size_t process;
	uint64_t pc; /* 0 = empty slot */
	uint64_t n;
} ct_pcount;

typedef struct ct_pcmap {
	ct_pcount *v;
	size_t cap, n;
} ct_pcmap;

static size_t pc_hash(size_t process, uint64_t pc, size_t cap)
{
	return (size_t)((pc ^ process * 0x9e3779b97f4a7c15ull) * 0x9e3779b97f4a7c15ull) & (cap - 1);
}

/* The slot of (process, pc), created with n = 0 if absent; NULL on ENOMEM. */
static ct_pcount *pcmap_slot(ct_pcmap *m, size_t process, uint64_t pc)
{
	if (!pc)
		pc = 1; /* 0 marks empty slots; pc 0 cannot be mapped anyway */
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		ct_pcount *v = calloc(cap, sizeof *v);
		if (!v)
			return NULL;
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->v[i].pc)
				continue;
			size_t h = pc_hash(m->v[i].process, m->v[i].pc, cap);
			while (v[h].pc)
				h = (h + 1) & (cap - 1);
			v[h] = m->v[i];
		}
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	size_t h = pc_hash(process, pc, m->cap);
	while (m->v[h].pc && !(m->v[h].pc == pc && m->v[h].process == process))
		h = (h + 1) & (m->cap - 1);
	if (!m->v[h].pc) {
		m->v[h].pc = pc;
		m->v[h].process = process;
		m->n++;
	}
	return &m->v[h];
}

static int pcmap_add(ct_pcmap *m, size_t process, uint64_t pc, uint64_t n)
{
	ct_pcount *e = pcmap_slot(m, process, pc);
	if (!e)
		return -1;
	e->n += n;
	return 0;
}

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
	return syms_add(&((ct_tool *)tool)->syms, process, ev);
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
	pt_callstack_init(&s->calls);
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
	if (grow((void **)&s->excl, &cap, (size_t)fid + 1, CT_MAXC * sizeof(uint64_t)))
		return -1;
	cap = s->fcap;
	if (grow((void **)&s->incl, &cap, (size_t)fid + 1, CT_MAXC * sizeof(uint64_t)))
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
	if (!pt_callstack_step(&s->calls, fid, enter)) {
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
	    grow((void **)&s->mark, &s->mark_cap, (size_t)most + 1, sizeof *s->mark))
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
		if (grow((void **)&s->sites, &s->sites_cap, s->nsites + 1, sizeof *s->sites))
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

static int ct_shard_event(void *state, const pt_event *ev)
{
	ct_shard *s = state;
	const pt_rec_head *h = ev->rec;
	unsigned kind = ev->kind;
	/* the four function kinds, consecutive (format.h): the bulk, first */
	if (kind >= PT_REC_FUNC_ENTER && kind <= PT_REC_FUNC_EXIT_PC) {
		if (stack_func(s, ev))
			return shard_fail(s, "out of memory");
		s->last_kind = kind;
		return 0;
	}
	if (kind == PT_REC_COUNTERS) {
		int r = add_counters(s, ev);
		s->count_depth = SIZE_MAX;
		return r;
	}
	if (kind != PT_REC_CALLSTACK)
		s->count_depth = SIZE_MAX;
	switch (kind) {
	case PT_REC_COUNTER_DEF: {
		const pt_rec_counter_def *d = PT_REC_PAYLOAD(h, pt_rec_counter_def);
		const char *name = d ? pt_event_string(ev, sizeof *d) : NULL;
		if (!name)
			return shard_fail(s, "COUNTER_DEF without a name");
		pthread_mutex_lock(&s->tool->lock);
		s->gidx[h->arg] = counter_index(&s->tool->counters, d, name);
		pthread_mutex_unlock(&s->tool->lock);
		break;
	}
	case PT_REC_LOCK_REQUEST:
	case PT_REC_COND_WAIT_BEGIN: {
		const uint64_t *obj = PT_REC_PAYLOAD(h, uint64_t);
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
	case PT_REC_CALLSTACK: {
		size_t n = h->arg;
		if (ev->size < sizeof *h + n * 8)
			return shard_fail(s, "CALLSTACK record shorter than its count");
		s->tool->has_callstacks = 1; /* a flag set, never cleared: benign race */
		const uint64_t *pcs = (const uint64_t *)(const void *)(h + 1);
		if (s->last_kind != PT_REC_LOCK_REQUEST && s->last_kind != PT_REC_COND_WAIT_BEGIN &&
		    s->last_kind != PT_REC_THREAD_CREATE)
			break;
		s->sync_n = n < CT_SITE_DEPTH ? (int)n : CT_SITE_DEPTH;
		memset(s->sync_pcs, 0, sizeof s->sync_pcs);
		memcpy(s->sync_pcs, pcs, (size_t)s->sync_n * 8);
		s->sync_has_stack = 1;
		if (s->sync_kind == SITE_CREATE) {
			if (add_site(s, SITE_CREATE, 0))
				return shard_fail(s, "out of memory");
			s->sync_has_stack = 0;
		}
		return 0; /* last_kind stays the sync record's */
	}
	case PT_REC_LOCK_ACQUIRED:
	case PT_REC_LOCK_FAILED:
	case PT_REC_COND_WAIT_END: {
		int want = kind == PT_REC_COND_WAIT_END ? SITE_COND : SITE_LOCK;
		if (s->sync_has_stack && s->sync_kind == want) {
			uint64_t wait = ev->time_ns > s->sync_t ? ev->time_ns - s->sync_t : 0;
			if (add_site(s, want, wait))
				return shard_fail(s, "out of memory");
		}
		s->sync_has_stack = 0;
		break;
	}
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
		if (pcmap_add(&s->samples, s->info->process, p->pc, 1))
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
	default:
		break;
	}
	s->last_kind = kind;
	return 0;
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
	if (s->fcap && (grow((void **)&t->excl, &cap, s->fcap, CT_MAXC * 8) ||
			(cap = t->fcap, grow((void **)&t->incl, &cap, s->fcap, CT_MAXC * 8))))
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
			if (grow((void **)&t->sites, &t->sites_cap, t->nsites + 1, sizeof *t->sites)) {
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
		    pcmap_add(&t->samples, s->samples.v[i].process, s->samples.v[i].pc,
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
	for (int c = 0; c < cs->n; c++)
		if (!(cs->v[c].flags & PT_COUNTER_MANUAL))
			fprintf(out, " %26s", cs->v[c].name);
	if (ins >= 0 && cyc >= 0)
		fprintf(out, " %6s", "IPC");
	for (int c = 0; ins >= 0 && c < cs->n; c++)
		if (strstr(cs->v[c].name, "miss") && !(cs->v[c].flags & PT_COUNTER_MANUAL))
			fprintf(out, " %14s/1k", cs->v[c].name);
	fputc('\n', out);
	for (size_t r = 0; r < nrows; r++) {
		uint32_t f = rows[r].fid;
		const pt_func_info *fi = f ? pt_ctx_func_info(t->ctx, f) : NULL;
		fprintf(out, "  %-32.32s", f == 0 ? "(outside traced functions)" : fi ? fi->name : "?");
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
		if (cs->v[c].flags & PT_COUNTER_USER_ONLY)
			fprintf(out, "  (%s counts user space only: perf_event_paranoid)\n",
				cs->v[c].name);
}

static void frame_text(const ct_tool *t, char *buf, size_t len, size_t process, uint64_t pc)
{
	pt_sym s;
	const char *file;
	unsigned line;
	if (sym_of(&t->syms, process, pc, 1, &s) != 0)
		snprintf(buf, len, "0x%" PRIx64, pc);
	else if (line_of(&t->syms, process, pc, 1, &file, &line) == 0)
		snprintf(buf, len, "%s (%s:%u)", s.name, base_name(file), line);
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
			fprintf(out, "  %10" PRIu64 "  %s\n", x->count, x->text);
		else
			fprintf(out, "  %10" PRIu64 " %12.3f %12.3f  %s\n", x->count, x->wait_ns / 1e6,
				x->max_ns / 1e6, x->text);
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
		if (sym_of(&t->syms, p->process, p->pc, 0, &s) == 0) {
			snprintf(name, sizeof name, "%s", s.name);
			if (s.file)
				snprintf(where, sizeof where, "%s", base_name(s.file));
			else
				snprintf(where, sizeof where, "%s", base_name(s.module));
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
		fprintf(out, "  %8" PRIu64 " %6.2f%%  %s", rows[j].n,
			100.0 * (double)rows[j].n / (double)t->nsamples, rows[j].name);
		if (rows[j].where[0])
			fprintf(out, " (%s)", rows[j].where);
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
	counters_free(&t->counters);
	free(t->excl);
	free(t->incl);
	free(t->sites);
	free(t->samples.v);
	pthread_mutex_destroy(&t->lock);
	syms_free(&t->syms);
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

/* ======================================================================= */
/* Paraver events                                                           */

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
	if (!copy || grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v)) {
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
	ct_pcmap line_ids; /* (process, looked-up pc) -> line id */
	unsigned caller_levels, sample_levels; /* deepest level emitted */
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
	return syms_add(&c->syms, process, ev);
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
	ct_pcount *e = pcmap_slot(&c->line_ids, process, key);
	uint32_t id = e ? (uint32_t)e->n : 0;
	pthread_mutex_unlock(&c->lock);
	if (id)
		return id;
	pt_sym s;
	const char *file;
	unsigned line;
	char buf[1024];
	if (line_of(&c->syms, process, pc, return_address, &file, &line) == 0)
		snprintf(buf, sizeof buf, "%u (%s)", line, base_name(file));
	else if (sym_of(&c->syms, process, pc, return_address, &s) == 0)
		snprintf(buf, sizeof buf, "%s (%s)", s.name, base_name(s.module));
	else
		snprintf(buf, sizeof buf, "0x%" PRIx64, pc);
	pthread_mutex_lock(&c->lock);
	id = strtab_id(&c->lines, buf);
	/* The map may have grown meanwhile: look the slot up again. */
	if (id && (e = pcmap_slot(&c->line_ids, process, key)) != NULL)
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
		int g = counter_index(&s->c->counters, d, name);
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

static void pcf_func_values(pt_counters_prv *c, FILE *pcf)
{
	fprintf(pcf, "VALUES\n0 (none)\n");
	uint32_t n = pt_ctx_func_count(c->ctx);
	for (uint32_t id = 1; id <= n; id++) {
		const pt_func_info *fi = pt_ctx_func_info(c->ctx, id);
		if (fi)
			fprintf(pcf, "%u %s\n", id, fi->name);
	}
	fputc('\n', pcf);
}

static void pcf_line_values(pt_counters_prv *c, FILE *pcf)
{
	fprintf(pcf, "VALUES\n0 (none)\n");
	for (size_t i = 0; i < c->lines.n; i++)
		fprintf(pcf, "%zu %s\n", i + 1, c->lines.v[i]);
	fputc('\n', pcf);
}

void pt_counters_prv_pcf(pt_counters_prv *c, FILE *pcf)
{
	if (c->counters.n) {
		fprintf(pcf, "EVENT_TYPE\n");
		for (int i = 0; i < c->counters.n; i++) {
			const ct_counter *k = &c->counters.v[i];
			/* 7: Extrae's first column for hardware counters (ignored by Paraver). */
			if (k->flags & PT_COUNTER_MANUAL)
				fprintf(pcf, "7  %u  %s (PT_COUNTER: count since the thread's first read)\n",
					k->prv, k->name);
			else if (k->papi)
				fprintf(pcf, "7  %u  %s (%s)\n", k->prv, k->name, k->papi);
			else
				fprintf(pcf, "7  %u  %s\n", k->prv, k->name);
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
			fprintf(pcf, "0  %u  Sampled function at level %u\n", CT_PRV_SAMPLE_FUNC + l,
				l);
		pcf_func_values(c, pcf);
		fprintf(pcf, "EVENT_TYPE\n");
		for (unsigned l = 1; l <= c->sample_levels; l++)
			fprintf(pcf, "0  %u  Sampled line at level %u\n", CT_PRV_SAMPLE_LINE + l, l);
		pcf_line_values(c, pcf);
	}
}

void pt_counters_prv_free(pt_counters_prv *c)
{
	if (!c)
		return;
	counters_free(&c->counters);
	strtab_free(&c->lines);
	free(c->line_ids.v);
	pthread_mutex_destroy(&c->lock);
	syms_free(&c->syms);
	free(c);
}
