/* SPDX-License-Identifier: MIT */
/* The call-path tree (plot_flame.h). */
#include "plot_flame.h"

#include "pt_fw_util.h"

#include <stdlib.h>
#include <string.h>

static inline uint64_t key_of(uint32_t parent, uint32_t func)
{
	return (uint64_t)parent << 32 | func;
}

static size_t slot_of(const pf_tree *t, uint64_t key)
{
	return pt_mix64(key) & (t->hcap - 1);
}

static int grow_hash(pf_tree *t)
{
	size_t ncap = t->hcap ? t->hcap * 2 : 1024;
	struct pf_slot *h = calloc(ncap, sizeof *h);
	if (!h)
		return -1;
	free(t->hash);
	t->hash = h;
	t->hcap = ncap;
	for (size_t i = 1; i < t->nn; i++) {
		uint64_t key = key_of(t->n[i].parent, t->n[i].func);
		size_t j = slot_of(t, key);
		while (h[j].key)
			j = (j + 1) & (ncap - 1);
		h[j] = (struct pf_slot){key, (uint32_t)i};
	}
	return 0;
}

static int grow_nodes(pf_tree *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 256;
	pf_node *n = realloc(t->n, ncap * sizeof *n);
	if (!n)
		return -1;
	t->n = n;
	uint32_t *l = realloc(t->last, ncap * sizeof *l);
	if (!l)
		return -1;
	t->last = l;
	t->cap = ncap;
	return 0;
}

int pf_tree_init(pf_tree *t, size_t max_nodes)
{
	memset(t, 0, sizeof *t);
	t->max_nodes = max_nodes < 2 ? 2 : max_nodes;
	if (grow_nodes(t) || grow_hash(t)) {
		pf_tree_free(t);
		return -1;
	}
	t->n[0] = (pf_node){0, 0, 0, 0};
	t->last[0] = 0;
	t->nn = 1;
	return 0;
}

void pf_tree_free(pf_tree *t)
{
	free(t->n);
	free(t->hash);
	free(t->last);
	memset(t, 0, sizeof *t);
}

uint64_t pf_child(pf_tree *t, uint32_t parent, uint32_t func)
{
	if (t->n[parent].func == PF_OTHER && parent)
		return parent | PF_NESTED;
	uint32_t l = t->last[parent];
	if (l && t->n[l - 1].func == func)
		return l - 1;
	uint64_t key = key_of(parent, func);
	size_t j = slot_of(t, key);
	for (; t->hash[j].key; j = (j + 1) & (t->hcap - 1))
		if (t->hash[j].key == key) {
			uint32_t k = t->hash[j].node;
			t->last[parent] = k + 1;
			return k;
		}
	if (t->nn >= t->max_nodes && func != PF_OTHER)
		return pf_child(t, parent, PF_OTHER);
	if (t->nn == t->cap && grow_nodes(t))
		return UINT64_MAX;
	if ((t->nn + 1) * 2 > t->hcap) {
		if (grow_hash(t))
			return UINT64_MAX;
		j = slot_of(t, key);
		while (t->hash[j].key)
			j = (j + 1) & (t->hcap - 1);
	}
	uint32_t k = (uint32_t)t->nn++;
	t->n[k] = (pf_node){func, parent, 0, 0};
	t->last[k] = 0;
	t->hash[j] = (struct pf_slot){key, k};
	t->last[parent] = k + 1;
	return k;
}

int pf_tree_merge(pf_tree *dst, const pf_tree *src)
{
	uint64_t *map = malloc(src->nn * sizeof *map);
	if (!map)
		return -1;
	map[0] = 0;
	dst->n[0].incl += src->n[0].incl;
	dst->n[0].calls += src->n[0].calls;
	/* a node comes after its parent: created when the parent was there */
	for (size_t i = 1; i < src->nn; i++) {
		const pf_node *s = &src->n[i];
		uint64_t p = map[s->parent];
		uint64_t d = p & PF_NESTED ? p : pf_child(dst, (uint32_t)p, s->func);
		if (d == UINT64_MAX) {
			free(map);
			return -1;
		}
		map[i] = d;
		if (!(d & PF_NESTED)) {
			dst->n[d].incl += s->incl;
			dst->n[d].calls += s->calls;
		}
	}
	free(map);
	return 0;
}

void pf_tree_shrink(pf_tree *t)
{
	free(t->hash);
	free(t->last);
	t->hash = NULL;
	t->last = NULL;
	t->hcap = 0;
	pf_node *n = realloc(t->n, (t->nn ? t->nn : 1) * sizeof *n);
	if (n) {
		t->n = n;
		t->cap = t->nn ? t->nn : 1;
	}
}

static const pf_tree *sort_tree;
static int cmp_incl(const void *a, const void *b)
{
	const pf_node *x = &sort_tree->n[*(const uint32_t *)a],
	              *y = &sort_tree->n[*(const uint32_t *)b];
	if (x->incl != y->incl)
		return x->incl > y->incl ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

int pf_tree_children(const pf_tree *t, uint32_t **first_out, uint32_t **kids_out)
{
	size_t n = t->nn;
	uint32_t *first = calloc(n + 1, sizeof *first), *kids = malloc((n + 1) * sizeof *kids);
	uint32_t *fill = calloc(n + 1, sizeof *fill);
	if (!first || !kids || !fill) {
		free(first);
		free(kids);
		free(fill);
		return -1;
	}
	for (size_t i = 1; i < n; i++)
		first[t->n[i].parent + 1]++;
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	for (size_t i = 1; i < n; i++) {
		uint32_t p = t->n[i].parent;
		kids[first[p] + fill[p]++] = (uint32_t)i;
	}
	free(fill);
	sort_tree = t;
	for (size_t i = 0; i < n; i++)
		pt_qsort(kids + first[i], first[i + 1] - first[i], sizeof *kids, cmp_incl);
	*first_out = first;
	*kids_out = kids;
	return 0;
}
