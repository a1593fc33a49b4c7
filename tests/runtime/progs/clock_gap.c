/* SPDX-License-Identifier: MIT */
/* Two user events around a sleep: the trace's times must convert to the
 * CLOCK_MONOTONIC nanoseconds the program measured between them (the clock
 * calibration, runtime/core/clock.c). Prints "gap <ns> <ns>": the smallest and
 * largest CLOCK_MONOTONIC interval that can hold the two events. */
#include <paratrace.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	uint64_t a0 = mono();
	PT_EVENT("clock-gap", 1);
	uint64_t a1 = mono();
	struct timespec req = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&req, &req) != 0)
		;
	uint64_t b0 = mono();
	PT_EVENT("clock-gap", 2);
	uint64_t b1 = mono();
	printf("gap %" PRIu64 " %" PRIu64 "\n", b0 - a1, b1 - a0);
	return 0;
}
