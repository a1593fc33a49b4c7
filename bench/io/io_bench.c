/* SPDX-License-Identifier: MIT */
/* File I/O and dynamic memory interposition cost: one measurement per
 * run, printed as a number (ns per operation, CPU time of the process).
 *   io_bench pread N FILE   a 4 KiB pread of FILE (in the page cache)
 *   io_bench write N        a 64-byte write to /dev/null
 *   io_bench malloc N       a malloc(64) + free pair
 * run.sh runs it untraced, traced, and traced with PARATRACE_MEMORY=1,
 * several times each, and prints the medians side by side. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* CPU time, not wall time (shared 2-core machines; see bench/locks). */
static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: io_bench pread N FILE | write N | malloc N\n");
		return 2;
	}
	long n = atol(argv[2]);
	double t0 = 0, t1 = 0;
	if (!strcmp(argv[1], "pread") && argc > 3) {
		static char buf[4096];
		int fd = open(argv[3], O_RDONLY);
		if (fd < 0)
			return 1;
		for (long i = 0; i < n / 10 + 1; i++) /* warm-up: page cache, the log */
			sink += (unsigned long)pread(fd, buf, sizeof buf, 0);
		t0 = now_ns();
		for (long i = 0; i < n; i++)
			sink += (unsigned long)pread(fd, buf, sizeof buf, 0);
		t1 = now_ns();
		close(fd);
	} else if (!strcmp(argv[1], "write")) {
		static const char buf[64];
		int fd = open("/dev/null", O_WRONLY);
		if (fd < 0)
			return 1;
		for (long i = 0; i < n / 10 + 1; i++)
			sink += (unsigned long)write(fd, buf, sizeof buf);
		t0 = now_ns();
		for (long i = 0; i < n; i++)
			sink += (unsigned long)write(fd, buf, sizeof buf);
		t1 = now_ns();
		close(fd);
	} else if (!strcmp(argv[1], "malloc")) {
		for (long i = 0; i < n / 10 + 1; i++) {
			void *p = malloc(64);
			sink += (unsigned long)p;
			free(p);
		}
		t0 = now_ns();
		for (long i = 0; i < n; i++) {
			void *volatile p = malloc(64);
			free(p);
		}
		t1 = now_ns();
	} else {
		fprintf(stderr, "io_bench: unknown mode %s\n", argv[1]);
		return 2;
	}
	printf("%.2f\n", (t1 - t0) / (double)n);
	return 0;
}
