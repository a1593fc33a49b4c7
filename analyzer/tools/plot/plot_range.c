/* SPDX-License-Identifier: MIT */
/* Time slices of the HTML page's range selection (plot_range.h). */
#include "plot_range.h"

#include "pt_fw_util.h"

#include <stdlib.h>
#include <string.h>

int pr_init(pr_map *m, uint64_t base, uint64_t end)
{
	memset(m, 0, sizeof *m);
	m->base = base;
	while (end > base && ((end - base) >> m->shift) >= PR_SLICES)
		m->shift++;
	m->cap = 64;
	m->c = calloc(m->cap, sizeof *m->c);
	return m->c ? 0 : -1;
}

void pr_free(pr_map *m)
{
	free(m->c);
	memset(m, 0, sizeof *m);
}

static size_t hash(uint32_t tag, uint64_t id, uint32_t slice)
{
	uint64_t h = (id ^ ((uint64_t)tag << 40) ^ ((uint64_t)slice << 20)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32);
}

/* The cell of (tag, id, slice), made if need be; NULL on ENOMEM. */
static pr_cell *cell(pr_map *m, uint32_t tag, uint64_t id, uint32_t slice);

static int grow(pr_map *m, size_t cap)
{
	pr_cell *old = m->c;
	size_t n = m->cap;
	m->c = calloc(cap, sizeof *m->c);
	if (!m->c) {
		m->c = old;
		return -1;
	}
	m->cap = cap;
	m->n = 0;
	m->hint = 0;
	for (size_t i = 0; i < n; i++)
		if (old[i].tag) {
			pr_cell *c = cell(m, old[i].tag, old[i].id, old[i].slice);
			c->v[0] += old[i].v[0];
			c->v[1] += old[i].v[1];
		}
	free(old);
	return 0;
}

static pr_cell *cell(pr_map *m, uint32_t tag, uint64_t id, uint32_t slice)
{
	pr_cell *h = &m->c[m->hint];
	if (h->tag == tag && h->id == id && h->slice == slice)
		return h;
	if (2 * (m->n + 1) > m->cap && grow(m, 2 * m->cap))
		return NULL;
	size_t mask = m->cap - 1;
	for (size_t i = hash(tag, id, slice) & mask;; i = (i + 1) & mask) {
		pr_cell *c = &m->c[i];
		if (!c->tag) {
			*c = (pr_cell){id, tag, slice, {0, 0}};
			m->n++;
		} else if (c->tag != tag || c->id != id || c->slice != slice) {
			continue;
		}
		m->hint = i;
		return c;
	}
}

int pr_coarsen_to(pr_map *m, unsigned shift)
{
	if (shift <= m->shift)
		return 0;
	unsigned d = shift - m->shift;
	/* a span of a damaged or hostile trace can coarsen by 32 bits or more
	 * at once, past what a shift of the 32-bit slice may do */
	for (size_t i = 0; i < m->cap; i++)
		m->c[i].slice = d < 32 ? m->c[i].slice >> d : 0;
	m->shift = shift;
	m->slices = m->slices ? (d < 32 ? ((m->slices - 1) >> d) + 1 : 1) : 0;
	/* cells that now share a slice merge */
	return grow(m, m->cap);
}

/* Room for time t: afterwards its slice is below PR_SLICES. */
static int fit(pr_map *m, uint64_t t)
{
	uint64_t a = t > m->base ? t - m->base : 0;
	unsigned s = m->shift;
	while ((a >> s) >= PR_SLICES)
		s++;
	if (pr_coarsen_to(m, s))
		return -1;
	if ((a >> s) >= m->slices)
		m->slices = (size_t)(a >> s) + 1;
	return 0;
}

int pr_span(pr_map *m, uint32_t tag, uint64_t id, uint64_t t0, uint64_t t1)
{
	uint64_t a = t0 > m->base ? t0 - m->base : 0, e = t1 > m->base ? t1 - m->base : 0;
	if (e <= a)
		return 0;
	if (fit(m, m->base + e - 1))
		return -1;
	for (uint64_t s = a >> m->shift; s <= (e - 1) >> m->shift; s++) {
		uint64_t lo = s << m->shift, hi = lo + (1ull << m->shift);
		pr_cell *c = cell(m, tag, id, (uint32_t)s);
		if (!c)
			return -1;
		c->v[0] += (e < hi ? e : hi) - (a > lo ? a : lo);
	}
	return 0;
}

int pr_count(pr_map *m, uint32_t tag, uint64_t id, uint64_t t)
{
	if (fit(m, t))
		return -1;
	uint64_t a = t > m->base ? t - m->base : 0;
	pr_cell *c = cell(m, tag, id, (uint32_t)(a >> m->shift));
	if (!c)
		return -1;
	c->v[1]++;
	return 0;
}

int pr_merge(pr_map *dst, pr_map *src)
{
	unsigned s = dst->shift > src->shift ? dst->shift : src->shift;
	if (pr_coarsen_to(dst, s) || pr_coarsen_to(src, s))
		return -1;
	if (src->slices > dst->slices)
		dst->slices = src->slices;
	for (size_t i = 0; i < src->cap; i++)
		if (src->c[i].tag) {
			pr_cell *c = cell(dst, src->c[i].tag, src->c[i].id, src->c[i].slice);
			if (!c)
				return -1;
			c->v[0] += src->c[i].v[0];
			c->v[1] += src->c[i].v[1];
		}
	return 0;
}

void pr_front_init(pr_front *f, pr_map *m)
{
	memset(f, 0, sizeof *f);
	f->m = m;
}

void pr_front_free(pr_front *f)
{
	free(f->v0);
	free(f->v1);
	free(f->touched);
	memset(f, 0, sizeof *f);
}

int pr_front_flush(pr_front *f)
{
	uint32_t slice = (uint32_t)(f->slice >> (f->m->shift - f->shift));
	for (size_t i = 0; i < f->ntouched; i++) {
		uint32_t id = f->touched[i];
		pr_cell *c = cell(f->m, PR_FUNC, id, slice);
		if (!c)
			return -1;
		c->v[0] += f->v0[id];
		c->v[1] += f->v1[id];
		f->v0[id] = f->v1[id] = 0;
	}
	f->ntouched = 0;
	return 0;
}

/* Times up to t_last fit in the map, and t0's slice is the current one
 * (the figures of the one before into the map). */
static int front_at(pr_front *f, uint64_t t0, uint64_t t_last)
{
	pr_map *m = f->m;
	if (t0 >= f->lo && t_last < f->hi && f->shift == m->shift)
		return 0;
	if (fit(m, t_last))
		return -1;
	size_t s = (size_t)((t0 > m->base ? t0 - m->base : 0) >> m->shift);
	if ((s != f->slice || f->shift != m->shift) && pr_front_flush(f))
		return -1;
	f->slice = s;
	f->shift = m->shift;
	f->lo = m->base + ((uint64_t)s << m->shift);
	f->hi = f->lo + (1ull << m->shift);
	return 0;
}

/* id's figures of the current slice, made room for. */
static int touch(pr_front *f, uint32_t id)
{
	if (id >= f->n) {
		size_t n = f->n ? f->n : 256;
		while (n <= id)
			n *= 2;
		uint64_t *v0 = realloc(f->v0, n * sizeof *v0);
		if (v0)
			f->v0 = v0;
		uint64_t *v1 = v0 ? realloc(f->v1, n * sizeof *v1) : NULL;
		if (v1)
			f->v1 = v1;
		uint32_t *t = v1 ? realloc(f->touched, n * sizeof *t) : NULL;
		if (!t)
			return -1;
		f->touched = t;
		memset(f->v0 + f->n, 0, (n - f->n) * sizeof *v0);
		memset(f->v1 + f->n, 0, (n - f->n) * sizeof *v1);
		f->n = n;
	}
	if (!f->v0[id] && !f->v1[id])
		f->touched[f->ntouched++] = id;
	return 0;
}

int pr_front_span(pr_front *f, uint32_t id, uint64_t t0, uint64_t t1)
{
	if (t1 <= t0)
		return 0;
	if (front_at(f, t0, t1 - 1) || touch(f, id))
		return -1;
	uint64_t end = f->hi;
	if (t1 <= end) {
		f->v0[id] += t1 - t0;
		return 0;
	}
	/* past the slice: the rest straight into the map */
	f->v0[id] += end - (t0 > f->m->base ? t0 : f->m->base);
	return pr_span(f->m, PR_FUNC, id, end, t1);
}

int pr_front_count(pr_front *f, uint32_t id, uint64_t t)
{
	if (front_at(f, t, t) || touch(f, id))
		return -1;
	f->v1[id]++;
	return 0;
}

static int cmp_cell(const void *x, const void *y)
{
	const pr_cell *a = x, *b = y;
	if (a->tag != b->tag)
		return a->tag < b->tag ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->slice < b->slice ? -1 : a->slice > b->slice;
}

pr_cell *pr_sorted(const pr_map *m)
{
	pr_cell *v = malloc((m->n + 1) * sizeof *v);
	if (!v)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < m->cap; i++)
		if (m->c[i].tag)
			v[k++] = m->c[i];
	pt_qsort(v, k, sizeof *v, cmp_cell);
	return v;
}
