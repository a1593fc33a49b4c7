/* SPDX-License-Identifier: MIT */
/* Call paths merged into a tree, for the flame graph (icicle) of
 * `paratrace plot` and `report --html`: node = a function reached through
 * one path of callers; its inclusive time and calls, summed over threads.
 *
 * Bounded: a tree holds at most max_nodes nodes of functions. Past that, a
 * new path is folded into one "other" child of its caller (PF_OTHER), and
 * whatever that folded call calls stays in it (pf_child says so with
 * PF_NESTED: such a frame adds no time, its folded caller already counts
 * it). Each node has at most one "other" child, so a tree never exceeds
 * 2 * max_nodes nodes. Node 0 is the root (function 0). */
#ifndef PT_PLOT_FLAME_H
#define PT_PLOT_FLAME_H

#include <stddef.h>
#include <stdint.h>

#define PF_OTHER UINT32_MAX
#define PF_NESTED (1ull << 32) /* in pf_child's result */

typedef struct pf_node {
	uint32_t func;
	uint32_t parent;
	uint64_t incl;  /* ns */
	uint64_t calls; /* calls begun */
} pf_node;

typedef struct pf_tree {
	pf_node *n;
	size_t nn, cap, max_nodes;
	/* (parent, func) -> node, open addressing; the key is in the table so
	 * that a probe reads nothing else */
	struct pf_slot {
		uint64_t key; /* parent << 32 | func; 0: free (the root is nobody's child) */
		uint32_t node;
	} * hash;
	size_t hcap;
	/* the child found last under each parent is tried first: a loop calls
	 * the same function again and again */
	uint32_t *last; /* per node: its child found last + 1 */
} pf_tree;

/* -1 on ENOMEM. */
int pf_tree_init(pf_tree *t, size_t max_nodes);
void pf_tree_free(pf_tree *t);

/* The node of function func called from node parent, created if need be:
 * its index, | PF_NESTED for a call folded into its caller's "other".
 * (uint64_t)-1 on ENOMEM. */
uint64_t pf_child(pf_tree *t, uint32_t parent, uint32_t func);

/* Adds src's times and calls into dst (which may fold more of it). -1 on
 * ENOMEM. */
int pf_tree_merge(pf_tree *dst, const pf_tree *src);

/* Each node's children, by inclusive time, largest first (ties: in node
 * order), in two malloc'ed arrays: node i's are (*kids)[(*first)[i]] up to
 * (*first)[i + 1] (first has nn + 1 entries). -1 on ENOMEM (nothing to
 * free). */
int pf_tree_children(const pf_tree *t, uint32_t **first, uint32_t **kids);

/* A tree that grows no more keeps only its nodes (what pf_tree_merge
 * reads of a source). */
void pf_tree_shrink(pf_tree *t);

#endif
