/* SPDX-License-Identifier: MIT */
/* A realistic multithreaded program: main produces SIZE tasks into a
 * bounded shared queue (mutex + two condition variables); THREADS workers
 * take them and checksum a block of data through a few layers of small
 * functions. Then THREADS poison pills stop the workers, so every count
 * below is exact whatever the interleaving. */
#include <stdint.h>
#include <string.h>

#include "wl.h"

#define QCAP 64
#define BLOCKS 8      /* hash_block calls per task */
#define BLOCK_BYTES 16 /* mix calls per hash_block */

typedef struct task {
	long id; /* -1 = stop */
	uint8_t data[BLOCKS * BLOCK_BYTES];
} task;

static task queue[QCAP];
static int qhead, qlen;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qnonempty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t qnonfull = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t rlock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t result;
static long size;

WL_NOINLINE void queue_push(const task *t)
{
	pthread_mutex_lock(&qlock);
	while (qlen == QCAP)
		pthread_cond_wait(&qnonfull, &qlock);
	queue[(qhead + qlen) % QCAP] = *t;
	qlen++;
	pthread_cond_signal(&qnonempty);
	pthread_mutex_unlock(&qlock);
}

WL_NOINLINE void queue_pop(task *t)
{
	pthread_mutex_lock(&qlock);
	while (qlen == 0)
		pthread_cond_wait(&qnonempty, &qlock);
	*t = queue[qhead];
	qhead = (qhead + 1) % QCAP;
	qlen--;
	pthread_cond_signal(&qnonfull);
	pthread_mutex_unlock(&qlock);
}

WL_NOINLINE uint64_t mix(uint64_t h, uint8_t byte)
{
	WL_OPAQUE(h);
	return (h ^ byte) * 0x100000001b3ull;
}

WL_NOINLINE uint64_t hash_block(const uint8_t *p, uint64_t h)
{
	for (int i = 0; i < BLOCK_BYTES; i++)
		h = mix(h, p[i]);
	return h;
}

WL_NOINLINE uint64_t process_task(const task *t)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (int b = 0; b < BLOCKS; b++)
		h = hash_block(t->data + b * BLOCK_BYTES, h);
	return h;
}

void *worker(void *arg)
{
	(void)arg;
	uint64_t local = 0;
	task t;
	for (;;) {
		queue_pop(&t);
		if (t.id < 0)
			break;
		local += process_task(&t);
	}
	pthread_mutex_lock(&rlock);
	result += local;
	pthread_mutex_unlock(&rlock);
	return NULL;
}

int main(int argc, char **argv)
{
	long threads;
	wl_args(argc, argv, &threads, &size);
	pthread_t tid[64];
	for (long i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, worker, NULL) != 0) {
			perror("pthread_create");
			return 1;
		}
	task t;
	for (long i = 0; i < size; i++) {
		t.id = i;
		for (size_t k = 0; k < sizeof t.data; k++)
			t.data[k] = (uint8_t)(i * 31 + k);
		queue_push(&t);
	}
	t.id = -1;
	for (long i = 0; i < threads; i++)
		queue_push(&t);
	for (long i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	fprintf(stderr, "pool: checksum %llx\n", (unsigned long long)result);
	wl_expect("main", 1);
	wl_expect("worker", threads);
	wl_expect("queue_push", size + threads);
	wl_expect("queue_pop", size + threads);
	wl_expect("process_task", size);
	wl_expect("hash_block", size * BLOCKS);
	wl_expect("mix", size * BLOCKS * BLOCK_BYTES);
	return 0;
}
