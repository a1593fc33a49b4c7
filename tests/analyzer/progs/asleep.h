/* SPDX-License-Identifier: MIT */
/* For test programs that need a lock wait to happen for sure: the thread
 * holding the lock calls wait_asleep(&tid) before releasing it, where the
 * asking thread stores its gettid() just before its request; the wait is
 * certain once the kernel shows that thread sleeping (the request blocked),
 * however slow or loaded the machine. Needs _GNU_SOURCE (gettid). */
#ifndef PT_TEST_ASLEEP_H
#define PT_TEST_ASLEEP_H
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

/* The kernel's state of thread tid: 'S' once it sleeps in its lock request. */
static char state_of(pid_t tid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	const char *paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

/* Until *tid is set and that thread sleeps (at most 5 s). */
static void wait_asleep(volatile pid_t *tid)
{
	for (int i = 0; i < 5000 && (!*tid || state_of(*tid) != 'S'); i++)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
}
#endif
