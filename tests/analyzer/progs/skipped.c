/* SPDX-License-Identifier: MIT */
/* Built with instrument.so and linked with skipped_lib.c (built without
 * it), run under libtrace.so by test_throttle_skipped.py with a threshold
 * of a few microseconds every ROUND calls. Three tiny functions are each
 * recorded in a call that a longjmp skips (their exit hooks never come),
 * then called LOOPS times, each call after GAP_NS of spinning: their calls
 * last far less than the threshold, the gaps between them far more.
 *   g   skipped by a longjmp from h() that lands in lander(), which then
 *       loops on g: the landing hook ends the skipped calls
 *   g2  skipped by a longjmp that lands in lib_catch() (no hooks) inside
 *       catcher(); main loops on g2 after catcher returned: catcher's exit
 *       ends the calls above it
 *   g3  skipped, with rec(0) that called it, by a longjmp that lands in
 *       rec(1), which then loops on g3: the landing ends the calls of the
 *       deeper rec, not its own
 * Counted open for ever, a skipped call would make every later round of
 * its function look as long as the round itself, and the function would
 * never be throttled. The program prints its calls (COUNT name n), the
 * same traced or not. */
#include <setjmp.h>
#include <stdio.h>
#include <time.h>

#define LOOPS 6000
#define GAP_NS 5000

int lib_catch(void (*fn)(void)); /* skipped_lib.c: setjmp, then fn() */
void lib_throw(void);            /* longjmp to lib_catch's setjmp */

static volatile long n_main, n_h, n_g, n_g2, n_g3, n_lander, n_catcher, n_throw_g2, n_rec;
static volatile int jump;
static jmp_buf env, env3;

static void spin(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < GAP_NS);
}

/* fn called LOOPS times, GAP_NS apart */
static long gaps(int (*fn)(int))
{
	long s = 0;
	for (int i = 0; i < LOOPS; i++) {
		spin();
		s += fn(i);
	}
	return s;
}

__attribute__((noinline)) void h(void)
{
	n_h++;
	if (jump)
		longjmp(env, 1);
}

__attribute__((noinline)) int g(int i)
{
	n_g++;
	h();
	return i + 1;
}

__attribute__((noinline)) long lander(void)
{
	n_lander++;
	if (setjmp(env) == 0) {
		jump = 1;
		g(0);
	}
	jump = 0;
	return gaps(g);
}

__attribute__((noinline)) int g2(int i)
{
	n_g2++;
	if (jump)
		lib_throw();
	return i + 2;
}

__attribute__((noinline)) void throw_g2(void)
{
	n_throw_g2++;
	g2(0);
}

__attribute__((noinline)) long catcher(void)
{
	n_catcher++;
	jump = 1;
	int r = lib_catch(throw_g2);
	jump = 0;
	return r;
}

__attribute__((noinline)) int g3(int i)
{
	n_g3++;
	if (jump)
		longjmp(env3, 1);
	return i + 3;
}

__attribute__((noinline)) long rec(int d)
{
	n_rec++;
	if (d == 0)
		return g3(0);
	if (setjmp(env3) == 0) {
		jump = 1;
		rec(d - 1);
	}
	jump = 0;
	return gaps(g3);
}

int main(void)
{
	n_main++;
	long s = lander() + catcher();
	s += gaps(g2);
	s += rec(1);
	printf("%ld\n", s);
	const struct {
		const char *name;
		volatile long *n;
	} counts[] = {{"main", &n_main},       {"h", &n_h},           {"g", &n_g},
	              {"lander", &n_lander},   {"g2", &n_g2},         {"throw_g2", &n_throw_g2},
	              {"catcher", &n_catcher}, {"g3", &n_g3},         {"rec", &n_rec}};
	for (unsigned i = 0; i < sizeof counts / sizeof counts[0]; i++)
		printf("COUNT %s %ld\n", counts[i].name, *counts[i].n);
	return 0;
}
