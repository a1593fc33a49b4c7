/* SPDX-License-Identifier: MIT */
/* Private to the counters tool (counters.c: report; counters_prv.c:
 * Paraver events; counters_common.c: what both use). */
#ifndef PT_COUNTERS_INTERNAL_H
#define PT_COUNTERS_INTERNAL_H

#include "counters.h"
#include "pt_symbols.h"

#include <stdint.h>
#include <stdlib.h>

#define CT_MAXC 32 /* distinct counter names in one trace */

/* One symbol table per process, fed by process_event in the serial
 * pre-pass and only read (pt_symtab is thread-safe) while shards run. */
typedef struct ct_syms {
	pt_symtab **st;
	size_t n;
} ct_syms;

int ct_syms_add(ct_syms *y, size_t process, const pt_event *ev);
void ct_syms_free(ct_syms *y);
/* Symbol of a code address; a return address points after its call, whose
 * line is the one wanted, so it is looked up one byte earlier. */
int ct_sym_of(const ct_syms *y, size_t process, uint64_t pc, int return_address, pt_sym *out);
/* File and line of the statement at pc (the call, for a return address). */
int ct_line_of(const ct_syms *y, size_t process, uint64_t pc, int return_address, const char **file,
               unsigned *line);
const char *ct_base_name(const char *path);

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
int ct_counter_index(ct_counters *cs, const pt_rec_counter_def *d, const char *name);
void ct_counters_free(ct_counters *cs);

/* Counts per (process, code address). */
typedef struct ct_pcount {
	size_t process;
	uint64_t pc; /* 0 = empty slot */
	uint64_t n;
} ct_pcount;

typedef struct ct_pcmap {
	ct_pcount *v;
	size_t cap, n;
} ct_pcmap;

/* The slot of (process, pc), created with n = 0 if absent; NULL on ENOMEM. */
ct_pcount *ct_pcmap_slot(ct_pcmap *m, size_t process, uint64_t pc);
int ct_pcmap_add(ct_pcmap *m, size_t process, uint64_t pc, uint64_t n);

/* Growable zero-filled arrays: *p holds *cap elements of elem bytes. */
int ct_grow_slow(void **p, size_t *cap, size_t need, size_t elem);
/* Inline check: runs for every function record of every shard. */
static inline int ct_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	return need <= *cap ? 0 : ct_grow_slow(p, cap, need, elem);
}

#endif
