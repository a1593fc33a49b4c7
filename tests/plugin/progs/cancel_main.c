/* SPDX-License-Identifier: MIT */
/* Thread cancellation: a worker cancelled at depth 6 (worker + 5 levels)
 * while blocked in pause(). In C without -fexceptions no exit hook runs on
 * the way out; the reader closes the open frames at the thread's end. */
#include "selflog.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_barrier_t ready;

TF static void level(int d)
{
	sl_enter("level");
	if (d == 5) {
		pthread_barrier_wait(&ready);
		for (;;)
			pause(); /* cancellation point */
	}
	level(d + 1);
	sl_exit("level");
}

TF static void *worker(void *arg)
{
	sl_thread(1);
	sl_enter("worker");
	level(1);
	sl_exit("worker");
	return arg;
}

int main(void)
{
	sl_init();
	sl_enter("main");
	pthread_t t;
	void *res = NULL;
	pthread_barrier_init(&ready, NULL, 2);
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	pthread_barrier_wait(&ready);
	pthread_cancel(t);
	pthread_join(t, &res);
	/* What the reader closes at the worker's end. */
	sl_thread(1);
	for (int i = 0; i < 5; i++)
		sl_exit("level");
	sl_exit("worker");
	sl_thread(0);
	sl_expect_thread(1, 0, 6);
	printf("cancelled %d\n", res == PTHREAD_CANCELED);
	sl_exit("main");
	return res == PTHREAD_CANCELED ? 0 : 1;
}
