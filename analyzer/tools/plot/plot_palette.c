/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
/* Colours of labels (plot_palette.h). */
#include "plot_palette.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Chosen greedily, each the farthest (CIE76) from those before it and from
 * the pictures' marks (#d62728 waiting, black lost data, white and #f2f2f2
 * idle), among the sRGB colours of lightness 55 to 88 and chroma 30 to 75:
 * the closest pair is 29 apart, the closest to a mark 32. The palette test
 * (tests/plot/test_plot_unit.c) measures it. */
const uint32_t plp_slot_rgb[PLP_SLOTS] = {0x119922, 0xcc55cc, 0xffcc44, 0x0099ee, 0x00eecc,
                                          0xcc7788, 0x888844, 0x0099aa, 0xddbbff, 0xff9966,
                                          0xff4488, 0xbbdd66, 0x7777ee, 0x339966, 0x44ee88,
                                          0xeecc99, 0xaaddaa, 0x55eeff, 0xbb7700, 0xff88cc};

static uint64_t name_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	return h;
}

void plp_assign(const char *const *names, size_t n, int *out)
{
	if (n > PLP_TOP)
		n = PLP_TOP;
	/* by hash, then name: an order that does not depend on the ranks */
	size_t order[PLP_TOP];
	uint64_t h[PLP_TOP];
	for (size_t i = 0; i < n; i++) {
		h[i] = name_hash(names[i]);
		size_t k = i;
		while (k > 0 &&
		       (h[order[k - 1]] > h[i] ||
		        (h[order[k - 1]] == h[i] && strcmp(names[order[k - 1]], names[i]) > 0))) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	int taken[PLP_SLOTS] = {0};
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		int s = (int)(h[i] % PLP_SLOTS);
		while (taken[s])
			s = (s + 1) % PLP_SLOTS;
		taken[s] = 1;
		out[i] = s;
	}
}

void pl_palette_init(pl_palette *p, const uint32_t *label, const char *const *names, size_t n)
{
	memset(p, 0, sizeof *p);
	p->n = n < PLP_TOP ? n : PLP_TOP;
	memcpy(p->label, label, p->n * sizeof *label);
	plp_assign(names, p->n, p->slot);
}

static double srgb_gamma(double c)
{
	c = c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055;
	return c < 0 ? 0 : c > 1 ? 1 : c;
}

static double lab_finv(double t)
{
	return t > 6.0 / 29 ? t * t * t : 3 * (6.0 / 29) * (6.0 / 29) * (t - 4.0 / 29);
}

void plp_pale(const char *name, char out[8])
{
	/* CIE L*C*h: light, low chroma, the hue from the name */
	uint64_t h = name_hash(name);
	double hue = (double)(h % 360) * M_PI / 180, c = 9, l = 80 + (double)((h >> 20) % 6);
	double fy = (l + 16) / 116, fx = fy + c * cos(hue) / 500, fz = fy - c * sin(hue) / 200;
	double x = 0.95047 * lab_finv(fx), y = lab_finv(fy), z = 1.08883 * lab_finv(fz);
	double r = 3.2406 * x - 1.5372 * y - 0.4986 * z, g = -0.9689 * x + 1.8758 * y + 0.0415 * z,
	       b = 0.0557 * x - 0.2040 * y + 1.0570 * z;
	snprintf(out, 8, "#%02x%02x%02x", (int)lround(255 * srgb_gamma(r)),
	         (int)lround(255 * srgb_gamma(g)), (int)lround(255 * srgb_gamma(b)));
}

void pl_palette_colour(const pl_palette *p, uint32_t label, const char *name, char out[8])
{
	for (size_t i = 0; i < p->n; i++)
		if (p->label[i] == label) {
			snprintf(out, 8, "#%06x", (unsigned)plp_slot_rgb[p->slot[i]]);
			return;
		}
	plp_pale(name, out);
}
