/* SPDX-License-Identifier: MIT */
/* Readers and writers on one rwlock: R readers x X read locks, W writers x Y
 * write locks. Acquisitions and releases must be attributed to the right
 * mode (the release record of a read lock says rwlock_read). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static long value, reads_seen;
static int rounds;

static void *reader(void *arg)
{
	(void)arg;
	long seen = 0;
	for (int i = 0; i < rounds; i++) {
		pthread_rwlock_rdlock(&rw);
		seen += value >= 0;
		pthread_rwlock_unlock(&rw);
	}
	__atomic_add_fetch(&reads_seen, seen, __ATOMIC_RELAXED);
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++) {
		pthread_rwlock_wrlock(&rw);
		value++;
		pthread_rwlock_unlock(&rw);
	}
	return NULL;
}

static void *try_read(void *arg)
{
	return (void *)(long)pthread_rwlock_tryrdlock(arg);
}

int main(int argc, char **argv)
{
	int r = 3, w = 2;
	rounds = argc > 1 ? atoi(argv[1]) : 5000;
	pthread_t th[5];
	for (int i = 0; i < r; i++)
		pthread_create(&th[i], NULL, reader, NULL);
	for (int i = 0; i < w; i++)
		pthread_create(&th[r + i], NULL, writer, NULL);
	for (int i = 0; i < r + w; i++)
		pthread_join(th[i], NULL);
	/* A try-lock that must fail: held for writing here. */
	pthread_rwlock_wrlock(&rw);
	pthread_t t;
	int busy = -1;
	pthread_create(&t, NULL, try_read, &rw);
	void *res;
	pthread_join(t, &res);
	busy = (int)(long)res;
	pthread_rwlock_unlock(&rw);
	if (value != (long)w * rounds || reads_seen != (long)r * rounds || busy == 0)
		return 1;
	printf("expect count LOCK_ACQUIRED == %ld obj=%p type=rwlock_read\n", (long)r * rounds, (void *)&rw);
	printf("expect count LOCK_RELEASED == %ld obj=%p type=rwlock_read\n", (long)r * rounds, (void *)&rw);
	printf("expect count LOCK_ACQUIRED == %ld obj=%p type=rwlock_write\n", (long)w * rounds + 1, (void *)&rw);
	printf("expect count LOCK_RELEASED == %ld obj=%p type=rwlock_write\n", (long)w * rounds + 1, (void *)&rw);
	printf("expect count LOCK_FAILED == 1 obj=%p type=rwlock_read result=%d\n", (void *)&rw, busy);
	printf("expect status 0\n");
	return 0;
}
