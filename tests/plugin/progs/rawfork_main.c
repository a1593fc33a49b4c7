/* SPDX-License-Identifier: MIT */
/* Children made without the fork wrapper or glibc's atfork handlers: a
 * raw fork system call and clone(fn, stack, SIGCHLD, arg). Each child
 * calls its own instrumented function N times and ends with its own exit
 * status (the fork child through exit(3), the clone child by returning 5
 * from fn); the parent calls in_parent() N times before and after.
 * Prints "<child> exit <status>" or "<child> signal <signo>" per child. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 1000
#define STACK (1 << 20)

static volatile long sink;

__attribute__((noinline)) void in_parent(int x)
{
	sink += x;
}

__attribute__((noinline)) void in_fork_child(int x)
{
	sink += x * 3;
}

__attribute__((noinline)) void in_clone_child(int x)
{
	sink ^= x;
}

static int clone_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < N; i++)
		in_clone_child(i);
	return 5;
}

static void report(const char *who, pid_t pid)
{
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		printf("%s failed\n", who);
		return;
	}
	if (WIFEXITED(status))
		printf("%s exit %d\n", who, WEXITSTATUS(status));
	else
		printf("%s signal %d\n", who, WIFSIGNALED(status) ? WTERMSIG(status) : -1);
	fflush(stdout);
}

int main(void)
{
	for (int i = 0; i < N; i++)
		in_parent(i);
	fflush(stdout);
#ifdef SYS_fork
	pid_t pid = (pid_t)syscall(SYS_fork);
#else
	pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
#endif
	if (pid == 0) {
		for (int i = 0; i < N; i++)
			in_fork_child(i);
		exit(3);
	}
	report("fork_child", pid);
	char *stack = malloc(STACK);
	if (!stack)
		return 1;
	report("clone_child", clone(clone_main, stack + STACK, SIGCHLD, NULL));
	free(stack);
	for (int i = 0; i < N; i++)
		in_parent(i);
	return 0;
}
