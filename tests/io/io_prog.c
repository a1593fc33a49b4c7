/* SPDX-License-Identifier: MIT */
/* Known file I/O and memory calls, for io_check.py: 1000 writes and 1000
 * reads of 4 KiB, 10 pwrite and 10 pread, 100 fwrite, 10,000 malloc/free
 * pairs, 100 blocks of 1000 bytes live together, a write to a bad descriptor (its errno printed),
 * and a checksum of what it read. The output and the files must be the same traced and untraced.
 * argv[1]: the folder for its files. Modes (argv[2]): calls   the calls above (the default) fork
 * the same writes in a fork child too crash   killed by SIGSEGV in the middle of its writes
 * budget   the calls above after 3 long reads (a pipe a fork child writes to every 20 ms): the
 * calls the .prv's budget must keep while it leaves out the short ones (io_budget.py) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096
#define N_RW 1000
#define N_P 10
#define N_F 100
#define N_MEM 10000

/* Kept out of line, and malloc not its tail call, so that the allocation
 * site has a name of its own. */
__attribute__((noinline)) static void *grow(size_t n)
{
	unsigned char *p = malloc(n);
	if (p)
		p[n - 1] = 0;
	return p;
}

/* The same, for 100 blocks of 1000 bytes live at once: the peak's site. */
__attribute__((noinline)) static void *keep(size_t n)
{
	unsigned char *p = malloc(n);
	if (p)
		p[n - 1] = 1;
	return p;
}

static void fail(const char *what)
{
	perror(what);
	exit(2);
}

/* 3 reads that wait about 20 ms each for a child's writes. */
static void long_reads(void)
{
	int p[2];
	if (pipe(p))
		fail("pipe");
	pid_t pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		close(p[0]);
		for (int i = 0; i < 3; i++) {
			nanosleep(&(struct timespec){0, 20000000}, NULL);
			if (write(p[1], "x", 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	char c;
	for (int i = 0; i < 3; i++)
		if (read(p[0], &c, 1) != 1)
			fail("read");
	close(p[0]);
	int st;
	waitpid(pid, &st, 0);
	printf("long reads done, child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void writes(const char *path, int n, int crash_at)
{
	char block[BLOCK];
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		fail("open");
	for (int i = 0; i < n; i++) {
		memset(block, 'a' + i % 26, sizeof block);
		if (i == crash_at)
			raise(SIGSEGV);
		if (write(fd, block, sizeof block) != BLOCK)
			fail("write");
	}
	if (close(fd))
		fail("close");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	const char *mode = argc > 2 ? argv[2] : "calls";
	char data[4096], pdata[4096], sdata[4096];
	snprintf(data, sizeof data, "%s/data.bin", argv[1]);
	snprintf(pdata, sizeof pdata, "%s/positioned.bin", argv[1]);
	snprintf(sdata, sizeof sdata, "%s/stream.txt", argv[1]);
	if (!strcmp(mode, "crash")) {
		writes(data, N_RW, N_RW / 2);
		return 0;
	}
	if (!strcmp(mode, "fork")) {
		pid_t pid = fork();
		if (pid < 0)
			fail("fork");
		if (pid == 0) {
			char child[4200];
			snprintf(child, sizeof child, "%s.child", data);
			writes(child, 10, -1);
			_exit(0);
		}
		int st;
		waitpid(pid, &st, 0);
		writes(data, 10, -1);
		printf("fork child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 0;
	}

	if (!strcmp(mode, "budget"))
		long_reads();
	writes(data, N_RW, -1);
	char block[BLOCK];
	unsigned long sum = 0;
	int fd = open(data, O_RDONLY);
	if (fd < 0)
		fail("open");
	for (int i = 0; i < N_RW; i++) {
		if (read(fd, block, sizeof block) != BLOCK)
			fail("read");
		sum += (unsigned char)block[i % BLOCK];
	}
	close(fd);

	fd = open(pdata, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		fail("open");
	for (int i = 0; i < N_P; i++) {
		memset(block, '0' + i, 512);
		if (pwrite(fd, block, 512, (off_t)i * 512) != 512)
			fail("pwrite");
	}
	for (int i = 0; i < N_P; i++) {
		if (pread(fd, block, 512, (off_t)(N_P - 1 - i) * 512) != 512)
			fail("pread");
		sum += (unsigned char)block[0];
	}
	close(fd);

	FILE *f = fopen(sdata, "w");
	if (!f)
		fail("fopen");
	for (int i = 0; i < N_F; i++) {
		char line[32];
		int len = snprintf(line, sizeof line, "line %03d\n", i);
		if (fwrite(line, 1, (size_t)len, f) != (size_t)len)
			fail("fwrite");
	}
	fclose(f);

	unsigned long msum = 0;
	for (int i = 0; i < N_MEM; i++) {
		unsigned char *p = grow(16 + (size_t)(i % 64));
		if (!p)
			fail("malloc");
		p[0] = (unsigned char)i;
		msum += p[0];
		free(p);
	}

	void *kept[100];
	for (int i = 0; i < 100; i++)
		if (!(kept[i] = keep(1000)))
			fail("malloc");
	for (int i = 0; i < 100; i++)
		free(kept[i]);

	errno = 0;
	ssize_t r = write(987, "x", 1);
	printf("bad write %zd errno %d\n", r, errno);
	printf("checksum %lu %lu\n", sum, msum);
	return 0;
}
