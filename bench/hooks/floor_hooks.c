/* SPDX-License-Identifier: MIT */
/* Reference hooks for the hook benchmark, in their own shared object like
 * libtrace.so: "empty" (the call floor) and "minimal" (read the TSC and
 * append 8 bytes to a thread-local buffer through initial-exec TLS; the
 * buffer wraps around and is never written out). */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define READ_CLOCK() __rdtsc()
#else
#include <time.h>
static inline uint64_t READ_CLOCK(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

#define MIN_WORDS (1u << 17) /* 1 MiB per thread */

static __thread uint64_t *min_cur __attribute__((tls_model("initial-exec")));
static __thread uint64_t *min_end __attribute__((tls_model("initial-exec")));
static __thread uint64_t *min_base __attribute__((tls_model("initial-exec")));

void bench_empty_enter(uint32_t id)
{
	__asm__ volatile("" : : "r"(id) : "memory");
}

void bench_empty_exit(uint32_t id)
{
	__asm__ volatile("" : : "r"(id) : "memory");
}

__attribute__((noinline)) static void min_refill(void)
{
	if (!min_base) {
		min_base = calloc(MIN_WORDS, sizeof *min_base);
		min_end = min_base + MIN_WORDS;
	}
	min_cur = min_base;
}

static inline void min_append(uint32_t id)
{
	uint64_t *cur = min_cur;
	if (__builtin_expect(cur == min_end || !cur, 0)) {
		min_refill();
		cur = min_cur;
	}
	*cur = READ_CLOCK() << 24 | id;
	min_cur = cur + 1;
}

void bench_min_enter(uint32_t id)
{
	min_append(id);
}

void bench_min_exit(uint32_t id)
{
	min_append(id);
}

/* The same append into a 64 MiB ring (pre-faulted): like a real log, the
 * records go to memory that is not in the cache. Shows how much of a
 * tracer's cost is the data itself rather than its code. */
#define BIG_WORDS (1u << 23)
static __thread uint64_t *big_cur __attribute__((tls_model("initial-exec")));
static __thread uint64_t *big_end __attribute__((tls_model("initial-exec")));
static __thread uint64_t *big_base __attribute__((tls_model("initial-exec")));

__attribute__((noinline)) static void big_refill(void)
{
	if (!big_base) {
		/* Faulted in here, on the thread's first call, outside the timing. */
		void *p = mmap(NULL, BIG_WORDS * sizeof *big_base, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			abort();
		big_base = p;
		big_end = big_base + BIG_WORDS;
	}
	big_cur = big_base;
}

static inline void big_append(uint32_t id)
{
	uint64_t *cur = big_cur;
	if (__builtin_expect(cur == big_end || !cur, 0)) {
		big_refill();
		cur = big_cur;
	}
	*cur = READ_CLOCK() << 24 | id;
	big_cur = cur + 1;
}

/* Called by the benchmark when a thread is done: a ring left mapped by each
 * of the run's threads would add up to gigabytes and slow the variants
 * measured after it (page reclaim, larger page tables). */
void bench_release(void)
{
	if (big_base)
		munmap(big_base, BIG_WORDS * sizeof *big_base);
	big_base = big_cur = big_end = NULL;
	free(min_base);
	min_base = min_cur = min_end = NULL;
}

void bench_big_enter(uint32_t id)
{
	big_append(id);
}

void bench_big_exit(uint32_t id)
{
	big_append(id);
}
