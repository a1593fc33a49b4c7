/* SPDX-License-Identifier: MIT */
/* Time-binned rows (plot_bins.h). */
#include "plot_bins.h"

#include <stdlib.h>
#include <string.h>

int pb_row_init(pb_row *r, uint64_t base, size_t nb)
{
	memset(r, 0, sizeof *r);
	r->bins = calloc(nb, sizeof *r->bins);
	if (!r->bins)
		return -1;
	r->base = base;
	r->nb = nb;
	return 0;
}

void pb_row_free(pb_row *r)
{
	free(r->bins);
	memset(r, 0, sizeof *r);
}

void pb_bin_add(pb_bin *b, uint32_t id, uint64_t dt)
{
	b->busy += dt;
	for (int i = 0; i < PB_SLOTS; i++)
		if (b->id[i] == id || !b->id[i]) {
			b->id[i] = id;
			b->t[i] += dt;
			return;
		}
	/* Space-Saving: the newcomer takes the smallest slot and its time */
	int low = 0;
	for (int i = 1; i < PB_SLOTS; i++)
		if (b->t[i] < b->t[low])
			low = i;
	b->id[low] = id;
	b->t[low] += dt;
}

/* b absorbs c: labels' times summed, the PB_SLOTS largest kept. */
static void merge_bins(pb_bin *b, const pb_bin *c)
{
	uint32_t id[2 * PB_SLOTS];
	uint64_t t[2 * PB_SLOTS];
	int n = 0;
	for (int i = 0; i < PB_SLOTS && b->id[i]; i++, n++) {
		id[n] = b->id[i];
		t[n] = b->t[i];
	}
	for (int i = 0; i < PB_SLOTS && c->id[i]; i++) {
		int k = 0;
		while (k < n && id[k] != c->id[i])
			k++;
		if (k == n) {
			id[n] = c->id[i];
			t[n++] = 0;
		}
		t[k] += c->t[i];
	}
	memset(b->id, 0, sizeof b->id);
	memset(b->t, 0, sizeof b->t);
	for (int s = 0; s < PB_SLOTS && s < n; s++) {
		int best = s;
		for (int k = s + 1; k < n; k++)
			if (t[k] > t[best] || (t[k] == t[best] && id[k] < id[best]))
				best = k;
		uint32_t xi = id[s];
		uint64_t xt = t[s];
		id[s] = id[best];
		t[s] = t[best];
		id[best] = xi;
		t[best] = xt;
		b->id[s] = id[s];
		b->t[s] = t[s];
	}
	b->busy += c->busy;
	b->wait += c->wait;
	b->lost += c->lost;
}

/* Doubles the bins' width. */
static void coarsen(pb_row *r)
{
	size_t n = (r->used + 1) / 2;
	for (size_t i = 0; i < n; i++) {
		pb_bin b = r->bins[2 * i];
		if (2 * i + 1 < r->used)
			merge_bins(&b, &r->bins[2 * i + 1]);
		r->bins[i] = b;
	}
	memset(r->bins + n, 0, (r->used - n) * sizeof *r->bins);
	r->used = n;
	r->shift++;
}

void pb_row_fit(pb_row *r, uint64_t t)
{
	uint64_t a = t > r->base ? t - r->base : 0;
	while ((a >> r->shift) >= r->nb)
		coarsen(r);
	if ((a >> r->shift) >= r->used)
		r->used = (a >> r->shift) + 1;
}

void pb_row_coarsen_to(pb_row *r, unsigned shift)
{
	while (r->shift < shift)
		coarsen(r);
}

/* Calls put(bin, overlap) for each bin that [t0, t1) overlaps. */
#define FOR_BINS(r, t0, t1, put)                                                                   \
	do {                                                                                       \
		uint64_t a_ = (t0) > (r)->base ? (t0) - (r)->base : 0;                             \
		uint64_t e_ = (t1) > (r)->base ? (t1) - (r)->base : 0;                             \
		if (e_ <= a_)                                                                      \
			break;                                                                     \
		pb_row_fit((r), (r)->base + e_ - 1);                                               \
		size_t b0_ = a_ >> (r)->shift, b1_ = (e_ - 1) >> (r)->shift;                       \
		for (size_t i_ = b0_; i_ <= b1_; i_++) {                                           \
			uint64_t lo_ = (uint64_t)i_ << (r)->shift,                                 \
			         hi_ = lo_ + (1ull << (r)->shift);                                 \
			uint64_t s_ = a_ > lo_ ? a_ : lo_, f_ = e_ < hi_ ? e_ : hi_;               \
			pb_bin *bin_ = &(r)->bins[i_];                                             \
			put(bin_, f_ - s_);                                                        \
		}                                                                                  \
	} while (0)

void pb_add_span(pb_row *r, uint32_t id, uint64_t t0, uint64_t t1)
{
#define PUT_LABEL(b, dt) pb_bin_add(b, id, dt)
	if (id)
		FOR_BINS(r, t0, t1, PUT_LABEL);
#undef PUT_LABEL
}

void pb_wait(pb_row *r, uint64_t t0, uint64_t t1)
{
#define PUT_WAIT(b, dt) ((b)->wait += (dt))
	FOR_BINS(r, t0, t1, PUT_WAIT);
#undef PUT_WAIT
}

void pb_lost(pb_row *r, uint64_t t0, uint64_t t1)
{
#define PUT_LOST(b, dt) ((b)->lost += (dt))
	FOR_BINS(r, t0, t1, PUT_LOST);
#undef PUT_LOST
}

uint32_t pb_bin_label(const pb_bin *b)
{
	int best = 0;
	for (int i = 1; i < PB_SLOTS && b->id[i]; i++)
		if (b->t[i] > b->t[best] || (b->t[i] == b->t[best] && b->id[i] < b->id[best]))
			best = i;
	return b->id[best];
}

/* x of width in quarters, rounded */
static unsigned quarters(uint64_t x, uint64_t width)
{
	if (!width)
		return 0;
	if (x > width)
		x = width;
	return (unsigned)((x * 4 + width / 2) / width);
}

unsigned pb_bin_level(const pb_bin *b, uint64_t width)
{
	unsigned q = quarters(b->busy, width);
	return b->busy && !q ? 1 : q;
}

unsigned pb_bin_wait_level(const pb_bin *b, uint64_t width)
{
	return quarters(b->wait, width);
}
