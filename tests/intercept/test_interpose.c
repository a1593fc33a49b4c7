/* SPDX-License-Identifier: MIT */
/* Unit tests (CUnit, also run under ASan+UBSan) for the interposition
 * helpers that are pure logic: the environment given to exec'd and spawned
 * images (exec.c) and the pthread_t -> create_seq table (threads.c).
 * exec.c and threads.c are linked in with the fake core (tests/fake),
 * tracing "off" for the wrappers they define (fake_tracing = 0:
 * pt_tracing() == 0, pt_enter() == NULL), so the test program's own
 * pthread and exec calls pass straight through to the real ones. */
#define _GNU_SOURCE
#include "fake_core.h"
#include "pt_interpose.h"

#include <CUnit/Basic.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t count(char *const *e)
{
	size_t n = 0;
	while (e[n])
		n++;
	return n;
}

static int has(char *const *e, const char *s)
{
	for (size_t i = 0; e[i]; i++)
		if (strcmp(e[i], s) == 0)
			return 1;
	return 0;
}

static void test_env_without_preload_untouched(void)
{
	char *envp[] = {"HOME=/root", "PATH=/bin", NULL};
	char *buf[16];
	char *const *env = pt_env_with_run(envp, buf, 16);
	CU_ASSERT_PTR_EQUAL(env, envp); /* the program meant its child to run untraced */
	pt_env_free(env, envp, buf);
}

static void test_env_gets_run(void)
{
	char *envp[] = {"HOME=/root", "LD_PRELOAD=/x/libtrace.so", "PATH=/bin", NULL};
	char *buf[16];
	char *const *env = pt_env_with_run(envp, buf, 16);
	CU_ASSERT_PTR_NOT_EQUAL(env, envp);
	CU_ASSERT_EQUAL(count(env), 4);
	CU_ASSERT(has(env, "HOME=/root") && has(env, "PATH=/bin"));
	CU_ASSERT(has(env, "LD_PRELOAD=/x/libtrace.so"));
	CU_ASSERT(has(env, fake_run_env));
	pt_env_free(env, envp, buf);
}

static void test_env_stale_run_replaced(void)
{
	char *envp[] = {"PARATRACE_RUN=v1:old", "LD_PRELOAD=/x/libtrace.so", NULL};
	char *buf[16];
	char *const *env = pt_env_with_run(envp, buf, 16);
	CU_ASSERT_EQUAL(count(env), 2);
	CU_ASSERT(!has(env, "PARATRACE_RUN=v1:old"));
	CU_ASSERT(has(env, fake_run_env));
	pt_env_free(env, envp, buf);
}

static void test_env_current_run_kept(void)
{
	char *envp[] = {(char *)fake_run_env, "LD_PRELOAD=/x/libtrace.so", NULL};
	char *buf[16];
	CU_ASSERT_PTR_EQUAL(pt_env_with_run(envp, buf, 16), envp);
}

static void test_env_large_uses_pages(void)
{
	enum { N = 3000 };
	char **envp = calloc(N + 2, sizeof *envp);
	static char vars[N][24];
	for (int i = 0; i < N; i++) {
		snprintf(vars[i], sizeof vars[i], "V%d=%d", i, i);
		envp[i] = vars[i];
	}
	envp[N] = "LD_PRELOAD=/x/libtrace.so";
	char *buf[16];
	char *const *env = pt_env_with_run(envp, buf, 16);
	CU_ASSERT_PTR_NOT_EQUAL(env, envp);
	CU_ASSERT_EQUAL(count(env), N + 2);
	CU_ASSERT(has(env, fake_run_env) && has(env, "V2999=2999"));
	pt_env_free(env, envp, buf); /* munmap: ASan sees a leak or a bad free otherwise */
	free(envp);
}

static void test_env_null(void)
{
	char *buf[4];
	CU_ASSERT_PTR_NULL(pt_env_with_run(NULL, buf, 4));
}

/* Every exec of the family that fails closes the logs, then reopens them,
 * and returns the real call's result and errno. */
static void test_exec_failed_reopens(void)
{
	char *argv[] = {"missing", NULL};
	char *envp[] = {"LD_PRELOAD=x", NULL};
	fake_tracing = 1;
	fake_exec_closed = fake_exec_failed = 0;
	errno = 0;
	CU_ASSERT_EQUAL(execve("/nonexistent/pt-test", argv, envp), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_EQUAL(execv("/nonexistent/pt-test", argv), -1);
	CU_ASSERT_EQUAL(execvp("/nonexistent/pt-test", argv), -1);
	CU_ASSERT_EQUAL(execvpe("/nonexistent/pt-test", argv, envp), -1);
	CU_ASSERT_EQUAL(execl("/nonexistent/pt-test", "missing", (char *)NULL), -1);
	CU_ASSERT_EQUAL(execle("/nonexistent/pt-test", "missing", (char *)NULL, envp), -1);
	CU_ASSERT_EQUAL(execlp("/nonexistent/pt-test", "missing", (char *)NULL), -1);
	CU_ASSERT_EQUAL(execveat(AT_FDCWD, "/nonexistent/pt-test", argv, envp, 0), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	errno = 0;
	CU_ASSERT_EQUAL(fexecve(-1, argv, envp), -1);
	CU_ASSERT_NOT_EQUAL(errno, 0);
	CU_ASSERT_EQUAL(fake_exec_closed, 9);
	CU_ASSERT_EQUAL(fake_exec_failed, 9);
	fake_tracing = 0;
}

/* An exec of a path longer than PATH_MAX (it fails): the EXEC record holds
 * its first 4095 bytes and a NUL, 4096 bytes, as the reader wants a
 * record's string terminated. */
static void test_exec_long_path(void)
{
	enum { N = 5000 };
	char *path = malloc(N + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	for (size_t i = 0; i < N; i++)
		path[i] = i % 64 ? (char)('a' + i % 26) : '/';
	path[N] = '\0';
	char *argv[] = {"long", NULL};
	char *envp[] = {"LD_PRELOAD=x", NULL};
	fake_tracing = 1;
	fake_clear(fake_thread());
	CU_ASSERT_EQUAL(execve(path, argv, envp), -1);
	CU_ASSERT_EQUAL(errno, ENAMETOOLONG);
	const fake_rec *r = fake_find(FAKE_THREAD, PT_REC_EXEC, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->written, 4096);
	CU_ASSERT_EQUAL(r->last, 0);
	CU_ASSERT_EQUAL(memcmp(r->payload, path, r->len), 0);
	fake_tracing = 0;
	free(path);
}

static void test_seq_table(void)
{
	/* Round trip, removal, unknown keys. */
	pt_thread_seq_put(0x7f0000001000, 11);
	pt_thread_seq_put(0x7f0000002000, 12);
	CU_ASSERT_EQUAL(pt_thread_seq_get(0x7f0000001000, 0), 11);
	CU_ASSERT_EQUAL(pt_thread_seq_get(0x7f0000002000, 1), 12);
	CU_ASSERT_EQUAL(pt_thread_seq_get(0x7f0000002000, 0), 0);
	CU_ASSERT_EQUAL(pt_thread_seq_get(0x7f0000003000, 0), 0);
	/* A reused pthread_t takes its new seq. */
	pt_thread_seq_put(0x7f0000001000, 21);
	CU_ASSERT_EQUAL(pt_thread_seq_get(0x7f0000001000, 1), 21);
	/* Many live threads (as pthread_t values are laid out: stacks 8 MiB
	 * apart): all found while the table is not overfull. */
	int found = 0;
	for (uint64_t i = 0; i < 2000; i++)
		pt_thread_seq_put(0x7e0000000000 + i * 0x801000, 100 + i);
	for (uint64_t i = 0; i < 2000; i++)
		found += pt_thread_seq_get(0x7e0000000000 + i * 0x801000, 1) == 100 + i;
	CU_ASSERT(found >= 1990);
	/* Far more than the table holds: bounded, the newest still found. */
	for (uint64_t i = 0; i < 100000; i++)
		pt_thread_seq_put(0x7d0000000000 + i * 0x1000, 1 + i);
	CU_ASSERT_EQUAL(pt_thread_seq_get(0x7d0000000000 + 99999 * 0x1000, 0), 100000);
	CU_ASSERT_EQUAL(pt_thread_next_seq() + 1, pt_thread_next_seq());
}

int main(void)
{
	fake_tracing = 0;
	pt_parts_collect();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("interpose", NULL, NULL);
	CU_add_test(s, "env without LD_PRELOAD untouched", test_env_without_preload_untouched);
	CU_add_test(s, "env gets PARATRACE_RUN", test_env_gets_run);
	CU_add_test(s, "stale PARATRACE_RUN replaced", test_env_stale_run_replaced);
	CU_add_test(s, "current PARATRACE_RUN kept", test_env_current_run_kept);
	CU_add_test(s, "large env built in pages", test_env_large_uses_pages);
	CU_add_test(s, "NULL env", test_env_null);
	CU_add_test(s, "pthread_t -> seq table", test_seq_table);
	CU_add_test(s, "failed exec reopens the logs", test_exec_failed_reopens);
	CU_add_test(s, "an exec path past PATH_MAX is cut, terminated", test_exec_long_path);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
