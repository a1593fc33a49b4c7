/* SPDX-License-Identifier: MIT */
/* Unit tests, also run under ASan+UBSan, of what decides what an output
 * shows: the waits read from a thread's records (framework/pt_waits.h),
 * which calls a selection leaves out and how they are summarised
 * (framework/pt_thin.h), the selection's option parsers (pt_select.h), and
 * the Paraver writer's duration buckets (paraver/pv_budget.c). */
#define _GNU_SOURCE
#include "pt_family.h"
#include "pt_select.h"
#include "pt_thin.h"
#include "pt_waits.h"
#include "pv_budget.h"

#include <CUnit/Basic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- waits ------------------------------------------------------------- */
static struct {
	pt_rec_head h;
	union {
		pt_rec_lock lk;
		pt_rec_cond cond;
	} p;
} rec_buf;

/* A record of `kind` at t; obj: the lock's (or condition's) address. */
static pt_event record(unsigned kind, uint64_t t, uint64_t obj, unsigned arg)
{
	memset(&rec_buf, 0, sizeof rec_buf);
	rec_buf.h.kind = (uint8_t)kind;
	rec_buf.h.arg = (uint8_t)arg;
	rec_buf.h.size8 = sizeof rec_buf / 8;
	if (kind == PT_REC_COND_WAIT_BEGIN || kind == PT_REC_COND_WAIT_END)
		rec_buf.p.cond.cond = obj;
	else
		rec_buf.p.lk.object = obj;
	pt_event ev = {0};
	ev.kind = kind;
	ev.time_ns = t;
	ev.rec = &rec_buf.h;
	ev.size = sizeof rec_buf;
	return ev;
}

static void test_waits(void)
{
	pt_waits ws;
	pt_waits_init(&ws);
	pt_wait w;
	pt_event ev = record(PT_REC_LOCK_REQUEST, 100, 0x601000, PT_LOCK_MUTEX);
	CU_ASSERT_EQUAL(pt_waits_record(&ws, &ev, &w), PT_WAITS_BEGAN);
	CU_ASSERT_EQUAL(w.kind, PT_WAIT_LOCK);
	CU_ASSERT_EQUAL(w.object, 0x601000);
	/* a condition wait while the lock request is open: both open */
	ev = record(PT_REC_COND_WAIT_BEGIN, 120, 0x602000, 0);
	CU_ASSERT_EQUAL(pt_waits_record(&ws, &ev, &w), PT_WAITS_BEGAN);
	ev = record(PT_REC_LOCK_ACQUIRED, 150, 0x601000, PT_LOCK_MUTEX);
	CU_ASSERT_EQUAL(pt_waits_record(&ws, &ev, &w), PT_WAITS_ENDED);
	CU_ASSERT(w.begun && !w.failed && w.begin == 100 && w.end == 150);
	/* uncontended: no request, a wait of 0 that never began */
	ev = record(PT_REC_LOCK_FAILED, 160, 0x603000, PT_LOCK_SPIN);
	CU_ASSERT_EQUAL(pt_waits_record(&ws, &ev, &w), PT_WAITS_ENDED);
	CU_ASSERT(!w.begun && w.failed && w.begin == 160 && w.end == 160);
	CU_ASSERT_EQUAL(w.object, 0x603000);
	CU_ASSERT_EQUAL(w.type, PT_LOCK_SPIN);
	/* an end with no begin of its kind (it predates the log): nothing */
	ev = record(PT_REC_THREAD_JOIN_END, 170, 0, 0);
	CU_ASSERT_EQUAL(pt_waits_record(&ws, &ev, &w), PT_WAITS_NONE);
	/* the condition wait, still open when the log ends */
	CU_ASSERT_EQUAL(pt_waits_close(&ws, PT_WAIT_LOCK, 200, &w), PT_WAITS_NONE);
	CU_ASSERT_EQUAL(pt_waits_close(&ws, PT_WAIT_COND, 200, &w), PT_WAITS_ENDED);
	CU_ASSERT(w.begun && w.begin == 120 && w.end == 200 && w.object == 0x602000);
	ev = record(PT_REC_FUNC_ENTER, 210, 0, 0);
	CU_ASSERT_EQUAL(pt_waits_record(&ws, &ev, &w), PT_WAITS_NONE);
}

/* ---- thinning -------------------------------------------------------------- */
/* What pt_thin_out wrote: "+id@t", "-id@t" ("-id@t!" cut), "S(n,ns)@t". */
static char out_text[4096];

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	size_t n = strlen(out_text);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out_text + n, sizeof out_text - n, fmt, ap);
	va_end(ap);
}

static void o_enter(void *arg, uint64_t t, uint32_t id)
{
	(void)arg;
	say("+%u@%llu ", id, (unsigned long long)t);
}

static void o_exit(void *arg, uint64_t t, uint32_t id, int cut)
{
	(void)arg;
	say("-%u@%llu%s ", id, (unsigned long long)t, cut ? "!" : "");
}

static void o_summary(void *arg, uint64_t t, uint64_t calls, uint64_t ns, uint64_t sync,
                      uint64_t wait)
{
	(void)arg;
	say("S(%llu,%llu", (unsigned long long)calls, (unsigned long long)ns);
	if (sync)
		say(";%llu,%llu", (unsigned long long)sync, (unsigned long long)wait);
	say(")@%llu ", (unsigned long long)t);
}

static const pt_thin_ops o_ops = {o_enter, o_exit, o_summary};

/* Items "e3@10" (enter 3), "x@20" (one frame ends), "x2@30" (two), "c@40"
 * (one cut by lost data), "o@50" (another item), "l7@60" (an item of the
 * tool's own left out, that waited 7 ns), fed to both halves the
 * way a tool does: all of them to the deciding half first, then again to
 * the writing half with each entry's decision. */
static const char *thin(const char *items, uint64_t min_ns, const pt_select *sel)
{
	pt_thin_in in;
	pt_thin_out out;
	pt_thin_in_init(&in, min_ns, sel, NULL);
	pt_thin_out_init(&out, &o_ops, NULL);
	out_text[0] = 0;
	for (int pass = 0; pass < 2; pass++) {
		char buf[1024];
		snprintf(buf, sizeof buf, "%s", items);
		uint64_t seq = 0;
		for (char *r = strtok(buf, " "); r; r = strtok(NULL, " ")) {
			char *at = strchr(r, '@');
			CU_ASSERT_PTR_NOT_NULL_FATAL(at);
			uint64_t t = strtoull(at + 1, NULL, 10);
			unsigned long n = r[1] == '@' ? 1 : strtoul(r + 1, NULL, 10);
			switch (r[0]) {
			case 'e':
				if (!pass)
					pt_thin_in_enter(&in, t, (uint32_t)n);
				else {
					int d = pt_thin_in_decision(&in, seq);
					CU_ASSERT_NOT_EQUAL(d, PT_THIN_UNDECIDED);
					pt_thin_out_enter(&out, t, (uint32_t)n, d == PT_THIN_KEEP);
					pt_thin_in_release(&in, ++seq);
				}
				break;
			case 'x':
			case 'c':
				if (!pass)
					pt_thin_in_exit(&in, t, n, r[0] == 'c');
				else
					pt_thin_out_exit(&out, t, n, r[0] == 'c');
				break;
			case 'l':
				if (!pass)
					pt_thin_in_other(&in, t);
				else
					pt_thin_out_left(&out, t, 1, n);
				break;
			default:
				if (!pass)
					pt_thin_in_other(&in, t);
				else {
					pt_thin_out_other(&out, t);
					say("o@%llu ", (unsigned long long)t);
				}
			}
		}
		if (!pass)
			pt_thin_in_end(&in);
	}
	pt_thin_out_end(&out);
	CU_ASSERT(!in.oom && !out.oom);
	pt_thin_in_free(&in);
	pt_thin_out_free(&out);
	return out_text;
}

#define EXPECT_THIN(items, min, sel, want)                                                         \
	do {                                                                                       \
		const char *got_ = thin(items, min, sel);                                          \
		if (strcmp(got_, want))                                                            \
			printf("\n  %s (min %d)\n  got  %s\n  want %s\n", items, (int)(min), got_, \
			       want);                                                              \
		CU_ASSERT_STRING_EQUAL(got_, want);                                                \
	} while (0)

static void test_thin_duration(void)
{
	/* nothing left out */
	EXPECT_THIN("e1@0 e2@10 x@20 x@100", 0, NULL, "+1@0 +2@10 -2@20 -1@100 ");
	/* a short call inside a long one: summarised where it ended */
	EXPECT_THIN("e1@0 e2@10 x@20 x@100", 50, NULL, "+1@0 S(1,10)@20 -1@100 ");
	/* a run of short calls is one summary; another item splits runs; a
	 * kept call's entry closes the run before it */
	EXPECT_THIN("e1@0 e2@10 x@20 e3@30 x@35 o@40 e2@50 x@60 e4@70 x@200 x@300", 50, NULL,
	            "+1@0 S(2,15)@35 o@40 S(1,10)@60 +4@70 -4@200 -1@300 ");
	/* nested short calls: all counted, their time once */
	EXPECT_THIN("e1@0 e2@10 e3@12 x@15 x@20 x@100", 50, NULL, "+1@0 S(2,10)@20 -1@100 ");
	/* at the top level, the thread holds the summary */
	EXPECT_THIN("e2@10 x@20 e2@30 x@40", 50, NULL, "S(2,20)@40 ");
	/* frames ending together (one unwound, one returned) */
	EXPECT_THIN("e1@0 e2@10 e3@12 x2@20 x@100", 50, NULL, "+1@0 S(2,10)@20 -1@100 ");
	/* a long call ending with a short one in the same item: one time */
	EXPECT_THIN("e1@0 e2@90 x2@100", 50, NULL, "+1@0 S(1,10)@100 -1@100 ");
	/* cut by lost data: kept, however short */
	EXPECT_THIN("e1@0 e2@10 c2@15", 50, NULL, "+1@0 +2@10 -2@15! -1@15! ");
	/* a call that lasts exactly the threshold stays */
	EXPECT_THIN("e1@0 x@50 e1@60 x@109", 50, NULL, "+1@0 -1@50 S(1,49)@109 ");
	/* the tool's own items left out: in the same summaries as calls,
	 * inside the innermost kept call, split by a written item */
	EXPECT_THIN("e1@0 l3@5 e2@10 l0@12 x@20 o@30 l4@40 x@100", 50, NULL,
	            "+1@0 S(1,10;2,3)@20 o@30 S(0,0;1,4)@40 -1@100 ");
	EXPECT_THIN("l2@5 l0@6", 0, NULL, "S(0,0;2,2)@6 ");
}

static void test_thin_functions(void)
{
	pt_select sel;
	memset(&sel, 0, sizeof sel);
	char err[256];
	/* no trace context: every name is "" (pt_sel_funcs), so this
	 * excludes every function */
	CU_ASSERT_EQUAL_FATAL(pt_select_set_regex(&sel, 1, "^$", err, sizeof err), 0);
	EXPECT_THIN("e1@0 e2@10 x@20 x@100", 0, &sel, "S(2,100)@100 ");
	pt_select_free(&sel);
}

/* ---- options ----------------------------------------------------------------- */
static void test_options(void)
{
	uint64_t ns;
	char err[256];
	CU_ASSERT(pt_select_parse_duration("2.5us", &ns, err, sizeof err) == 0 && ns == 2500);
	CU_ASSERT(pt_select_parse_duration("3ms", &ns, err, sizeof err) == 0 && ns == 3000000);
	CU_ASSERT(pt_select_parse_duration("700", &ns, err, sizeof err) == 0 && ns == 700);
	CU_ASSERT(pt_select_parse_duration("1e3", &ns, err, sizeof err) != 0);
	CU_ASSERT(pt_select_parse_duration("-1ms", &ns, err, sizeof err) != 0);
	CU_ASSERT(pt_select_parse_duration("2 hours", &ns, err, sizeof err) != 0);
	pt_select sel;
	memset(&sel, 0, sizeof sel);
	CU_ASSERT(pt_select_set_time(&sel, 0, "25%", err, sizeof err) == 0);
	CU_ASSERT(pt_select_set_time(&sel, 1, "1.5ms", err, sizeof err) == 0);
	CU_ASSERT(pt_select_set_time(&sel, 1, "150%", err, sizeof err) != 0);
	/* placed in a run of 4 ms: from 1 ms to 1.5 ms */
	CU_ASSERT_EQUAL(pt_select_place(&sel, 1000, 1000 + 4000000, err, sizeof err), 0);
	CU_ASSERT_EQUAL(sel.win_lo, 1000 + 1000000);
	CU_ASSERT_EQUAL(sel.win_hi, 1000 + 1500000);
	/* a window after the run: refused */
	CU_ASSERT(pt_select_set_time(&sel, 0, "2ms", err, sizeof err) == 0);
	CU_ASSERT(pt_select_place(&sel, 0, 4000000, err, sizeof err) != 0);
	CU_ASSERT(pt_select_add_list(&sel, 0, "7001,7003-7005,r2", err, sizeof err) == 0);
	CU_ASSERT(pt_select_add_list(&sel, 0, "7001,", err, sizeof err) != 0);
	CU_ASSERT(pt_select_add_list(&sel, 0, "r0", err, sizeof err) != 0);
	CU_ASSERT(pt_select_add_list(&sel, 1, "r1", err, sizeof err) != 0);
	pt_shard_info a = {.tid = 7004, .row = 9, .kind = PT_FILE_THREAD};
	pt_shard_info b = {.tid = 7002, .row = 2, .kind = PT_FILE_GPU};
	pt_shard_info c = {.tid = 7002, .row = 3, .kind = PT_FILE_THREAD};
	CU_ASSERT(pt_select_shard(&sel, &a));
	CU_ASSERT(pt_select_shard(&sel, &b));
	CU_ASSERT(!pt_select_shard(&sel, &c));
	CU_ASSERT(pt_select_add_list(&sel, 1, "4000-4999", err, sizeof err) == 0);
	a.pid = 5000;
	CU_ASSERT(!pt_select_shard(&sel, &a));
	pt_select_free(&sel);
}

static void test_buckets(void)
{
	/* monotonic, and each bucket's shortest duration falls in it */
	unsigned prev = 0;
	for (uint64_t d = 0; d < 100000; d++) {
		unsigned b = pv_bucket(d);
		CU_ASSERT_FATAL(b >= prev);
		CU_ASSERT_FATAL(pv_bucket_lo(b) <= d);
		prev = b;
	}
	for (unsigned b = 0; b < 252; b++)
		CU_ASSERT_EQUAL(pv_bucket(pv_bucket_lo(b)), b);
	CU_ASSERT_EQUAL(pv_bucket(UINT64_MAX), 251);
	/* ~19% apart: 2 us, 2.5 us, 3 us, 3.5 us */
	CU_ASSERT_EQUAL(pv_bucket_lo(pv_bucket(2100)), 2048);
	CU_ASSERT_EQUAL(pv_slot_threshold(0), 0);
	CU_ASSERT_EQUAL(pv_slot_threshold(PV_SLOT_CUT), UINT64_MAX);
}

int main(void)
{
	pt_families_use(pt_family_builtin);
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("select", NULL, NULL);
	CU_add_test(s, "waits from records", test_waits);
	CU_add_test(s, "calls shorter than a threshold", test_thin_duration);
	CU_add_test(s, "functions left out", test_thin_functions);
	CU_add_test(s, "options", test_options);
	CU_add_test(s, "duration buckets", test_buckets);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
