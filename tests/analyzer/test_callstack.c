/* SPDX-License-Identifier: MIT */
/* Unit tests of the analyzer's call-stack tracker (framework/pt_callstack.h),
 * also run under ASan+UBSan: the rule for every kind of function record,
 * through the inline paths and the general one alike. Each case feeds
 * records written as a small string and compares what the tracker reported
 * (calls begun, frames ended, when and how) with the expected text. */
#define _GNU_SOURCE
#include "pt_callstack.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the callbacks saw: "+id@t" for a call, "-id@t:how" per frame ended
 * (how: r returned, u unwound, e log end, c cut by lost data). */
static char seen[4096];

static void add(const char *fmt, unsigned id, unsigned long long t, char how)
{
	size_t n = strlen(seen);
	snprintf(seen + n, sizeof seen - n, fmt, id, t, how);
}

static void on_push(void *arg, pt_callstack *cs)
{
	(void)arg;
	add("+%u@%llu%c ", cs->ids[cs->depth - 1], (unsigned long long)cs->at[cs->depth - 1].t,
	    ' ');
}

static void on_pop(void *arg, pt_callstack *cs, size_t n, uint64_t t, enum pt_call_end how)
{
	(void)arg;
	static const char hows[] = "ruec";
	for (size_t i = cs->depth + n; i-- > cs->depth;)
		add("-%u@%llu:%c ", cs->ids[i], (unsigned long long)t, hows[how]);
}

static const pt_callstack_ops ops = {on_push, on_pop};

/* Records: "e3@10" enter 3 at 10, "x3@20" exit 3 at 20, "j3@20" a
 * longjmp landed in 3 (FUNC_LANDED), "o@25" another record (a lock, say),
 * "t@25" a TIME record, "c@25" COUNTERS, "l@30" a LOST record of data
 * dropped (disk full), "r@30" one of a signal handler's events dropped
 * (reentrant), "end@40" the end of the log. minor: the log's format
 * version 3.minor. fast: use the inline steps where they apply, as the
 * tools do. */
static const char *run(const char *records, unsigned minor, int fast)
{
	pt_callstack cs;
	pt_file_header h = {.version_major = 3, .version_minor = (uint16_t)minor};
	pt_callstack_init(&cs, &h);
	seen[0] = 0;
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", records);
	for (char *r = strtok(buf, " "); r; r = strtok(NULL, " ")) {
		char *at = strchr(r, '@');
		CU_ASSERT_PTR_NOT_NULL_FATAL(at);
		uint64_t t = strtoull(at + 1, NULL, 10);
		if (r[0] == 'e' && r[1] == 'n') {
			pt_callstack_end(&cs, t, &ops, NULL);
			continue;
		}
		if (r[0] == 'e' || r[0] == 'x' || r[0] == 'j') {
			uint32_t id = (uint32_t)strtoul(r + 1, NULL, 10);
			int enter = r[0] == 'e' ? PT_STEP_ENTER
			            : r[0] == 'x' ? PT_STEP_EXIT
			                          : PT_STEP_LANDED;
			if (fast && pt_callstack_step_timed(&cs, id, enter, t)) {
				if (enter)
					on_push(NULL, &cs);
				else
					on_pop(NULL, &cs, 1, t, PT_CALL_RETURNED);
				continue;
			}
			pt_callstack_func(&cs, id, enter, t, &ops, NULL);
			continue;
		}
		pt_event ev;
		memset(&ev, 0, sizeof ev);
		ev.time_ns = t;
		pt_rec_head head = {0};
		struct {
			pt_rec_head h;
			pt_rec_lost l;
		} lost = {{PT_REC_LOST, 0, 4, 0}, {7, 56, PT_LOST_NO_SPACE, 0}};
		ev.rec = &head;
		ev.kind = r[0] == 't'   ? PT_REC_TIME
		          : r[0] == 'c' ? PT_REC_COUNTERS
		                        : PT_REC_LOCK_RELEASED;
		if (r[0] == 'l' || r[0] == 'r') {
			ev.kind = PT_REC_LOST;
			lost.l.reason = r[0] == 'l' ? PT_LOST_NO_SPACE : PT_LOST_REENTRANT;
			ev.rec = &lost.h;
			ev.size = sizeof lost;
		}
		pt_callstack_record(&cs, &ev, &ops, NULL);
	}
	pt_callstack_free(&cs);
	size_t n = strlen(seen);
	if (n)
		seen[n - 1] = 0;
	return seen;
}

/* The tracker's calls and ends for records of a log of format 3.minor. */
static void expect_in(unsigned minor, const char *records, const char *want)
{
	for (int fast = 0; fast < 2; fast++) {
		const char *got = run(records, minor, fast);
		if (strcmp(got, want))
			fprintf(stderr, "\n%s (3.%u, %s path)\n  got:  %s\n  want: %s\n", records,
			        minor, fast ? "inline" : "general", got, want);
		CU_ASSERT_STRING_EQUAL(got, want);
	}
}

/* The same in logs before and since FUNC_LANDED (3.8). */
static void expect(const char *records, const char *want)
{
	expect_in(7, records, want);
	expect_in(PT_FORMAT_VERSION_MINOR, records, want);
}

static void test_nesting(void)
{
	expect("e1@0 e2@10 x2@20 e2@30 e3@40 x3@50 x2@60 x1@70",
	       "+1@0  +2@10  -2@20:r +2@30  +3@40  -3@50:r -2@60:r -1@70:r");
	/* recursion: an exit closes the innermost frame of its function */
	expect("e1@0 e1@10 x1@20 x1@30", "+1@0  +1@10  -1@20:r -1@30:r");
}

static void test_unmatched_and_unknown(void)
{
	/* an exit whose entry predates the log, and function id 0 */
	expect("x5@0 e1@10 e0@15 x0@16 x5@20 x1@30", "+1@10  -1@30:r");
}

static void test_log_end(void)
{
	expect("e1@0 e2@10 e3@20 end@40", "+1@0  +2@10  +3@20  -3@40:e -2@40:e -1@40:e");
}

static void test_longjmp_landing(void)
{
	/* FUNC_LANDED in 2 with deeper frames open: the frames above close,
	 * the call of 2 goes on */
	expect("e1@0 e2@10 e3@20 e3@30 j2@40 x2@50 x1@60",
	       "+1@0  +2@10  +3@20  +3@30  -3@40:u -3@40:u -2@50:r -1@60:r");
	/* nothing recorded above it (the frames the longjmp skipped were
	 * throttled, or had no hooks): still no new call, however often */
	expect("e1@0 e2@10 j2@20 j2@30 j2@40 x2@50 x1@60", "+1@0  +2@10  -2@50:r -1@60:r");
	/* recursion: the innermost frame of 1 is the one that goes on */
	expect("e1@0 e2@5 e1@10 e3@20 j1@30 x1@40 x2@50 x1@60",
	       "+1@0  +2@5  +1@10  +3@20  -3@30:u -1@40:r -2@50:r -1@60:r");
	/* no open frame of 4 (its entry predates the log): every open frame
	 * was entered after it */
	expect("e1@0 e2@10 j4@20 e3@30 x3@40", "+1@0  +2@10  -2@20:u -1@20:u +3@30  -3@40:r");
	/* function id 0: ignored */
	expect("e1@0 e2@10 j0@20 x2@30 x1@40", "+1@0  +2@10  -2@30:r -1@40:r");
}

static void test_longjmp_landing_pairs(void)
{
	/* before 3.8 the runtime reported a landing in 2 as "exit 2, enter
	 * 2": with deeper frames open, the frames above close, the call of 2
	 * goes on */
	expect_in(7, "e1@0 e2@10 e3@20 e3@30 x2@40 e2@40 x2@50 x1@60",
	          "+1@0  +2@10  +3@20  +3@30  -3@40:u -3@40:u -2@50:r -1@60:r");
	/* TIME and COUNTERS records may come between the two hooks */
	expect_in(7, "e1@0 e2@10 e3@20 x2@40 t@40 c@40 e2@41 x2@50 x1@60",
	          "+1@0  +2@10  +3@20  -3@40:u -2@50:r -1@60:r");
	/* two landings in a row, then a return */
	expect_in(7, "e1@0 e3@5 x1@10 e1@10 e3@15 x1@20 e1@20 x1@30",
	          "+1@0  +3@5  -3@10:u +3@15  -3@20:u -1@30:r");
	/* with nothing open above it, such a log cannot tell a landing from
	 * a return and a new call: it counts as one */
	expect("e1@0 e2@10 x2@20 e2@20 x2@30 x1@40", "+1@0  +2@10  -2@20:r +2@20  -2@30:r -1@40:r");
	/* since 3.8 the pair is what it says even with frames above: an exit
	 * (through a frame without exit hook) and a new call */
	expect_in(PT_FORMAT_VERSION_MINOR, "e1@0 e2@10 e3@20 e3@30 x2@40 e2@40 x2@50 x1@60",
	          "+1@0  +2@10  +3@20  +3@30  -3@40:u -3@40:u -2@40:r +2@40  -2@50:r -1@60:r");
	/* and no header at all: this version */
	pt_callstack cs;
	pt_callstack_init(&cs, NULL);
	CU_ASSERT_EQUAL(cs.pairs, 0);
	pt_callstack_free(&cs);
}

static void test_unwound_then_return(void)
{
	/* an exit through a frame without exit hook, not followed by a
	 * re-entry: that frame ended at its exit's time */
	expect("e1@0 e2@10 e3@20 x2@30 e4@40 x4@50 x1@60",
	       "+1@0  +2@10  +3@20  -3@30:u -2@30:r +4@40  -4@50:r -1@60:r");
	/* ... also when another record (a lock, say) comes first */
	expect("e1@0 e2@10 e3@20 x2@30 o@35 x1@60", "+1@0  +2@10  +3@20  -3@30:u -2@30:r -1@60:r");
	/* ... or the log ends */
	expect("e1@0 e2@10 e3@20 x2@30 end@40", "+1@0  +2@10  +3@20  -3@30:u -2@30:r -1@40:e");
}

static void test_lost_data(void)
{
	/* the disk filled after 20 and space came back at 50000: the calls
	 * open then end at 20 (the last record before the gap), the exits
	 * after the gap find no frame, new calls are timed again */
	expect("e1@0 e2@10 e3@20 l@50000 x3@50100 x2@50200 e3@50300 x3@50400 x1@51000",
	       "+1@0  +2@10  +3@20  -3@20:c -2@20:c -1@20:c +3@50300  -3@50400:r");
	/* the gap starts at the last record of any kind (TIME records aside) */
	expect("e1@0 o@15 t@90 l@100 x1@200", "+1@0  -1@15:c");
	/* a signal handler's dropped records cut nothing */
	expect("e1@0 e2@10 r@20 x2@30 x1@40", "+1@0  +2@10  -2@30:r -1@40:r");
	/* data lost right after an exit that skipped frames: that frame
	 * ended at its exit */
	expect("e1@0 e2@10 e3@15 x2@20 l@30 e2@30 x2@40 x1@50",
	       "+1@0  +2@10  +3@15  -3@20:u -2@20:r -1@20:c +2@30  -2@40:r");
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("callstack", NULL, NULL);
	CU_add_test(s, "entries and exits", test_nesting);
	CU_add_test(s, "unmatched exits, unknown functions", test_unmatched_and_unknown);
	CU_add_test(s, "frames open at the end of the log", test_log_end);
	CU_add_test(s, "longjmp landing: no new call", test_longjmp_landing);
	CU_add_test(s, "longjmp landing before 3.8: exit, enter", test_longjmp_landing_pairs);
	CU_add_test(s, "exit through frames without hook", test_unwound_then_return);
	CU_add_test(s, "lost data cuts the open calls", test_lost_data);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
