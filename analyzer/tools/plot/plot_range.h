/* SPDX-License-Identifier: MIT */
/* What the HTML page's tables show for a range of time selected on its
 * timeline: the run cut into at most PR_SLICES slices of equal width (a
 * power of two ns, from the run's first record), and per slice the time
 * and counts of each thing a table lists (a function's exclusive time and
 * calls begun, a thread's waits by kind, a lock's wait and acquisitions).
 * The page sums the slices a selection covers.
 *
 * As with the timeline's bins (plot_bins.h) the run's length is not known
 * while shards are read: slices start as wide as the run is known to last
 * (its processes' exits, else 1 ns) and double (neighbours merged)
 * whenever a time reaches past the last one, so a map's size is bounded by
 * PR_SLICES times the things it holds, whatever the events.
 *
 * A cell: (tag, id, slice) -> v[0] (ns: an interval's overlap with the
 * slice, pr_span) and v[1] (a count, pr_count). */
#ifndef PT_PLOT_RANGE_H
#define PT_PLOT_RANGE_H

#include <stddef.h>
#include <stdint.h>

#define PR_SLICES 256u

/* tags: a function (id: its analyzer id), a thread's wait of kind k (id:
 * the shard's index), a lock of process p (id: its address) */
#define PR_FUNC 1u
#define PR_WAIT(k) (2u + (uint32_t)(k))
#define PR_LOCK(p) (0x100u + ((uint32_t)(p) << 8))

typedef struct pr_cell {
	uint64_t id;
	uint32_t tag, slice; /* tag 0: a free cell */
	uint64_t v[2];
} pr_cell;

typedef struct pr_map {
	uint64_t base;  /* the run's first time */
	unsigned shift; /* slices are 2^shift ns */
	size_t slices;  /* the last slice used + 1 */
	pr_cell *c;     /* open addressing, cap a power of two */
	size_t n, cap;
	size_t hint; /* the cell found last: a loop adds to one again and again */
} pr_map;

/* -1 on ENOMEM (for every function that returns int). end: a time the
 * run is known to reach (a process's exit; base if none): the slices start
 * as wide as it needs, and need not widen again and again on the way. */
int pr_init(pr_map *m, uint64_t base, uint64_t end);
void pr_free(pr_map *m);

/* v[0] of (tag, id) += the overlap of [t0, t1) with each slice. */
int pr_span(pr_map *m, uint32_t tag, uint64_t id, uint64_t t0, uint64_t t1);
/* v[1] of (tag, id) in t's slice += 1. */
int pr_count(pr_map *m, uint32_t tag, uint64_t id, uint64_t t);

/* Widens m's slices to 2^shift ns (no-op if already as wide). */
int pr_coarsen_to(pr_map *m, unsigned shift);
/* dst += src (both brought to the wider slices; src may be widened). */
int pr_merge(pr_map *dst, pr_map *src);

/* In front of a map, for what changes at every call (a function's time
 * and calls, PR_FUNC): one thread's times never go back, so the current
 * slice's figures are summed per id in plain arrays and go into the map
 * once per id and slice, when time leaves the slice (or at pr_front_flush):
 * a call costs an addition, not a probe of the map. */
typedef struct pr_front {
	pr_map *m;
	size_t slice; /* the current one, of 2^shift ns (the map's may have
	               * widened since: pr_span of another tag) */
	unsigned shift;
	uint64_t lo, hi; /* its times */
	uint64_t *v0, *v1;
	uint32_t *touched; /* ids with figures in the current slice */
	size_t ntouched, n;
} pr_front;

void pr_front_init(pr_front *f, pr_map *m);
void pr_front_free(pr_front *f);
/* As pr_span and pr_count for (PR_FUNC, id), times not before the last. */
int pr_front_span(pr_front *f, uint32_t id, uint64_t t0, uint64_t t1);
int pr_front_count(pr_front *f, uint32_t id, uint64_t t);
/* Everything into the map. */
int pr_front_flush(pr_front *f);

/* The used cells sorted by tag, id, slice (a new array of m->n; NULL on
 * ENOMEM). */
pr_cell *pr_sorted(const pr_map *m);

#endif
