/* SPDX-License-Identifier: MIT */
/* Two phases with known durations, for report --from/--to, --tree and diff
 * on a real run (test_views_real.py): setup() runs alone for 5 ms; then
 * ten rounds of step_a() (0.2 ms), step_b() (FACTOR x 0.5 ms) and step_c()
 * (0.2 ms), and 100 calls of tick(), a few ns each, which the runtime
 * throttles when told to (PARATRACE_THROTTLE). Each step spins until its
 * time has passed, so a loaded machine only makes it longer (preemption
 * adds to it). The other functions are short so that, on such a machine, a
 * preemption lands in them seldom.
 *
 * Usage: phases [FACTOR]   (default 1) */
#include <stdlib.h>
#include <time.h>

#define STEP __attribute__((noinline))

static volatile unsigned long sink;

static void spin_us(long us)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < us * 1000L);
}

STEP static void setup(void)
{
	spin_us(5000);
}

STEP static void step_a(void)
{
	spin_us(200);
}

STEP static void step_b(long factor)
{
	spin_us(factor * 500);
}

STEP static void tick(int i)
{
	sink += (unsigned long)i;
}

STEP static void step_c(void)
{
	spin_us(200);
}

int main(int argc, char **argv)
{
	long factor = argc > 1 ? atol(argv[1]) : 1;
	setup();
	for (int round = 0; round < 10; round++) {
		step_a();
		step_b(factor);
		step_c();
		for (int i = 0; i < 100; i++)
			tick(i);
	}
	return 0;
}
