/* SPDX-License-Identifier: MIT */
/* Two phases with known durations, for report --from/--to, --tree and diff
 * on a real run (test_views_real.py): setup() runs alone for 20 ms; then
 * ten rounds of step_a() (1 ms), step_b() (FACTOR ms) and step_c() (1 ms).
 * Each step spins until its time has passed, so its duration is the same
 * on a loaded machine (preemption only adds to it).
 *
 * Usage: phases [FACTOR]   (default 1; step_b's work) */
#include <stdlib.h>
#include <time.h>

#define STEP __attribute__((noinline))

static volatile unsigned long sink;

static void spin_ms(long ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ms * 1000000L);
}

STEP static void setup(void)
{
	spin_ms(20);
}

STEP static void step_a(void)
{
	spin_ms(1);
}

STEP static void step_b(long factor)
{
	spin_ms(factor);
}

STEP static void step_c(void)
{
	spin_ms(1);
}

int main(int argc, char **argv)
{
	long factor = argc > 1 ? atol(argv[1]) : 1;
	setup();
	for (int round = 0; round < 10; round++) {
		step_a();
		step_b(factor);
		step_c();
	}
	return 0;
}
