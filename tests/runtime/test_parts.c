/* SPDX-License-Identifier: MIT */
/* Unit test of the table of parts (runtime/core/parts.c) on parts defined here,
 * with the fake core (tests/fake): every part is found through the linker
 * section, callbacks run in ascending order of `order` (by name among
 * equals) or descending for thread_end and shutdown, NULL ones are skipped. */
#define _GNU_SOURCE
#include "fake_core.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

static char trace[512];

static void note(const char *what)
{
	size_t n = strlen(trace);
	snprintf(trace + n, sizeof trace - n, "%s%s", n ? " " : "", what);
}

#define PART_CALLBACKS(x)                                                                          \
	static void x##_init(void)                                                                 \
	{                                                                                          \
		note(#x);                                                                          \
	}                                                                                          \
	static void x##_thread(pt_thread *t)                                                       \
	{                                                                                          \
		(void)t;                                                                           \
		note(#x);                                                                          \
	}                                                                                          \
	static void x##_plain(void)                                                                \
	{                                                                                          \
		note(#x);                                                                          \
	}                                                                                          \
	static void x##_shutdown(int in_signal)                                                    \
	{                                                                                          \
		note(in_signal ? #x "!" : #x);                                                     \
	}

PART_CALLBACKS(late)
PART_CALLBACKS(early)
PART_CALLBACKS(mid1)
PART_CALLBACKS(mid2)

/* Defined out of order on purpose. */
PT_SUBSYSTEM(late_part) = {
    .name = "late",
    .order = 90,
    .init = late_init,
    .thread_start = late_thread,
    .thread_end = late_thread,
    .fork_child = late_plain,
    .exec = late_plain,
    .modules_changed = late_plain,
    .shutdown = late_shutdown,
};
PT_SUBSYSTEM(early_part) = {
    .name = "early",
    .order = 5,
    .init = early_init,
    .thread_start = early_thread,
    .thread_end = early_thread,
    .fork_child = early_plain,
    .exec = early_plain,
    .modules_changed = early_plain,
    .shutdown = early_shutdown,
};
PT_SUBSYSTEM(mid1_part) = {
    .name = "mid1",
    .order = 40,
    .init = mid1_init,
    .thread_start = mid1_thread,
    .thread_end = mid1_thread,
    .fork_child = mid1_plain,
    .exec = mid1_plain,
    .modules_changed = mid1_plain,
    .shutdown = mid1_shutdown,
};
PT_SUBSYSTEM(mid2_part) = {
    .name = "mid2",
    .order = 40,
    .init = mid2_init,
    .thread_start = mid2_thread,
    .thread_end = mid2_thread,
    .fork_child = mid2_plain,
    .exec = mid2_plain,
    .modules_changed = mid2_plain,
    .shutdown = mid2_shutdown,
};
/* A part with no callbacks at all. */
PT_SUBSYSTEM(quiet_part) = {.name = "quiet", .order = 50};

static const char *run(void (*step)(void))
{
	trace[0] = '\0';
	step();
	return trace;
}

static pt_thread *thread;
static void step_init(void)
{
	pt_parts_init();
}
static void step_thread_start(void)
{
	pt_parts_thread_start(thread);
}
static void step_thread_end(void)
{
	pt_parts_thread_end(thread);
}
static void step_fork_child(void)
{
	pt_parts_fork_child();
}
static void step_exec(void)
{
	pt_parts_exec();
}
static void step_modules(void)
{
	pt_parts_modules_changed();
}
static void step_shutdown(void)
{
	pt_parts_shutdown(0);
}
static void step_shutdown_signal(void)
{
	pt_parts_shutdown(1);
}

static void test_collect(void)
{
	CU_ASSERT_EQUAL(pt_parts_collect(), 5);
	CU_ASSERT_EQUAL(pt_parts_collect(), 5); /* again: the same table */
	CU_ASSERT_EQUAL(pt_parts_count(), 5);
	const char *want[] = {"early", "mid1", "mid2", "quiet", "late"};
	for (size_t i = 0; i < 5; i++)
		CU_ASSERT_STRING_EQUAL(pt_part_at(i)->name, want[i]);
	CU_ASSERT_PTR_NULL(pt_part_at(5));
	CU_ASSERT_PTR_EQUAL(pt_part_find("mid2"), &mid2_part);
	CU_ASSERT_PTR_NULL(pt_part_find("absent"));
}

static void test_order(void)
{
	thread = fake_thread();
	const char *forward = "early mid1 mid2 late", *backward = "late mid2 mid1 early";
	CU_ASSERT_STRING_EQUAL(run(step_init), forward);
	CU_ASSERT_STRING_EQUAL(run(step_thread_start), forward);
	CU_ASSERT_STRING_EQUAL(run(step_fork_child), forward);
	CU_ASSERT_STRING_EQUAL(run(step_exec), forward);
	CU_ASSERT_STRING_EQUAL(run(step_modules), forward);
	CU_ASSERT_STRING_EQUAL(run(step_thread_end), backward);
	CU_ASSERT_STRING_EQUAL(run(step_shutdown), backward);
	CU_ASSERT_STRING_EQUAL(run(step_shutdown_signal), "late! mid2! mid1! early!");
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("parts", NULL, NULL);
	CU_add_test(s, "collect: every part, sorted", test_collect);
	CU_add_test(s, "callbacks in order", test_order);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
