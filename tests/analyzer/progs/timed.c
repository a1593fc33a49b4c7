/* SPDX-License-Identifier: MIT */
/* A program whose timings are known by construction, for the analyzer's
 * end-to-end test (tests/analyzer/test_real.py):
 *   phase 1: main holds `gate` while T workers block on it; once every
 *            worker is seen waiting in the kernel for the gate (not merely
 *            started: /proc/self/task/<tid>/syscall), main holds it
 *            HOLD_MS more, so each worker's first acquisition waits at least
 *            HOLD_MS; each worker then holds it HELD_MS (so the others wait
 *            for that too);
 *   phase 2: each worker calls sleep_fixed() N times; it sleeps SLEEP_MS.
 *   then main forks a child that calls sleep_fixed() N times and exits;
 *   main waits for it.
 * Usage: timed T N   (prints the parameters it used, one "key value" a line)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HOLD_MS 50
#define HELD_MS 5
#define SLEEP_MS 2

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static int calls;

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts))
		;
}

__attribute__((noinline)) void sleep_fixed(void)
{
	sleep_ms(SLEEP_MS);
}

__attribute__((noinline)) void hold_gate(void)
{
	pthread_mutex_lock(&gate);
	sleep_ms(HELD_MS);
	pthread_mutex_unlock(&gate);
}

static pid_t tids[64];

/* Whether thread `tid` is blocked in futex(2) on the gate: the system call
 * it is in, and its first argument, the futex's address (the mutex's
 * first word). */
static int waits_on_gate(pid_t tid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = 0;
	long nr;
	unsigned long long addr;
	if (fgets(line, sizeof line, f) && sscanf(line, "%ld %llx", &nr, &addr) == 2)
		ok = nr == SYS_futex && addr == (unsigned long long)(uintptr_t)&gate;
	fclose(f);
	return ok;
}

/* Until every worker waits on the gate (at most 20 s: a kernel without
 * /proc/<tid>/syscall, and the test then says which check failed). */
static void wait_for_waiters(int t)
{
	for (int tries = 0; tries < 20000; tries++) {
		int n = 0;
		for (int i = 0; i < t; i++) {
			pid_t tid = __atomic_load_n(&tids[i], __ATOMIC_ACQUIRE);
			n += tid && waits_on_gate(tid);
		}
		if (n == t)
			return;
		sleep_ms(1);
	}
}

static void *worker(void *arg)
{
	__atomic_store_n(&tids[(uintptr_t)arg], gettid(), __ATOMIC_RELEASE);
	hold_gate();
	for (int i = 0; i < calls; i++)
		sleep_fixed();
	return NULL;
}

int main(int argc, char **argv)
{
	int t = argc > 1 ? atoi(argv[1]) : 4;
	calls = argc > 2 ? atoi(argv[2]) : 10;
	pthread_t th[64];
	if (t < 1 || t > 64)
		return 2;
	pthread_mutex_lock(&gate);
	for (int i = 0; i < t; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
	wait_for_waiters(t);
	sleep_ms(HOLD_MS);
	pthread_mutex_unlock(&gate);
	for (int i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		for (int i = 0; i < calls; i++)
			sleep_fixed();
		_exit(0);
	}
	int status = 0;
	if (child > 0)
		waitpid(child, &status, 0);
	printf("child_ok %d\n", child > 0 && WIFEXITED(status));
	printf("threads %d\ncalls %d\nhold_ms %d\nheld_ms %d\nsleep_ms %d\n", t, calls, HOLD_MS,
	       HELD_MS, SLEEP_MS);
	return 0;
}
