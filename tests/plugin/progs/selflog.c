/* See selflog.h. Single-threaded tests only. */
#include "selflog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 4096
#define MAX_NAMES 64

static struct {
	char sign;
	const char *name;
} events[MAX_EVENTS];
static int nevents, overflow;
static struct {
	const char *name;
	int count;
} names[MAX_NAMES];
static int nnames;
static int exp_resyncs, exp_open;

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
	events[nevents].name = name;
	nevents++;
}

NOINSTR void sl_enter(const char *name)
{
	record('+', name);
	int i = 0;
	while (i < nnames && strcmp(names[i].name, name) != 0)
		i++;
	if (i == nnames && nnames < MAX_NAMES)
		names[nnames++].name = name;
	if (i < MAX_NAMES)
		names[i].count++;
}

NOINSTR void sl_exit(const char *name)
{
	record('-', name);
}

NOINSTR void sl_expect(int resyncs, int open)
{
	exp_resyncs = resyncs;
	exp_open = open;
}

NOINSTR static void print_all(void)
{
	if (overflow) {
		puts("SELFLOG overflow");
		return;
	}
	fputs("SEQ", stdout);
	for (int i = 0; i < nevents; i++) {
		printf(" %c", events[i].sign);
		put_name(events[i].name);
	}
	putchar('\n');
	for (int i = 0; i < nnames; i++) {
		fputs("COUNT ", stdout);
		put_name(names[i].name);
		printf(" %d\n", names[i].count);
	}
	printf("EXPECT resyncs=%d open=%d\n", exp_resyncs, exp_open);
	fflush(stdout);
}

NOINSTR void sl_init(void)
{
	atexit(print_all);
}
