/* SPDX-License-Identifier: MIT */
/* Process lifecycle. Default mode, in one process tree:
 *  1. fork: the child makes K locked increments and _exits with 3;
 *  2. vfork + execv of this program ("child" mode);
 *  3. posix_spawn of this program with an environment of its own making,
 *     without any PARATRACE_* variable: it must still join the same trace;
 *  4. system("exit 5"): the shell is traced, the status comes back intact;
 *  5. execve of this program ("final" mode), again with a stripped
 *     environment: the new image writes into the same run.
 * Every process says what it did ("expect" lines on the shared stdout); the
 * parent names each child, which must appear in the trace with a FORK
 * record linking it. "twice" mode is run twice by run_twice.sh. */
#define _GNU_SOURCE
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void increments(int k)
{
	for (int i = 0; i < k; i++) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
}

/* environ without PARATRACE_*: what a program building its own
 * environment for a child typically passes. */
static char **stripped_env(void)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **e = calloc(n + 1, sizeof *e);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "PARATRACE_", 10) != 0)
			e[k++] = environ[i];
	return e;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *mode = argc > 1 ? argv[1] : "main";
	if (strcmp(mode, "child") == 0 || strcmp(mode, "final") == 0 || strcmp(mode, "twice") == 0) {
		increments(100);
		printf("expect count LOCK_ACQUIRED >= 100 obj=%p\n", (void *)&m);
		if (strcmp(mode, "twice") == 0)
			printf("expect pid %d\n", (int)getpid());
		if (strcmp(mode, "final") == 0) {
			printf("expect count EXEC >= 2\n");
			printf("expect procs >= 7\n");
			printf("expect status 0\n");
		}
		return 0;
	}
	const char *self = "/proc/self/exe";
	char exe[4096];
	ssize_t len = readlink(self, exe, sizeof exe - 1);
	if (len <= 0)
		return 2;
	exe[len] = '\0';

	pid_t p = fork();
	if (p == 0) {
		increments(500);
		_exit(3);
	}
	int st;
	if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 3)
		return 1;
	printf("expect pid %d\n", (int)p);
	/* the parent's record and the first record of the child's process log */
	printf("expect count FORK == 2 child=%d\n", (int)p);
	printf("expect count LOCK_ACQUIRED >= 500 obj=%p\n", (void *)&m);

	p = vfork();
	if (p == 0) {
		char *args[] = {exe, "child", NULL};
		execv(exe, args);
		_exit(127);
	}
	if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	printf("expect pid %d\n", (int)p);
	printf("expect count FORK == 1 child=%d flags=vfork\n", (int)p);

	char *args[] = {exe, "child", NULL};
	char **env = stripped_env();
	if (posix_spawn(&p, exe, NULL, NULL, args, env) != 0 || waitpid(p, &st, 0) != p ||
	    !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	printf("expect pid %d\n", (int)p);
	printf("expect count FORK == 1 child=%d flags=spawn\n", (int)p);

	int s = system("exit 5");
	if (!WIFEXITED(s) || WEXITSTATUS(s) != 5)
		return 1;

	char *fargs[] = {exe, "final", NULL};
	execve(exe, fargs, env);
	return 1;
}
