/* SPDX-License-Identifier: MIT */
/* Analyzer-wide function ids: one id per (demangled name, file), whatever
 * module or process defined it, so profiles merge the same function across
 * processes and Paraver shows one value per function.
 *
 * Filled serially by the pre-pass (FUNC_DEF of every process log, ids
 * 1..n in process order, so numbering does not depend on -j). While shards
 * run, lookups of defined ids read immutable arrays without a lock; new ids
 * (code addresses, ids no FUNC_DEF named) are added under `lock`.
 */
#define _GNU_SOURCE
#include "fw_internal.h"
#include "pt_fw_util.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_str2(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ull;
	return h;
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

static int name_map_grow(fw_funcs *f)
{
	size_t ncap = f->map_cap ? f->map_cap * 2 : 1024;
	uint32_t *m = calloc(ncap, sizeof *m);
	if (!m)
		return -1;
	for (size_t i = 0; i < f->map_cap; i++) {
		uint32_t id = f->map[i];
		if (!id)
			continue;
		const pt_func_info *fi = &f->info[id];
		size_t j = hash_str2(fi->name, fi->file) & (ncap - 1);
		while (m[j])
			j = (j + 1) & (ncap - 1);
		m[j] = id;
	}
	free(f->map);
	f->map = m;
	f->map_cap = ncap;
	return 0;
}

/* Id of (name, file), created if new. Caller holds f->lock or is the only
 * thread running. 0 on ENOMEM. */
static uint32_t intern(fw_funcs *f, const char *name, const char *file, uint32_t line,
		       const char *module)
{
	if (!file)
		file = "";
	if ((f->count + 1) * 2 > f->map_cap && name_map_grow(f))
		return 0;
	size_t j = hash_str2(name, file) & (f->map_cap - 1);
	for (; f->map[j]; j = (j + 1) & (f->map_cap - 1)) {
		const pt_func_info *fi = &f->info[f->map[j]];
		if (!strcmp(fi->name, name) && !strcmp(fi->file, file))
			return f->map[j];
	}
	if (f->count + 2 > f->info_cap) {
		size_t ncap = f->info_cap ? f->info_cap * 2 : 1024;
		/* readers may hold pointers into info: keep old blocks alive
		 * instead of realloc'ing (func_info pointers stay valid). */
		pt_func_info *n = calloc(ncap, sizeof *n);
		if (!n)
			return 0;
		if (f->info) {
			memcpy(n, f->info, (f->count + 1) * sizeof *n);
			fw_block *b = malloc(sizeof *b);
			if (!b) {
				free(n);
				return 0;
			}
			b->p = f->info;
			b->next = f->old_blocks;
			f->old_blocks = b;
		}
		__atomic_store_n(&f->info, n, __ATOMIC_RELEASE);
		f->info_cap = ncap;
	}
	uint32_t id = f->count + 1;
	pt_func_info *fi = &f->info[id];
	fi->name = dup_or_empty(name);
	fi->file = dup_or_empty(file);
	fi->line = line;
	fi->module = dup_or_empty(module);
	if (!fi->name || !fi->file || !fi->module)
		return 0;
	f->map[j] = id;
	__atomic_store_n(&f->count, id, __ATOMIC_RELEASE);
	return id;
}

int fw_funcs_init(fw_funcs *f)
{
	memset(f, 0, sizeof *f);
	pthread_mutex_init(&f->lock, NULL);
	return name_map_grow(f);
}

void fw_funcs_free(fw_funcs *f)
{
	for (uint32_t i = 1; i <= f->count; i++) {
		free((char *)f->info[i].name);
		free((char *)f->info[i].file);
		free((char *)f->info[i].module);
	}
	free(f->info);
	while (f->old_blocks) {
		fw_block *b = f->old_blocks;
		f->old_blocks = b->next;
		free(b->p);
		free(b);
	}
	free(f->map);
	pthread_mutex_destroy(&f->lock);
}

/* Pre-pass: a FUNC_DEF of process p (already fed to p's symtab). */
int fw_funcs_define(fw_funcs *f, fw_process *p, uint32_t local_id)
{
	pt_sym s;
	if (local_id == 0 || local_id > PT_FUNC_ID_MAX || pt_symtab_func(p->symtab, local_id, &s))
		return 0;
	uint32_t id = intern(f, s.name, s.file, s.line, s.module);
	if (!id)
		return -1;
	if (local_id >= p->nlocal) {
		size_t n;
		uint32_t *l = pt_grow_zeroed(p->local, p->nlocal, local_id, sizeof *l, 256, &n);
		if (!l)
			return -1;
		p->local = l;
		p->nlocal = n;
	}
	p->local[local_id] = id;
	return 0;
}

/* Slow path for ids no FUNC_DEF named (in this process or, for a forked
 * child, its parents): one synthetic name per (process, id), cached. */
static uint32_t lookup_cache(fw_process *p, uint64_t key)
{
	if (!p->cache_cap)
		return 0;
	for (size_t j = pt_mix64(key) & (p->cache_cap - 1); p->cache[j].key;
	     j = (j + 1) & (p->cache_cap - 1))
		if (p->cache[j].key == key)
			return p->cache[j].id;
	return 0;
}

static int store_cache(fw_process *p, uint64_t key, uint32_t id)
{
	if ((p->cache_n + 1) * 2 > p->cache_cap) {
		size_t ncap = p->cache_cap ? p->cache_cap * 2 : 64;
		fw_cache_ent *c = calloc(ncap, sizeof *c);
		if (!c)
			return -1;
		for (size_t i = 0; i < p->cache_cap; i++) {
			if (!p->cache[i].key)
				continue;
			size_t j = pt_mix64(p->cache[i].key) & (ncap - 1);
			while (c[j].key)
				j = (j + 1) & (ncap - 1);
			c[j] = p->cache[i];
		}
		free(p->cache);
		p->cache = c;
		p->cache_cap = ncap;
	}
	size_t j = pt_mix64(key) & (p->cache_cap - 1);
	while (p->cache[j].key)
		j = (j + 1) & (p->cache_cap - 1);
	p->cache[j].key = key;
	p->cache[j].id = id;
	p->cache_n++;
	return 0;
}

uint32_t fw_func_id(fw *w, size_t process, uint32_t local_id)
{
	if (process >= w->nprocs || local_id == 0)
		return 0;
	/* a forked child runs its parent's code: fall back to the parent's table */
	for (fw_process *p = &w->procs[process]; p; p = p->parent >= 0 ? &w->procs[p->parent] : NULL) {
		if (local_id < p->nlocal && p->local[local_id])
			return p->local[local_id];
		if (!p->info.forked)
			break;
	}
	fw_process *p = &w->procs[process];
	uint64_t key = (uint64_t)local_id << 1; /* even keys: ids; odd: pcs (see below) */
	pthread_mutex_lock(&w->funcs.lock);
	uint32_t id = lookup_cache(p, key);
	if (!id) {
		char name[64];
		snprintf(name, sizeof name, "function #%u (no definition)", local_id);
		id = intern(&w->funcs, name, p->info.program, 0, "");
		if (id)
			store_cache(p, key, id);
	}
	pthread_mutex_unlock(&w->funcs.lock);
	return id;
}

uint32_t fw_func_id_pc(fw *w, size_t process, uint64_t pc)
{
	if (process >= w->nprocs)
		return 0;
	fw_process *p = &w->procs[process];
	uint64_t key = pc << 1 | 1; /* a pc never uses its top bit in user space */
	pthread_mutex_lock(&w->funcs.lock);
	uint32_t id = lookup_cache(p, key);
	pthread_mutex_unlock(&w->funcs.lock);
	if (id)
		return id;
	/* symbol lookup (libdw, may be slow) outside the lock; the symtab has its own */
	pt_sym s;
	int found = -1;
	for (fw_process *q = p; q; q = q->parent >= 0 ? &w->procs[q->parent] : NULL) {
		found = pt_symtab_pc(q->symtab, pc, &s);
		if (found == 0 || !q->info.forked)
			break;
	}
	char name[64];
	if (found) {
		snprintf(name, sizeof name, "0x%llx", (unsigned long long)pc);
		s.name = name;
		s.file = "";
		s.line = 0;
		s.module = "";
	}
	pthread_mutex_lock(&w->funcs.lock);
	id = lookup_cache(p, key);
	if (!id) {
		id = intern(&w->funcs, s.name, s.file ? s.file : "", s.line, s.module ? s.module : "");
		if (id)
			store_cache(p, key, id);
	}
	pthread_mutex_unlock(&w->funcs.lock);
	return id;
}

const pt_func_info *fw_func_info(fw *w, uint32_t id)
{
	uint32_t n = __atomic_load_n(&w->funcs.count, __ATOMIC_ACQUIRE);
	if (id == 0 || id > n)
		return NULL;
	pt_func_info *info = __atomic_load_n(&w->funcs.info, __ATOMIC_ACQUIRE);
	return &info[id];
}

uint32_t fw_func_count(fw *w)
{
	return __atomic_load_n(&w->funcs.count, __ATOMIC_ACQUIRE);
}
