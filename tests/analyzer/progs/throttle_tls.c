/* SPDX-License-Identifier: MIT */
/* Hook ABI 3's thread-local counts pointers under throttling
 * (test_throttle_tls.py). Prints "COUNT name calls" for what it called:
 *   throttle_tls threads   4 threads and main call tiny() (counts differ
 *                          per thread), each thread calls late() 20,000
 *                          times, then again from a TLS destructor that
 *                          runs after the runtime closed its log;
 *   throttle_tls dlopen L  lib_tiny() of shared object L, 100,000 calls,
 *                          three times, with a dlclose between;
 *   throttle_tls mixed     modules of versions 1 (v1_outer, v1_tiny),
 *                          2 (v2_leaf), 3 without the pointer (off_tiny)
 *                          and 3 with it (tiny) in one process. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

long v1_outer(long n); /* throttle_abi_v1.c */
extern volatile long v1_tiny_calls, v1_outer_calls;
extern volatile long v2_leaf_calls; /* throttle_abi_v2.c */
int off_tiny(int x);                /* throttle_tls_off.c */
extern volatile long off_tiny_calls;

static long tiny_calls, late_calls;
static volatile long sink;
static pthread_key_t key;

__attribute__((noinline)) int tiny(int x)
{
	__atomic_fetch_add(&tiny_calls, 1, __ATOMIC_RELAXED);
	return x + 1;
}

__attribute__((noinline)) int late(int x)
{
	__atomic_fetch_add(&late_calls, 1, __ATOMIC_RELAXED);
	return x + 2;
}

/* runs after the runtime's own destructor (its key is older): late is
 * throttled on this thread, and its count mapping is gone by now */
static void late_dtor(void *p)
{
	(void)p;
	long s = 0;
	for (int i = 0; i < 1000; i++)
		s += late(i);
	sink += s;
}

static void *worker(void *arg)
{
	long n = (long)arg, s = 0;
	pthread_setspecific(key, &key);
	for (long i = 0; i < n; i++)
		s += tiny((int)i);
	for (int i = 0; i < 20000; i++)
		s += late(i);
	sink += s;
	return NULL;
}

static int threads(void)
{
	pthread_t t[4];
	pthread_key_create(&key, late_dtor);
	for (long k = 0; k < 4; k++)
		pthread_create(&t[k], NULL, worker, (void *)(100000 * (k + 1)));
	for (int k = 0; k < 4; k++)
		pthread_join(t[k], NULL);
	for (int i = 0; i < 50000; i++)
		sink += tiny(i);
	printf("COUNT tiny %ld\nCOUNT late %ld\n", tiny_calls, late_calls);
	return 0;
}

static int reopen(const char *path)
{
	long total = 0;
	for (int round = 0; round < 3; round++) {
		void *h = dlopen(path, RTLD_NOW);
		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		int (*f)(int) = (int (*)(int))dlsym(h, "lib_tiny");
		long *calls = dlsym(h, "lib_calls");
		for (int i = 0; i < 100000; i++)
			sink += f(i);
		total += *calls;
		dlclose(h);
	}
	printf("COUNT lib_tiny %ld\n", total);
	return 0;
}

static int mixed(void)
{
	sink += v1_outer(100000);
	for (int i = 0; i < 100000; i++)
		sink += tiny(i) + off_tiny(i);
	printf("COUNT v1_outer %ld\nCOUNT v1_tiny %ld\nCOUNT v2_leaf %ld\nCOUNT off_tiny %ld\n"
	       "COUNT tiny %ld\n",
	       v1_outer_calls, v1_tiny_calls, v2_leaf_calls, off_tiny_calls, tiny_calls);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "threads"))
		return threads();
	if (argc > 2 && !strcmp(argv[1], "dlopen"))
		return reopen(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "mixed"))
		return mixed();
	fprintf(stderr, "usage: throttle_tls threads|dlopen LIB|mixed\n");
	return 2;
}
