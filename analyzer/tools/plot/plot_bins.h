/* SPDX-License-Identifier: MIT */
/* One timeline row as a time-binned summary: what `paratrace plot` draws,
 * in memory bounded by the number of bins, whatever the number of events.
 *
 * Bin i of a row covers [base + i * 2^shift, base + (i + 1) * 2^shift) ns;
 * base is the run's first time, so the bins of every row line up. A row
 * starts with 1 ns bins; when an interval reaches past the last bin, the
 * bins merge pairwise (the width doubles) until it fits, so a row always
 * has at most `nb` bins whatever the run's length. At the end, every row
 * is brought to the widest row's width (pb_row_coarsen_to).
 *
 * What a bin keeps: the time of its labels (a label is a function id, or a
 * GPU kernel or copy, see plot.h) in PB_SLOTS slots, with the Space-Saving
 * rule (a label that finds no free slot replaces the smallest one and
 * takes over its time: a label with more than 1/PB_SLOTS of the bin's
 * labelled time is always there, with its time or a little more); the time
 * in any label (busy), the time spent waiting (locks, conditions, joins,
 * barriers: these overlap the labels, a wait happens inside a function),
 * and the time of data lost by the runtime (a gap in the log).
 *
 * A bin shows (pb_bin_label) its label of most time: what the row did
 * most in that bin, however short (a kernel of 200 us in a bin of 1 ms
 * still shows), and how much of the bin was in any label at all
 * (pb_bin_level: the picture paints it fainter the less). */
#ifndef PT_PLOT_BINS_H
#define PT_PLOT_BINS_H

#include <stddef.h>
#include <stdint.h>

#define PB_SLOTS 3

typedef struct pb_bin {
	uint32_t id[PB_SLOTS]; /* 0: free slot */
	uint64_t t[PB_SLOTS];
	uint64_t busy, wait, lost;
} pb_bin;

typedef struct pb_row {
	uint64_t base;
	unsigned shift;
	size_t nb;   /* bins allocated */
	size_t used; /* bins [used, nb) are empty */
	pb_bin *bins;
} pb_row;

/* nb >= 2. -1 on ENOMEM. */
int pb_row_init(pb_row *r, uint64_t base, size_t nb);
void pb_row_free(pb_row *r);

void pb_bin_add(pb_bin *b, uint32_t id, uint64_t dt);
void pb_add_span(pb_row *r, uint32_t id, uint64_t t0, uint64_t t1);

/* Label id (!= 0) over [t0, t1). Times before base count from base. */
static inline void pb_add(pb_row *r, uint32_t id, uint64_t t0, uint64_t t1)
{
	uint64_t a = t0 - r->base, e = t1 - r->base;
	/* the common case: a short interval inside one bin already there */
	if (t0 >= r->base && t1 > t0 && (a >> r->shift) == ((e - 1) >> r->shift) &&
	    (e - 1) >> r->shift < r->used) {
		pb_bin_add(&r->bins[a >> r->shift], id, t1 - t0);
		return;
	}
	pb_add_span(r, id, t0, t1);
}

/* Waiting over [t0, t1); data lost over [t0, t1). */
void pb_wait(pb_row *r, uint64_t t0, uint64_t t1);
void pb_lost(pb_row *r, uint64_t t0, uint64_t t1);

/* Makes room for time t (merging bins): afterwards t's bin is below nb. */
void pb_row_fit(pb_row *r, uint64_t t);
/* Merges bins until their width is 2^shift (no-op if already as wide). */
void pb_row_coarsen_to(pb_row *r, unsigned shift);

/* What bin b shows: its label of most time, or 0 for nothing. */
uint32_t pb_bin_label(const pb_bin *b);
/* How much of bin b (`width` ns) was in a label, in quarters rounded to
 * the nearest: 0 only for none at all, else 1..4. */
unsigned pb_bin_level(const pb_bin *b, uint64_t width);
/* How much of bin b the row waited, in quarters (0..4, rounded; a wait
 * under 1/8 of the bin shows as 0). */
unsigned pb_bin_wait_level(const pb_bin *b, uint64_t width);

#endif
