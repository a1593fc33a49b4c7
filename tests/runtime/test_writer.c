/* SPDX-License-Identifier: MIT */
/* Unit tests of the runtime core: configuration parsing, the log writer
 * (records, delta overflow, window switches, lost-data accounting, file
 * permissions) and the hook fast path, read back with the reader library.
 * Runs with PARATRACE_ENABLE=0 so the linked-in runtime does not trace the
 * test itself; each test sets up the state it drives. */
#define _GNU_SOURCE
#include "core.h"

#include <paratrace.h>
#include <paratrace/abi.h>
#include <paratrace/log.h>

#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Bytes the code under test must not read (ASan builds). */
#if defined(__SANITIZE_ADDRESS__)
#define PT_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PT_TEST_ASAN 1
#endif
#endif
#ifdef PT_TEST_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

static char tmpdir[256];
static int tmpfd = -1;

/* ---- helpers ----------------------------------------------------------- */

typedef struct rec {
	unsigned kind;
	uint64_t ticks;
	uint32_t func_id;
	size_t size;   /* in the file */
	uint64_t a, b; /* first two payload words, as delivered */
} rec;

/* Reads every record of tmpdir/name; returns the count (max n), -1 on a
 * reader error. *complete: the log ended with CLOSE. */
static long read_all(const char *name, rec *out, long n, int *complete)
{
	char path[512], err[256];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	pt_log *log = pt_log_open_path(path, 0, err, sizeof err);
	if (!log)
		return -1;
	pt_event ev;
	long i = 0;
	while (pt_log_read(log, &ev) == 0) {
		if (i < n) {
			out[i].kind = ev.kind;
			out[i].ticks = ev.ticks;
			out[i].func_id = ev.func_id;
			out[i].size = ev.size;
			out[i].a = out[i].b = 0;
			/* the delivered record (a 1.2 lock release of 8 bytes comes
			 * with its object filled in) */
			size_t size = pt_rec_size(ev.rec);
			if (size >= 16)
				memcpy(&out[i].a, (const char *)ev.rec + 8, 8);
			if (size >= 24)
				memcpy(&out[i].b, (const char *)ev.rec + 16, 8);
		}
		i++;
	}
	if (complete)
		*complete = ev.state == PT_LOG_EOF && ev.complete;
	long r = ev.state == PT_LOG_ERROR ? -1 : i;
	pt_log_close(log);
	return r;
}

static pt_file_params thread_params = {PT_FILE_THREAD, 4242, 0};

static int suite_init(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/pt-writer-test-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	tmpfd = open(tmpdir, O_RDONLY | O_DIRECTORY);
	char err[256];
	pt_clock_init("auto", NULL, err, sizeof err);
	pt_run_info.pid = (uint32_t)getpid();
	pt_run_info.ppid = (uint32_t)getppid();
	pt_run_info.run_id = 0x1234;
	strcpy(pt_run_info.program, "test_writer");
	return tmpfd < 0 ? -1 : 0;
}

static int suite_clean(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- configuration ------------------------------------------------------ */

static const char *const *env_table;
static const char *table_get(const char *name)
{
	for (const char *const *p = env_table; p && *p; p += 2)
		if (!strcmp(p[0], name))
			return p[1];
	return NULL;
}

static void test_config_defaults(void)
{
	pt_config c;
	char err[256];
	env_table = NULL;
	CU_ASSERT_EQUAL(pt_config_parse(&c, table_get, err, sizeof err), 0);
	CU_ASSERT_EQUAL(c.enabled, 1);
	CU_ASSERT_EQUAL(c.verbose, 0);
	CU_ASSERT_PTR_NULL(c.dir);
	CU_ASSERT_EQUAL(c.buffer_size, 4u << 20);
	CU_ASSERT_EQUAL(c.max_size, 0);
	CU_ASSERT_PTR_NULL(c.counters);
	CU_ASSERT_EQUAL(c.callstack_depth, 0);
	CU_ASSERT_EQUAL(c.sampling_ns, 0);
	CU_ASSERT_EQUAL(c.gpu, 1);
	CU_ASSERT_EQUAL(c.gpu_kernels, PT_GPU_KERNELS_OFF);
	CU_ASSERT_EQUAL(c.openmp, 1);
	CU_ASSERT_EQUAL(c.prefault, 0);
	CU_ASSERT_STRING_EQUAL(pt_config_clock, "auto");
}

static void test_config_values(void)
{
	static const char *const env[] = {
		"PARATRACE_ENABLE", "off", "PARATRACE_VERBOSE", "2", "PARATRACE_DIR", "/tmp/x",
		"PARATRACE_BUFFER_SIZE", "64K", "PARATRACE_MAX_SIZE", "3MiB",
		"PARATRACE_COUNTERS", "page-faults,task-clock", "PARATRACE_CALLSTACK", "8",
		"PARATRACE_SAMPLING", "250us", "PARATRACE_GPU", "no", "PARATRACE_CLOCK", "monotonic",
		"PARATRACE_PREFAULT", "auto", "PARATRACE_COUNTERS_AT", "functions,sync",
		"PARATRACE_GPU_KERNELS", "blocks", "PARATRACE_OPENMP", "off", NULL};
	pt_config c;
	char err[256];
	env_table = env;
	CU_ASSERT_EQUAL_FATAL(pt_config_parse(&c, table_get, err, sizeof err), 0);
	CU_ASSERT_EQUAL(c.enabled, 0);
	CU_ASSERT_EQUAL(c.verbose, 2);
	CU_ASSERT_STRING_EQUAL(c.dir, "/tmp/x");
	CU_ASSERT_EQUAL(c.buffer_size, 65536);
	CU_ASSERT_EQUAL(c.max_size, 3u << 20);
	CU_ASSERT_STRING_EQUAL(c.counters, "page-faults,task-clock");
	CU_ASSERT_EQUAL(c.callstack_depth, 8);
	CU_ASSERT_EQUAL(c.sampling_ns, 250000);
	CU_ASSERT_EQUAL(c.gpu, 0);
	CU_ASSERT_EQUAL(c.gpu_kernels, PT_GPU_KERNELS_BLOCKS);
	CU_ASSERT_EQUAL(c.openmp, 0);
	CU_ASSERT_EQUAL(c.prefault, -1);
	CU_ASSERT_EQUAL(c.counters_at, PT_COUNTERS_AT_FUNCTIONS | PT_COUNTERS_AT_SYNC);
	CU_ASSERT_STRING_EQUAL(pt_config_clock, "monotonic");
	env_table = NULL;
}

static void test_config_bad(void)
{
	static const char *const bad[][2] = {
		{"PARATRACE_BUFFER_SIZE", "abc"}, {"PARATRACE_BUFFER_SIZE", "12Q"},
		{"PARATRACE_BUFFER_SIZE", "1K"},  {"PARATRACE_BUFFER_SIZE", "2G"},
		{"PARATRACE_BUFFER_SIZE", "-4M"}, {"PARATRACE_ENABLE", "maybe"},
		{"PARATRACE_VERBOSE", "9"},       {"PARATRACE_MAX_SIZE", "100"},
		{"PARATRACE_CALLSTACK", "-1"},    {"PARATRACE_SAMPLING", "1h"},
		{"PARATRACE_SAMPLING", "5us"},    {"PARATRACE_GPU", "2"},
		{"PARATRACE_CLOCK", "hpet"},      {"PARATRACE_DIR", ""},
		{"PARATRACE_PREFAULT", "always"}, {"PARATRACE_COUNTERS_AT", "nonsense"},
		{"PARATRACE_COUNTERS_AT", "sync,bogus"}, {"PARATRACE_COUNTERS_AT", ",,"},
		{"PARATRACE_GPU_KERNELS", "on"},  {"PARATRACE_GPU_KERNELS", "block"},
		{"PARATRACE_OPENMP", "2"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *env[] = {bad[i][0], bad[i][1], NULL};
		pt_config c;
		char err[256] = "";
		env_table = env;
		CU_ASSERT_EQUAL(pt_config_parse(&c, table_get, err, sizeof err), -1);
		/* One line that names the variable and the value. */
		CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i][0]));
		CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i][1]));
		CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	}
	env_table = NULL;
}

/* The whole line for each kind of bad value, word for word: users and
 * scripts read these, and the parser is shared by every setting. Also
 * values at the edges that must pass. */
static void test_config_messages(void)
{
	static const char *const bad[][3] = {
		{"PARATRACE_ENABLE", "maybe", "1/0, yes/no, true/false or on/off"},
		{"PARATRACE_VERBOSE", "4", "a level from 0 to 3"},
		{"PARATRACE_DIR", "", "a directory path"},
		{"PARATRACE_BUFFER_SIZE", "65535", "a size from 64K to 1G (bytes, or with K, M, G)"},
		{"PARATRACE_BUFFER_SIZE", "1025M", "a size from 64K to 1G (bytes, or with K, M, G)"},
		{"PARATRACE_MAX_SIZE", "4095",
		 "0 (no limit) or a size of at least 4K (bytes, or with K, M, G)"},
		{"PARATRACE_MAX_SIZE", "off",
		 "0 (no limit) or a size of at least 4K (bytes, or with K, M, G)"},
		{"PARATRACE_COUNTERS_AT", "Sync",
		 "a comma-separated list of functions, sync, threads, all"},
		{"PARATRACE_CALLSTACK", "257", "a call-stack depth from 0 (off) to 256"},
		{"PARATRACE_SAMPLING", "on",
		 "a period of at least 10us, e.g. 1ms, 500us, 2000000 (ns), or 0/off"},
		{"PARATRACE_SAMPLING", "9999",
		 "a period of at least 10us, e.g. 1ms, 500us, 2000000 (ns), or 0/off"},
		{"PARATRACE_GPU", "2", "1/0, yes/no, true/false or on/off"},
		{"PARATRACE_GPU_KERNELS", "Blocks", "off, entries or blocks"},
		{"PARATRACE_OPENMP", "x", "1/0, yes/no, true/false or on/off"},
		{"PARATRACE_MPI", "x", "1/0, yes/no, true/false or on/off"},
		{"PARATRACE_PREFAULT", "AUTO", "auto, 1/0, yes/no, true/false or on/off"},
		{"PARATRACE_CLOCK", "TSC", "auto, tsc or monotonic"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *env[] = {bad[i][0], bad[i][1], NULL};
		pt_config c;
		char err[256] = "", want[256];
		env_table = env;
		CU_ASSERT_EQUAL(pt_config_parse(&c, table_get, err, sizeof err), -1);
		snprintf(want, sizeof want, "%s='%s' not understood: expected %s", bad[i][0], bad[i][1],
			 bad[i][2]);
		CU_ASSERT_STRING_EQUAL(err, want);
	}
	char longdir[4200];
	memset(longdir, 'd', sizeof longdir - 1);
	longdir[sizeof longdir - 1] = '\0';
	const char *env_long[] = {"PARATRACE_DIR", longdir, NULL};
	pt_config c;
	char err[4400] = "";
	env_table = env_long;
	CU_ASSERT_EQUAL(pt_config_parse(&c, table_get, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not understood: expected a shorter path"));

	static const char *const good[] = {
		"PARATRACE_BUFFER_SIZE", "1G", "PARATRACE_MAX_SIZE", "0K", "PARATRACE_SAMPLING", "no",
		"PARATRACE_VERBOSE", "3", "PARATRACE_CALLSTACK", "256", "PARATRACE_ENABLE", "",
		"PARATRACE_COUNTERS", "", "PARATRACE_COUNTERS_AT", "all,,", "PARATRACE_PREFAULT", "ON",
		"PARATRACE_MPI", "False", NULL};
	env_table = good;
	CU_ASSERT_EQUAL_FATAL(pt_config_parse(&c, table_get, err, sizeof err), 0);
	CU_ASSERT_EQUAL(c.buffer_size, 1u << 30);
	CU_ASSERT_EQUAL(c.max_size, 0);
	CU_ASSERT_EQUAL(c.sampling_ns, 0);
	CU_ASSERT_EQUAL(c.verbose, 3);
	CU_ASSERT_EQUAL(c.callstack_depth, 256);
	CU_ASSERT_EQUAL(c.enabled, 1);
	CU_ASSERT_PTR_NULL(c.counters);
	CU_ASSERT_EQUAL(c.counters_at,
			PT_COUNTERS_AT_FUNCTIONS | PT_COUNTERS_AT_SYNC | PT_COUNTERS_AT_THREADS);
	CU_ASSERT_EQUAL(c.prefault, 1);
	CU_ASSERT_EQUAL(c.mpi, 0);
	env_table = NULL;
}

static void test_parse_size_duration(void)
{
	uint64_t v;
	CU_ASSERT(pt_parse_size("4096", &v) == 0 && v == 4096);
	CU_ASSERT(pt_parse_size("64k", &v) == 0 && v == 65536);
	CU_ASSERT(pt_parse_size("4MiB", &v) == 0 && v == 4u << 20);
	CU_ASSERT(pt_parse_size("1G", &v) == 0 && v == 1u << 30);
	CU_ASSERT(pt_parse_size("100B", &v) == 0 && v == 100);
	CU_ASSERT(pt_parse_size("", &v) == -1);
	CU_ASSERT(pt_parse_size("18446744073709551616", &v) == -1);
	CU_ASSERT(pt_parse_size("17179869184G", &v) == -1);
	CU_ASSERT(pt_parse_duration_ns("1ms", &v) == 0 && v == 1000000);
	CU_ASSERT(pt_parse_duration_ns("2s", &v) == 0 && v == 2000000000);
	CU_ASSERT(pt_parse_duration_ns("750", &v) == 0 && v == 750);
	CU_ASSERT(pt_parse_duration_ns("3 ms", &v) == -1);
}

static void test_run_env_roundtrip(void)
{
	char buf[512], dir[256];
	uint64_t id;
	pt_clock_cal cal;
	strcpy(pt_run_info.dir, "/tmp/some dir:with colons");
	CU_ASSERT_EQUAL_FATAL(pt_run_env_format(buf, sizeof buf), 0);
	CU_ASSERT_EQUAL_FATAL(pt_run_env_parse(buf, &id, &cal, dir, sizeof dir), 0);
	CU_ASSERT_EQUAL(id, pt_run_info.run_id);
	CU_ASSERT_EQUAL(cal.source, pt_clock.source);
	CU_ASSERT_EQUAL(cal.mult, pt_clock.mult);
	CU_ASSERT_EQUAL(cal.shift, pt_clock.shift);
	CU_ASSERT_STRING_EQUAL(dir, pt_run_info.dir);
	CU_ASSERT_EQUAL(cal.anchor_ticks, pt_clock.anchor_ticks);
	CU_ASSERT_EQUAL(cal.anchor_ns, pt_clock.anchor_ns);
	/* an older runtime's v1: no anchor */
	CU_ASSERT_EQUAL(pt_run_env_parse("v1:1:2:5:32:/x", &id, &cal, dir, sizeof dir), 0);
	CU_ASSERT(cal.mult == 5 && cal.shift == 32 && cal.anchor_ticks == 0 && cal.anchor_ns == 0);
	CU_ASSERT_EQUAL(pt_run_env_parse("v2:1:2:5:32:7:9:/x", &id, &cal, dir, sizeof dir), 0);
	CU_ASSERT(cal.anchor_ticks == 7 && cal.anchor_ns == 9 && !strcmp(dir, "/x"));
	CU_ASSERT_EQUAL(pt_run_env_parse("v2:1:2:5:32:7:0:/x", &id, &cal, dir, sizeof dir), -1);
	CU_ASSERT_EQUAL(pt_run_env_parse("v2:1:2:5:32:/x", &id, &cal, dir, sizeof dir), -1);
	CU_ASSERT_EQUAL(pt_run_env_parse("v1:zz", &id, &cal, dir, sizeof dir), -1);
	CU_ASSERT_EQUAL(pt_run_env_parse("v1:1:2:0:0:/x", &id, &cal, dir, sizeof dir), -1);
	CU_ASSERT_EQUAL(pt_run_env_parse("v1:1:2:5:0:relative", &id, &cal, dir, sizeof dir), -1);
	pt_run_info.dir[0] = '\0';
}

/* ---- writer ------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The median gap between two CLOCK_MONOTONIC readings on this machine. */
static uint64_t mono_gap_median(void)
{
	uint64_t gap[101];
	for (int i = 0; i < 101; i++) {
		uint64_t a = pt_mono_ns();
		gap[i] = pt_mono_ns() - a;
	}
	qsort(gap, 101, sizeof gap[0], cmp_u64);
	return gap[50];
}

/* With the TSC, a header's calibration is refreshed when the log closes:
 * it then converts the file's own span (open pair in the header, CLOSE
 * pair at its end) to the CLOCK_MONOTONIC interval that was read. */
static void test_clock_refreshed_at_close(void)
{
	if (pt_clock.source != PT_CLOCK_TSC)
		return; /* nothing to calibrate */
	pt_wlog l;
	pt_window_size = 64 * 1024;
	pt_max_file_size = 0;
	CU_ASSERT_EQUAL_FATAL(pt_wlog_create(&l, &tmpfd, "tc.ptl", &thread_params), 0);
	struct timespec req = {0, 50 * 1000 * 1000};
	while (nanosleep(&req, &req) != 0)
		;
	pt_wlog_close(&l);
	char path[PATH_MAX + 16];
	snprintf(path, sizeof path, "%s/tc.ptl", tmpdir);
	FILE *f = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	pt_file_header h;
	pt_clock_pair close;
	CU_ASSERT_EQUAL(fread(&h, sizeof h, 1, f), 1);
	CU_ASSERT_EQUAL(fseek(f, -(long)sizeof close, SEEK_END), 0);
	CU_ASSERT_EQUAL(fread(&close, sizeof close, 1, f), 1);
	fclose(f);
	long double per_tick = (long double)h.tick_mult / (long double)(1ull << h.tick_shift);
	long double span_ns = (long double)(close.ticks - h.open.ticks) * per_tick;
	long double mono_ns = (long double)(close.mono_ns - h.open.mono_ns);
	CU_ASSERT(mono_ns > 45e6);
	/* 20 ns for each pair's reading, against 50 ms; each pair is as exact
	 * as two monotonic readings are close (a system call each without
	 * the vDSO) */
	long double limit = 1000 + 2 * (long double)mono_gap_median();
	CU_ASSERT(span_ns > mono_ns - limit && span_ns < mono_ns + limit);
}

/* A clock pair is the time reference of its whole file: a pair whose two
 * readings a signal handler (or a preemption, or the host) comes between
 * would shift every time in the file by that long. A timer's handler
 * spinning 5 us every 50 us lands in the middle of some of 100,000 pairs
 * read back to back; consecutive pairs must still agree on the time that
 * passed between them. */
static volatile sig_atomic_t spins;
static void spin_handler(int sig)
{
	(void)sig;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 5000);
	spins++;
}

static void test_clock_pair_interrupted(void)
{
	if (pt_clock.source != PT_CLOCK_TSC)
		return; /* ticks are the monotonic reading itself */
	pt_clock_cal cal;
	uint64_t at;
	pt_clock_current(&cal, &at);
	long double per_tick = (long double)cal.mult / (long double)(1ull << cal.shift);
	/* 1 us, plus twice this machine's gap between two monotonic readings
	 * (tens of ns with the vDSO; a clock source without it makes each
	 * reading a system call, and each pair that much less exact). */
	long double limit = 1000 + 2 * (long double)mono_gap_median();
	struct sigaction sa = {.sa_handler = spin_handler}, old;
	sigemptyset(&sa.sa_mask);
	CU_ASSERT_EQUAL_FATAL(sigaction(SIGALRM, &sa, &old), 0);
	struct itimerval it = {{0, 50}, {0, 50}}, off = {{0, 0}, {0, 0}};
	spins = 0;
	CU_ASSERT_EQUAL_FATAL(setitimer(ITIMER_REAL, &it, NULL), 0);
	enum { N = 100000 };
	long bad = 0;
	long double worst = 0;
	pt_clock_pair prev, cur;
	pt_clock_pair_now(&prev);
	for (int i = 0; i < N; i++, prev = cur) {
		pt_clock_pair_now(&cur);
		long double d = (long double)(cur.mono_ns - prev.mono_ns) -
				(long double)(cur.ticks - prev.ticks) * per_tick;
		if (d < 0)
			d = -d;
		if (d > worst)
			worst = d;
		bad += d > limit;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	CU_ASSERT(spins > 10); /* the handler did come between */
	if (bad)
		fprintf(stderr, "\n    %ld of %d pairs off by more than %.0Lf ns (worst %.0Lf ns, %d signals)\n",
			bad, N, limit, worst, (int)spins);
	CU_ASSERT_EQUAL(bad, 0);
}

static void test_records_and_header(void)
{
	pt_wlog l;
	pt_window_size = 64 * 1024;
	pt_max_file_size = 0;
	CU_ASSERT_EQUAL_FATAL(pt_wlog_create(&l, &tmpfd, "t1.ptl", &thread_params), 0);
	uint64_t t0 = l.last;
	pt_wlog_put_func(&l, t0 + 10, PT_REC_FUNC_ENTER, 7);
	pt_wlog_put_func(&l, t0 + 25, PT_REC_FUNC_ENTER, 0xabcdef);
	pt_wlog_put_func(&l, t0 + 25, PT_REC_FUNC_EXIT, 0xabcdef);
	pt_rec_user_event ev = {3, 0, -5};
	pt_wlog_put(&l, t0 + 40, PT_REC_USER_EVENT, 0, &ev, sizeof ev, NULL, 0);
	pt_wlog_put(&l, t0 + 30, PT_REC_THREAD_NAME, 0, "abc", 4, NULL, 0); /* earlier: clamped */
	pt_wlog_close(&l);

	rec r[16];
	int complete = 0;
	long n = read_all("t1.ptl", r, 16, &complete);
	CU_ASSERT_EQUAL_FATAL(n, 7);
	CU_ASSERT(complete);
	CU_ASSERT_EQUAL(r[0].kind, PT_REC_TIME); /* first record of every file */
	CU_ASSERT_EQUAL(r[0].ticks, t0);
	CU_ASSERT(r[1].kind == PT_REC_FUNC_ENTER && r[1].func_id == 7 && r[1].ticks == t0 + 10);
	CU_ASSERT(r[2].kind == PT_REC_FUNC_ENTER && r[2].func_id == 0xabcdef && r[2].ticks == t0 + 25);
	CU_ASSERT(r[3].kind == PT_REC_FUNC_EXIT && r[3].func_id == 0xabcdef);
	/* id 7 after 10 ticks is compact; 0xabcdef is not, but its exit right
	 * after its entry is short */
	CU_ASSERT(r[1].size == 4 && r[2].size == 8 && r[3].size == 2);
	CU_ASSERT(r[4].kind == PT_REC_USER_EVENT && r[4].ticks == t0 + 40 && r[4].a == 3 &&
		  (int64_t)r[4].b == -5);
	CU_ASSERT(r[5].kind == PT_REC_THREAD_NAME && r[5].ticks == t0 + 40);
	CU_ASSERT_EQUAL(r[6].kind, PT_REC_CLOSE);

	/* Header fields and the trimmed size. */
	char path[512];
	snprintf(path, sizeof path, "%s/t1.ptl", tmpdir);
	int fd = open(path, O_RDONLY);
	pt_file_header h;
	CU_ASSERT_EQUAL_FATAL(read(fd, &h, sizeof h), (ssize_t)sizeof h);
	struct stat st;
	fstat(fd, &st);
	close(fd);
	CU_ASSERT(!memcmp(h.magic, PT_FORMAT_MAGIC, 8));
	CU_ASSERT_EQUAL(h.header_size, 256);
	CU_ASSERT_EQUAL(h.file_kind, PT_FILE_THREAD);
	CU_ASSERT_EQUAL(h.tid, 4242);
	CU_ASSERT_EQUAL(h.pid, (uint32_t)getpid());
	CU_ASSERT_EQUAL(h.run_id, 0x1234);
	CU_ASSERT_EQUAL(h.clock_source, pt_clock.source);
	CU_ASSERT_EQUAL(h.tick_mult, pt_clock.mult);
	CU_ASSERT_STRING_EQUAL(h.program, "test_writer");
	/* 256 header + TIME 16 + FUNC 4 + FUNC 8 + short FUNC 2 + pad 2 + USER 24 + NAME 16 +
	 * CLOSE 32 */
	CU_ASSERT_EQUAL(st.st_size, 256 + 16 + 4 + 8 + 2 + 2 + 24 + 16 + 32);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
}

static void test_delta_overflow(void)
{
	pt_wlog l;
	CU_ASSERT_EQUAL_FATAL(pt_wlog_create(&l, &tmpfd, "t2.ptl", &thread_params), 0);
	uint64_t t0 = l.last;
	pt_wlog_put_func(&l, t0 + UINT32_MAX, PT_REC_FUNC_ENTER, 1); /* still fits */
	pt_wlog_put_func(&l, t0 + UINT32_MAX + 1 + (1ull << 33), PT_REC_FUNC_EXIT, 1);
	pt_wlog_close(&l);
	rec r[8];
	long n = read_all("t2.ptl", r, 8, NULL);
	CU_ASSERT_EQUAL_FATAL(n, 5);
	CU_ASSERT(r[1].kind == PT_REC_FUNC_ENTER && r[1].ticks == t0 + UINT32_MAX);
	CU_ASSERT_EQUAL(r[2].kind, PT_REC_TIME);
	CU_ASSERT_EQUAL(r[2].ticks, t0 + UINT32_MAX + 1 + (1ull << 33));
	CU_ASSERT(r[3].kind == PT_REC_FUNC_EXIT && r[3].ticks == r[2].ticks);
}

/* pt_wlog_put_word (short lock records): its in-place path and every case
 * it hands to the general one (earlier time, delta overflow, full window)
 * give the same records. */
static void test_word_records(void)
{
	enum { N = 20000 }; /* 320 KB of 16-byte records through 64 KiB windows */
	pt_wlog l;
	pt_window_size = 64 * 1024;
	CU_ASSERT_EQUAL_FATAL(pt_wlog_create(&l, &tmpfd, "tw.ptl", &thread_params), 0);
	uint64_t t0 = l.last, t = t0;
	for (uint32_t i = 0; i < N; i++) {
		if (i == 100)
			t += 1ull << 33; /* needs a TIME record first */
		uint64_t at = i == 200 ? t - 5 : t + i; /* 200: earlier, clamped */
		pt_wlog_put_word(&l, at, PT_REC_LOCK_ACQUIRED + (i & 1) * 2, PT_LOCK_MUTEX,
				 0x7000 + i);
	}
	pt_wlog_close(&l);
	static rec r[N + 8];
	long n = read_all("tw.ptl", r, N + 8, NULL);
	CU_ASSERT_EQUAL_FATAL(n, 1 + N + 1 + 1); /* TIME, N, the overflow's TIME, CLOSE */
	uint64_t last = 0;
	int ok = 1;
	for (long i = 1, k = 0; i < n - 1; i++) {
		if (r[i].kind == PT_REC_TIME)
			continue;
		ok &= r[i].kind == PT_REC_LOCK_ACQUIRED + (k & 1) * 2u;
		ok &= r[i].a == 0x7000 + (uint64_t)k;
		ok &= r[i].ticks >= last;
		last = r[i].ticks;
		k++;
	}
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(r[1].ticks, t0);
	CU_ASSERT_EQUAL(r[101].kind, PT_REC_TIME);
	CU_ASSERT_EQUAL(r[102].ticks, t0 + 100 + (1ull << 33));
	CU_ASSERT_EQUAL(r[202].ticks, r[201].ticks); /* clamped to the previous */
}

/* pt_wlog_put_lock: the release of the object acquired last is its head
 * alone and reads back with that object; any other release, and the
 * release of an acquisition that was lost, carries its object. */
static void test_lock_records(void)
{
	pt_wlog l;
	pt_window_size = 64 * 1024;
	pt_max_file_size = 0;
	CU_ASSERT_EQUAL_FATAL(pt_wlog_create(&l, &tmpfd, "tl.ptl", &thread_params), 0);
	uint64_t t = l.last;
	pt_wlog_put_lock(&l, ++t, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, 0xa000, 0);
	pt_wlog_put_lock(&l, ++t, PT_REC_LOCK_RELEASED, PT_LOCK_MUTEX, 0xa000, 0); /* 4 */
	pt_wlog_put_lock(&l, ++t, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, 0xa000, 0); /* 4 */
	pt_wlog_put_lock(&l, ++t, PT_REC_LOCK_ACQUIRED, PT_LOCK_SPIN, 0xb000, 0);
	pt_wlog_put_lock(&l, ++t, PT_REC_LOCK_RELEASED, PT_LOCK_SPIN, 0xb000, 0);  /* 4 */
	pt_wlog_put_lock(&l, ++t, PT_REC_LOCK_RELEASED, PT_LOCK_MUTEX, 0xa000, 0); /* 16 */
	pt_wlog_put_lock(&l, ++t, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, 0xc000, 130); /* 24 */
	pt_wlog_put_lock(&l, ++t, PT_REC_LOCK_RELEASED, PT_LOCK_MUTEX, 0xc000, 0); /* 4 */
	t += PT_COMPACT_LOCK_LIMIT; /* a delta too large for the compact form */
	pt_wlog_put_lock(&l, t, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, 0xc000, 0);  /* 16 */
	t += PT_COMPACT_LOCK_LIMIT;
	pt_wlog_put_lock(&l, t, PT_REC_LOCK_RELEASED, PT_LOCK_MUTEX, 0xc000, 0);  /* 8 */
	pt_wlog_put_lock(&l, ++t, PT_REC_LOCK_FAILED, PT_LOCK_MUTEX, 0xc000, 16); /* 24 */
	pt_wlog_put_lock(&l, ++t, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, 0xc000, 0);  /* 4 */
	pt_wlog_put_lock(&l, ++t, PT_REC_LOCK_REQUEST, PT_LOCK_MUTEX, 0xc000, 0);   /* 4 (3.0) */
	pt_wlog_put_lock(&l, ++t, PT_REC_LOCK_REQUEST, PT_LOCK_MUTEX, 0xe000, 0);   /* 16 */
	/* the log's size cap: records are lost, an acquisition among them */
	pt_max_file_size = 64 * 1024;
	for (uint32_t i = 0; i < 20000 && !l.lost_records; i++)
		pt_wlog_put_func(&l, ++t, PT_REC_FUNC_ENTER, 1 + (i & 1)); /* 4 bytes each */
	CU_ASSERT_FATAL(l.lost_records > 0);
	pt_wlog_put_lock(&l, ++t, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, 0xd000, 0);
	pt_max_file_size = 0;
	l.retry_countdown = 0;
	pt_wlog_put_lock(&l, ++t, PT_REC_LOCK_RELEASED, PT_LOCK_MUTEX, 0xd000, 0); /* 16 */
	pt_wlog_close(&l);
	static rec r[20000];
	long n = read_all("tl.ptl", r, 20000, NULL);
	CU_ASSERT_FATAL(n > 16);
	static const struct {
		unsigned kind;
		size_t size;
		uint64_t obj;
	} want[] = {
	    {PT_REC_LOCK_ACQUIRED, 16, 0xa000}, {PT_REC_LOCK_RELEASED, 4, 0xa000},
	    {PT_REC_LOCK_ACQUIRED, 4, 0xa000},  {PT_REC_LOCK_ACQUIRED, 16, 0xb000},
	    {PT_REC_LOCK_RELEASED, 4, 0xb000},  {PT_REC_LOCK_RELEASED, 16, 0xa000},
	    {PT_REC_LOCK_ACQUIRED, 24, 0xc000}, {PT_REC_LOCK_RELEASED, 4, 0xc000},
	    {PT_REC_LOCK_ACQUIRED, 16, 0xc000}, {PT_REC_LOCK_RELEASED, 8, 0xc000},
	    {PT_REC_LOCK_FAILED, 24, 0xc000},   {PT_REC_LOCK_ACQUIRED, 4, 0xc000},
	    {PT_REC_LOCK_REQUEST, 4, 0xc000},   {PT_REC_LOCK_REQUEST, 16, 0xe000},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		CU_ASSERT_EQUAL(r[1 + i].kind, want[i].kind);
		CU_ASSERT_EQUAL(r[1 + i].size, want[i].size);
		CU_ASSERT_EQUAL(r[1 + i].a, want[i].obj);
	}
	CU_ASSERT_EQUAL(r[7].b & 0xffffffff, 130); /* the result of the 24-byte form */
	CU_ASSERT_EQUAL(r[10].ticks, r[9].ticks + PT_COMPACT_LOCK_LIMIT);
	/* after the LOST record: the release of the lost acquisition */
	CU_ASSERT_EQUAL(r[n - 3].kind, PT_REC_LOST);
	CU_ASSERT_EQUAL(r[n - 2].kind, PT_REC_LOCK_RELEASED);
	CU_ASSERT_EQUAL(r[n - 2].size, 16);
	CU_ASSERT_EQUAL(r[n - 2].a, 0xd000);
	CU_ASSERT_EQUAL(r[n - 1].kind, PT_REC_CLOSE);
}

static void test_window_switch(void)
{
	enum { N = 200000 }; /* 1.6 MB of records through 64 KiB windows */
	pt_wlog l;
	pt_window_size = 64 * 1024;
	CU_ASSERT_EQUAL_FATAL(pt_wlog_create(&l, &tmpfd, "t3.ptl", &thread_params), 0);
	uint64_t t = l.last;
	for (uint32_t i = 0; i < N; i++) {
		pt_wlog_put_func(&l, t + i, (i & 1) ? PT_REC_FUNC_EXIT : PT_REC_FUNC_ENTER, i + 1);
		if (i % 997 == 0) {
			/* an odd-sized record now and then, so windows end mid-record */
			char s[40];
			int len = snprintf(s, sizeof s, "name %u", i);
			pt_wlog_put(&l, t + i, PT_REC_THREAD_NAME, 0, s, (size_t)len + 1, NULL, 0);
		}
	}
	pt_wlog_close(&l);
	static rec r[N + 400];
	long n = read_all("t3.ptl", r, N + 400, NULL);
	CU_ASSERT_EQUAL_FATAL(n, 1 + N + (N + 996) / 997 + 1);
	uint32_t next = 1;
	int ok = 1;
	for (long i = 0; i < n; i++)
		if (pt_rec_is_func(r[i].kind)) {
			ok &= r[i].func_id == next && r[i].ticks == t + next - 1;
			next++;
		}
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(next, N + 1);
}

static void test_lost_accounting(void)
{
	pt_wlog l;
	pt_window_size = 64 * 1024;
	pt_max_file_size = 64 * 1024;
	uint64_t lost0 = atomic_load(&pt_total_lost_records);
	CU_ASSERT_EQUAL_FATAL(pt_wlog_create(&l, &tmpfd, "t4.ptl", &thread_params), 0);
	uint64_t t = l.last;
	enum { N = 20000 }; /* 160 KB: more than the cap */
	for (uint32_t i = 0; i < N; i++)
		pt_wlog_put_func(&l, t + i, PT_REC_FUNC_ENTER, i + 1);
	uint64_t lost = l.lost_records;
	CU_ASSERT(lost > 0);
	CU_ASSERT_EQUAL(l.lost_bytes, lost * 8);
	CU_ASSERT_EQUAL(l.lost_reason, PT_LOST_LIMIT);
	CU_ASSERT_EQUAL(atomic_load(&pt_total_lost_records) - lost0, lost);
	/* Space returns (the cap is lifted): the next record is preceded by a
	 * LOST record with the counts. */
	pt_max_file_size = 0;
	l.retry_countdown = 0;
	pt_wlog_put_func(&l, t + N, PT_REC_FUNC_EXIT, 99);
	pt_wlog_close(&l);
	static rec r[N + 8];
	long n = read_all("t4.ptl", r, N + 8, NULL);
	CU_ASSERT_FATAL(n > 4);
	long written = 0, lost_at = -1;
	for (long i = 0; i < n; i++) {
		if (r[i].kind == PT_REC_FUNC_ENTER)
			written++;
		if (r[i].kind == PT_REC_LOST)
			lost_at = i;
	}
	CU_ASSERT_EQUAL(written + (long)lost, N);
	CU_ASSERT_FATAL(lost_at > 0);
	CU_ASSERT_EQUAL(r[lost_at].a, lost);
	CU_ASSERT_EQUAL(r[lost_at].b, lost * 8);
	CU_ASSERT(r[lost_at + 1].kind == PT_REC_FUNC_EXIT && r[lost_at + 1].func_id == 99);
	CU_ASSERT_EQUAL(r[n - 1].kind, PT_REC_CLOSE);
}

/* Space never returns: the log still ends LOST + CLOSE (tail reserve). */
static void test_lost_until_close(void)
{
	pt_wlog l;
	pt_window_size = 64 * 1024;
	pt_max_file_size = 64 * 1024;
	CU_ASSERT_EQUAL_FATAL(pt_wlog_create(&l, &tmpfd, "t8.ptl", &thread_params), 0);
	uint64_t t = l.last;
	enum { N = 20000 }; /* 4 or 8 bytes each: more than 64 KiB */
	for (uint32_t i = 0; i < N; i++)
		pt_wlog_put_func(&l, t + i, PT_REC_FUNC_ENTER, i + 1);
	uint64_t lost = l.lost_records;
	pt_rec_thread_end e = {0, 0, 0};
	pt_wlog_put_final(&l, t + N, PT_REC_THREAD_END, 0, &e, sizeof e, NULL, 0);
	pt_wlog_close(&l);
	pt_max_file_size = 0;
	CU_ASSERT_FATAL(lost > 0);
	static rec r[N + 8];
	int complete = 0;
	long n = read_all("t8.ptl", r, N + 8, &complete);
	CU_ASSERT_FATAL(n >= 4);
	CU_ASSERT(complete);
	CU_ASSERT_EQUAL(r[n - 3].kind, PT_REC_LOST);
	CU_ASSERT_EQUAL(r[n - 3].a, lost);
	CU_ASSERT_EQUAL(r[n - 2].kind, PT_REC_THREAD_END);
	CU_ASSERT_EQUAL(r[n - 1].kind, PT_REC_CLOSE);
	CU_ASSERT_EQUAL((uint64_t)(n - 4) + lost, N); /* TIME, LOST, END, CLOSE */
	struct stat st;
	char path[512];
	snprintf(path, sizeof path, "%s/t8.ptl", tmpdir);
	CU_ASSERT(stat(path, &st) == 0 && st.st_size <= 64 * 1024 + PT_TAIL_RESERVE);
}

/* exec: a log suspended (CLOSE, trimmed to its data) and resumed (the exec
 * failed) goes on after its CLOSE; a writer of a suspended log resumes it. */
static void test_suspend_resume(void)
{
	enum { N = 20000 }; /* 4-byte records through 64 KiB windows */
	pt_wlog l;
	pt_window_size = 64 * 1024;
	CU_ASSERT_EQUAL_FATAL(pt_wlog_create(&l, &tmpfd, "t20.ptl", &thread_params), 0);
	uint64_t t = l.last;
	uint32_t id = 1;
	for (; id <= N; id++)
		pt_wlog_put_func(&l, t + id, PT_REC_FUNC_ENTER, id);
	pt_wlog_suspend(&l);
	char path[512];
	snprintf(path, sizeof path, "%s/t20.ptl", tmpdir);
	struct stat st;
	CU_ASSERT(stat(path, &st) == 0 && (uint64_t)st.st_size == pt_wlog_length(&l));
	static rec r[3 * N];
	int complete = 0;
	long n = read_all("t20.ptl", r, 3 * N, &complete);
	CU_ASSERT_EQUAL(n, 1 + N + 1); /* TIME, the calls, CLOSE */
	CU_ASSERT(complete);
	/* Nothing is written while suspended but through a resume. */
	pt_wlog_put_func(&l, t + id, PT_REC_FUNC_ENTER, id);
	CU_ASSERT_EQUAL(read_all("t20.ptl", r, 3 * N, NULL), 1 + N + 1);
	CU_ASSERT_EQUAL_FATAL(pt_wlog_resume(&l), 0);
	for (; id <= 2 * N; id++)
		pt_wlog_put_func(&l, t + id, PT_REC_FUNC_ENTER, id);
	/* Suspended again, then a plain put (another writer): resumed. */
	pt_wlog_suspend(&l);
	char s[] = "after";
	pt_wlog_put(&l, t + id, PT_REC_THREAD_NAME, 0, s, sizeof s, NULL, 0);
	pt_wlog_close(&l);
	n = read_all("t20.ptl", r, 3 * N, &complete);
	CU_ASSERT(complete);
	long closes = 0, calls = 0, ordered = 1;
	for (long i = 0; i < n; i++) {
		closes += r[i].kind == PT_REC_CLOSE;
		if (r[i].kind == PT_REC_FUNC_ENTER)
			ordered &= r[i].func_id == (uint32_t)++calls;
	}
	CU_ASSERT_EQUAL(calls, 2 * N);
	CU_ASSERT(ordered);
	CU_ASSERT_EQUAL(closes, 3);
	CU_ASSERT_EQUAL(r[n - 2].kind, PT_REC_THREAD_NAME);
}

static void test_create_refuses_existing_and_symlinks(void)
{
	pt_wlog l;
	CU_ASSERT_EQUAL_FATAL(pt_wlog_create(&l, &tmpfd, "t5.ptl", &thread_params), 0);
	pt_wlog_close(&l);
	CU_ASSERT_EQUAL(pt_wlog_create(&l, &tmpfd, "t5.ptl", &thread_params), -EEXIST);
	char target[512];
	snprintf(target, sizeof target, "%s/victim", tmpdir);
	CU_ASSERT_EQUAL_FATAL(symlinkat(target, tmpfd, "t6.ptl"), 0);
	CU_ASSERT(pt_wlog_create(&l, &tmpfd, "t6.ptl", &thread_params) < 0);
	CU_ASSERT_EQUAL(access(target, F_OK), -1); /* the link was not followed */
}

/* A thread state set up by hand, its log `name`, current for the hooks
 * (pt_tls) with tracing on. 0, or the log's creation error. */
static int hooks_thread_begin(pt_thread *t, const char *name, int *old_state)
{
	memset(t, 0, sizeof *t);
	pt_window_size = 64 * 1024;
	pt_max_file_size = 0;
	int r = pt_wlog_create(&t->log, &tmpfd, name, &thread_params);
	*old_state = atomic_load(&pt_state);
	if (r == 0) {
		atomic_store(&pt_state, PT_STATE_RUNNING);
		pt_tls = t;
	}
	return r;
}

static void hooks_thread_end(pt_thread *t, int old_state)
{
	pt_tls = NULL;
	atomic_store(&pt_state, old_state);
	pt_wlog_close(&t->log);
}

/* The hook fast path and its slow path (first record after a switch, delta
 * overflow), driving a thread state set up by hand. */
static void test_hooks(void)
{
	static pt_thread t;
	int old_state;
	CU_ASSERT_EQUAL_FATAL(hooks_thread_begin(&t, "t7.ptl", &old_state), 0);
	enum { N = 30000 }; /* crosses several 64 KiB windows */
	for (uint32_t i = 1; i <= N; i++) {
		__paratrace_func_enter(i);
		__paratrace_func_exit(i);
	}
	__paratrace_func_enter(3); /* compact: the PC record after it is padded */
	__cyg_profile_func_enter((void *)test_hooks, NULL);
	/* The next delta cannot fit: TIME + record. Not `last -= 2^40`: with
	 * CLOCK_MONOTONIC on a machine up for less than 2^40 ns (18 minutes)
	 * that wraps, and the writer clamps a time before `last` to a delta of 0. */
	t.log.last = 0;
	errno = 1234;
	__paratrace_func_enter(5);
	CU_ASSERT_EQUAL(errno, 1234);
	__cyg_profile_func_exit((void *)test_hooks, NULL);
	__cyg_profile_func_enter((void *)test_hooks, NULL); /* the same function again: short */
	hooks_thread_end(&t, old_state);

	static rec r[2 * N + 16];
	long n = read_all("t7.ptl", r, 2 * N + 16, NULL);
	CU_ASSERT_EQUAL_FATAL(n, 1 + 2 * N + 1 + 1 + 1 + 1 + 1 + 1 + 1);
	int ok = 1, compact = 0, shorts = 0;
	for (uint32_t i = 1; i <= N; i++) {
		ok &= r[2 * i - 1].kind == PT_REC_FUNC_ENTER && r[2 * i - 1].func_id == i;
		ok &= r[2 * i].kind == PT_REC_FUNC_EXIT && r[2 * i].func_id == i;
		ok &= r[2 * i].ticks >= r[2 * i - 1].ticks;
		/* An entry: 4 bytes only when the id fits (and the delta, nearly
		 * always); the exit of the function just entered: 2 bytes unless
		 * the delta is too large (a window switch between them). */
		ok &= r[2 * i - 1].size == 8 || (r[2 * i - 1].size == 4 && i < PT_COMPACT_LIMIT);
		compact += r[2 * i - 1].size == 4;
		ok &= r[2 * i].size == 2 ||
		      (r[2 * i].size != 4 && r[2 * i].ticks - r[2 * i - 1].ticks >= PT_SHORT_LIMIT);
		shorts += r[2 * i].size == 2;
	}
	CU_ASSERT(ok);
	CU_ASSERT(compact > (int)PT_COMPACT_LIMIT / 2);
	CU_ASSERT(shorts > N * 9 / 10);
	long k = 2 * N + 1;
	CU_ASSERT(r[k].kind == PT_REC_FUNC_ENTER && r[k].func_id == 3 && r[k].size == 4);
	k++;
	CU_ASSERT(r[k].kind == PT_REC_FUNC_ENTER_PC && r[k].a == (uint64_t)(uintptr_t)test_hooks);
	CU_ASSERT_EQUAL(r[k + 1].kind, PT_REC_TIME);
	CU_ASSERT(r[k + 2].kind == PT_REC_FUNC_ENTER && r[k + 2].func_id == 5);
	CU_ASSERT(r[k + 3].kind == PT_REC_FUNC_EXIT_PC && r[k + 3].size == 16);
	CU_ASSERT(r[k + 4].kind == PT_REC_FUNC_ENTER_PC && r[k + 4].size == 2 &&
	          r[k + 4].a == (uint64_t)(uintptr_t)test_hooks);
	CU_ASSERT_EQUAL(r[k + 5].kind, PT_REC_CLOSE);
}

/* A thread name longer than a record holds: its first 255 bytes and a NUL
 * in the THREAD_NAME record; nothing of the caller's string past them is
 * read (under ASan, the rest of it is poisoned while the runtime runs). */
static void test_thread_name_cut(void)
{
	static pt_thread t;
	int old_state;
	CU_ASSERT_EQUAL_FATAL(hooks_thread_begin(&t, "t10.ptl", &old_state), 0);
	enum { N = 300, KEPT = 255 };
	char *name = malloc(N + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(name);
	for (size_t i = 0; i < N; i++)
		name[i] = (char)('a' + i % 26);
	name[N] = '\0';
	POISON(name + KEPT, N + 1 - KEPT);
	paratrace_thread_name(name);
	UNPOISON(name + KEPT, N + 1 - KEPT);
	hooks_thread_end(&t, old_state);

	char path[512], err[256];
	snprintf(path, sizeof path, "%s/t10.ptl", tmpdir);
	pt_log *log = pt_log_open_path(path, 0, err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(log);
	pt_event ev;
	int found = 0;
	while (pt_log_read(log, &ev) == 0) {
		if (ev.kind != PT_REC_THREAD_NAME)
			continue;
		const char *s = pt_event_string(&ev, 0);
		CU_ASSERT_PTR_NOT_NULL(s);
		CU_ASSERT(s && strlen(s) == KEPT && !memcmp(s, name, KEPT));
		found++;
	}
	pt_log_close(log);
	CU_ASSERT_EQUAL(found, 1);
	free(name);
}

/* A signal handler's hooks while a hook of the interrupted code is between
 * its loads and its stores (in_hook): dropped and counted in a LOST record,
 * not written over the record in progress; interposed calls are not
 * recorded either. A long jump out of the handler ends that state. */
static void test_hooks_nested(void)
{
	static pt_thread t;
	int old_state;
	CU_ASSERT_EQUAL_FATAL(hooks_thread_begin(&t, "t9.ptl", &old_state), 0);
	__paratrace_func_enter(1);
	t.log.in_hook = 1; /* as the interrupted hook left it */
	__paratrace_func_enter(2);
	__paratrace_func_exit(2);
	__cyg_profile_func_enter((void *)test_hooks_nested, NULL);
	CU_ASSERT_PTR_NULL(pt_enter());
	CU_ASSERT_EQUAL(t.log.nested_lost, 3);
	pt_hooks_unwound(); /* what the longjmp wrappers do */
	CU_ASSERT_EQUAL(t.log.in_hook, 0);
	__paratrace_func_exit(1);
	hooks_thread_end(&t, old_state);

	rec r[16];
	int complete = 0;
	long n = read_all("t9.ptl", r, 16, &complete);
	CU_ASSERT_EQUAL_FATAL(n, 5);
	CU_ASSERT(complete);
	CU_ASSERT(r[1].kind == PT_REC_FUNC_ENTER && r[1].func_id == 1);
	CU_ASSERT(r[2].kind == PT_REC_FUNC_EXIT && r[2].func_id == 1);
	CU_ASSERT(r[3].kind == PT_REC_LOST && r[3].a == 3);
	CU_ASSERT_EQUAL(r[3].b, 0); /* no bytes */
	CU_ASSERT_EQUAL(r[4].kind, PT_REC_CLOSE);
}

/* A thread's throttling table as a program defining sites one by one
 * grows it: geometrically (a handful of grows for 100,000 ids, where one
 * per page of entries made it quadratic), and an entry stays where a hook
 * found it across later grows (a signal handler's hook may grow the table
 * while the hook it interrupted holds its entry). */
static void test_throttle_table_growth(void)
{
	static pt_thread t;
	int old_state;
	CU_ASSERT_EQUAL_FATAL(hooks_thread_begin(&t, "t11.ptl", &old_state), 0);
	uint32_t old_calls = pt_throttle_calls;
	pt_throttle_calls = 1000000; /* on, and no function reaches a decision */
	pt_ft.grow = 1;
	enum { N = 100000 };
	uint32_t grows = 0, cap = pt_ft.cap;
	pt_fstat *first = NULL;
	for (uint32_t i = 1; i <= N; i++) {
		__paratrace_func_enter(i);
		__paratrace_func_exit(i);
		if (pt_ft.cap != cap) {
			grows++;
			cap = pt_ft.cap;
		}
		if (i == 1 && cap > 1)
			first = pt_fstat_of(1);
	}
	CU_ASSERT(cap > N);
	CU_ASSERT(grows >= 1 && grows <= 20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(first);
	CU_ASSERT_PTR_EQUAL(pt_fstat_of(1), first);
	CU_ASSERT(first->n == 1 && first->open == 0);
	CU_ASSERT(pt_fstat_of(N)->n == 1);
	pt_ft.cap = 0;
	pt_ft.grow = 0;
	pt_throttle_calls = old_calls;
	hooks_thread_end(&t, old_state);
}

/* Module registration: consecutive ids, never reused; a module that would
 * pass the 24-bit id space, or speaks another ABI version, stays off. */
static void test_register_modules(void)
{
	static const pt_abi_func fa[3] = {{"a0", "a.c", 1, 0}, {"a1", "a.c", 2, 0}, {"a2", NULL, 0, 0}};
	static const pt_abi_func fc[2] = {{"c0", "c.c", 1, 0}, {"c1", "c.c", 2, 0}};
	pt_abi_module a = {PT_ABI_VERSION, 3, 0, 0, fa, "a.c", NULL};
	pt_abi_module huge = {PT_ABI_VERSION, PT_FUNC_ID_MAX, 0, 0, fa, "huge.c", NULL};
	pt_abi_module old = {PT_ABI_VERSION + 1, 2, 0, 0, fc, "old.c", NULL};
	pt_abi_module c = {PT_ABI_VERSION, 2, 0, 0, fc, "c.c", NULL};
	int old_state = atomic_load(&pt_state);
	atomic_store(&pt_state, PT_STATE_RUNNING); /* no process log: FUNC_DEFs go nowhere */
	__paratrace_register_module(&a);
	__paratrace_register_module(&huge);
	__paratrace_register_module(&old);
	__paratrace_register_module(&c);
	CU_ASSERT(a.id_base >= 1);
	CU_ASSERT_EQUAL(huge.id_base, 0);
	CU_ASSERT_EQUAL(old.id_base, 0);
	CU_ASSERT_EQUAL(c.id_base, a.id_base + 3); /* the refused module took no ids */
	uint32_t a_base = a.id_base;
	__paratrace_register_module(&a); /* twice: no-op */
	CU_ASSERT_EQUAL(a.id_base, a_base);
	/* At the process's end (not inside dlclose) the hooks stay on. */
	__paratrace_unregister_module(&a);
	CU_ASSERT_EQUAL(a.id_base, a_base);
	pt_dlclose_depth++; /* as the dlclose wrapper does */
	__paratrace_unregister_module(&a);
	pt_dlclose_depth--;
	CU_ASSERT_EQUAL(a.id_base, 0);
	__paratrace_register_module(&a); /* reloaded: new ids, old ones not reused */
	CU_ASSERT_EQUAL(a.id_base, c.id_base + 2);
	atomic_store(&pt_state, old_state);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("runtime_core", suite_init, suite_clean);
	CU_add_test(s, "config defaults", test_config_defaults);
	CU_add_test(s, "config values", test_config_values);
	CU_add_test(s, "config bad values", test_config_bad);
	CU_add_test(s, "config messages", test_config_messages);
	CU_add_test(s, "sizes and durations", test_parse_size_duration);
	CU_add_test(s, "PARATRACE_RUN round trip", test_run_env_roundtrip);
	CU_add_test(s, "records and header", test_records_and_header);
	CU_add_test(s, "TSC calibration refreshed at close", test_clock_refreshed_at_close);
	CU_add_test(s, "a clock pair a signal handler comes between", test_clock_pair_interrupted);
	CU_add_test(s, "delta overflow -> TIME", test_delta_overflow);
	CU_add_test(s, "window switch", test_window_switch);
	CU_add_test(s, "one-word records", test_word_records);
	CU_add_test(s, "lock records: the lock acquired last again in 4 bytes",
		    test_lock_records);
	CU_add_test(s, "lost accounting", test_lost_accounting);
	CU_add_test(s, "lost until close: LOST + CLOSE still written", test_lost_until_close);
	CU_add_test(s, "suspended for an exec, resumed after its CLOSE", test_suspend_resume);
	CU_add_test(s, "O_EXCL and symlinks", test_create_refuses_existing_and_symlinks);
	CU_add_test(s, "hooks fast and slow path", test_hooks);
	CU_add_test(s, "throttling table: few grows, entries in place", test_throttle_table_growth);
	CU_add_test(s, "hooks raised by a signal handler inside a hook", test_hooks_nested);
	CU_add_test(s, "module registration and ids", test_register_modules);
	CU_add_test(s, "a thread name past 255 bytes is cut, terminated", test_thread_name_cut);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
