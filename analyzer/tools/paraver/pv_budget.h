/* SPDX-License-Identifier: MIT */
/* The .prv's size budget (pv_budget.c) and the thinning that meets it
 * (pv_thin.c); private to the Paraver writer. */
#ifndef PT_PV_BUDGET_H
#define PT_PV_BUDGET_H

#include "pv_internal.h"

/* Durations in 4 buckets per power of two (~19% apart): bucket(d) is
 * monotonic, bucket_lo(b) its shortest duration. */
unsigned pv_bucket(uint64_t d);
uint64_t pv_bucket_lo(unsigned b);

#define PV_SLOTS 254 /* 0: left out whatever, 1 + bucket (0..251), PV_SLOT_CUT */
#define PV_SLOT_CUT 253

typedef struct pv_hist {
	uint64_t bytes[PV_SLOTS]; /* .prv text of the calls of each slot */
	uint64_t calls[PV_SLOTS];
	/* synchronization calls by their wait (slots as calls', none forced):
	 * their text (lines and the states leaving them out saves) */
	uint64_t sbytes[PV_SLOTS];
	uint64_t scalls[PV_SLOTS];
	/* summary bytes, a difference array over thresholds */
	int64_t runs[PV_SLOTS + 1];
	/* of the synchronization calls, family calls (pv_left_def): by the
	 * length of the call, counted with them above */
	uint64_t fcalls;
} pv_hist;

/* The threshold of slot k: calls shorter, and synchronization calls that
 * waited less, are left out (0: none; k >= PV_SLOT_CUT: all but the calls
 * cut by lost data). */
uint64_t pv_slot_threshold(unsigned k);

typedef struct pv_acct pv_acct;
pv_acct *pv_acct_new(const pv_tool *pv, const pv_shard *s);
void pv_acct_free(pv_acct *a);
const pv_hist *pv_acct_hist(const pv_acct *a);
void pv_hist_add(pv_hist *dst, const pv_hist *src);

/* The smallest threshold slot, from k_min on, whose .prv would fit in
 * `budget` bytes (total: the .prv's text with everything; the last slot
 * if none fits); its estimated size in *est. */
unsigned pv_budget_choose(const pv_hist *h, uint64_t total, uint64_t budget, unsigned k_min,
                          uint64_t *est);

/* pv_thin.c: rewrites the event runs of the rows (runs[2i + 1]), leaving
 * out calls shorter than min_ns and of functions the selection leaves out,
 * summarised (pt_thin.h). Totals in *st. 0, or -1 with a message. */
typedef struct pv_thin_stats {
	uint64_t calls_left, calls_kept, ns_left;
	uint64_t sync_left, sync_kept, wait_left; /* synchronization calls */
	uint64_t fam_left, fam_kept;              /* family calls (pv_left_def) */
	unsigned fam_summarised;                  /* bit i: family i's summaries written */
	uint64_t text;                            /* of the rewritten runs */
	uint64_t text_st_before;                  /* of the state runs rewritten, before */
} pv_thin_stats;
/* sync_ns (0: none): synchronization calls that waited less, and family
 * calls (pv_left_def) that lasted less, are left out too, and their
 * states become the state around them (Running for a wait): the rows'
 * state runs are rewritten into out_st (per shard; empty when unchanged). */
int pv_thin_runs(pv_tool *pv, uint64_t min_ns, uint64_t sync_ns, pv_run *out, pv_run *out_st,
                 pv_thin_stats *st, char *err, size_t errlen);

/* pv_ids.c: the final values (pv->fval, finv, renumber). 0, or -1 (ENOMEM). */
int pv_ids_init(pv_tool *pv);
/* The final value of an event written as (type, *value); 1 if it changed. */
int pv_final_value(const pv_tool *pv, uint32_t type, int64_t *value);

/* pv_select.c */
/* The rows written and their numbers (pv->row, task, thread, ptask). */
int pv_rows_init(pv_tool *pv, char *err, size_t errlen);
/* Time 0 and the window's end, once the window is placed (first shard). */
void pv_window_init(pv_tool *pv);
/* A shard's window and time 0, and its accounts when a budget applies. */
void pv_shard_select(pv_tool *pv, pv_shard *s);
/* Finish: merge[] = the runs to merge (pv->runs, with the event runs of
 * rows whose calls were thinned replaced). 0, or -1 with a message. */
int pv_select_calls(pv_tool *pv, pv_run *merge, char *err, size_t errlen);
/* The lines analyze prints about what it left out. */
void pv_print_selection(const pv_tool *pv, FILE *out);

#endif
