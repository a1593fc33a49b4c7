/* Contended counter: N threads x M locked increments of one counter. The
 * trace must hold exactly N*M acquisitions of that mutex, as many releases,
 * a THREAD_CREATE/START/END per thread and a join each, and the waits that
 * contention causes (time from LOCK_REQUEST to LOCK_ACQUIRED > 0). Only
 * the acquisitions that had to wait have a LOCK_REQUEST. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int iterations;

static void *worker(void *arg)
{
	(void)arg;
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
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, NULL) != 0)
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	if (counter != (long)n * iterations) {
		fprintf(stderr, "counter %ld, expected %ld\n", counter, (long)n * iterations);
		return 1;
	}
	printf("expect count LOCK_REQUEST >= 1 obj=%p\n", (void *)&lock);
	printf("expect count LOCK_REQUEST <= %ld obj=%p\n", counter, (void *)&lock);
	printf("expect count LOCK_ACQUIRED == %ld obj=%p\n", counter, (void *)&lock);
	printf("expect count LOCK_RELEASED == %ld obj=%p\n", counter, (void *)&lock);
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
