/* SPDX-License-Identifier: MIT */
/* paratrace record started with libtrace.so in its own LD_PRELOAD (one
 * exported in the shell): traced itself, it would hand its program its own
 * run at the exec, not the directory record chose. It runs itself again
 * without it. */
#define _GNU_SOURCE
#include "commands.h"
#include "record.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* Whether the loader's list entry [p, p + n) is a libtrace.so. */
static int is_libtrace(const char *p, size_t n)
{
	static const char name[] = "libtrace.so";
	size_t k = sizeof name - 1;
	return n >= k && !memcmp(p + n - k, name, k) && (n == k || p[n - k - 1] == '/');
}

void record_untraced_self(int argc, char **argv)
{
	const char *old = getenv("LD_PRELOAD");
	if (!old)
		return;
	/* what is left of the list: at most as long as it */
	char *kept = malloc(strlen(old) + sizeof "LD_PRELOAD=");
	if (!kept)
		return;
	strcpy(kept, "LD_PRELOAD=");
	size_t len = strlen(kept), start = len;
	int dropped = 0;
	for (const char *p = old; *p;) {
		size_t n = strcspn(p, ": ");
		if (n && is_libtrace(p, n))
			dropped = 1;
		else if (n) {
			if (len > start)
				kept[len++] = ':';
			memcpy(kept + len, p, n);
			len += n;
		}
		p += n;
		p += *p != 0;
	}
	kept[len] = 0;
	char exe[PATH_MAX];
	ssize_t e = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (!dropped || e <= 0) {
		free(kept);
		return;
	}
	exe[e] = 0;
	size_t nenv = 0;
	while (environ[nenv])
		nenv++;
	char **env = calloc(nenv + 1, sizeof *env), **args = calloc((size_t)argc + 2, sizeof *args);
	if (!env || !args) {
		free(env);
		free(args);
		free(kept);
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < nenv; i++) {
		if (strncmp(environ[i], "LD_PRELOAD=", 11))
			env[k++] = environ[i];
		else if (len > start)
			env[k++] = kept;
	}
	args[0] = (char *)pt_cli_progname;
	for (int i = 0; i < argc; i++)
		args[i + 1] = argv[i];
	pt_cli_say("note",
	           "record: paratrace itself was preloaded with libtrace.so (LD_PRELOAD), and "
	           "may have written a trace of its own: running it again without; "
	           "record preloads libtrace.so for the program",
	           0);
	execve(exe, args, env);
	/* could not: go on traced, as before */
	free(env);
	free(args);
	free(kept);
}
