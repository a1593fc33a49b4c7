/* SPDX-License-Identifier: MIT */
/* The process ends while other threads are busy: T workers call work()
 * in a loop and, after each call, publish how many calls they completed
 * in a shared file mapping (COUNTS: per worker, its tid and its count),
 * so the counts survive the end. Once every worker has completed MIN
 * calls, the main thread ends the process HOW: `segv` (dereferences NULL:
 * SIGSEGV, the default), `exit` (exit(7)), `_exit` (_exit(7)),
 * `exit_group` (the raw system call, status 7) or `return` (from main,
 * 7). Every call a worker counted must be in the trace, or counted in a
 * LOST record.
 * Usage: crash_main COUNTS T MIN [HOW] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_T 16

static volatile long sink;
static uint64_t *counts; /* [2 * i]: tid, [2 * i + 1]: completed calls */

__attribute__((noinline)) void work(void)
{
	sink++;
}

static void *worker(void *arg)
{
	uint64_t *slot = counts + 2 * (uintptr_t)arg;
	__atomic_store_n(&slot[0], (uint64_t)gettid(), __ATOMIC_RELAXED);
	for (uint64_t n = 1;; n++) {
		work();
		__atomic_store_n(&slot[1], n, __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5)
		return 2;
	const char *how = argc == 5 ? argv[4] : "segv";
	int t = atoi(argv[2]);
	uint64_t min = strtoull(argv[3], NULL, 10);
	if (t < 1 || t > MAX_T)
		return 2;
	int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 4096) != 0)
		return 2;
	counts = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (counts == MAP_FAILED)
		return 2;
	pthread_t th[MAX_T];
	for (int i = 0; i < t; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
	for (int i = 0; i < t; i++)
		while (__atomic_load_n(&counts[2 * i + 1], __ATOMIC_ACQUIRE) < min)
			sched_yield();
	if (!strcmp(how, "exit"))
		exit(7);
	if (!strcmp(how, "_exit"))
		_exit(7);
	if (!strcmp(how, "exit_group"))
		syscall(SYS_exit_group, 7);
	if (!strcmp(how, "return"))
		return 7;
	int *volatile nowhere = NULL;
	*nowhere = 0;
	return 0;
}
