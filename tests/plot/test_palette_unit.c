/* SPDX-License-Identifier: MIT */
/* Unit test of the pictures' palette (analyzer/tools/plot/plot_palette.h),
 * measured in CIELAB (CIE76 ΔE, D65): the top functions' colours are
 * pairwise far apart and far from the marks for waiting, lost data and
 * idle rows; any other function's pale tint never looks like a top one;
 * and the colours of a set of top functions do not depend on their ranks
 * (two runs of one program whose times differ get the same colours). The
 * names are those of a C++ program, whose functions the hash used to paint
 * in near-identical greens. */
#include "plot_palette.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lab {
	double l, a, b;
} lab;

static double lin(unsigned c)
{
	double x = c / 255.0;
	return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4);
}

static double f(double t)
{
	return t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116;
}

static lab to_lab(uint32_t rgb)
{
	double r = lin(rgb >> 16 & 0xff), g = lin(rgb >> 8 & 0xff), b = lin(rgb & 0xff);
	double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
	double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
	double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
	return (lab){116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

static double de(uint32_t x, uint32_t y)
{
	lab p = to_lab(x), q = to_lab(y);
	return sqrt((p.l - q.l) * (p.l - q.l) + (p.a - q.a) * (p.a - q.a) +
	            (p.b - q.b) * (p.b - q.b));
}

static uint32_t hex(const char *c)
{
	return (uint32_t)strtoul(c + 1, NULL, 16);
}

static const char *const cxx[] = {
    "std::vector<double, std::allocator<double> >::operator[](unsigned long)",
    "std::vector<double, std::allocator<double> >::size() const",
    "std::vector<double, std::allocator<double> >::push_back(double const&)",
    "std::__detail::_Mod_range_hashing::operator()(unsigned long, unsigned long) const",
    "std::unordered_map<int, int>::find(int const&)",
    "solver::Matrix::row(unsigned long)",
    "solver::Matrix::at(unsigned long, unsigned long)",
    "solver::Solver::step()",
    "solver::Solver::residual() const",
    "std::mutex::lock()",
    "std::mutex::unlock()",
    "std::__atomic_base<int>::fetch_add(int, std::memory_order)",
    "main",
    "worker(void*)",
    "std::sqrt(double)",
    "std::abs(double)"};
#define NCXX (sizeof cxx / sizeof *cxx)

static void test_slots_far_apart(void)
{
	static const uint32_t marks[] = {0xd62728, 0x000000, 0xffffff, 0xf2f2f2};
	double closest = 1e9;
	for (int i = 0; i < PLP_SLOTS; i++) {
		for (int j = i + 1; j < PLP_SLOTS; j++)
			closest = fmin(closest, de(plp_slot_rgb[i], plp_slot_rgb[j]));
		for (size_t k = 0; k < sizeof marks / sizeof *marks; k++)
			CU_ASSERT(de(plp_slot_rgb[i], marks[k]) >= PLP_MIN_DE);
		/* black text stays legible on it */
		CU_ASSERT(to_lab(plp_slot_rgb[i]).l >= 50);
	}
	printf("\n  closest slots: dE %.1f\n", closest);
	CU_ASSERT(closest >= PLP_MIN_DE);
}

static void test_top_distinct(void)
{
	uint32_t label[NCXX];
	for (size_t i = 0; i < NCXX; i++)
		label[i] = (uint32_t)(100 + i);
	pl_palette p;
	pl_palette_init(&p, label, cxx, NCXX);
	char c[NCXX][8];
	for (size_t i = 0; i < NCXX; i++)
		pl_palette_colour(&p, label[i], cxx[i], c[i]);
	double closest = 1e9;
	for (size_t i = 0; i < NCXX; i++)
		for (size_t j = i + 1; j < NCXX; j++)
			closest = fmin(closest, de(hex(c[i]), hex(c[j])));
	printf("  closest of %zu top functions: dE %.1f\n", NCXX, closest);
	CU_ASSERT(closest >= PLP_MIN_DE);
	/* functions outside the top: pale, never close to a top colour nor
	 * mistaken for an idle row */
	char name[64], pale[8];
	double nearest = 1e9;
	for (int k = 0; k < 2000; k++) {
		snprintf(name, sizeof name, "helper_%d", k);
		pl_palette_colour(&p, (uint32_t)(1000 + k), name, pale);
		for (size_t i = 0; i < NCXX; i++)
			nearest = fmin(nearest, de(hex(pale), hex(c[i])));
		CU_ASSERT(de(hex(pale), 0xf2f2f2) >= 8);
	}
	printf("  closest pale tint to a top colour: dE %.1f\n", nearest);
	CU_ASSERT(nearest >= 15);
}

/* Two runs: the same functions on top, in another order of time. */
static void test_stable(void)
{
	int a[NCXX], b[NCXX];
	const char *rev[NCXX];
	for (size_t i = 0; i < NCXX; i++)
		rev[i] = cxx[NCXX - 1 - i];
	plp_assign(cxx, NCXX, a);
	plp_assign(rev, NCXX, b);
	for (size_t i = 0; i < NCXX; i++)
		CU_ASSERT_EQUAL(a[i], b[NCXX - 1 - i]);
	/* a label of the set keeps its colour when an unrelated one leaves:
	 * at least the ones that did not collide with it */
	int c[NCXX - 1];
	plp_assign(cxx, NCXX - 1, c);
	size_t kept = 0;
	for (size_t i = 0; i < NCXX - 1; i++)
		kept += c[i] == a[i];
	CU_ASSERT(kept >= NCXX - 3);
	/* same name, same pale tint */
	char x[8], y[8];
	plp_pale("solver::Solver::step()", x);
	plp_pale("solver::Solver::step()", y);
	CU_ASSERT_STRING_EQUAL(x, y);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("palette", NULL, NULL);
	CU_add_test(s, "slots pairwise far apart", test_slots_far_apart);
	CU_add_test(s, "top functions far apart, the rest pale", test_top_distinct);
	CU_add_test(s, "colours independent of ranks", test_stable);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
