/* SPDX-License-Identifier: MIT */
/* Built with instrument.so and linked with landed_lib.c (built without
 * it), run under libtrace.so by test_landed.py with a throttling threshold
 * every function meets after 10,000 calls. Two functions call setjmp and
 * have longjmps land in them where nothing recorded is open above them,
 * so the trace can tell the landing from a new call only by its record
 * (FUNC_LANDED):
 *   lander      the longjmp comes from leap(), called through hop(): both
 *               throttled by then (warm() called them 20,000 times), so
 *               their calls record nothing
 *   lib_lander  the longjmp comes from lib_jump() in landed_lib.c, which
 *               has no hooks at all
 * Each is called CALLS times and has LANDINGS landings per call. Each
 * function counts its own calls; the program prints the counts
 * (COUNT name n) and the landings (LANDED name n), the same traced or
 * not. */
#include <setjmp.h>
#include <stdio.h>

#define CALLS 3
#define LANDINGS 5

void lib_jump(jmp_buf env); /* landed_lib.c: longjmp(env, 1) */

static volatile long n_main, n_warm, n_hop, n_leap, n_lander, n_lib_lander;
static volatile long landed_lander, landed_lib_lander;
static volatile int jump_on;
static jmp_buf env;

__attribute__((noinline)) int leap(int i)
{
	n_leap++;
	if (jump_on)
		longjmp(env, 1);
	return i ^ 3;
}

__attribute__((noinline)) int hop(int i)
{
	n_hop++;
	return leap(i) + 1;
}

__attribute__((noinline)) long warm(int n)
{
	n_warm++;
	long s = 0;
	for (int i = 0; i < n; i++)
		s += hop(i);
	return s;
}

__attribute__((noinline)) long lander(void)
{
	n_lander++;
	/* static: changed between setjmp and longjmp, read after a landing */
	static volatile long s;
	static volatile int k;
	k = 0;
	if (setjmp(env) != 0) {
		k = k + 1;
		landed_lander++;
	}
	jump_on = k < LANDINGS;
	s = s + hop(k);
	jump_on = 0;
	return s;
}

__attribute__((noinline)) long lib_lander(void)
{
	n_lib_lander++;
	static volatile int k;
	k = 0;
	if (setjmp(env) != 0) {
		k = k + 1;
		landed_lib_lander++;
	}
	if (k < LANDINGS)
		lib_jump(env);
	return k;
}

int main(void)
{
	n_main++;
	long s = warm(20000);
	for (int i = 0; i < CALLS; i++)
		s += lander() + lib_lander();
	printf("%ld\n", s);
	const struct {
		const char *name;
		volatile long *n;
	} counts[] = {{"main", &n_main},     {"warm", &n_warm},       {"hop", &n_hop},
	              {"leap", &n_leap},     {"lander", &n_lander}, {"lib_lander", &n_lib_lander}};
	for (unsigned i = 0; i < sizeof counts / sizeof counts[0]; i++)
		printf("COUNT %s %ld\n", counts[i].name, *counts[i].n);
	printf("LANDED lander %ld\nLANDED lib_lander %ld\n", landed_lander, landed_lib_lander);
	return 0;
}
