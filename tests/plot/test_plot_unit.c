/* SPDX-License-Identifier: MIT */
/* Unit tests of what `paratrace plot` draws from (analyzer/tools/plot/):
 * the time bins of a timeline row (plot_bins.h), the call-path tree of
 * the flame graph (plot_flame.h) and the slices of the HTML page's range
 * selection (plot_range.h), also run under ASan+UBSan. Synthetic calls go
 * in; the bins must show the function that took most of each bin and how
 * much of it was busy, the tree must hold every path's time until it is
 * full, and the slices must keep every ns and count however they widen
 * and merge. */
#include "pt_family.h"
#include "plot_bins.h"
#include "plot_flame.h"
#include "plot_range.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { A = 1, B, C, D };

/* What each bin shows, as a string of letters ('.' for nothing). */
static const char *shown(const pb_row *r, size_t n)
{
	static char s[256];
	for (size_t i = 0; i < n && i < sizeof s - 1; i++) {
		uint32_t l = pb_bin_label(&r->bins[i]);
		s[i] = l ? (char)('A' + l - 1) : '.';
		s[i + 1] = 0;
	}
	return s;
}

static void test_bins_grow(void)
{
	pb_row r;
	CU_ASSERT_EQUAL_FATAL(pb_row_init(&r, 1000, 8), 0);
	/* 1 ns bins while everything fits in 8 */
	pb_add(&r, A, 1000, 1004);
	pb_add(&r, B, 1004, 1008);
	CU_ASSERT_EQUAL(r.shift, 0);
	CU_ASSERT_EQUAL(r.used, 8);
	CU_ASSERT_STRING_EQUAL(shown(&r, 8), "AAAABBBB");
	/* 16 ns of data: bins of 2 ns, pairs merged */
	pb_add(&r, C, 1008, 1016);
	CU_ASSERT_EQUAL(r.shift, 1);
	CU_ASSERT_STRING_EQUAL(shown(&r, 8), "AABBCCCC");
	/* far later: the early bins merge again and again; time before base
	 * counts from base */
	pb_add(&r, D, 1100, 1128);
	CU_ASSERT_EQUAL(r.shift, 4); /* 128 ns / 8 bins */
	CU_ASSERT_STRING_EQUAL(shown(&r, 8), "C.....DD");
	pb_add(&r, B, 900, 1001);
	CU_ASSERT_EQUAL(r.bins[0].busy, 16 + 1);
	pb_row_free(&r);
}

static void test_bins_spread(void)
{
	pb_row r;
	CU_ASSERT_EQUAL_FATAL(pb_row_init(&r, 0, 8), 0);
	pb_row_fit(&r, 1023); /* 128 ns bins */
	CU_ASSERT_EQUAL(r.shift, 7);
	/* one call over several bins: each gets its overlap */
	pb_add(&r, A, 10, 1000);
	CU_ASSERT_EQUAL(r.bins[0].t[0], 118);
	for (int i = 1; i < 7; i++)
		CU_ASSERT_EQUAL(r.bins[i].t[0], 128);
	CU_ASSERT_EQUAL(r.bins[7].t[0], 1000 - 896);
	CU_ASSERT_STRING_EQUAL(shown(&r, 8), "AAAAAAAA");
	pb_row_free(&r);
}

static void test_bins_dominant(void)
{
	pb_row r;
	CU_ASSERT_EQUAL_FATAL(pb_row_init(&r, 0, 8), 0);
	pb_row_fit(&r, 1023); /* 128 ns bins */
	/* bin 0: A 60 ns in small pieces among B 20, C 10, D 10 (one slot
	 * short of room for all four): A still shows */
	uint64_t t = 0;
	for (int k = 0; k < 10; k++) {
		pb_add(&r, B, t, t + 2);
		pb_add(&r, C, t + 2, t + 3);
		pb_add(&r, D, t + 3, t + 4);
		pb_add(&r, A, t + 4, t + 10);
		t += 10;
	}
	CU_ASSERT_EQUAL(pb_bin_label(&r.bins[0]), A);
	CU_ASSERT_EQUAL(r.bins[0].busy, 100);
	CU_ASSERT_EQUAL(pb_bin_level(&r.bins[0], 128), 3);
	/* bin 1: all B */
	pb_add(&r, B, 128, 256);
	CU_ASSERT_EQUAL(pb_bin_label(&r.bins[1]), B);
	CU_ASSERT_EQUAL(pb_bin_level(&r.bins[1], 128), 4);
	/* bin 2: 30% in B and nothing else: B, faint */
	pb_add(&r, B, 256, 256 + 38);
	CU_ASSERT_EQUAL(pb_bin_label(&r.bins[2]), B);
	CU_ASSERT_EQUAL(pb_bin_level(&r.bins[2], 128), 1);
	/* bin 3: 60% in C */
	pb_add(&r, C, 384, 384 + 77);
	CU_ASSERT_EQUAL(pb_bin_label(&r.bins[3]), C);
	CU_ASSERT_EQUAL(pb_bin_level(&r.bins[3], 128), 2);
	/* bin 4: one nanosecond of D still shows */
	pb_add(&r, D, 600, 601);
	CU_ASSERT_EQUAL(pb_bin_label(&r.bins[4]), D);
	CU_ASSERT_EQUAL(pb_bin_level(&r.bins[4], 128), 1);
	CU_ASSERT_STRING_EQUAL(shown(&r, 8), "ABBCD...");
	/* bins twice as wide: B's time in bins 0 and 1 adds up (148 ns), more
	 * than A's 60; in bins 2 and 3, C's 77 ns beat B's 38 */
	pb_row_coarsen_to(&r, 8);
	CU_ASSERT_EQUAL(r.used, 4);
	CU_ASSERT_STRING_EQUAL(shown(&r, 4), "BCD.");
	CU_ASSERT_EQUAL(r.bins[0].busy, 228);
	CU_ASSERT_EQUAL(pb_bin_level(&r.bins[0], 256), 4);
	CU_ASSERT_EQUAL(pb_bin_level(&r.bins[1], 256), 2);
	CU_ASSERT_EQUAL(pb_bin_level(&r.bins[3], 256), 0);
	pb_row_free(&r);
}

static void test_bins_wait_lost(void)
{
	pb_row r;
	CU_ASSERT_EQUAL_FATAL(pb_row_init(&r, 0, 4), 0);
	pb_row_fit(&r, 399);   /* 128 ns bins, 4 of them */
	pb_wait(&r, 0, 64);    /* half of bin 0 */
	pb_wait(&r, 128, 140); /* under 1/8 of bin 1 */
	pb_wait(&r, 256, 384); /* all of bin 2 */
	CU_ASSERT_EQUAL(pb_bin_wait_level(&r.bins[0], 128), 2);
	CU_ASSERT_EQUAL(pb_bin_wait_level(&r.bins[1], 128), 0);
	CU_ASSERT_EQUAL(pb_bin_wait_level(&r.bins[2], 128), 4);
	/* a gap of lost data: marked */
	pb_add(&r, A, 384, 430);
	pb_lost(&r, 430, 512);
	CU_ASSERT_EQUAL(r.bins[3].lost, 82);
	CU_ASSERT_EQUAL(pb_bin_label(&r.bins[3]), A);
	CU_ASSERT_EQUAL(r.bins[2].lost, 0);
	pb_row_free(&r);
}

static void test_flame(void)
{
	pf_tree t;
	CU_ASSERT_EQUAL_FATAL(pf_tree_init(&t, 6), 0);
	uint64_t a = pf_child(&t, 0, A), ab = pf_child(&t, (uint32_t)a, B);
	CU_ASSERT_EQUAL(a, 1);
	CU_ASSERT_EQUAL(ab, 2);
	CU_ASSERT_EQUAL(pf_child(&t, 0, A), a); /* found again */
	CU_ASSERT_EQUAL(pf_child(&t, (uint32_t)a, B), ab);
	uint64_t b = pf_child(&t, 0, B); /* B from the root: another path */
	CU_ASSERT_EQUAL(b, 3);
	uint64_t ac = pf_child(&t, (uint32_t)a, C), ad = pf_child(&t, (uint32_t)a, D);
	CU_ASSERT_EQUAL(ac, 4);
	CU_ASSERT_EQUAL(ad, 5);
	CU_ASSERT_EQUAL(t.nn, 6);
	/* full: a new path folds into its caller's "other", calls under it stay there */
	uint64_t bc = pf_child(&t, (uint32_t)b, C);
	CU_ASSERT_EQUAL(t.n[bc].func, PF_OTHER);
	CU_ASSERT_EQUAL(t.n[bc].parent, b);
	CU_ASSERT_EQUAL(pf_child(&t, (uint32_t)b, D), bc);
	CU_ASSERT_EQUAL(pf_child(&t, (uint32_t)bc, A), bc | PF_NESTED);
	CU_ASSERT_EQUAL(pf_child(&t, (uint32_t)a, B), ab); /* known paths still found */
	t.n[0].incl = 100;
	t.n[a].incl = 70;
	t.n[ab].incl = 30;
	t.n[ab].calls = 2;
	t.n[bc].incl = 5;

	/* merged into a tree with room for 3 nodes: A and A>B get their own,
	 * the rest folds */
	pf_tree d;
	CU_ASSERT_EQUAL_FATAL(pf_tree_init(&d, 3), 0);
	CU_ASSERT_EQUAL(pf_tree_merge(&d, &t), 0);
	CU_ASSERT_EQUAL(pf_tree_merge(&d, &t), 0); /* twice: sums */
	CU_ASSERT_EQUAL(d.n[0].incl, 200);
	CU_ASSERT_EQUAL(d.n[1].func, A);
	CU_ASSERT_EQUAL(d.n[1].incl, 140);
	CU_ASSERT_EQUAL(d.n[2].func, B);
	CU_ASSERT_EQUAL(d.n[2].parent, 1);
	CU_ASSERT_EQUAL(d.n[2].incl, 60);
	CU_ASSERT_EQUAL(d.n[2].calls, 4);
	size_t others = 0;
	for (size_t i = 3; i < d.nn; i++)
		others += d.n[i].func == PF_OTHER;
	CU_ASSERT_EQUAL(others, d.nn - 3);
	pf_tree_free(&d);
	pf_tree_free(&t);
}

/* (tag, id)'s v[k] summed over slices [i0, i1) */
static uint64_t range_sum(const pr_map *m, uint32_t tag, uint64_t id, size_t i0, size_t i1, int k)
{
	uint64_t x = 0;
	for (size_t i = 0; i < m->cap; i++)
		if (m->c[i].tag == tag && m->c[i].id == id && m->c[i].slice >= i0 &&
		    m->c[i].slice < i1)
			x += m->c[i].v[k];
	return x;
}

static void test_range(void)
{
	pr_map a, b;
	CU_ASSERT_EQUAL_FATAL(pr_init(&a, 1000, 0), 0);
	CU_ASSERT_EQUAL_FATAL(pr_init(&b, 1000, 0), 0);
	/* 1 ns slices while the run is short */
	CU_ASSERT_EQUAL(pr_span(&a, PR_FUNC, 7, 1000, 1010), 0);
	CU_ASSERT_EQUAL(pr_count(&a, PR_FUNC, 7, 1000), 0);
	CU_ASSERT_EQUAL(a.shift, 0);
	CU_ASSERT_EQUAL(a.slices, 10);
	CU_ASSERT_EQUAL(range_sum(&a, PR_FUNC, 7, 0, 5, 0), 5);
	/* a wait far later: the slices widen to keep under PR_SLICES, and
	 * every ns stays */
	CU_ASSERT_EQUAL(pr_span(&a, PR_WAIT(1), 3, 1000 + 1000, 1000 + 5000), 0);
	CU_ASSERT(a.slices <= PR_SLICES);
	CU_ASSERT_EQUAL(a.shift, 5); /* 5000 ns / 256 -> 32 ns slices */
	CU_ASSERT_EQUAL(range_sum(&a, PR_FUNC, 7, 0, PR_SLICES, 0), 10);
	CU_ASSERT_EQUAL(range_sum(&a, PR_FUNC, 7, 0, PR_SLICES, 1), 1);
	CU_ASSERT_EQUAL(range_sum(&a, PR_WAIT(1), 3, 0, PR_SLICES, 0), 4000);
	/* the slices before 94 (3008 ns since base) hold the wait until then */
	CU_ASSERT_EQUAL(range_sum(&a, PR_WAIT(1), 3, 0, 94, 0), 3008 - 1000);
	/* another thread's map, at finer slices, merged: sums per cell */
	for (int i = 0; i < 100; i++)
		CU_ASSERT_EQUAL(pr_count(&b, PR_LOCK(2), 0xabc, 1000 + (uint64_t)i), 0);
	CU_ASSERT_EQUAL(pr_span(&b, PR_FUNC, 7, 1005, 1105), 0);
	CU_ASSERT(b.shift < a.shift);
	CU_ASSERT_EQUAL(pr_merge(&a, &b), 0);
	CU_ASSERT_EQUAL(range_sum(&a, PR_LOCK(2), 0xabc, 0, PR_SLICES, 1), 100);
	CU_ASSERT_EQUAL(range_sum(&a, PR_FUNC, 7, 0, PR_SLICES, 0), 110);
	CU_ASSERT_EQUAL(range_sum(&a, PR_LOCK(2), 0xabc, 0, 1, 1), 32); /* the first 32 ns */
	/* sorted: by tag, id, slice, no cell twice */
	pr_cell *c = pr_sorted(&a);
	CU_ASSERT_FATAL(c != NULL);
	for (size_t i = 1; i < a.n; i++)
		CU_ASSERT(c[i - 1].tag < c[i].tag ||
		          (c[i - 1].tag == c[i].tag &&
		           (c[i - 1].id < c[i].id ||
		            (c[i - 1].id == c[i].id && c[i - 1].slice < c[i].slice))));
	free(c);
	/* many things: the table grows and keeps them all */
	for (uint64_t f = 1; f <= 3000; f++)
		CU_ASSERT_EQUAL(pr_span(&b, PR_FUNC, f, 1000, 1000 + f), 0);
	uint64_t total = 0;
	for (size_t i = 0; i < b.cap; i++)
		total += b.c[i].tag == PR_FUNC ? b.c[i].v[0] : 0;
	CU_ASSERT_EQUAL(total, 3000ull * 3001 / 2 + 100);
	pr_free(&a);
	pr_free(&b);
	/* the front: figures per slice in arrays, into the map as time moves
	 * on, even when another tag widened the map's slices meanwhile */
	CU_ASSERT_EQUAL_FATAL(pr_init(&a, 0, 0), 0);
	pr_front f;
	pr_front_init(&f, &a);
	for (uint64_t t = 0; t < 200; t += 2) {
		CU_ASSERT_EQUAL(pr_front_count(&f, 5, t), 0);
		CU_ASSERT_EQUAL(pr_front_span(&f, 5, t, t + 2), 0);
		CU_ASSERT_EQUAL(pr_front_span(&f, 9, t + 1, t + 2), 0);
	}
	CU_ASSERT_EQUAL(pr_span(&a, PR_WAIT(0), 1, 0, 4000), 0); /* 16 ns slices */
	CU_ASSERT_EQUAL(pr_front_span(&f, 9, 200, 700), 0);    /* over slices */
	CU_ASSERT_EQUAL(pr_front_flush(&f), 0);
	CU_ASSERT_EQUAL(a.shift, 4);
	CU_ASSERT_EQUAL(range_sum(&a, PR_FUNC, 5, 0, PR_SLICES, 0), 200);
	CU_ASSERT_EQUAL(range_sum(&a, PR_FUNC, 5, 0, PR_SLICES, 1), 100);
	CU_ASSERT_EQUAL(range_sum(&a, PR_FUNC, 5, 0, 1, 1), 8); /* t 0..14 */
	CU_ASSERT_EQUAL(range_sum(&a, PR_FUNC, 9, 0, PR_SLICES, 0), 100 + 500);
	CU_ASSERT_EQUAL(range_sum(&a, PR_FUNC, 9, 0, 192 / 16, 0), 192 / 2); /* odd ns before 192 */
	CU_ASSERT_EQUAL(range_sum(&a, PR_FUNC, 9, 700 / 16, PR_SLICES, 0), 700 - 688);
	pr_front_free(&f);
	pr_free(&a);
	/* known to last 1 ms: 4 us slices from the start */
	CU_ASSERT_EQUAL_FATAL(pr_init(&a, 1000, 1000 + 1000000), 0);
	CU_ASSERT_EQUAL(a.shift, 12);
	pr_free(&a);
}

int main(void)
{
	pt_families_use(pt_family_builtin);
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("plot", NULL, NULL);
	CU_add_test(s, "bins widen as the run grows", test_bins_grow);
	CU_add_test(s, "a call over several bins", test_bins_spread);
	CU_add_test(s, "the label of most time, or nothing", test_bins_dominant);
	CU_add_test(s, "waits and lost data", test_bins_wait_lost);
	CU_add_test(s, "call-path tree: paths, folding, merge", test_flame);
	CU_add_test(s, "range slices: widen, merge, keep every ns", test_range);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
