/* The run's clock: the invariant TSC where CPUID promises one (rdtsc costs
 * ~9 ns and no system call), CLOCK_MONOTONIC nanoseconds otherwise. The
 * TSC -> ns conversion (mult/shift, see format.h) is calibrated without
 * sysfs: the kernel's own conversion from a perf_event mmap page when the
 * kernel exposes it (cap_user_time), else a short measurement against
 * CLOCK_MONOTONIC. */
#define _GNU_SOURCE
#include "core.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

pt_clock_cal pt_clock = {PT_CLOCK_MONOTONIC, 0, 1};
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

int pt_clock_cal_perf(pt_clock_cal *cal)
{
#if defined(__x86_64__)
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pg =
		mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, (int)fd, 0);
	close((int)fd);
	if (pg == MAP_FAILED)
		return -1;
	uint32_t seq, mult = 0, shift = 0;
	uint64_t cap = 0;
	int tries = 0;
	do {
		seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);
		cap = pg->cap_user_time;
		mult = pg->time_mult;
		shift = pg->time_shift;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE) != seq && ++tries < 1000);
	munmap(pg, (size_t)page);
	if (!cap || !mult || shift > 63)
		return -1;
	cal->source = PT_CLOCK_TSC;
	cal->mult = mult;
	cal->shift = shift;
	return 0;
#else
	(void)cal;
	return -1;
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

int pt_clock_cal_measure(pt_clock_cal *cal, unsigned ms)
{
#if defined(__x86_64__) || defined(__i386__)
	uint64_t t0, m0, t1, m1;
	tight_pair(&t0, &m0);
	struct timespec req = {0, (long)ms * 1000000L};
	while (nanosleep(&req, &req) != 0 && errno == EINTR)
		;
	tight_pair(&t1, &m1);
	if (t1 <= t0 || m1 <= m0)
		return -1;
	/* ns per tick in 32.32 fixed point: exact enough (error < 1e-9 of
	 * the ratio) and the product fits the reader's 128-bit multiply. */
	cal->source = PT_CLOCK_TSC;
	cal->shift = 32;
	cal->mult = (uint64_t)(((unsigned __int128)(m1 - m0) << 32) / (t1 - t0));
	return cal->mult ? 0 : -1;
#else
	(void)cal;
	(void)ms;
	return -1;
#endif
}

/* Does cal agree with the TSC's rate against CLOCK_MONOTONIC over a few
 * ms? Guards against a perf page describing another clock (e.g. a kernel
 * whose clocksource is not the TSC). */
static int cal_plausible(const pt_clock_cal *cal)
{
	pt_clock_cal m;
	if (pt_clock_cal_measure(&m, 3) != 0)
		return 0;
	long double a = (long double)cal->mult / (long double)((unsigned __int128)1 << cal->shift);
	long double b = (long double)m.mult / (long double)((unsigned __int128)1 << m.shift);
	long double r = a / b;
	return r > 0.995L && r < 1.005L;
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
	if (inherited) {
		/* Every process of a run must share one conversion. */
		if (inherited->source == PT_CLOCK_TSC && tsc_ok) {
			pt_clock = *inherited;
			pt_clock_use_tsc = 1;
			return 0;
		}
		if (inherited->source == PT_CLOCK_MONOTONIC) {
			pt_clock = (pt_clock_cal){PT_CLOCK_MONOTONIC, 0, 1};
			pt_clock_use_tsc = 0;
			return 0;
		}
	}
	if (use_tsc) {
		pt_clock_cal cal;
		if ((pt_clock_cal_perf(&cal) == 0 && cal_plausible(&cal)) ||
		    pt_clock_cal_measure(&cal, 10) == 0) {
			pt_clock = cal;
			pt_clock_use_tsc = 1;
			return 0;
		}
	}
	pt_clock = (pt_clock_cal){PT_CLOCK_MONOTONIC, 0, 1};
	pt_clock_use_tsc = 0;
	return 0;
}
