/* SPDX-License-Identifier: MIT */
/* See selflog.h. Single-threaded tests only. */
#include "selflog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 4096
#define MAX_NAMES 64
#define MAX_THREADS 4

static struct {
	char sign;
	unsigned char thread;
	const char *name;
} events[MAX_EVENTS];
static __thread int current_thread;
static int nevents, overflow;
static struct {
	const char *name;
	int count;
} names[MAX_NAMES];
static int nnames;
static int exp_resyncs[MAX_THREADS], exp_open[MAX_THREADS], nthreads = 1;

/* "helper@/some/dir/c_one.c" -> "helper@c_one.c" */
NOINSTR static void put_name(const char *n)
{
	const char *at = strchr(n, '@');
	if (!at) {
		fputs(n, stdout);
		return;
	}
	const char *slash = strrchr(at, '/');
	printf("%.*s@%s", (int)(at - n), n, slash ? slash + 1 : at + 1);
}

NOINSTR static void record(char sign, const char *name)
{
	if (nevents == MAX_EVENTS) {
		overflow = 1;
		return;
	}
	events[nevents].sign = sign;
	events[nevents].thread = (unsigned char)current_thread;
	events[nevents].name = name;
	nevents++;
}

NOINSTR static int name_index(const char *name)
{
	int i = 0;
	while (i < nnames && strcmp(names[i].name, name) != 0)
		i++;
	if (i == nnames && nnames < MAX_NAMES)
		names[nnames++].name = name;
	return i;
}

NOINSTR void sl_enter(const char *name)
{
	record('+', name);
	int i = name_index(name);
	if (i < MAX_NAMES)
		names[i].count++;
}

NOINSTR void sl_landed(const char *name)
{
	record('=', name);
}

NOINSTR void sl_exit(const char *name)
{
	record('-', name);
}

NOINSTR void sl_expect_thread(int n, int resyncs, int open)
{
	if (n < 0 || n >= MAX_THREADS)
		return;
	exp_resyncs[n] = resyncs;
	exp_open[n] = open;
}

NOINSTR void sl_expect(int resyncs, int open)
{
	sl_expect_thread(0, resyncs, open);
}

NOINSTR void sl_thread(int n)
{
	current_thread = n;
	if (n >= nthreads && n < MAX_THREADS)
		nthreads = n + 1;
}

NOINSTR static void print_all(void)
{
	if (overflow) {
		puts("SELFLOG overflow");
		return;
	}
	for (int t = 0; t < nthreads; t++) {
		if (t)
			printf("SEQ%d", t);
		else
			fputs("SEQ", stdout);
		for (int i = 0; i < nevents; i++) {
			if (events[i].thread != t)
				continue;
			printf(" %c", events[i].sign);
			put_name(events[i].name);
		}
		putchar('\n');
	}
	for (int i = 0; i < nnames; i++) {
		fputs("COUNT ", stdout);
		put_name(names[i].name);
		printf(" %d\n", names[i].count);
	}
	for (int t = 0; t < nthreads; t++) {
		if (t)
			printf("EXPECT%d resyncs=%d open=%d\n", t, exp_resyncs[t], exp_open[t]);
		else
			printf("EXPECT resyncs=%d open=%d\n", exp_resyncs[t], exp_open[t]);
	}
	fflush(stdout);
}

NOINSTR void sl_init(void)
{
	atexit(print_all);
}
