/* SPDX-License-Identifier: MIT */
/* The state of an ended thread, kept by the core for a later thread
 * (core.c, thread_alloc), must start that thread exactly as a freshly
 * mapped one would: nothing of the thread that had it may show through
 * (a `closed` flag left set keeps the new thread's log from being closed
 * at its end, a stale end_retval goes into its THREAD_END, ...). Linked
 * with the core alone (pt_core_obj) and run with tracing on, in a trace
 * directory of its own: main runs itself again with the environment set. */
#define _GNU_SOURCE
#include "core.h"

#include <paratrace/abi.h>

#include <CUnit/Basic.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_ENV "PT_TEST_THREAD_REUSE_DIR"

typedef struct first_event {
	pt_thread *t;
	pt_thread state; /* *t as its first pt_enter() returned it */
} first_event;

/* A traced thread's first event: its state created, copied inside the
 * runtime (guard set, as every event finds it), then used as a thread
 * uses it, so that what it leaves behind is not all zeros. */
static void *first_event_thread(void *arg)
{
	first_event *fe = arg;
	pt_thread *t = pt_enter();
	fe->t = t;
	if (!t)
		return NULL;
	memcpy(&fe->state, t, sizeof *t);
	pt_leave(t);
	for (uint32_t i = 1; i <= 20000; i++) { /* fast and slow paths, window switches */
		__paratrace_func_enter(i);
		__paratrace_func_exit(i);
	}
	pt_thread_note_end(0xdead, 7);
	return NULL;
}

static void run_thread(first_event *fe)
{
	pthread_t th;
	memset(fe, 0, sizeof *fe);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, first_event_thread, fe) == 0);
	CU_ASSERT_FATAL(pthread_join(th, NULL) == 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fe->t);
}

/* The fields two threads' first events differ in on purpose: the thread
 * id, the registry links, and the log's window (where it was mapped, its
 * descriptor, the times read), taken as offsets in the window. */
static void normalize(pt_thread *s)
{
	pt_wlog *l = &s->log;
	char *base = l->base;
	l->cur = (char *)(uintptr_t)(l->cur - base);
	l->limit = l->limit ? (char *)(uintptr_t)(l->limit - base) : NULL;
	l->end = (char *)(uintptr_t)(l->end - base);
	l->base = NULL;
	l->fd = 0;
	l->last = 0;
	l->next_cal = 0;
	s->tid = 0;
	s->next = s->prev = NULL;
}

/* Thread A's state is mapped afresh (no thread ended before it); B, which
 * starts after A ended, must get A's pages back and find them as A found
 * them. A's pages are filled with a pattern while they wait, so that any
 * field the reuse leaves as it was shows, not only those A's own use
 * happened to leave non-zero. */
static void test_reused_state_is_fresh(void)
{
	static first_event a, b;
	run_thread(&a);
	memset(a.t, 0xa5, sizeof *a.t); /* kept by the core, unused until B */
	run_thread(&b);
	CU_ASSERT_PTR_EQUAL_FATAL(b.t, a.t); /* the state of A, reused */
	normalize(&a.state);
	normalize(&b.state);
	const unsigned char *x = (const unsigned char *)&a.state;
	const unsigned char *y = (const unsigned char *)&b.state;
	size_t differ = 0;
	for (size_t i = 0; i < sizeof a.state; i++)
		if (x[i] != y[i] && differ++ < 16)
			printf("\n  byte %zu of the thread state (pt_wlog: %zu bytes): fresh %02x, "
			       "reused %02x",
			       i, sizeof(pt_wlog), x[i], y[i]);
	CU_ASSERT_EQUAL(differ, 0);
}

static int run_traced(const char *self)
{
	char dir[] = "/tmp/pt-thread-reuse-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	pid_t pid = fork();
	if (pid == 0) {
		setenv(CHILD_ENV, dir, 1);
		setenv("PARATRACE_ENABLE", "1", 1);
		setenv("PARATRACE_DIR", dir, 1);
		setenv("PARATRACE_PREFAULT", "off", 1); /* no helper touching the logs */
		execl(self, self, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	int r = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)
	            ? WEXITSTATUS(status)
	            : 1;
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		r = 1;
	return r;
}

int main(void)
{
	if (!getenv(CHILD_ENV))
		return run_traced("/proc/self/exe");
	if (!pt_tracing()) {
		fprintf(stderr, "tracing did not start in %s\n", getenv(CHILD_ENV));
		return 1;
	}
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("runtime_thread_reuse", NULL, NULL);
	CU_add_test(s, "an ended thread's state, reused, is as a fresh one",
	            test_reused_state_is_fresh);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
