// SPDX-License-Identifier: MIT
// Lambdas, and OpenMP regions in a lambda, a method and a template, which
// instrument.so names "main::<lambda at omp_cxx.cpp:L>(int)" and
// "Grid::relax() [omp parallel for at omp_cxx.cpp:L]". Lines are marked
// "@name" for tests/plugin/omp.py. Every lambda is noinline so that it
// survives -O2 as a function (the pass instruments late).
//   omp_cxx N   (run with OMP_NUM_THREADS)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "leaf.h"

LEAF(each_leaf)
LEAF(thread_leaf)
LEAF(gen_leaf)
LEAF(inner_leaf)
LEAF(omp_leaf)
LEAF(method_leaf)
LEAF(tmpl_leaf)
LEAF(twin_leaf)

struct Grid {
	int n;
	__attribute__((noinline)) void relax()
	{
#pragma omp parallel for schedule(static) // @relax
		for (int i = 0; i < n; i++)
			method_leaf(i);
	}
};

template <class T> __attribute__((noinline)) void scale(T v)
{
#pragma omp parallel // @scale
	tmpl_leaf(static_cast<int>(v));
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 6;
	std::vector<int> v(n, 1);
	int total = 0;
	// Closure sizes differ (what tells lambdas of one function with the
	// same parameters apart without -g), except for the twins below.
	std::for_each(v.begin(), v.end(), [&total](int x) __attribute__((noinline)) { // @each
		each_leaf(x);
		total += x;
	});
	std::thread t([&total, argc]() __attribute__((noinline)) { thread_leaf(argc + total); }); // @thread
	t.join();
	auto gen = [](auto x) __attribute__((noinline)) { gen_leaf(static_cast<int>(x)); }; // @gen
	gen(1);
	gen(2.0);
	auto outer = [argc](int k) __attribute__((noinline)) { // @outer
		auto inner = [k](int j) __attribute__((noinline)) { inner_leaf(j + k); }; // @inner
		inner(argc);
		inner(argc + 1);
	};
	outer(1);
	auto par = [](int k) __attribute__((noinline)) { // @par
#pragma omp parallel // @parregion
		omp_leaf(k);
	};
	par(1);
	par(2);
	auto twin1 = [](long x) __attribute__((noinline)) { twin_leaf(static_cast<int>(x)); }; // @twin1
	auto twin2 = [](long x) __attribute__((noinline)) { twin_leaf(static_cast<int>(x) + 1); }; // @twin2
	twin2(1);
	twin1(2);
	Grid g{n};
	g.relax();
	scale(3);
	scale(4.0);
	std::printf("total %d sink %d\n", total, sink);
	return 0;
}
