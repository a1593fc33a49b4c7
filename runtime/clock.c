/* SPDX-License-Identifier: MIT */
/* The run's clock: the invariant TSC where CPUID promises one (rdtsc costs
 * ~9 ns and no system call), CLOCK_MONOTONIC nanoseconds otherwise. The
 * TSC -> ns conversion (mult/shift, see format.h) is measured against
 * CLOCK_MONOTONIC from pairs of readings, without sysfs and without
 * sleeping (see pt_clock_current). */
#define _GNU_SOURCE
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

pt_clock_cal pt_clock = {PT_CLOCK_MONOTONIC, 0, 1, 0, 0};
int pt_clock_use_tsc;

uint64_t pt_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pt_clock_pair_now(pt_clock_pair *p)
{
	p->mono_ns = pt_mono_ns();
	p->ticks = pt_now();
	p->real_ns = real_ns();
}

int pt_clock_tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return 0;
	if (!__get_cpuid(0x80000007, &a, &b, &c, &d))
		return 0;
	return (d >> 8) & 1;
#else
	return 0;
#endif
}

/* A (mono, tsc) pair read as tightly as the machine allows: the narrowest
 * of a few bracketing attempts, tsc taken in the middle. */
static void tight_pair(uint64_t *tsc, uint64_t *mono)
{
#if defined(__x86_64__) || defined(__i386__)
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 16; i++) {
		uint64_t a = pt_mono_ns();
		uint64_t t = __rdtsc();
		uint64_t b = pt_mono_ns();
		if (b - a < best) {
			best = b - a;
			*tsc = t;
			*mono = a + (b - a) / 2;
		}
	}
#else
	*tsc = *mono = pt_mono_ns();
#endif
}

/* TSC calibration without waiting: the run's anchor pair is read once at
 * its start, and the conversion is the slope from it to a pair read when
 * a file needs one (its header when it is created, refreshed as it grows
 * and when it closes, writer.c). Each pair is off by ~10-20 ns, so the
 * slope's error is that over the span: the longer the run has gone, the
 * better, and a file whose header is refreshed once the run has aged by a
 * quarter since its last refresh (at its next record after that) never
 * holds a time converted with an error much above those 20 ns.
 * pt_clock.mult keeps the measurement over the longest span so far: what a
 * child or an exec'd image starts from (never 0 once the TSC is chosen). */
static int pt_clock_refine;            /* TSC with a known anchor */
static _Atomic uint64_t pt_clock_span; /* ticks behind pt_clock.mult */
/* The shortest span measured: 50 us keep the first headers within ~2e-4. */
#define PT_CAL_MIN_NS 50000u

void pt_clock_current(pt_clock_cal *cal, uint64_t *at)
{
	*cal = pt_clock;
	cal->mult = __atomic_load_n(&pt_clock.mult, __ATOMIC_RELAXED);
	*at = 0;
	if (!pt_clock_refine)
		return;
	uint64_t t, m;
	tight_pair(&t, &m);
	while (m < pt_clock.anchor_ns + PT_CAL_MIN_NS)
		tight_pair(&t, &m);
	if (t <= pt_clock.anchor_ticks)
		return; /* a TSC behind the anchor's: keep what there is */
	uint64_t span = t - pt_clock.anchor_ticks;
	/* ns per tick in 32.32 fixed point: exact enough (error < 1e-9 of the
	 * ratio) and the product fits the reader's 128-bit multiply. */
	uint64_t mult = (uint64_t)(((unsigned __int128)(m - pt_clock.anchor_ns) << 32) / span);
	if (!mult)
		return;
	cal->shift = 32;
	cal->mult = mult;
	*at = t;
	uint64_t best = atomic_load_explicit(&pt_clock_span, memory_order_relaxed);
	while (span > best) {
		if (atomic_compare_exchange_weak(&pt_clock_span, &best, span)) {
			__atomic_store_n(&pt_clock.mult, mult, __ATOMIC_RELAXED);
			break;
		}
	}
}

int pt_clock_init(const char *want, const pt_clock_cal *inherited, char *err, size_t errlen)
{
	int tsc_ok = pt_clock_tsc_invariant();
	int use_tsc = tsc_ok && (!want || strcmp(want, "monotonic") != 0);
	if (want && !strcmp(want, "tsc") && !tsc_ok) {
		snprintf(err, errlen,
			 "PARATRACE_CLOCK=tsc: this CPU has no invariant TSC (use auto or monotonic)");
		return -1;
	}
	pt_clock_refine = 0;
	if (inherited) {
		/* Every process of a run measures from the run's anchor; an
		 * older runtime passed no anchor: its conversion is kept. */
		if (inherited->source == PT_CLOCK_TSC && tsc_ok) {
			pt_clock = *inherited;
			pt_clock_use_tsc = 1;
			pt_clock_refine = inherited->anchor_ticks != 0;
			atomic_store(&pt_clock_span, 0);
			return 0;
		}
		if (inherited->source == PT_CLOCK_MONOTONIC) {
			pt_clock = (pt_clock_cal){PT_CLOCK_MONOTONIC, 0, 1, 0, 0};
			pt_clock_use_tsc = 0;
			return 0;
		}
	}
	if (use_tsc) {
		/* A first slope over the microsecond the two pairs take, only to
		 * see that the TSC advances; files measure theirs when they need
		 * one, by then usually more than PT_CAL_MIN_NS later: nothing
		 * waits here. */
		uint64_t t, m;
		pt_clock = (pt_clock_cal){PT_CLOCK_TSC, 32, 0, 0, 0};
		tight_pair(&pt_clock.anchor_ticks, &pt_clock.anchor_ns);
		tight_pair(&t, &m);
		if (t > pt_clock.anchor_ticks && m > pt_clock.anchor_ns) {
			pt_clock.mult = (uint64_t)(((unsigned __int128)(m - pt_clock.anchor_ns) << 32) /
						   (t - pt_clock.anchor_ticks));
			atomic_store(&pt_clock_span, t - pt_clock.anchor_ticks);
		}
		if (pt_clock.mult) {
			pt_clock_refine = 1;
			pt_clock_use_tsc = 1;
			return 0;
		}
	}
	pt_clock = (pt_clock_cal){PT_CLOCK_MONOTONIC, 0, 1, 0, 0};
	pt_clock_use_tsc = 0;
	return 0;
}
