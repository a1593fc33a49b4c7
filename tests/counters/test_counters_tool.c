/* SPDX-License-Identifier: MIT */
/* Unit tests of analyzer/families/counters/counters_report.c: the report tool and the Paraver
 * events, driven with records built in memory and a stand-in trace context
 * (no framework, no symbols), so the attribution rules are checked exactly. */
#define _GNU_SOURCE
#include "pt_family.h"
#include "counters.h"
#include "tools.h"

#include <CUnit/Basic.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

/* ---- a stand-in trace context: local function id i is analyzer id i ---- */
static const pt_func_info funcs[] = {
	{NULL, NULL, 0, NULL}, {"f_outer", "a.c", 10, ""}, {"f_inner", "a.c", 20, ""}};

#define BIG_ID 150 /* a function id past the tool's first table growth */
static const pt_func_info big_func = {"f_big", "b.c", 30, ""};

static uint32_t op_func_id(const pt_trace_ctx *c, size_t p, uint32_t local)
{
	(void)c;
	(void)p;
	return local < 3 || local == BIG_ID ? local : 0;
}
static uint32_t op_func_id_pc(const pt_trace_ctx *c, size_t p, uint64_t pc)
{
	(void)c;
	(void)p;
	(void)pc;
	return 0;
}
static const pt_func_info *op_func_info(const pt_trace_ctx *c, uint32_t id)
{
	(void)c;
	if (id == BIG_ID)
		return &big_func;
	return id >= 1 && id < 3 ? &funcs[id] : NULL;
}
static uint32_t op_func_count(const pt_trace_ctx *c)
{
	(void)c;
	return 2;
}
/* The table covers local id 1 only: id 2 takes the func_id fallback. */
static const uint32_t func_table[] = {0, 1};
static const uint32_t *op_func_table(const pt_trace_ctx *c, size_t p, size_t *n)
{
	(void)c;
	(void)p;
	*n = sizeof func_table / sizeof func_table[0];
	return func_table;
}
static const pt_trace_ops ops = {.func_id = op_func_id,
				  .func_id_pc = op_func_id_pc,
				  .func_info = op_func_info,
				  .func_count = op_func_count,
				  .func_table = op_func_table};
static pt_shard_info shard = {.index = 0, .kind = PT_FILE_THREAD, .process = 0, .task = 1,
			      .thread = 1, .row = 1};
static pt_trace_ctx ctx = {.nshards = 1, .shards = &shard, .ops = &ops};

/* ---- records ---- */
static uint64_t recbuf[64];
static pt_event ev;

static const pt_event *rec(unsigned kind, unsigned arg, uint64_t time_ns, const void *payload,
			   size_t len)
{
	memset(recbuf, 0, sizeof recbuf);
	pt_rec_head *h = (pt_rec_head *)recbuf;
	h->kind = (uint8_t)kind;
	h->arg = (uint8_t)arg;
	h->size8 = (uint16_t)(pt_rec_size_for(len) / 8);
	memcpy(h + 1, payload, len);
	memset(&ev, 0, sizeof ev);
	ev.kind = kind;
	ev.rec = h;
	ev.size = pt_rec_size_for(len);
	ev.time_ns = time_ns;
	return &ev;
}

static const pt_event *func(unsigned kind, uint32_t id, uint64_t time_ns)
{
	memset(recbuf, 0, sizeof recbuf);
	pt_rec_head *h = (pt_rec_head *)recbuf;
	*h = pt_rec_func(kind, id, 0);
	memset(&ev, 0, sizeof ev);
	ev.kind = kind;
	ev.rec = h;
	ev.size = 8;
	ev.func_id = id;
	ev.time_ns = time_ns;
	return &ev;
}

static const pt_event *def(unsigned index, uint32_t type, uint64_t config, const char *name)
{
	char buf[128];
	pt_rec_counter_def d = {config, type, 0};
	memcpy(buf, &d, sizeof d);
	strcpy(buf + sizeof d, name);
	return rec(PT_REC_COUNTER_DEF, index, 0, buf, sizeof d + strlen(name) + 1);
}

static const pt_event *counters(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t v[3] = {a, b, c};
	return rec(PT_REC_COUNTERS, 3, 0, v, sizeof v);
}

/* The records of one thread: f_outer calls f_inner; counters read at every
 * function event; a contended lock with its call stack; three samples. */
static void feed(int (*event)(void *, const pt_event *), void *s)
{
	event(s, def(0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions"));
	event(s, def(1, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles"));
	event(s, def(2, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses"));
	event(s, func(PT_REC_FUNC_ENTER, 1, 100));
	event(s, counters(10, 20, 1)); /* before f_outer: outside */
	event(s, func(PT_REC_FUNC_ENTER, 2, 200));
	event(s, counters(100, 50, 2)); /* f_outer alone */
	event(s, func(PT_REC_FUNC_EXIT, 2, 300));
	event(s, counters(1000, 500, 5)); /* f_inner, inside f_outer */
	event(s, func(PT_REC_FUNC_EXIT, 1, 400));
	event(s, counters(7, 7, 0)); /* f_outer again */
	pt_rec_lock lock = {0x1000, 0, 0};
	event(s, rec(PT_REC_LOCK_REQUEST, PT_LOCK_MUTEX, 1000, &lock, sizeof lock));
	uint64_t pcs[2] = {0xdead01, 0xdead02};
	event(s, rec(PT_REC_CALLSTACK, 2, 1000, pcs, sizeof pcs));
	event(s, rec(PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, 3000, &lock, sizeof lock));
	/* An uncontended request (no CALLSTACK) is not a contention. */
	event(s, rec(PT_REC_LOCK_REQUEST, PT_LOCK_MUTEX, 4000, &lock, sizeof lock));
	event(s, rec(PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, 4100, &lock, sizeof lock));
	pt_rec_sampling_start ss = {1000000, 60, 4};
	event(s, rec(PT_REC_SAMPLING_START, 0, 5000, &ss, sizeof ss));
	uint64_t sample[2] = {0xbeef00, 0xbeef10};
	for (int i = 0; i < 3; i++)
		event(s, rec(PT_REC_SAMPLE, 1, 6000 + (uint64_t)i, sample, sizeof sample));
	pt_rec_lost lost = {4, 0, PT_LOST_REENTRANT, 0};
	event(s, rec(PT_REC_LOST, 0, 7000, &lost, sizeof lost));
}

static char *report_of(void (*feeder)(int (*)(void *, const pt_event *), void *))
{
	const pt_tool *tool = pt_tool_counters();
	char err[256] = "";
	void *t = tool->init(&ctx, NULL, err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	void *s = tool->shard_init(t, &shard, err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	feeder(tool->shard_event, s);
	CU_ASSERT_EQUAL(tool->shard_exit(s, 8000, 1), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	tool->print_results(t, out);
	fclose(out);
	tool->destroy(t);
	return text;
}

/* The report line of a function, or NULL. */
static char *row_of(char *text, const char *name)
{
	for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char first[64];
		if (sscanf(l, " %63s", first) == 1 && !strcmp(first, name))
			return l;
	}
	return NULL;
}

static char *report(void)
{
	return report_of(feed);
}

/* f_big calls f_inner, which calls itself; counters read while the
 * recursion is on the stack, and first while the innermost id is smaller
 * than an outer one (the tool's per-function arrays must fit both). */
static void feed_recursion(int (*event)(void *, const pt_event *), void *s)
{
	event(s, def(0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions"));
	event(s, func(PT_REC_FUNC_ENTER, BIG_ID, 100));
	event(s, func(PT_REC_FUNC_ENTER, 2, 200));
	event(s, func(PT_REC_FUNC_ENTER, 2, 300));
	event(s, counters(10, 0, 0)); /* the second f_inner is not on yet: f_big, f_inner */
	event(s, func(PT_REC_FUNC_EXIT, 2, 400));
	event(s, counters(5, 0, 0)); /* the popped f_inner still is: f_inner twice */
	event(s, func(PT_REC_FUNC_EXIT, 2, 500));
	event(s, func(PT_REC_FUNC_EXIT, BIG_ID, 600));
	event(s, counters(1, 0, 0)); /* f_big's last stretch */
	event(s, func(PT_REC_FUNC_EXIT, 1, 700)); /* an exit with nothing on the stack */
	event(s, counters(3, 0, 0)); /* outside */
}

static void test_recursion_and_large_ids(void)
{
	char *text = report_of(feed_recursion);
	char *inner = row_of(text, "f_inner"), *big = row_of(text, "f_big");
	CU_ASSERT_PTR_NOT_NULL_FATAL(inner);
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	unsigned long e, i;
	CU_ASSERT_EQUAL(sscanf(inner, " f_inner %lu [%lu]", &e, &i), 2);
	CU_ASSERT_EQUAL(e, 15);
	CU_ASSERT_EQUAL(i, 15); /* once per read, not once per activation */
	CU_ASSERT_EQUAL(sscanf(big, " f_big %lu [%lu]", &e, &i), 2);
	CU_ASSERT_EQUAL(e, 1);
	CU_ASSERT_EQUAL(i, 16);
	char *outside = strstr(text, "(outside traced functions)");
	CU_ASSERT_PTR_NOT_NULL_FATAL(outside);
	CU_ASSERT_EQUAL(sscanf(outside, "(outside traced functions) %lu", &e), 1);
	CU_ASSERT_EQUAL(e, 3);
	free(text);
}


static void test_function_attribution(void)
{
	char *text = report();
	char *inner = row_of(text, "f_inner"), *outer = row_of(text, "f_outer");
	CU_ASSERT_PTR_NOT_NULL_FATAL(inner);
	CU_ASSERT_PTR_NOT_NULL_FATAL(outer);
	unsigned long ie, ii, ce, ci, me, mi, oe, oi;
	double ipc, mpki;
	CU_ASSERT_EQUAL(sscanf(inner, " f_inner %lu [%lu] %lu [%lu] %lu [%lu] %lf %lf", &ie, &ii, &ce,
			       &ci, &me, &mi, &ipc, &mpki),
			8);
	CU_ASSERT_EQUAL(ie, 1000);
	CU_ASSERT_EQUAL(ii, 1000);
	CU_ASSERT_EQUAL(ce, 500);
	CU_ASSERT_EQUAL(me, 5);
	CU_ASSERT_DOUBLE_EQUAL(ipc, 2.0, 0.001);
	CU_ASSERT_DOUBLE_EQUAL(mpki, 5.0, 0.001);
	CU_ASSERT_EQUAL(sscanf(outer, " f_outer %lu [%lu]", &oe, &oi), 2);
	CU_ASSERT_EQUAL(oe, 107);  /* 100 alone + 7 after the inner call */
	CU_ASSERT_EQUAL(oi, 1107); /* plus f_inner's 1000 */
	char *outside = strstr(text, "(outside traced functions)");
	CU_ASSERT_PTR_NOT_NULL_FATAL(outside);
	CU_ASSERT_EQUAL(sscanf(outside, "(outside traced functions) %lu", &oe), 1);
	CU_ASSERT_EQUAL(oe, 10);
	free(text);
}

static void test_sites_and_samples(void)
{
	char *text = report();
	char *lock = strstr(text, "Lock contention by call site");
	CU_ASSERT_PTR_NOT_NULL_FATAL(lock);
	unsigned long n;
	double wait, max;
	char *line = strchr(strchr(lock, '\n') + 1, '\n') + 1;
	CU_ASSERT_EQUAL(sscanf(line, " %lu %lf %lf", &n, &wait, &max), 3);
	CU_ASSERT_EQUAL(n, 1); /* the uncontended request is not counted */
	CU_ASSERT_DOUBLE_EQUAL(wait, 0.002, 1e-9); /* 2000 ns, in ms */
	/* No symbols here: frames print as addresses, innermost first. */
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "0xdead01 < 0xdead02"));
	char *flat = strstr(text, "Sampled flat profile");
	CU_ASSERT_PTR_NOT_NULL_FATAL(flat);
	CU_ASSERT_PTR_NOT_NULL(strstr(flat, "period 1.000 ms"));
	CU_ASSERT_PTR_NOT_NULL(strstr(flat, "3 samples in 1 thread"));
	CU_ASSERT_PTR_NOT_NULL(strstr(flat, "4 dropped inside the runtime"));
	CU_ASSERT_PTR_NOT_NULL(strstr(flat, "100.00%  (unknown code)"));
	free(text);
}

/* ---- Paraver ---- */
typedef struct prv_ev {
	uint64_t t;
	uint32_t type;
	int64_t value;
} prv_ev;
static prv_ev evs[256];
static size_t nevs;

static void collect(void *arg, uint64_t time_ns, uint32_t type, int64_t value)
{
	(void)arg;
	if (nevs < 256)
		evs[nevs++] = (prv_ev){time_ns, type, value};
}

static pt_counters_prv_shard *prv_shard;
static int prv_event(void *s, const pt_event *e)
{
	pt_counters_prv_event(s, e, collect, NULL);
	return 0;
}

static int count_type(uint32_t type, int64_t value)
{
	int n = 0;
	for (size_t i = 0; i < nevs; i++)
		n += evs[i].type == type && evs[i].value == value;
	return n;
}

static void test_paraver(void)
{
	const char *papi;
	CU_ASSERT_EQUAL(pt_counters_prv_type(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
					     "instructions", &papi),
			42000050);
	CU_ASSERT_STRING_EQUAL(papi, "PAPI_TOT_INS");
	CU_ASSERT_EQUAL(pt_counters_prv_type(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "x", NULL),
			42000059);
	uint32_t sw = pt_counters_prv_type(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
					   "page-faults", &papi);
	CU_ASSERT(sw >= 44000000 && sw < 45000000);
	CU_ASSERT_PTR_NULL(papi);
	/* Stable: the same name gives the same type in every run. */
	CU_ASSERT_EQUAL(sw, pt_counters_prv_type(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
						 "page-faults", NULL));

	nevs = 0;
	pt_counters_prv *c = pt_counters_prv_new(&ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	prv_shard = pt_counters_prv_shard_new(c, &shard);
	feed(prv_event, prv_shard);
	pt_counters_prv_shard_free(prv_shard);
	/* Counter deltas as read, one event per counter per read. */
	CU_ASSERT_EQUAL(count_type(42000050, 1000), 1);
	CU_ASSERT_EQUAL(count_type(42000059, 500), 1);
	CU_ASSERT_EQUAL(count_type(42000008, 5), 1);
	/* Caller levels 1..2 at the contention, sampled levels 1..2 per sample
	 * (functions unknown here: value 0), plus a line label per frame. */
	CU_ASSERT_EQUAL(count_type(70000001, 0), 1);
	CU_ASSERT_EQUAL(count_type(70000002, 0), 1);
	CU_ASSERT_EQUAL(count_type(70000003, 0), 0);
	CU_ASSERT_EQUAL(count_type(30000001, 0), 3);
	CU_ASSERT_EQUAL(count_type(30000002, 0), 3);
	int lines = 0;
	for (size_t i = 0; i < nevs; i++)
		lines += evs[i].type == 80000001 || evs[i].type == 30000101;
	CU_ASSERT_EQUAL(lines, 4);
	char *text = NULL;
	size_t len = 0;
	FILE *pcf = open_memstream(&text, &len);
	pt_counters_prv_pcf(c, pcf);
	fclose(pcf);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "7  42000050  instructions (PAPI_TOT_INS)\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "0  70000002  Caller at level 2\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "0  80000001  Caller line at level 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "0  30000002  Sampled function at level 2\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "2 f_inner\n"));
	CU_ASSERT_PTR_NULL(strstr(text, "70000003"));
	free(text);
	pt_counters_prv_free(c);
}

int main(void)
{
	pt_families_use(pt_family_builtin);
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("counters tool", NULL, NULL);
	CU_add_test(s, "counters per function: exclusive, inclusive, IPC, MPKI",
		    test_function_attribution);
	CU_add_test(s, "contention sites and sampled flat profile", test_sites_and_samples);
	CU_add_test(s, "recursion counted once, ids past the first growth",
		    test_recursion_and_large_ids);
	CU_add_test(s, "Paraver events and .pcf", test_paraver);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
