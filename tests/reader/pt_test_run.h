/* SPDX-License-Identifier: MIT */
/* Test helpers for the tests that run the paratrace executable on traces
 * they write (test_dump, tests/cli/test_cli): a command's exit status and
 * output, and the test binary's own module mapping (for MODULE_MAP records
 * that name real code). */
#ifndef PT_TEST_RUN_H
#define PT_TEST_RUN_H

#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

typedef struct run {
	int status; /* exit status, -1 if killed by a signal */
	char *out, *err;
} run;

/* The whole file, "" if it cannot be read. */
static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return strdup("");
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		fwrite(chunk, 1, n, mem);
	fclose(mem);
	fclose(f);
	return buf;
}

/* Runs the shell command line cmd with stdout and stderr in dir/out and
 * dir/err, and returns its status and what it printed. */
static inline run run_in(const char *dir, const char *cmd)
{
	char line[8192], p[512];
	snprintf(line, sizeof line, "%s >'%s/out' 2>'%s/err'", cmd, dir, dir);
	int st = system(line);
	run r;
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	snprintf(p, sizeof p, "%s/out", dir);
	r.out = slurp(p);
	snprintf(p, sizeof p, "%s/err", dir);
	r.err = slurp(p);
	return r;
}

static inline void run_free(run *r)
{
	free(r->out);
	free(r->err);
}

/* dl_iterate_phdr callback: data = uint64_t[3] {load bias, lowest, one past
 * the highest address} of the executable. */
static inline int main_module(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	uint64_t *m = data;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0;
	m[0] = info->dlpi_addr;
	m[1] = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;
		if (lo < m[1])
			m[1] = lo;
		if (lo + ph->p_memsz > m[2])
			m[2] = lo + ph->p_memsz;
	}
	return 1;
}

#endif
