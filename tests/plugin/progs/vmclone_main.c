/* SPDX-License-Identifier: MIT */
/* A child made by clone(fn, stack, CLONE_VM | SIGCHLD, arg), without
 * CLONE_SETTLS: it shares its creator's memory and thread pointer (its
 * TLS, so glibc is not usable in it), as some runtimes and sandboxes make
 * them. Child and parent call an instrumented function N times each, at
 * the same time; the child returns 5 from fn. Prints "vm_child exit
 * <status>" (or "signal <signo>").
 * Usage: vmclone_main N */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define STACK (1 << 20)

static volatile long sink;
static volatile int go;
static long n;

__attribute__((noinline)) void in_vm_parent(long x)
{
	sink += x;
}

__attribute__((noinline)) void in_vm_child(long x)
{
	sink ^= x;
}

static int child_main(void *arg)
{
	(void)arg;
	go = 1;
	for (long i = 0; i < n; i++)
		in_vm_child(i);
	return 5;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	n = atol(argv[1]);
	char *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED)
		return 2;
	int pid = clone(child_main, stack + STACK, CLONE_VM | SIGCHLD, NULL);
	if (pid < 0)
		return 3;
	while (!go)
		;
	for (long i = 0; i < n; i++)
		in_vm_parent(i);
	int status = 0;
	if (waitpid(pid, &status, 0) != pid)
		return 4;
	if (WIFEXITED(status))
		printf("vm_child exit %d\n", WEXITSTATUS(status));
	else
		printf("vm_child signal %d\n", WTERMSIG(status));
	return 0;
}
