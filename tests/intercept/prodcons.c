/* SPDX-License-Identifier: MIT */
/* Producer/consumer over a bounded buffer with two condition variables.
 * The program counts its own waits and signals; the trace must have exactly
 * those COND_WAIT_BEGIN/END and COND_SIGNAL records for the two condvars. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define CAP 4
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;
static int buf[CAP], head, count, items;
static long waits_full, waits_empty, signals; /* under m */
static long sum;

static void *producer(void *arg)
{
	(void)arg;
	for (int i = 1; i <= items; i++) {
		pthread_mutex_lock(&m);
		while (count == CAP) {
			waits_full++;
			pthread_cond_wait(&not_full, &m);
		}
		buf[(head + count++) % CAP] = i;
		signals++;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	for (int i = 0; i < items; i++) {
		pthread_mutex_lock(&m);
		while (count == 0) {
			waits_empty++;
			pthread_cond_wait(&not_empty, &m);
		}
		sum += buf[head];
		head = (head + 1) % CAP;
		count--;
		signals++;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	items = argc > 1 ? atoi(argv[1]) : 20000;
	pthread_t p, c;
	pthread_create(&p, NULL, producer, NULL);
	pthread_create(&c, NULL, consumer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	if (sum != (long)items * (items + 1) / 2)
		return 1;
	printf("expect count COND_WAIT_BEGIN == %ld cond=%p mutex=%p\n", waits_full, (void *)&not_full, (void *)&m);
	printf("expect count COND_WAIT_END == %ld cond=%p result=0\n", waits_full, (void *)&not_full);
	printf("expect count COND_WAIT_BEGIN == %ld cond=%p mutex=%p\n", waits_empty, (void *)&not_empty, (void *)&m);
	printf("expect count COND_WAIT_END == %ld cond=%p result=0\n", waits_empty, (void *)&not_empty);
	printf("expect count COND_SIGNAL == %ld broadcast=0\n", signals);
	printf("expect count LOCK_ACQUIRED == %d obj=%p\n", 2 * items, (void *)&m);
	printf("expect status 0\n");
	return 0;
}
