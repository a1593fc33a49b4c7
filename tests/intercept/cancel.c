/* SPDX-License-Identifier: MIT */
/* Cancellation under the runtime: the runtime's own work
 * must never act on a pending cancellation, and a thread cancelled at one of
 * the program's cancellation points is traced to its end.
 *  - a thread that returns 42 while a cancel is pending (it enabled
 *    cancellation again without reaching a cancellation point) is joined
 *    with 42, as untraced: the runtime's work at its end (the log's close)
 *    must not act on the cancel;
 *  - THREADS threads, each cancelled right after its creation (so the
 *    cancel often arrives while the runtime opens the thread's log) and
 *    blocked in pause() otherwise: every one joined as PTHREAD_CANCELED,
 *    and every one in the trace with THREAD_START and a THREAD_END marked
 *    canceled.
 *   cancel THREADS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_barrier_t armed, cancelled;

static void *returns_42(void *arg)
{
	(void)arg;
	int old;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_barrier_wait(&armed);     /* main cancels us now */
	pthread_barrier_wait(&cancelled); /* (not a cancellation point) */
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	return (void *)42; /* no cancellation point on the way */
}

static void *waits(void *arg)
{
	(void)arg;
	for (;;)
		pause(); /* the program's cancellation point */
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1200;
	int failures = 0;
	pthread_t t;
	void *ret = NULL;
	pthread_barrier_init(&armed, NULL, 2);
	pthread_barrier_init(&cancelled, NULL, 2);
	if (pthread_create(&t, NULL, returns_42, NULL) != 0)
		return 2;
	pthread_barrier_wait(&armed);
	pthread_cancel(t);
	pthread_barrier_wait(&cancelled);
	pthread_join(t, &ret);
	if (ret != (void *)42) {
		fprintf(stderr, "FAIL: the thread that returned 42 was joined with %p\n", ret);
		failures++;
	}

	enum { BATCH = 50 };
	pthread_t batch[BATCH];
	int canceled = 0;
	for (int done = 0; done < n;) {
		int k = n - done < BATCH ? n - done : BATCH;
		for (int i = 0; i < k; i++) {
			if (pthread_create(&batch[i], NULL, waits, NULL) != 0)
				return 3;
			pthread_cancel(batch[i]);
		}
		for (int i = 0; i < k; i++) {
			pthread_join(batch[i], &ret);
			canceled += ret == PTHREAD_CANCELED;
		}
		done += k;
	}
	if (canceled != n) {
		fprintf(stderr, "FAIL: %d of %d threads joined as cancelled\n", canceled, n);
		failures++;
	}
	printf("expect count THREAD_END == 1 retval=0x2a flags=0\n");
	printf("expect count THREAD_START == %d\n", n + 2);
	printf("expect count THREAD_END == %d flags=canceled\n", n);
	printf("expect count THREAD_END == %d\n", n + 2);
	printf("expect clean\n");
	printf("expect status 0\n");
	return failures ? 1 : 0;
}
