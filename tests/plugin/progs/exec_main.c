/* SPDX-License-Identifier: MIT */
/* An image that execs itself: level L calls work() 100 times, tries to
 * exec a file that does not exist (ENOENT, which must leave it traced as
 * before), calls after_failed_exec() 1000 times, then execs itself at
 * level L-1. Level 0 only calls work() and returns 0. With FIFO, each
 * level waits after the failed exec until it can read a byte from FIFO
 * (a test of `dump --follow` has seen the exec's CLOSE meanwhile).
 * Usage: exec_main L [FIFO] */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void work(int x)
{
	sink += x;
}

__attribute__((noinline)) void after_failed_exec(int x)
{
	sink -= x;
}

int main(int argc, char **argv)
{
	int level = argc > 1 ? atoi(argv[1]) : 0;
	for (int i = 0; i < 100; i++)
		work(i);
	if (level <= 0)
		return 0;
	execl("/nonexistent/paratrace-exec-test", "missing", (char *)NULL);
	if (errno != ENOENT) {
		printf("exec of a missing file: errno %d, expected ENOENT\n", errno);
		return 9;
	}
	if (argc > 2) {
		int fd = open(argv[2], O_RDONLY);
		char c;
		if (fd < 0 || read(fd, &c, 1) != 1)
			return 7;
		close(fd);
	}
	for (int i = 0; i < 1000; i++)
		after_failed_exec(i);
	char next[16];
	snprintf(next, sizeof next, "%d", level - 1);
	execl("/proc/self/exe", argv[0], next, (char *)NULL);
	perror("exec");
	return 8;
}
