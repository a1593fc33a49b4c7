/* SPDX-License-Identifier: MIT */
/* Untraced cost of instrumentation: a hot loop of calls to a small leaf
 * function that survives -O2 (noinline), timed with CLOCK_MONOTONIC.
 * bench_plugin.py builds it plain, with instrument.so, with XRay sleds and
 * with -finstrument-functions, and runs each side by side.
 *   calls <ncalls> [leaf|inline]
 * leaf:   ns per call of leaf()
 * inline: ns per iteration of a loop over a small static getter that -O2
 *         inlines: what instrumenting at pipeline start (before inlining)
 *         costs compared with the default late position. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__attribute__((noinline)) int leaf(int x)
{
	return x * 3 + 1;
}

struct table {
	int v[64];
};

static int get(const struct table *t, int i)
{
	return t->v[i & 63];
}

__attribute__((noinline)) long sum_table(const struct table *t, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += get(t, (int)i);
	return s;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000;
	const char *what = argc > 2 ? argv[2] : "leaf";
	double t0, t1;
	long sink = 0;
	if (strcmp(what, "inline") == 0) {
		struct table t;
		for (int i = 0; i < 64; i++)
			t.v[i] = i * 7;
		t0 = now();
		sink = sum_table(&t, n);
		t1 = now();
	} else {
		int acc = 1;
		t0 = now();
		for (long i = 0; i < n; i++)
			acc = leaf(acc ^ (int)i);
		t1 = now();
		sink = acc;
	}
	printf("%.3f ns %ld\n", (t1 - t0) / n, sink & 1);
	return 0;
}
