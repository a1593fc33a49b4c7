/* SPDX-License-Identifier: MIT */
/* Threads named every way a program names them, for check_thread_names.py:
 * main with prctl(PR_SET_NAME) before it creates the others (which start
 * with its name: not theirs); one names itself with pthread_setname_np,
 * one is named by main with pthread_setname_np while it waits, one with
 * prctl, one through /proc/self/task/TID/comm (its name at its end), one
 * the same way but still running when the process ends, one never
 * (labelled by its start routine). Prints "TID NAME" per thread, "-" for
 * the unnamed one. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static pthread_barrier_t started, named;
static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;

static void say(const char *name)
{
	pthread_mutex_lock(&out_mu);
	printf("%d %s\n", gettid(), name);
	fflush(stdout);
	pthread_mutex_unlock(&out_mu);
}

static void comm_write(const char *name)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/comm", gettid());
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(name, f);
		fclose(f);
	}
}

static void *self_named(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "self-named");
	say("self-named");
	return NULL;
}

static void *named_by_main(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&named);
	say("by-main");
	return NULL;
}

static void *prctl_named(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "prctl-named-and-cut", 0, 0, 0);
	say("prctl-named-and"); /* the kernel keeps 15 bytes */
	return NULL;
}

static void *named_at_end(void *arg)
{
	(void)arg;
	comm_write("at-its-end");
	say("at-its-end");
	return NULL;
}

static void *still_running(void *arg)
{
	(void)arg;
	comm_write("still-running");
	say("still-running");
	pthread_barrier_wait(&started);
	for (;;)
		pause();
	return NULL;
}

void *unnamed_worker(void *arg)
{
	(void)arg;
	say("-");
	return NULL;
}

int main(void)
{
	prctl(PR_SET_NAME, "boss", 0, 0, 0);
	say("boss");
	pthread_barrier_init(&started, NULL, 2);
	pthread_barrier_init(&named, NULL, 2);
	pthread_t t[5], running;
	void *(*fn[5])(void *) = {self_named, named_by_main, prctl_named, named_at_end,
	                          unnamed_worker};
	for (int i = 0; i < 5; i++)
		pthread_create(&t[i], NULL, fn[i], NULL);
	pthread_barrier_wait(&started);
	pthread_setname_np(t[1], "by-main");
	pthread_barrier_wait(&named);
	for (int i = 0; i < 5; i++)
		pthread_join(t[i], NULL);
	pthread_create(&running, NULL, still_running, NULL);
	pthread_barrier_wait(&started);
	return 0;
}
