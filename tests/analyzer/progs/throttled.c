/* SPDX-License-Identifier: MIT */
/* Runs under libtrace.so for test_throttle.py, built with instrument.so:
 *   throttled tiny N        N calls of tiny(), which the runtime throttles
 *   throttled slow          100 calls of slow() (200 us each) among 300,000
 *                           of tiny(): slow() must keep every call
 *   throttled rec N         rec(): one call open around N chains of 6
 *                           nested calls of itself, which are throttled
 *                           while the outer one stays open; prints its
 *                           number of calls
 *   throttled crash N       N calls of tiny(), then SIGKILL (no exit path)
 *   throttled fork N        N calls of tiny(), then a child that makes N
 *                           more and execs "throttled tiny N"
 * Each prints a checksum (the same traced or not). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) int tiny(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) long slow(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	long spins = 0;
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
		spins++;
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 200000);
	return spins > 0;
}

static volatile long rec_calls;

__attribute__((noinline)) long rec(int d, long reps)
{
	rec_calls++;
	long s = d;
	for (long i = 0; i < reps; i++)
		s += rec(5, 0);
	if (!reps && d > 0)
		s = rec(d - 1, 0) * 3 + d;
	return s;
}

static int tinies(long n)
{
	int s = 0;
	for (long i = 0; i < n; i++)
		s += tiny((int)i);
	return s;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long n = argc > 2 ? atol(argv[2]) : 0;
	if (!strcmp(argv[1], "tiny")) {
		printf("%d\n", tinies(n));
	} else if (!strcmp(argv[1], "slow")) {
		long s = 0;
		for (int i = 0; i < 100; i++) {
			s += tinies(3000);
			s += slow();
		}
		printf("%ld\n", s);
	} else if (!strcmp(argv[1], "rec")) {
		long r = rec(6, n);
		printf("%ld %ld\n", r, (long)rec_calls);
	} else if (!strcmp(argv[1], "crash")) {
		printf("%d\n", tinies(n));
		fflush(stdout);
		raise(SIGKILL);
	} else if (!strcmp(argv[1], "fork")) {
		printf("%d\n", tinies(n));
		fflush(stdout);
		pid_t c = fork();
		if (c == 0) {
			printf("%d\n", tinies(n));
			fflush(stdout);
			execl(argv[0], argv[0], "tiny", argv[2], (char *)NULL);
			_exit(127);
		}
		int st = 0;
		waitpid(c, &st, 0);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	} else {
		return 2;
	}
	return 0;
}
