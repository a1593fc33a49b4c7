/* SPDX-License-Identifier: MIT */
/* File I/O and dynamic memory interposition cost: one measurement per
 * run, printed as a number (ns per operation, CPU time of the process).
 *   io_bench pread N FILE   a 4 KiB pread of FILE (in the page cache)
 *   io_bench write N        a 64-byte write to /dev/null
 *   io_bench malloc N       a malloc(64) + free pair
 *   io_bench pread-sys N FILE   the pread, then a system call of no
 *                           wrapper's (getppid): between two preads the
 *                           TLB is emptied once more (page-table isolation
 *                           without PCID), so the wrapper's begin and end
 *                           each pay for the pages they touch
 *   io_bench clock N        the clock the wrappers read (rdtsc) alone
 *   io_bench pages N K      a system call of no wrapper's (getppid), then
 *                           one load from each of K pages far apart (K <=
 *                           16): untraced, K = 5 against K = 0 is what 5
 *                           pages touched after a system call cost here
 *                           (the wrappers' case: page walks where the
 *                           system call empties the TLB)
 * run.sh runs it untraced, traced, and traced with PARATRACE_MEMORY=1,
 * several times each, and prints the medians side by side. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* CPU time, not wall time (shared 2-core machines; see bench/locks). */
static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile unsigned long sink;

/* A system call no wrapper of libtrace.so sees (libc's syscall() is one
 * of its wrappers). x86-64; elsewhere libc's getppid. */
static void other_syscall(void)
{
#if defined(__x86_64__)
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_getppid) : "rcx", "r11", "memory");
	sink += (unsigned long)r;
#else
	sink += (unsigned long)getppid();
#endif
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: io_bench pread N FILE | pread-sys N FILE | write N | "
		                "malloc N | clock N | pages N K\n");
		return 2;
	}
	long n = atol(argv[2]);
	double t0 = 0, t1 = 0;
	if ((!strcmp(argv[1], "pread") || !strcmp(argv[1], "pread-sys")) && argc > 3) {
		static char buf[4096];
		int other = !strcmp(argv[1], "pread-sys");
		int fd = open(argv[3], O_RDONLY);
		if (fd < 0)
			return 1;
		for (long i = 0; i < n / 10 + 1; i++) /* warm-up: page cache, the log */
			sink += (unsigned long)pread(fd, buf, sizeof buf, 0);
		t0 = now_ns();
		if (other)
			for (long i = 0; i < n; i++) {
				sink += (unsigned long)pread(fd, buf, sizeof buf, 0);
				other_syscall();
			}
		else
			for (long i = 0; i < n; i++)
				sink += (unsigned long)pread(fd, buf, sizeof buf, 0);
		t1 = now_ns();
		close(fd);
	} else if (!strcmp(argv[1], "pages") && argc > 3) {
		/* each in a mapping of its own 1 GiB apart: distinct page
		 * tables below the top level, as the wrappers' pages are (the
		 * library's code and data, the TLS block, the thread's state,
		 * the log's window) */
		enum { PAGES = 16 };
		static volatile char *page[PAGES];
		int k = atoi(argv[3]);
		if (k < 0 || k > PAGES)
			return 2;
		for (int j = 0; j < PAGES; j++) {
			char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				return 1;
			p[0] = 1;
			page[j] = p;
			/* a gap, so that the next mapping lands elsewhere */
			mmap(NULL, 1ul << 30, PROT_NONE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		}
		for (long i = 0; i < n / 10 + 1; i++)
			other_syscall();
		t0 = now_ns();
		for (long i = 0; i < n; i++) {
			other_syscall();
			for (int j = 0; j < k; j++)
				sink += (unsigned long)page[j][64 * j];
		}
		t1 = now_ns();
	} else if (!strcmp(argv[1], "clock")) {
#if defined(__x86_64__)
		t0 = now_ns();
		for (long i = 0; i < n; i++)
			sink += __rdtsc();
		t1 = now_ns();
#else
		fprintf(stderr, "io_bench: clock: x86-64 only\n");
		return 2;
#endif
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
