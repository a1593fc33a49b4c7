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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

pt_clock_cal pt_clock = {PT_CLOCK_MONOTONIC, 0, 1, 0, 0};
PT_HOT_DATA int pt_clock_use_tsc = 0;
/* For tests only: PARATRACE_TEST_CLOCK_OFFSET_NS shifts every clock
 * reading of this process, as if it ran on a host whose clock is that far
 * from the others' (the MPI clock synchronisation must remove it). */
static int64_t pt_clock_test_offset;
/* This process's CLOCK_MONOTONIC minus the run's (pt_clock_align): taken
 * off every monotonic reading, so that its times are on the run's clock. */
int64_t pt_clock_mono_offset;

uint64_t pt_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec +
	       (uint64_t)pt_clock_test_offset - (uint64_t)pt_clock_mono_offset;
}

static uint64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec +
	       (uint64_t)pt_clock_test_offset;
}

/* One (mono, tsc) reading: the TSC between two CLOCK_MONOTONIC readings,
 * paired with their midpoint; returns the bracket's width, the pair's
 * uncertainty. A bracket this narrow was not cut by an interrupt, a signal
 * handler or the host taking the CPU away. */
#if defined(__x86_64__) || defined(__i386__)
static uint64_t bracket(uint64_t *tsc, uint64_t *mono)
{
	uint64_t a = pt_mono_ns();
	*tsc = pt_rdtsc();
	uint64_t b = pt_mono_ns();
	*mono = a + (b - a) / 2;
	return b - a;
}

/* The narrowest of up to tries brackets, stopping at the first no wider
 * than enough_ns. */
static void narrowest_bracket(uint64_t *tsc, uint64_t *mono, int tries, uint64_t enough_ns)
{
	uint64_t best = bracket(tsc, mono);
	for (int i = 1; i < tries && best > enough_ns; i++) {
		uint64_t t, m, gap = bracket(&t, &m);
		if (gap < best) {
			best = gap;
			*tsc = t;
			*mono = m;
		}
	}
}
#endif

/* 20-60 ns is the usual width; a reader preempted between its two clocks
 * would put its whole file (the header's pair is its time reference) that
 * far off the run's others. */
#define PT_PAIR_MAX_GAP_NS 500u

void pt_clock_pair_now(pt_clock_pair *p)
{
#if defined(__x86_64__) || defined(__i386__)
	if (pt_clock_use_tsc) {
		narrowest_bracket(&p->ticks, &p->mono_ns, 4, PT_PAIR_MAX_GAP_NS);
		p->real_ns = real_ns();
		return;
	}
#endif
	p->mono_ns = p->ticks = pt_mono_ns();
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
	narrowest_bracket(tsc, mono, 16, 0);
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
	/* A run younger than PT_CAL_MIN_NS waits until it is that old, which
	 * is never longer than PT_CAL_MIN_NS: a clock still short of it then
	 * is not the anchor's (pt_clock_align let a small offset through),
	 * and what there is is kept. */
	for (uint64_t start = m; m < pt_clock.anchor_ns + PT_CAL_MIN_NS;) {
		if (m - start >= PT_CAL_MIN_NS)
			return;
		tight_pair(&t, &m);
	}
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

uint64_t pt_ticks_of_ns(uint64_t ns)
{
	uint64_t mult = __atomic_load_n(&pt_clock.mult, __ATOMIC_RELAXED);
	if (!pt_clock_use_tsc || !mult)
		return ns;
	return (uint64_t)(((unsigned __int128)ns << pt_clock.shift) / mult);
}

/* The largest disagreement between this process's CLOCK_MONOTONIC and
 * the run's (read through the TSC from the anchor) taken for measurement
 * error: the inherited mult is measured over the run's age when it is
 * handed down (at fork and exec), so the prediction is off by tens of ns
 * times the ratio of the ages, microseconds at worst. A time namespace
 * is offset by seconds. */
#define PT_CLOCK_ALIGN_TOLERANCE_NS 1000000

/* A process of the run whose CLOCK_MONOTONIC is not the run's: started in
 * another time namespace (containers, checkpoint/restore: each namespace
 * has its own monotonic offset), or given PARATRACE_TEST_CLOCK_OFFSET_NS.
 * The TSC is the machine's, so the anchor and mult tell what the run's
 * monotonic clock reads now; the difference is this process's offset,
 * taken off its readings from now on. Its files record it (the header's
 * clock_offset_ns). A TSC that is not past the anchor's is not the run's
 * TSC: the process measures from an anchor of its own, with a warning. */
static void pt_clock_align(void)
{
	uint64_t t, m;
	tight_pair(&t, &m);
	if (t <= pt_clock.anchor_ticks) {
		pt_warn("this process's TSC is behind the anchor of the run it belongs to: its "
		        "times are measured from an anchor of its own and may be offset from the "
		        "other processes'");
		tight_pair(&pt_clock.anchor_ticks, &pt_clock.anchor_ns);
		atomic_store(&pt_clock_span, 0);
		return;
	}
	uint64_t run_ns =
	    pt_clock.anchor_ns +
	    (uint64_t)(((unsigned __int128)(t - pt_clock.anchor_ticks) * pt_clock.mult) >>
	               pt_clock.shift);
	int64_t off = (int64_t)(m - run_ns);
	if (off > PT_CLOCK_ALIGN_TOLERANCE_NS || off < -PT_CLOCK_ALIGN_TOLERANCE_NS) {
		pt_clock_mono_offset += off;
		pt_debug(1, "CLOCK_MONOTONIC is %lld ns off the run's: corrected",
		         (long long)pt_clock_mono_offset);
	}
}

void pt_clock_fork_child(void)
{
	if (pt_clock_refine)
		pt_clock_align();
}

void pt_clock_fork_prepare(void)
{
	pt_clock_cal cal;
	uint64_t at;
	pt_clock_current(&cal, &at);
}

int pt_clock_init(const char *want, const pt_clock_cal *inherited, char *err, size_t errlen)
{
	const char *shift = pt_cfg.test_clock_offset;
	pt_clock_test_offset = shift ? strtoll(shift, NULL, 10) : 0;
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
			if (pt_clock_refine)
				pt_clock_align();
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
