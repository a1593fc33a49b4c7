/* SPDX-License-Identifier: MIT */
/* The colours of functions (and GPU kernels and copies) in every picture:
 * the SVG of `paratrace plot`, the timeline and the flame graph of
 * `report --html`, and the swatches of the page's headline and tables
 * (which get them from the page's data, never compute their own).
 *
 * The labels that matter get colours that are far apart: the PLP_TOP with
 * most exclusive time (the legend's) each take a different colour of
 * PLP_SLOTS hand-picked ones, pairwise at least PLP_MIN_DE apart in CIELAB
 * (CIE76 ΔE), as far from the marks the pictures use for waiting, lost data
 * and idle rows, and light enough for black text. Every other label is a
 * pale, nearly grey tint (chroma under a third of the slots'): it never
 * looks like one of the top ones.
 *
 * Stable between runs of one program: a top label's slot comes from a hash
 * of its name (FNV-1a, the same on every machine), and when two want one
 * slot the one whose name hashes lower gets it and the other takes the next
 * free one. The order is the names', never the ranks': the same set of top
 * labels gets the same colours whatever their times, and a label that
 * enters or leaves the set moves at most the labels that collided with it.
 * A name outside the set always has the same pale tint. */
#ifndef PT_PLOT_PALETTE_H
#define PT_PLOT_PALETTE_H

#include <stddef.h>
#include <stdint.h>

#define PLP_TOP 16   /* labels that get a slot: the legend's */
#define PLP_SLOTS 20 /* slots to choose from (the spare ones keep collisions rare) */
#define PLP_MIN_DE 25.0

/* The slots' colours, 0xrrggbb. */
extern const uint32_t plp_slot_rgb[PLP_SLOTS];

typedef struct pl_palette {
	size_t n;
	uint32_t label[PLP_TOP];
	int slot[PLP_TOP];
} pl_palette;

/* Slots for n (<= PLP_TOP) labels named names[i]: label[i] gets slot
 * out[i], all different, whatever the order of the n. */
void plp_assign(const char *const *names, size_t n, int *out);

/* p for the top labels (label[i] named names[i], i < n; only the first
 * PLP_TOP count). */
void pl_palette_init(pl_palette *p, const uint32_t *label, const char *const *names, size_t n);

/* label's colour (named `name`) as "#rrggbb". */
void pl_palette_colour(const pl_palette *p, uint32_t label, const char *name, char out[8]);

/* The pale tint of a label outside the top ones. */
void plp_pale(const char *name, char out[8]);

#endif
