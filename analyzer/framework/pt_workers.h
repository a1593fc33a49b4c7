/* SPDX-License-Identifier: MIT */
/* Worker threads: running a share-out function on several, and waiting for
 * them while reporting progress.
 *
 * The waiter reports, then sleeps up to one period, and wakes at once when
 * the last worker ends: a plain sleep-and-poll loop kept the whole command
 * waiting for up to a period after the work was done (200 ms on runs that
 * take half a second). */
#ifndef PT_WORKERS_H
#define PT_WORKERS_H

#include <pthread.h>
#include <time.h>

typedef struct pt_workers_done {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned finished;
} pt_workers_done;

static inline void pt_workers_done_init(pt_workers_done *d)
{
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&d->cond, &a);
	pthread_condattr_destroy(&a);
	pthread_mutex_init(&d->lock, NULL);
	d->finished = 0;
}

/* A worker is done (its last act). */
static inline void pt_workers_done_one(pt_workers_done *d)
{
	pthread_mutex_lock(&d->lock);
	d->finished++;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

/* Waits up to period_ms, or less if `n` workers are done by then; returns
 * 1 when they are. */
static inline int pt_workers_done_wait(pt_workers_done *d, unsigned n, unsigned period_ms)
{
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += (long)(period_ms % 1000) * 1000000L;
	until.tv_sec += period_ms / 1000 + until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&d->lock);
	while (d->finished < n)
		if (pthread_cond_timedwait(&d->cond, &d->lock, &until))
			break; /* the period is over (or an error: report and come back) */
	int all = d->finished >= n;
	pthread_mutex_unlock(&d->lock);
	return all;
}

static inline void pt_workers_done_destroy(pt_workers_done *d)
{
	pthread_cond_destroy(&d->cond);
	pthread_mutex_destroy(&d->lock);
}

/* Runs fn(arg) on up to nworkers threads (at most 64), this one included,
 * and returns when all have returned: fn shares the work out itself. */
static inline void pt_workers_run(unsigned nworkers, void *(*fn)(void *), void *arg)
{
	pthread_t th[64];
	unsigned started = 0;
	for (; started + 1 < nworkers && started < 64; started++)
		if (pthread_create(&th[started], NULL, fn, arg))
			break;
	fn(arg);
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}

#endif
