/* SPDX-License-Identifier: MIT */
/* A program meant to be killed with SIGKILL while its threads wait
 * (test_killed.py): built with -finstrument-functions, run preloaded.
 *   main        holds `held`, starts the threads, joins `sleeper` (never
 *               returns: open join)
 *   blocked     asks for `held` (never granted: open lock wait)
 *   sleeper     enters nap(), takes and drops `other` after 50 ms (a record
 *               inside nap) and again 100 ms later (while main joins: the
 *               process's last record), then sleeps until killed (nap
 *               stays open)
 *   done        returns at once: its log is closed
 * "ready" on stdout once every wait has begun. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t other = PTHREAD_MUTEX_INITIALIZER;
static volatile int napping, asking;

__attribute__((noinline)) void nap(void)
{
	usleep(50000);
	pthread_mutex_lock(&other);
	pthread_mutex_unlock(&other);
	napping = 1;
	usleep(100000);
	pthread_mutex_lock(&other);
	pthread_mutex_unlock(&other);
	for (;;)
		pause();
}

static void *sleeper(void *arg)
{
	(void)arg;
	nap();
	return NULL;
}

static void *blocked(void *arg)
{
	(void)arg;
	asking = 1;
	pthread_mutex_lock(&held);
	return NULL;
}

static void *done(void *arg)
{
	return arg;
}

int main(void)
{
	pthread_t a, b, c;
	pthread_mutex_lock(&held);
	if (pthread_create(&c, NULL, done, NULL) || pthread_join(c, NULL))
		return 1;
	if (pthread_create(&a, NULL, sleeper, NULL) || pthread_create(&b, NULL, blocked, NULL))
		return 1;
	while (!napping || !asking)
		usleep(1000);
	usleep(20000); /* blocked is most likely inside its lock request by now */
	printf("ready\n");
	fflush(stdout);
	pthread_join(a, NULL);
	return 0;
}
