/* SPDX-License-Identifier: MIT */
/* A thread pool: W workers wait on a condition variable for tasks from a
 * queue; main submits T tasks and then broadcasts shutdown. Each task takes
 * a second mutex to add to a total. The program counts its own waits,
 * signals and broadcasts; the trace must match them, and show W linked
 * threads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t qm = PTHREAD_MUTEX_INITIALIZER, totm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qc = PTHREAD_COND_INITIALIZER;
static int queue[1024], qhead, qlen, stop;
static long waits, signals, total; /* waits/signals under qm */

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&qm);
		while (qlen == 0 && !stop) {
			waits++;
			pthread_cond_wait(&qc, &qm);
		}
		if (qlen == 0 && stop) {
			pthread_mutex_unlock(&qm);
			return NULL;
		}
		int task = queue[qhead];
		qhead = (qhead + 1) % 1024;
		qlen--;
		pthread_mutex_unlock(&qm);
		pthread_mutex_lock(&totm);
		total += task;
		pthread_mutex_unlock(&totm);
	}
}

int main(int argc, char **argv)
{
	int w = argc > 1 ? atoi(argv[1]) : 4;
	int tasks = argc > 2 ? atoi(argv[2]) : 5000;
	pthread_t th[32];
	if (w > 32)
		w = 32;
	for (int i = 0; i < w; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 1; i <= tasks; i++) {
		pthread_mutex_lock(&qm);
		while (qlen == 1024) {
			pthread_mutex_unlock(&qm);
			pthread_mutex_lock(&qm);
		}
		queue[(qhead + qlen++) % 1024] = i;
		signals++;
		pthread_cond_signal(&qc);
		pthread_mutex_unlock(&qm);
	}
	pthread_mutex_lock(&qm);
	stop = 1;
	pthread_cond_broadcast(&qc);
	pthread_mutex_unlock(&qm);
	for (int i = 0; i < w; i++)
		pthread_join(th[i], NULL);
	if (total != (long)tasks * (tasks + 1) / 2)
		return 1;
	printf("expect count COND_WAIT_BEGIN == %ld cond=%p\n", waits, (void *)&qc);
	printf("expect count COND_WAIT_END == %ld cond=%p\n", waits, (void *)&qc);
	printf("expect count COND_SIGNAL == %ld cond=%p broadcast=0\n", signals, (void *)&qc);
	printf("expect count COND_SIGNAL == 1 cond=%p broadcast=1\n", (void *)&qc);
	printf("expect count LOCK_ACQUIRED == %d obj=%p\n", tasks, (void *)&totm);
	printf("expect linked-threads == %d\n", w);
	printf("expect count THREAD_JOIN_END == %d result=0\n", w);
	printf("expect status 0\n");
	return 0;
}
