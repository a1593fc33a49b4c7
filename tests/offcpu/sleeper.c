/* SPDX-License-Identifier: MIT */
/* One thread sleeps 10 ms at a time, another computes meanwhile: the
 * sleeper is off its CPU nearly all its life, the computer nearly never
 * (offcpu_check.py). Built with the plugin, so nap() and crunch() are
 * functions of the profile. Usage: sleeper [NAPS] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_int done;
static volatile double sink;

__attribute__((noinline)) static void nap(void)
{
	usleep(10000);
}

__attribute__((noinline)) static void crunch(void)
{
	double x = 0;
	for (int i = 0; i < 200000; i++)
		x += (double)i * 1e-9;
	sink += x;
}

static void *sleeper(void *arg)
{
	int naps = *(int *)arg;
	for (int i = 0; i < naps; i++)
		nap();
	atomic_store(&done, 1);
	return NULL;
}

static void *computer(void *arg)
{
	(void)arg;
	while (!atomic_load(&done))
		crunch();
	return NULL;
}

int main(int argc, char **argv)
{
	int naps = argc > 1 ? atoi(argv[1]) : 30;
	pthread_t a, b;
	pthread_create(&b, NULL, computer, NULL);
	pthread_create(&a, NULL, sleeper, &naps);
	pthread_setname_np(a, "sleeper");
	pthread_setname_np(b, "computer");
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("naps %d\n", naps);
	return 0;
}
