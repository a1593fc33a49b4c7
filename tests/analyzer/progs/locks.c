/* SPDX-License-Identifier: MIT */
/* A lock-dominated run for the .prv budget (test_locks_budget.py): two
 * threads take locks at every call of a small function, almost never
 * waiting (each its own mutex, spin lock and read lock, a condition
 * signalled with no waiter), so lock events are most of the trace; and
 * WAITS times one thread waits at least HOLD_MS for a mutex the other
 * holds (the contended waits a user looks for). Built with
 * -finstrument-functions. Usage: locks [ITERATIONS] */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WAITS 5
#define HOLD_MS 3

static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t table = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t nobody = PTHREAD_COND_INITIALIZER;
static sem_t held, done;
static long iterations = 20000;
static volatile long sink;

struct own {
	pthread_mutex_t m;
	pthread_spinlock_t s;
	long n;
};

__attribute__((noinline)) static void step(struct own *o, long i)
{
	pthread_mutex_lock(&o->m);
	o->n += i;
	pthread_cond_signal(&nobody);
	pthread_mutex_unlock(&o->m);
	pthread_spin_lock(&o->s);
	o->n ^= i;
	pthread_spin_unlock(&o->s);
	pthread_rwlock_rdlock(&table);
	sink += o->n;
	pthread_rwlock_unlock(&table);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};
	while (nanosleep(&ts, &ts))
		;
}

/* The holder takes the shared mutex, says so, and keeps it HOLD_MS. */
__attribute__((noinline)) static void hold(void)
{
	pthread_mutex_lock(&shared);
	sem_post(&held);
	sleep_ms(HOLD_MS);
	pthread_mutex_unlock(&shared);
	sem_wait(&done);
}

/* The waiter asks for it once it is held: a wait of about HOLD_MS. */
__attribute__((noinline)) static void wait_for_it(void)
{
	sem_wait(&held);
	pthread_mutex_lock(&shared);
	pthread_mutex_unlock(&shared);
	sem_post(&done);
}

static void *worker(void *arg)
{
	long me = (long)arg;
	struct own o = {.n = me};
	pthread_mutex_init(&o.m, NULL);
	pthread_spin_init(&o.s, PTHREAD_PROCESS_PRIVATE);
	for (long i = 0; i < iterations; i++) {
		step(&o, i);
		if (i % (iterations / WAITS) == iterations / WAITS / 2)
			me ? wait_for_it() : hold();
	}
	pthread_spin_destroy(&o.s);
	pthread_mutex_destroy(&o.m);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		iterations = atol(argv[1]);
	if (iterations < WAITS * 2)
		return 2;
	sem_init(&held, 0, 0);
	sem_init(&done, 0, 0);
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%d\n", sink != 0);
	return 0;
}
