/* SPDX-License-Identifier: MIT */
/* The runtime's descriptors must never become the program's, nor the
 * program's the runtime's. Each mode does something a
 * real program does with descriptors it did not open, then writes four files
 * of its own while it keeps the tracer busy (mutex lock/unlock pairs, whose
 * records make the thread log switch windows: run with a small
 * PARATRACE_BUFFER_SIZE), reads the files back and checks every byte.
 *   closerange  close_range(3, ~0U, 0)
 *   closefrom   closefrom(3)
 *   closeloop   close() of every number from 3 up to the descriptor limit
 *   dup2        dup2/dup3 of one of its files onto each runtime descriptor
 *               (found in /proc/self/fd: links into PARATRACE_DIR), after
 *               checking that close/dup/fcntl on them fail with EBADF
 *   dup2threads the same, one descriptor at a time, 300 times, while three
 *               threads keep their logs switching windows and short threads
 *               start and end (their logs opened and closed)
 *   daemon      daemon(3), then closeloop, in the daemon; the original
 *               process waits for it (child subreaper)
 * Prints "expect" lines for check.sh: exit status 0 means the files were
 * intact; the trace must hold every lock pair and no LOST record. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAIRS 200000
#define CHUNKS 400

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static const char *workdir;
static int failures;

static void fail(const char *what)
{
	fprintf(stderr, "FAIL: %s (errno %s)\n", what, strerror(errno));
	failures++;
}

static void chunk_of(char *buf, size_t len, int file, int i)
{
	for (size_t k = 0; k < len; k++)
		buf[k] = (char)('a' + (file * 7 + i * 13 + (int)k) % 26);
}

/* Writes CHUNKS chunks into each fd in turn, PAIRS lock pairs spread
 * between them; then checks the files at paths[] byte for byte. */
static void busy_io(const int *fds, char (*paths)[PATH_MAX], int n)
{
	char buf[4096], back[4096];
	for (int i = 0; i < CHUNKS; i++) {
		for (int f = 0; f < n; f++) {
			chunk_of(buf, sizeof buf, f, i);
			if (write(fds[f], buf, sizeof buf) != (ssize_t)sizeof buf)
				fail("write");
		}
		for (int k = 0; k < PAIRS / CHUNKS; k++) {
			pthread_mutex_lock(&mu);
			pthread_mutex_unlock(&mu);
		}
	}
	for (int f = 0; f < n; f++) {
		if (close(fds[f]) != 0)
			fail("close of the program's file");
		int fd = open(paths[f], O_RDONLY);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0) {
			fail("reopen");
			continue;
		}
		if (st.st_size != (off_t)CHUNKS * (off_t)sizeof buf) {
			fprintf(stderr, "FAIL: %s is %lld bytes, wrote %lld\n", paths[f],
			        (long long)st.st_size, (long long)CHUNKS * (long long)sizeof buf);
			failures++;
		}
		for (int i = 0; i < CHUNKS; i++) {
			chunk_of(buf, sizeof buf, f, i);
			if (read(fd, back, sizeof back) != (ssize_t)sizeof back ||
			    memcmp(buf, back, sizeof buf) != 0) {
				fprintf(stderr, "FAIL: %s: chunk %d differs\n", paths[f], i);
				failures++;
				break;
			}
		}
		close(fd);
	}
}

static int open_out(char *path, int k)
{
	snprintf(path, PATH_MAX, "%s/out%d.%d", workdir, (int)getpid(), k);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		fail("open");
	return fd;
}

/* Four: as many as the descriptors a runtime that did not protect its own
 * would have lost (trace and process folders, process and thread logs). */
static void own_files(void)
{
	char paths[4][PATH_MAX];
	int fds[4];
	for (int i = 0; i < 4; i++)
		fds[i] = open_out(paths[i], i);
	busy_io(fds, paths, 4);
}

static void close_loop(void)
{
	struct rlimit rl;
	int max = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (int)rl.rlim_cur : 1024;
	for (int fd = 3; fd < max; fd++)
		close(fd);
}

/* The descriptors whose links point into the trace directory. */
static int runtime_fds(int *out, int max)
{
	const char *dir = getenv("PARATRACE_DIR");
	char real[PATH_MAX];
	if (!dir || !realpath(dir, real))
		return 0;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)) && n < max) {
		char link[300], target[PATH_MAX];
		snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
		ssize_t len = readlink(link, target, sizeof target - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strncmp(target, real, strlen(real)) == 0)
			out[n++] = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

static void expect_ebadf(int r, const char *what)
{
	if (r != -1 || errno != EBADF) {
		fprintf(stderr,
		        "FAIL: %s on a runtime descriptor returned %d (errno %d), not EBADF\n",
		        what, r, errno);
		failures++;
	}
}

static void onto_runtime(void)
{
	int ours[64];
	int n = runtime_fds(ours, 64);
	if (n < 3) {
		fprintf(stderr, "FAIL: found %d runtime descriptors in /proc/self/fd\n", n);
		failures++;
		return;
	}
	int rt = ours[0];
	errno = 0;
	expect_ebadf(close(rt), "close");
	expect_ebadf(dup(rt), "dup");
	expect_ebadf(fcntl(rt, F_GETFD), "fcntl(F_GETFD)");
	expect_ebadf(fcntl(rt, F_DUPFD, 0), "fcntl(F_DUPFD)");
	expect_ebadf(dup2(rt, 100), "dup2 from it");
	/* Take every runtime number: half with dup2, half with dup3. */
	char paths[64][PATH_MAX];
	int fds[64];
	for (int i = 0; i < n; i++) {
		int fd = open_out(paths[i], i);
		int r = i % 2 ? dup3(fd, ours[i], O_CLOEXEC) : dup2(fd, ours[i]);
		if (r != ours[i]) {
			fprintf(stderr, "FAIL: dup%d onto %d returned %d\n", i % 2 ? 3 : 2, ours[i],
			        r);
			failures++;
		}
		close(fd);
		fds[i] = ours[i];
		int flags = fcntl(ours[i], F_GETFD);
		if (flags < 0 || !!(flags & FD_CLOEXEC) != i % 2) {
			fprintf(stderr, "FAIL: descriptor %d after dup: flags %d\n", ours[i],
			        flags);
			failures++;
		}
	}
	/* The runtime moved its own elsewhere and keeps them protected. */
	int again[64];
	int m = runtime_fds(again, 64);
	for (int i = 0; i < m; i++)
		for (int k = 0; k < n; k++)
			if (again[i] == ours[k]) {
				fprintf(stderr, "FAIL: %d is still the runtime's\n", again[i]);
				failures++;
			}
	if (m < n) {
		fprintf(stderr, "FAIL: the runtime holds %d descriptors, had %d\n", m, n);
		failures++;
	}
	busy_io(fds, paths, n);
}

/* Threads keep their logs busy (window switches, each a use of the log's
 * descriptor) while the main thread takes runtime descriptors over with
 * dup2, one at a time, ITERATIONS times, writing a file through each. */
#define ITERATIONS 300
static atomic_int stop;
static atomic_long worker_pairs;

static void *locker(void *arg)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	long n = 0;
	(void)arg;
	while (!atomic_load(&stop)) {
		for (int k = 0; k < 1000; k++) {
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
		n += 1000;
		usleep(100); /* a window switch every 8 batches, a trace of moderate size */
	}
	atomic_fetch_add(&worker_pairs, n);
	return NULL;
}

/* A thread that only starts and ends: the runtime creates its log (a
 * descriptor opened, moved up) and closes it, while the main thread goes on
 * taking descriptors over. */
static void *brief(void *arg)
{
	return arg;
}

static void onto_runtime_busy(void)
{
	pthread_t th[3], passing;
	int have_passing = 0;
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, locker, NULL);
	char buf[4096], back[4096 + 1];
	for (int i = 0; i < ITERATIONS; i++) {
		if (i % 10 == 0) {
			if (have_passing)
				pthread_join(passing, NULL);
			have_passing = pthread_create(&passing, NULL, brief, NULL) == 0;
		}
		/* The file first, then the list: a log being created holds the
		 * lowest free number for a moment before the runtime moves it up
		 * (pt_fd.h), so a list taken before the open may name the number
		 * the open then gets, and the dup2 would be onto the file itself. */
		char path[PATH_MAX];
		int fd = open_out(path, i);
		int ours[64];
		int n = runtime_fds(ours, 64);
		if (n < 4) {
			fprintf(stderr, "FAIL: found %d runtime descriptors\n", n);
			failures++;
			close(fd);
			break;
		}
		int to = ours[i % n];
		if (dup2(fd, to) != to) {
			fail("dup2 onto a runtime descriptor");
			continue;
		}
		close(fd);
		chunk_of(buf, sizeof buf, 0, i);
		if (write(to, buf, sizeof buf) != (ssize_t)sizeof buf)
			fail("write");
		close(to);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	if (have_passing)
		pthread_join(passing, NULL);
	for (int i = 0; i < ITERATIONS; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/out%d.%d", workdir, (int)getpid(), i);
		int fd = open(path, O_RDONLY);
		chunk_of(buf, sizeof buf, 0, i);
		ssize_t got = fd >= 0 ? read(fd, back, sizeof back) : -1;
		if (got != (ssize_t)sizeof buf || memcmp(buf, back, sizeof buf) != 0) {
			fprintf(stderr, "FAIL: %s: %zd bytes or different bytes\n", path, got);
			failures++;
		}
		if (fd >= 0)
			close(fd);
	}
	printf("expect count LOCK_ACQUIRED >= %ld type=mutex\n", atomic_load(&worker_pairs));
}

static void run_daemon(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	char done[PATH_MAX];
	snprintf(done, sizeof done, "%s/daemon.done", workdir);
	unlink(done);
	pid_t p = fork();
	if (p == 0) {
		if (daemon(1, 0) != 0)
			_exit(3);
		close_loop();
		own_files();
		FILE *f = fopen(done, "w");
		if (f) {
			fprintf(f, "%d\n", failures);
			fclose(f);
		}
		exit(failures ? 1 : 0);
	}
	/* The daemon's parent exits at once; the daemon is reparented here. */
	int status;
	while (waitpid(-1, &status, 0) > 0 || errno == EINTR)
		;
	FILE *f = fopen(done, "r");
	int theirs = -1;
	if (!f || fscanf(f, "%d", &theirs) != 1 || theirs != 0) {
		fprintf(stderr, "FAIL: the daemon reported %d failures\n", theirs);
		failures++;
	}
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(
		    stderr,
		    "usage: %s closerange|closefrom|closeloop|dup2|dup2threads|daemon WORKDIR\n",
		    argv[0]);
		return 2;
	}
	workdir = argv[2];
	const char *mode = argv[1];
	if (strcmp(mode, "dup2threads") != 0)
		printf("expect count LOCK_ACQUIRED >= %d type=mutex\n", PAIRS);
	printf("expect count LOST == 0\n");
	printf("expect clean\n");
	fflush(stdout);
	if (!strcmp(mode, "closerange")) {
		if (close_range(3, ~0u, 0) != 0)
			fail("close_range");
		own_files();
	} else if (!strcmp(mode, "closefrom")) {
		closefrom(3);
		own_files();
	} else if (!strcmp(mode, "closeloop")) {
		close_loop();
		own_files();
	} else if (!strcmp(mode, "dup2")) {
		onto_runtime();
	} else if (!strcmp(mode, "dup2threads")) {
		onto_runtime_busy();
	} else if (!strcmp(mode, "daemon")) {
		run_daemon();
	} else {
		return 2;
	}
	printf("expect status 0\n");
	return failures ? 1 : 0;
}
