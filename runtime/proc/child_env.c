/* SPDX-License-Identifier: MIT */
/* The environment of an exec'd or spawned image: PARATRACE_RUN added to a
 * program's own environment, so that its children write into the same run.
 * Shared by the exec family (exec.c) and posix_spawn/system (fork.c). No
 * malloc: exec may be called where only async-signal-safe calls are allowed. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern char **environ;

#define RUN_PREFIX "PARATRACE_RUN="

char *const *pt_exec_prepare_env(char *const *envp)
{
	int was_environ = envp == (char *const *)environ;
	pt_exec_prepare();
	return was_environ ? (char *const *)environ : envp;
}

char *const *pt_env_with_run(char *const *envp, char **buf, size_t n)
{
	const char *run = pt_run_env_string();
	if (!run || !envp)
		return envp;
	size_t count = 0, plen = strlen(RUN_PREFIX);
	int preload = 0, current = 0;
	for (; envp[count]; count++) {
		if (strncmp(envp[count], "LD_PRELOAD=", 11) == 0)
			preload = 1;
		else if (strncmp(envp[count], RUN_PREFIX, plen) == 0 &&
		         strcmp(envp[count], run) == 0)
			current = 1;
	}
	if (!preload || current)
		return envp;
	/* Slot 0 holds the mapping's size when the array is mmap'ed. */
	size_t need = count + 3;
	char **arr = buf;
	if (need > n) {
		size_t bytes = need * sizeof(char *);
		void *p =
		    mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return envp;
		arr = p;
		arr[0] = (char *)(uintptr_t)bytes;
	}
	size_t k = 1;
	for (size_t i = 0; i < count; i++)
		if (strncmp(envp[i], RUN_PREFIX, plen) != 0) /* a stale copy is replaced */
			arr[k++] = envp[i];
	arr[k++] = (char *)run;
	arr[k] = NULL;
	return arr + 1;
}

void pt_env_free(char *const *env, char *const *envp, char **buf)
{
	if (env == envp || env == buf + 1)
		return;
	char **arr = (char **)env - 1;
	munmap(arr, (size_t)(uintptr_t)arr[0]);
}
