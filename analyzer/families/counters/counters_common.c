/* SPDX-License-Identifier: MIT */
/* What the counters report tool and its Paraver events share: the symbols
 * of each process, counter identities (Paraver types), counts per code
 * address, growable arrays. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "counters_internal.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

/* ---- symbols of each process (filled by the pre-pass) ------------------- */
int ct_syms_add(ct_syms *y, size_t process, const pt_event *ev)
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

void ct_syms_free(ct_syms *y)
{
	for (size_t i = 0; i < y->n; i++)
		if (y->st[i])
			pt_symtab_free(y->st[i]);
	free(y->st);
	y->st = NULL;
	y->n = 0;
}

int ct_sym_of(const ct_syms *y, size_t process, uint64_t pc, int return_address, pt_sym *out)
{
	pt_symtab *st = process < y->n ? y->st[process] : NULL;
	return st ? pt_symtab_pc(st, return_address ? pc - 1 : pc, out) : -1;
}

int ct_line_of(const ct_syms *y, size_t process, uint64_t pc, int return_address, const char **file,
               unsigned *line)
{
	pt_symtab *st = process < y->n ? y->st[process] : NULL;
	return st ? pt_symtab_pc_line(st, return_address ? pc - 1 : pc, file, line) : -1;
}

const char *ct_base_name(const char *path)
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

#define HWC(cache, op, result) ((uint64_t)(cache) | (uint64_t)(op) << 8 | (uint64_t)(result) << 16)
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

int ct_counter_index(ct_counters *cs, const pt_rec_counter_def *d, const char *name)
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

void ct_counters_free(ct_counters *cs)
{
	for (int i = 0; i < cs->n; i++)
		free(cs->v[i].name);
	cs->n = 0;
}

/* ---- small growable arrays -------------------------------------------- */

int ct_grow_slow(void **p, size_t *cap, size_t need, size_t elem)
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

/* ---- counts per code address ------------------------------------------ */
static size_t pc_hash(size_t process, uint64_t pc, size_t cap)
{
	return (size_t)((pc ^ process * 0x9e3779b97f4a7c15ull) * 0x9e3779b97f4a7c15ull) & (cap - 1);
}

ct_pcount *ct_pcmap_slot(ct_pcmap *m, size_t process, uint64_t pc)
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

int ct_pcmap_add(ct_pcmap *m, size_t process, uint64_t pc, uint64_t n)
{
	ct_pcount *e = ct_pcmap_slot(m, process, pc);
	if (!e)
		return -1;
	e->n += n;
	return 0;
}
