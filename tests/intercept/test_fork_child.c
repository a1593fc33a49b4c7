/* SPDX-License-Identifier: MIT */
/* A fork child must not inherit a lock of the runtime held by a thread of
 * the parent: that thread does not exist in the child, so the lock would
 * never be released there, and the child's first traced pthread_create or
 * join (the thread table's lock, threads.c) or its first sigaction (the
 * signal table's lock, signals.c) would spin forever. Each part resets its
 * locks in its fork_child.
 *
 * The parts run against the fake core (tests/fake), driven through the
 * table as the core does: a thread keeps taking a lock while the test
 * forks again and again; each child runs the parts' fork_child and then
 * takes both locks. */
#define _GNU_SOURCE
#include "fake_core.h"
#include "pt_interpose.h"

#include <CUnit/Basic.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static atomic_int stop;

/* Takes the thread table's lock again and again (held about half the time). */
static void *hammer_thread_table(void *arg)
{
	(void)arg;
	for (uint64_t i = 1; !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
		pt_thread_seq_put(0x7f0000001000 + (i & 1023) * 0x1000, i);
		(void)pt_thread_seq_get(0x7f0000001000 + ((i * 7) & 1023) * 0x1000, 0);
	}
	return NULL;
}

/* Takes the signal table's lock again and again (held between two
 * sigprocmask calls, so a smaller part of the time). */
static void *hammer_signal_table(void *arg)
{
	(void)arg;
	struct sigaction old;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		sigaction(SIGINT, NULL, &old);
	return NULL;
}

/* In the child: the parts' fork_child, then both locks. */
static void child(void)
{
	pt_parts_fork_child();
	struct sigaction old;
	pt_thread_seq_put(0x7e0000001000, 1);
	int ok = pt_thread_seq_get(0x7e0000001000, 1) == 1;
	ok &= sigaction(SIGINT, NULL, &old) == 0;
	_exit(ok ? 0 : 1);
}

/* Forks `n` children while `hammer` runs; a child still running after 2 s
 * is stuck (the signal table's lock is taken with every signal blocked:
 * no alarm could end it) and is killed. Returns how many were stuck. */
static int fork_children(void *(*hammer)(void *), int n)
{
	pthread_t th;
	atomic_store(&stop, 0);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, hammer, NULL) == 0);
	int stuck = 0, failed = 0;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0)
			child();
		CU_ASSERT_FATAL(pid > 0);
		int status = 0, waited = 0;
		while (waitpid(pid, &status, WNOHANG) == 0) {
			if (++waited == 2000) {
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
				stuck++;
				break;
			}
			usleep(1000);
		}
		failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(failed, stuck);
	if (stuck)
		printf("\n  %d of %d fork children stuck on a lock held at fork\n", stuck, n);
	return stuck;
}

static void test_thread_table_lock(void)
{
	CU_ASSERT_EQUAL(fork_children(hammer_thread_table, 100), 0);
}

static void test_signal_table_lock(void)
{
	CU_ASSERT_EQUAL(fork_children(hammer_signal_table, 400), 0);
}

int main(void)
{
	/* The families' wrappers pass straight through (tracing off); the
	 * signals part's init installs its handlers so that sigaction goes
	 * through its table, as when tracing. */
	fake_tracing = 0;
	pt_parts_collect();
	pt_parts_init();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("fork_child", NULL, NULL);
	CU_add_test(s, "thread table: its lock held at fork", test_thread_table_lock);
	CU_add_test(s, "signal table: its lock held at fork", test_signal_table_lock);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
