/* SPDX-License-Identifier: MIT */
/* Unit tests of the core's pieces that threads share: the bump allocator
 * across its chunk switches, and the runtime's lock (pt_spin.h). Linked
 * with the core alone (pt_core_obj), PARATRACE_ENABLE=0; also built with
 * ThreadSanitizer (label tsan). */
#define _GNU_SOURCE
#include "core.h"

#include <CUnit/Basic.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- bump allocator ------------------------------------------------------ */

/* Several threads take small blocks as fast as they can, so that each is
 * often between reading which chunk is current and taking its block. A
 * block must never be handed out twice however the threads interleave,
 * and in particular when one is held up right there while others switch
 * chunks. On a machine with few CPUs a thread is seldom preempted at that
 * very instruction, so the test holds them up itself, the way a signal
 * does: another thread sends them a real-time signal (queued, not merged) again and again, and the
 * handler, on the interrupted thread, takes blocks large enough to make
 * the allocator switch chunks before the interrupted allocation goes on
 * (pt_bump_alloc is reached from signal handlers too: the manual API).
 * Every block is recorded; none may overlap another. */
#define ALLOC_THREADS 4
#define SMALL_BLOCKS (1u << 18) /* per thread, at most */
#define HANDLER_BLOCKS 8        /* per signal at most: more than a chunk holds */
#define SIGNALS 1000            /* per thread */

typedef struct block {
	char *p;
	size_t size;
} block;

typedef struct allocator {
	pthread_t th;
	block small[SMALL_BLOCKS];
	block large[SIGNALS * HANDLER_BLOCKS];
	atomic_size_t nsmall, nlarge;
	atomic_int ready;   /* the handler can find it */
	atomic_int handled; /* signals handled so far */
} allocator;

static allocator allocators[ALLOC_THREADS];
static __thread allocator *self;

static void record(block *b, atomic_size_t *n, size_t cap, char *p, size_t size)
{
	size_t i = atomic_load_explicit(n, memory_order_relaxed);
	if (i < cap) {
		b[i] = (block){p, size};
		atomic_store_explicit(n, i + 1, memory_order_release);
	}
}

/* Takes large blocks until one comes from a new chunk (it does not follow
 * the previous one), so that the interrupted allocation goes on just
 * after a chunk switch, with the new chunk nearly empty. */
static void take_large(int sig)
{
	(void)sig;
	const size_t size = 60 * 1024;
	char *prev = NULL;
	for (int i = 0; i < HANDLER_BLOCKS; i++) {
		char *p = pt_bump_alloc(size);
		record(self->large, &self->nlarge, SIGNALS * HANDLER_BLOCKS, p, size);
		if (prev && p != prev + size)
			break;
		prev = p;
	}
	atomic_fetch_add(&self->handled, 1);
}

static atomic_int stop;

/* SMALL_BLOCKS blocks, then waits (for its last signals) until told to stop. */
static void *take_small(void *arg)
{
	self = arg;
	atomic_store(&self->ready, 1);
	for (size_t i = 0; i < SMALL_BLOCKS && !atomic_load_explicit(&stop, memory_order_relaxed);
	     i++) {
		size_t size = 16 + (i % 4) * 16;
		record(self->small, &self->nsmall, SMALL_BLOCKS, pt_bump_alloc(size), size);
	}
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		usleep(100);
	return NULL;
}

static int by_address(const void *a, const void *b)
{
	const block *x = a, *y = b;
	return x->p < y->p ? -1 : x->p > y->p;
}

static void test_bump_alloc_no_overlap(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = take_large;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	CU_ASSERT_FATAL(sigaction(SIGRTMIN, &sa, NULL) == 0);
	for (size_t t = 0; t < ALLOC_THREADS; t++)
		CU_ASSERT_FATAL(
		    pthread_create(&allocators[t].th, NULL, take_small, &allocators[t]) == 0);
	/* One signal at a time per thread: a signal sent while the previous
	 * one is still being handled would run at the same point of the
	 * interrupted code (on the handler's return), not at a new one. */
	for (size_t t = 0; t < ALLOC_THREADS; t++)
		while (!atomic_load(&allocators[t].ready))
			sched_yield();
	int sent[ALLOC_THREADS] = {0}, busy = 1;
	unsigned seed = 1;
	while (busy) {
		busy = 0;
		for (size_t t = 0; t < ALLOC_THREADS; t++) {
			allocator *a = &allocators[t];
			if (atomic_load(&a->handled) == SIGNALS)
				continue;
			busy = 1;
			if (atomic_load(&a->handled) == sent[t] && sent[t] < SIGNALS &&
			    pthread_kill(a->th, SIGRTMIN) == 0)
				sent[t]++;
		}
		/* A few microseconds apart, at no fixed phase of the loop. */
		for (volatile unsigned spin = rand_r(&seed) % 2000; spin; spin--)
			;
	}
	atomic_store(&stop, 1);
	for (size_t t = 0; t < ALLOC_THREADS; t++)
		pthread_join(allocators[t].th, NULL);
	signal(SIGRTMIN, SIG_DFL);

	size_t n = 0, missing = 0, misaligned = 0, nlarge = 0;
	static block all[ALLOC_THREADS * (SMALL_BLOCKS + SIGNALS * HANDLER_BLOCKS)];
	for (size_t t = 0; t < ALLOC_THREADS; t++) {
		allocator *a = &allocators[t];
		size_t ns = atomic_load(&a->nsmall), nl = atomic_load(&a->nlarge);
		for (size_t i = 0; i < ns + nl; i++) {
			block b = i < ns ? a->small[i] : a->large[i - ns];
			missing += !b.p;
			misaligned += ((uintptr_t)b.p & 15) != 0;
			if (b.p)
				all[n++] = b;
		}
		nlarge += nl;
	}
	qsort(all, n, sizeof all[0], by_address);
	size_t overlaps = 0;
	for (size_t i = 1; i < n; i++)
		overlaps += all[i - 1].p + all[i - 1].size > all[i].p;
	printf("\n  %zu blocks (%zu taken by handlers), %zu overlap the next one\n", n, nlarge,
	       overlaps);
	CU_ASSERT_EQUAL(overlaps, 0);
	CU_ASSERT_EQUAL(missing, 0);
	CU_ASSERT_EQUAL(misaligned, 0);
	CU_ASSERT(nlarge > 0);
}

/* ---- the lock -------------------------------------------------------------- */

#define LOCK_THREADS 8
#define LOCK_ROUNDS 20000

static pt_spin lock;
static uint64_t guarded; /* only under `lock`: a plain read-modify-write */

static void *take_lock(void *arg)
{
	(void)arg;
	for (int i = 0; i < LOCK_ROUNDS; i++) {
		pt_spin_lock(&lock);
		uint64_t v = guarded;
		__asm__ volatile("" ::: "memory"); /* a window for a lost update */
		guarded = v + 1;
		pt_spin_unlock(&lock);
	}
	return NULL;
}

static void test_lock_excludes(void)
{
	pthread_t th[LOCK_THREADS];
	for (size_t i = 0; i < LOCK_THREADS; i++)
		CU_ASSERT_FATAL(pthread_create(&th[i], NULL, take_lock, NULL) == 0);
	for (size_t i = 0; i < LOCK_THREADS; i++)
		pthread_join(th[i], NULL);
	CU_ASSERT_EQUAL(guarded, (uint64_t)LOCK_THREADS * LOCK_ROUNDS);
}

static void test_lock_bounded_and_reset(void)
{
	pt_spin l = PT_SPIN_INIT;
	CU_ASSERT(pt_spin_trylock(&l));
	CU_ASSERT(!pt_spin_trylock(&l));
	/* Held (by a holder that will not come back): the bounded attempt gives up. */
	CU_ASSERT_EQUAL(pt_spin_trylock_for(&l, 200), -1);
	pt_spin_reset(&l); /* as in a fork child */
	CU_ASSERT_EQUAL(pt_spin_trylock_for(&l, 0), 0);
	pt_spin_unlock(&l);
	pt_spin_lock(&l);
	pt_spin_unlock(&l);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("runtime_concurrency", NULL, NULL);
	CU_add_test(s, "bump allocator: no block handed out twice across chunk switches",
	            test_bump_alloc_no_overlap);
	CU_add_test(s, "lock: mutual exclusion", test_lock_excludes);
	CU_add_test(s, "lock: bounded attempt, reset", test_lock_bounded_and_reset);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
