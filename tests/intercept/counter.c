/* SPDX-License-Identifier: MIT */
/* Contended counter: N threads x M locked increments of one counter. The
 * trace must hold exactly N*M acquisitions of that mutex, as many releases,
 * a THREAD_CREATE/START/END per thread and a join each, and the waits that
 * contention causes (time from LOCK_REQUEST to LOCK_ACQUIRED > 0). Only
 * the acquisitions that had to wait have a LOCK_REQUEST. So that there is
 * contention even when a loaded machine runs the workers one after the
 * other, main holds the lock until every worker has started, then a while
 * longer: each worker's first acquisition waits. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int iterations;
static int started;

static void *worker(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&started, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < iterations; i++) {
		pthread_mutex_lock(&lock);
		long v = counter;
		/* Hold the lock a little so the other threads contend for it. */
		for (volatile int k = 0; k < 50; k++)
			;
		counter = v + 1;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	iterations = argc > 2 ? atoi(argv[2]) : 20000;
	pthread_t th[64];
	if (n > 64)
		n = 64;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, NULL) != 0)
			return 1;
	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < n)
		usleep(1000);
	usleep(20000); /* the workers are now blocked in their first lock */
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	if (counter != (long)n * iterations) {
		fprintf(stderr, "counter %ld, expected %ld\n", counter, (long)n * iterations);
		return 1;
	}
	/* main's own acquisition is one more */
	printf("expect count LOCK_REQUEST >= 1 obj=%p\n", (void *)&lock);
	printf("expect count LOCK_REQUEST <= %ld obj=%p\n", counter, (void *)&lock);
	printf("expect count LOCK_ACQUIRED == %ld obj=%p\n", counter + 1, (void *)&lock);
	printf("expect count LOCK_RELEASED == %ld obj=%p\n", counter + 1, (void *)&lock);
	printf("expect count LOCK_FAILED == 0 obj=%p\n", (void *)&lock);
	printf("expect wait > 0 obj=%p\n", (void *)&lock);
	printf("expect count THREAD_CREATE == %d result=0\n", n);
	printf("expect count THREAD_START == %d creator=\n", n + 1);
	printf("expect count THREAD_END == %d\n", n + 1);
	printf("expect count THREAD_JOIN_END == %d result=0\n", n);
	printf("expect linked-threads == %d\n", n);
	printf("expect status 0\n");
	return 0;
}
