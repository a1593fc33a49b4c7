/* SPDX-License-Identifier: MIT */
/* The rest of the synchronization and thread API, with the exact return
 * values and errno the program would see untraced:
 *  - spin locks, semaphores (sem_trywait on 0 fails with errno EAGAIN,
 *    sem_timedwait times out with ETIMEDOUT), mutex trylock on a held mutex
 *    (EBUSY: LOCK_FAILED), timedlock timing out (ETIMEDOUT);
 *  - an error-checking mutex unlocked by a non-owner: EPERM, and no
 *    LOCK_RELEASED is recorded for it;
 *  - a thread ending by pthread_exit, one cancelled while blocked in
 *    pthread_cond_wait (a cancellation point), a detached thread. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_spinlock_t spin;
static sem_t sem, done_sem;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER, ec;
static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static long spins;
static int failures;

#define CHECK(cond)                                                                \
	do {                                                                       \
		if (!(cond)) {                                                     \
			fprintf(stderr, "line %d: %s\n", __LINE__, #cond);         \
			failures++;                                                \
		}                                                                  \
	} while (0)

static void *spinner(void *arg)
{
	int n = (int)(long)arg;
	for (int i = 0; i < n; i++) {
		pthread_spin_lock(&spin);
		spins++;
		pthread_spin_unlock(&spin);
	}
	return NULL;
}

static void *poster(void *arg)
{
	int n = (int)(long)arg;
	for (int i = 0; i < n; i++)
		sem_post(&sem);
	return NULL;
}

static void *try_held(void *arg)
{
	(void)arg;
	long r = pthread_mutex_trylock(&held);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 20 * 1000 * 1000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	long t = pthread_mutex_timedlock(&held, &ts);
	long u = pthread_mutex_unlock(&ec); /* not the owner */
	return (void *)(r | t << 8 | u << 16);
}

static void *exiter(void *arg)
{
	pthread_exit(arg);
}

static void *waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&cm);
	for (;;)
		pthread_cond_wait(&never, &cm); /* cancelled here */
	return NULL;
}

static void unlock_cm(void *m)
{
	pthread_mutex_unlock(m);
}

static void *waiter_clean(void *arg)
{
	void *r;
	pthread_cleanup_push(unlock_cm, &cm);
	r = waiter(arg);
	pthread_cleanup_pop(0);
	return r;
}

static void *detached(void *arg)
{
	(void)arg;
	sem_post(&done_sem);
	return NULL;
}

int main(void)
{
	const int n = 2000;
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	sem_init(&sem, 0, 0);
	sem_init(&done_sem, 0, 0);
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&ec, &a);

	pthread_t t1, t2, t3;
	pthread_create(&t1, NULL, spinner, (void *)(long)n);
	pthread_create(&t2, NULL, spinner, (void *)(long)n);
	pthread_create(&t3, NULL, poster, (void *)(long)n);
	for (int i = 0; i < n; i++)
		while (sem_wait(&sem) != 0)
			CHECK(errno == EINTR);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	pthread_join(t3, NULL);
	CHECK(spins == 2 * n);

	errno = 0;
	CHECK(sem_trywait(&sem) == -1 && errno == EAGAIN);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 10 * 1000 * 1000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	errno = 0;
	CHECK(sem_timedwait(&sem, &ts) == -1 && errno == ETIMEDOUT);

	pthread_mutex_lock(&held);
	pthread_mutex_lock(&ec);
	void *res;
	pthread_create(&t1, NULL, try_held, NULL);
	pthread_join(t1, &res);
	long r = (long)res;
	CHECK((r & 0xff) == EBUSY);
	CHECK(((r >> 8) & 0xff) == ETIMEDOUT);
	CHECK(((r >> 16) & 0xff) == EPERM);
	pthread_mutex_unlock(&ec);
	pthread_mutex_unlock(&held);
	CHECK(pthread_mutex_unlock(&ec) == EPERM); /* not locked any more */

	pthread_create(&t1, NULL, exiter, (void *)0x5eed);
	pthread_join(t1, &res);
	CHECK(res == (void *)0x5eed);

	pthread_create(&t2, NULL, waiter_clean, NULL);
	usleep(20000);
	pthread_cancel(t2);
	pthread_join(t2, &res);
	CHECK(res == PTHREAD_CANCELED);

	pthread_attr_t da;
	pthread_attr_init(&da);
	pthread_attr_setdetachstate(&da, PTHREAD_CREATE_DETACHED);
	pthread_create(&t3, &da, detached, NULL);
	sem_wait(&done_sem);
	usleep(20000); /* let it finish: its THREAD_END is checked */

	if (failures)
		return 1;
	printf("expect count LOCK_ACQUIRED == %d obj=%p type=spin\n", 2 * n, (void *)&spin);
	printf("expect count LOCK_RELEASED == %d obj=%p type=spin\n", 2 * n, (void *)&spin);
	printf("expect count LOCK_RELEASED == %d obj=%p type=semaphore\n", n, (void *)&sem);
	printf("expect count LOCK_ACQUIRED == %d obj=%p type=semaphore\n", n, (void *)&sem);
	printf("expect count LOCK_FAILED == 1 obj=%p type=semaphore result=%d\n", (void *)&sem, EAGAIN);
	printf("expect count LOCK_FAILED == 1 obj=%p type=semaphore result=%d\n", (void *)&sem, ETIMEDOUT);
	printf("expect count LOCK_FAILED == 1 obj=%p type=mutex result=%d\n", (void *)&held, EBUSY);
	printf("expect count LOCK_FAILED == 1 obj=%p type=mutex result=%d\n", (void *)&held, ETIMEDOUT);
	printf("expect count LOCK_ACQUIRED == 1 obj=%p\n", (void *)&ec);
	printf("expect count LOCK_RELEASED == 1 obj=%p\n", (void *)&ec);
	printf("expect count THREAD_END == 1 retval=0x5eed flags=pthread_exit\n");
	printf("expect count THREAD_END == 1 flags=canceled\n");
	printf("expect count COND_WAIT_BEGIN == 1 cond=%p\n", (void *)&never);
	printf("expect count THREAD_START == 8\n");
	printf("expect count THREAD_END == 8\n");
	printf("expect linked-threads == 7\n");
	printf("expect status 0\n");
	return 0;
}
