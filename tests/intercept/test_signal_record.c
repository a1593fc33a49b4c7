/* SPDX-License-Identifier: MIT */
/* Every fatal signal the runtime's handler takes is in the trace: in the
 * log of the thread that took it, or, when that thread was inside the
 * runtime (pt_enter refuses: its log holds a record in progress), in the
 * process log with the thread's id. The signals part (signals.c) runs
 * against the fake core (tests/fake); the program's handler keeps the
 * process alive, and the core's guard is set by hand to put the thread
 * "inside the runtime" when the signal comes. */
#define _GNU_SOURCE
#include "fake_core.h"
#include "pt_interpose.h"

#include <CUnit/Basic.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t handled;

static void on_term(int sig)
{
	(void)sig;
	handled++;
}

static void install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigemptyset(&sa.sa_mask);
	CU_ASSERT_EQUAL(sigaction(SIGTERM, &sa, NULL), 0);
}

static void test_outside(void)
{
	pt_thread *t = fake_thread();
	fake_reset();
	install();
	handled = 0;
	raise(SIGTERM);
	CU_ASSERT_EQUAL(handled, 1);
	const fake_rec *r = fake_find(FAKE_THREAD, PT_REC_SIGNAL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	const pt_rec_signal *s = (const pt_rec_signal *)r->payload;
	CU_ASSERT_EQUAL(s->signo, SIGTERM);
	CU_ASSERT_EQUAL(s->tid, t->tid);
	CU_ASSERT_EQUAL(fake_count(FAKE_PROCESS, PT_REC_SIGNAL), 0);
}

static void test_inside(void)
{
	pt_thread *t = fake_thread();
	fake_reset();
	install();
	handled = 0;
	t->inside = 1; /* the signal comes while the thread is in the runtime */
	raise(SIGTERM);
	t->inside = 0;
	CU_ASSERT_EQUAL(handled, 1);
	CU_ASSERT_EQUAL(fake_count(FAKE_THREAD, PT_REC_SIGNAL), 0);
	const fake_rec *r = fake_find(FAKE_PROCESS, PT_REC_SIGNAL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	const pt_rec_signal *s = (const pt_rec_signal *)r->payload;
	CU_ASSERT_EQUAL(r->len, sizeof *s);
	CU_ASSERT_EQUAL(s->signo, SIGTERM);
	CU_ASSERT_EQUAL(s->tid, t->tid);
}

static void test_not_tracing(void)
{
	fake_thread();
	fake_reset();
	install();
	fake_tracing = 0;
	raise(SIGTERM);
	fake_tracing = 1;
	CU_ASSERT_EQUAL(fake_count(FAKE_THREAD, PT_REC_SIGNAL), 0);
	CU_ASSERT_EQUAL(fake_count(FAKE_PROCESS, PT_REC_SIGNAL), 0);
}

int main(void)
{
	fake_tracing = 1;
	pt_parts_collect();
	pt_parts_init();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("signal_record", NULL, NULL);
	CU_add_test(s, "a signal outside the runtime: the thread's log", test_outside);
	CU_add_test(s, "inside the runtime: the process log, with the tid", test_inside);
	CU_add_test(s, "not tracing: nowhere", test_not_tracing);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
