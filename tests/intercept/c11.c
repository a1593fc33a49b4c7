/* SPDX-License-Identifier: MIT */
/* C11 threads: thrd_create/thrd_join, mtx_lock/unlock, cnd_wait/signal.
 * glibc does not route these through the pthread symbols, so they need
 * their own wrappers; the counts here prove they are recorded. */
#include <stdio.h>
#include <stdlib.h>
#include <threads.h>

static mtx_t m;
static cnd_t c;
static int rounds, ready;
static long total, waits;

static int worker(void *arg)
{
	int id = (int)(long)arg;
	mtx_lock(&m);
	while (!ready) {
		waits++;
		cnd_wait(&c, &m);
	}
	mtx_unlock(&m);
	for (int i = 0; i < rounds; i++) {
		mtx_lock(&m);
		total++;
		mtx_unlock(&m);
	}
	return id;
}

int main(int argc, char **argv)
{
	int n = 3;
	rounds = argc > 1 ? atoi(argv[1]) : 3000;
	mtx_init(&m, mtx_plain);
	cnd_init(&c);
	thrd_t th[3];
	for (int i = 0; i < n; i++)
		if (thrd_create(&th[i], worker, (void *)(long)(i + 10)) != thrd_success)
			return 1;
	mtx_lock(&m);
	ready = 1;
	cnd_broadcast(&c);
	mtx_unlock(&m);
	int sum = 0;
	for (int i = 0; i < n; i++) {
		int res;
		thrd_join(th[i], &res);
		sum += res;
	}
	if (total != (long)n * rounds || sum != 33)
		return 1;
	/* worker: 1 + rounds locks each; main: 1 (cnd_wait takes the mutex back
	 * inside glibc, without an mtx_lock call) */
	printf("expect count LOCK_ACQUIRED == %ld obj=%p type=c11_mtx\n", (long)n * (rounds + 1) + 1, (void *)&m);
	printf("expect count LOCK_RELEASED == %ld obj=%p type=c11_mtx\n", (long)n * (rounds + 1) + 1, (void *)&m);
	printf("expect count COND_WAIT_BEGIN == %ld cond=%p\n", waits, (void *)&c);
	printf("expect count COND_SIGNAL == 1 cond=%p broadcast=1\n", (void *)&c);
	printf("expect count THREAD_CREATE == %d flags=c11\n", n);
	printf("expect count THREAD_START == %d flags=c11\n", n);
	printf("expect linked-threads == %d\n", n);
	printf("expect count THREAD_JOIN_END == %d\n", n);
	printf("expect count THREAD_END == %d retval=0xa\n", 1);
	printf("expect status 0\n");
	return 0;
}
