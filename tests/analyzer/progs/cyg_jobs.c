/* SPDX-License-Identifier: MIT */
/* Built with -finstrument-functions (functions known only by their code
 * addresses) and run with sampling and call stacks: eight threads, each
 * calling functions of its own first, so the shards of its trace resolve
 * addresses in an order that depends on which worker gets there first.
 * The analyzer's outputs must not (test_jobs.py). */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long sink;

#define LEAF(n)                                                                                    \
	__attribute__((noinline)) static unsigned long leaf_##n(unsigned long x)                   \
	{                                                                                          \
		for (int i = 0; i < 2000; i++)                                                     \
			x = x * 6364136223846793005ul + n;                                         \
		return x;                                                                          \
	}
LEAF(0)
LEAF(1)
LEAF(2)
LEAF(3)
LEAF(4)
LEAF(5)
LEAF(6)
LEAF(7)

typedef unsigned long (*leaf_fn)(unsigned long);
static const leaf_fn leaves[8] = {leaf_0, leaf_1, leaf_2, leaf_3, leaf_4, leaf_5, leaf_6, leaf_7};

__attribute__((noinline)) static void work(int k)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	unsigned long x = (unsigned long)k;
	do {
		/* its own leaf first, then the others' */
		for (int j = 0; j < 8; j++)
			x += leaves[(k + j) % 8](x);
		pthread_mutex_lock(&lock); /* contended now and then: call stacks */
		sink += x;
		pthread_mutex_unlock(&lock);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 30000000L);
}

static void *worker(void *arg)
{
	work((int)(long)arg);
	return NULL;
}

int main(void)
{
	pthread_t th[8];
	for (long i = 0; i < 8; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	printf("%d\n", sink != 0);
	return 0;
}
