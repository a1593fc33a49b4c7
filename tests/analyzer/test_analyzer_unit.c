/* SPDX-License-Identifier: MIT */
/* Unit tests of the analyzer's framework and Paraver merge (also run under
 * ASan+UBSan): the k-way merge against a sort done here, plain and gzip,
 * with 1 and several workers; the framework's one pass over a small trace
 * written here, interval snapshots, and a failing tool's error naming the
 * file and the offset of the record. */
#define _GNU_SOURCE
#include "pt_family.h"
#include "pt_framework.h"
#include "pt_fw_mpi.h"
#include "pv.h"

#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static char workdir[256];

/* ---- merge ------------------------------------------------------------- */
typedef struct line {
	uint64_t key;
	size_t stream, seq;
	char text[128];
} line;

static int cmp_line(const void *a, const void *b)
{
	const line *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static char *read_all(const char *path, size_t *len, int gz)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	if (gz) {
		gzFile g = gzopen(path, "rb");
		CU_ASSERT_PTR_NOT_NULL_FATAL(g);
		int r;
		while ((r = gzread(g, buf + n, (unsigned)(cap - n))) > 0) {
			n += (size_t)r;
			if (n == cap)
				buf = realloc(buf, cap *= 2);
		}
		gzclose(g);
	} else {
		FILE *f = fopen(path, "rb");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		size_t r;
		while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
			n += r;
			if (n == cap)
				buf = realloc(buf, cap *= 2);
		}
		fclose(f);
	}
	*len = n;
	return buf;
}

static void merge_case(unsigned nworkers, int gz, size_t per_stream, uint64_t first_key)
{
	enum { NS = 5 };
	pv_stream st[NS];
	pv_run runs[NS];
	size_t total = NS * per_stream;
	line *ref = calloc(total, sizeof *ref);
	size_t k = 0;
	srand(42);
	/* streams 1 and 3 go to a shared pool when they fit their buffer */
	pv_pool pool;
	char pool_path[512];
	snprintf(pool_path, sizeof pool_path, "%s/pool", workdir);
	CU_ASSERT_EQUAL_FATAL(pv_pool_open(&pool, pool_path), 0);
	for (size_t s = 0; s < NS; s++) {
		char path[512], prefix[32];
		snprintf(path, sizeof path, "%s/s%zu", workdir, s);
		snprintf(prefix, sizeof prefix, "2:%zu:1:1:%zu:", s + 1, s + 1);
		/* streams 0 and 3 store whole lines (like the comms stream) */
		int whole = s == 0 || s == 3;
		CU_ASSERT_EQUAL_FATAL(pv_stream_open(&st[s], path, whole ? NULL : prefix), 0);
		/* keys cross 10^9: the merge's cache of leading digits must notice */
		uint64_t key = first_key;
		/* stream 3 is sparse (like a states stream): the merge's small tree */
		size_t cnt = s == 3 ? per_stream / 100 + 1 : per_stream;
		for (size_t i = 0; i < cnt; i++) {
			key += (uint64_t)(rand() % 3) * (s == 2 ? 1000 : s == 3 ? 700 : 7); /* many equal keys */
			line *l = &ref[k++];
			l->key = key;
			l->stream = s;
			l->seq = i;
			char body[48];
			snprintf(body, sizeof body, ":%zu:%zu\n", s, i);
			if (whole)
				snprintf(l->text, sizeof l->text, "3:%llu:x%s", (unsigned long long)key, body);
			else
				snprintf(l->text, sizeof l->text, "%s%llu%s", prefix, (unsigned long long)key,
					 body);
			if (s == 4) { /* function lines, stored as ops and expanded by the merge */
				unsigned id = (unsigned)(i % 5) * 1000;
				if (id)
					snprintf(l->text, sizeof l->text, "%s%llu:60000019:%u:60000119:%u\n",
						 prefix, (unsigned long long)key, id, id);
				else
					snprintf(l->text, sizeof l->text, "%s%llu:60000019:0:60000119:0\n",
						 prefix, (unsigned long long)key);
				pv_stream_func(&st[s], key, id);
				continue;
			}
			char *p = pv_stream_reserve(&st[s], key);
			const char *stored = whole ? l->text : body;
			memcpy(p, stored, strlen(stored));
			pv_stream_commit(&st[s], strlen(stored));
		}
		CU_ASSERT_EQUAL(pv_stream_finish(&st[s], s % 2 ? &pool : NULL, &runs[s]), 0);
	}
	total = k;
	CU_ASSERT_EQUAL(pv_pool_flush(&pool), 0);
	qsort(ref, total, sizeof *ref, cmp_line);
	char out[512], err[256];
	snprintf(out, sizeof out, "%s/out%u%d", workdir, nworkers, gz);
	int fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	const char *hdr = "#header\n";
	uint64_t hlen = strlen(hdr);
	if (!gz) /* with gz the test writes no header: members start at 0 */
		CU_ASSERT_EQUAL(pwrite(fd, hdr, hlen, 0), (ssize_t)hlen);
	CU_ASSERT_EQUAL(pv_merge(runs, NS, fd, gz ? 0 : hlen, nworkers, gz, err, sizeof err), 0);
	close(fd);
	size_t len;
	char *got = read_all(out, &len, gz);
	size_t want_len = gz ? 0 : hlen;
	for (size_t i = 0; i < total; i++)
		want_len += strlen(ref[i].text);
	CU_ASSERT_EQUAL(len, want_len);
	size_t pos = gz ? 0 : hlen, bad = 0;
	for (size_t i = 0; i < total && pos < len; i++) {
		size_t n = strlen(ref[i].text);
		if (pos + n > len || memcmp(got + pos, ref[i].text, n))
			bad++;
		pos += n;
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(got);
	free(ref);
	for (size_t s = 0; s < NS; s++)
		pv_run_free(&runs[s]);
	pv_pool_free(&pool);
	unlink(out);
}

static void test_merge_one_worker(void)
{
	merge_case(1, 0, 20000, 999990000);
}
/* Times too large to pack with the leaf number: the merge's other compare. */
static void test_merge_huge_times(void)
{
	merge_case(2, 0, 60000, (uint64_t)1 << 62);
}
static void test_merge_workers(void)
{
	merge_case(3, 0, 60000, 999990000); /* > 4 MB of text: several partitions */
}
static void test_merge_gz(void)
{
	merge_case(2, 1, 60000, 999990000);
}
static void test_merge_small(void)
{
	merge_case(4, 0, 3, 999990000);
	merge_case(1, 0, 300, 999990000); /* all pooled, several index notes in none */
}

/* ---- framework --------------------------------------------------------- */
static void put_rec(FILE *f, unsigned kind, unsigned arg, uint32_t delta, const void *pl,
		    size_t len)
{
	size_t size = pt_rec_size_for(len);
	pt_rec_head h = {(uint8_t)kind, (uint8_t)arg, (uint16_t)(size / 8), delta};
	static const char zero[8];
	fwrite(&h, sizeof h, 1, f);
	fwrite(pl, len, 1, f);
	fwrite(zero, size - sizeof h - len, 1, f);
}

/* p1/process.ptl defining function 1 "f"; p1/t1.ptl and p1/t2.ptl with
 * n enter/exit pairs 10 ns apart, starting at 1000 ns (t2 at 2000). */
static void write_trace(const char *dir, unsigned n)
{
	char path[512];
	snprintf(path, sizeof path, "%s/p1", dir);
	mkdir(dir, 0700);
	mkdir(path, 0700);
	for (int file = 0; file < 3; file++) {
		pt_file_header h;
		memset(&h, 0, sizeof h);
		memcpy(h.magic, PT_FORMAT_MAGIC, PT_FORMAT_MAGIC_LEN);
		h.version_major = PT_FORMAT_VERSION_MAJOR;
		h.header_size = sizeof h;
		h.byte_order = PT_BYTE_ORDER_LITTLE;
		h.file_kind = file == 0 ? PT_FILE_PROCESS : PT_FILE_THREAD;
		h.pid = 1;
		h.tid = (uint32_t)file;
		h.clock_source = PT_CLOCK_MONOTONIC;
		h.tick_mult = 1;
		snprintf(h.program, sizeof h.program, "unit");
		if (file == 0)
			snprintf(path, sizeof path, "%s/p1/process.ptl", dir);
		else
			snprintf(path, sizeof path, "%s/p1/t%d.ptl", dir, file);
		FILE *f = fopen(path, "wb");
		fwrite(&h, sizeof h, 1, f);
		uint64_t t0 = 1000 * (uint64_t)(file ? file : 1);
		put_rec(f, PT_REC_TIME, 0, 0, &t0, 8);
		if (file == 0) {
			char d[sizeof(pt_rec_func_def) + 16];
			pt_rec_func_def fd = {1, 7, 0};
			memcpy(d, &fd, sizeof fd);
			memcpy(d + sizeof fd, "f\0unit.c\0", 9);
			put_rec(f, PT_REC_FUNC_DEF, 0, 0, d, sizeof fd + 9);
		} else {
			for (unsigned i = 0; i < n; i++) {
				pt_rec_head e = pt_rec_func(PT_REC_FUNC_ENTER, 1, i ? 10 : 0);
				pt_rec_head x = pt_rec_func(PT_REC_FUNC_EXIT, 1, 10);
				fwrite(&e, 8, 1, f);
				fwrite(&x, 8, 1, f);
			}
		}
		fclose(f);
	}
}

typedef struct counts {
	pthread_mutex_t lock;
	uint64_t events, calls, shards, fail_at;
	uint64_t snaps;
	const pt_trace_ctx *ctx;
} counts;
typedef struct cshard {
	counts *c;
	uint64_t events, calls;
} cshard;
typedef struct csnap {
	pt_interval_snapshot base;
	uint64_t calls;
} csnap;

static counts g;
static void *c_init(const pt_trace_ctx *ctx, const char *o, char *e, size_t el)
{
	(void)o;
	(void)e;
	(void)el;
	g.ctx = ctx;
	return &g;
}
static void *c_shard_init(void *tool, const pt_shard_info *s, char *e, size_t el)
{
	(void)s;
	(void)e;
	(void)el;
	cshard *x = calloc(1, sizeof *x);
	x->c = tool;
	return x;
}
static int c_event(void *st, const pt_event *ev)
{
	cshard *x = st;
	x->events++;
	if (ev->kind == PT_REC_FUNC_ENTER) {
		CU_ASSERT_EQUAL(pt_ctx_func_id(x->c->ctx, 0, ev->func_id), 1);
		x->calls++;
	}
	return x->c->fail_at && x->events == x->c->fail_at ? -1 : 0;
}
static const char *c_error(void *st)
{
	(void)st;
	return "deliberate failure";
}
static int c_exit(void *st, uint64_t last, int complete)
{
	(void)last;
	(void)complete;
	cshard *x = st;
	pthread_mutex_lock(&x->c->lock);
	x->c->events += x->events;
	x->c->calls += x->calls;
	x->c->shards++;
	pthread_mutex_unlock(&x->c->lock);
	free(x);
	return 0;
}
static pt_interval_snapshot *c_snap(void *st, uint64_t id)
{
	(void)id;
	cshard *x = st;
	csnap *s = calloc(1, sizeof *s);
	s->calls = x->calls;
	return &s->base;
}
static pt_interval_snapshot *c_combine(void *tool, const pt_interval_snapshot *const *latest,
				       size_t n, uint64_t id, uint64_t end)
{
	(void)tool;
	(void)end;
	csnap *w = calloc(1, sizeof *w);
	for (size_t i = 0; i < n; i++)
		if (latest[i]) {
			CU_ASSERT(latest[i]->interval_id <= id);
			w->calls += ((const csnap *)latest[i])->calls; /* cumulative */
		}
	return &w->base;
}
static int c_print_iv(void *tool, pt_interval_snapshot *const *whole, size_t n, FILE *o)
{
	(void)tool;
	(void)o;
	g.snaps = n;
	for (size_t i = 1; i < n; i++) /* cumulative counts never decrease */
		CU_ASSERT(((csnap *)whole[i])->calls >= ((csnap *)whole[i - 1])->calls);
	if (n)
		CU_ASSERT_EQUAL(((csnap *)whole[n - 1])->calls, g.calls);
	return 0;
}
static void c_release(void *tool, pt_interval_snapshot *s)
{
	(void)tool;
	free(s);
}

static const pt_tool counting = {
	.api_version = PT_TOOL_API_VERSION, .name = "counting", .init = c_init,
	.shard_init = c_shard_init, .shard_event = c_event, .shard_exit = c_exit,
	.shard_error = c_error, .shard_interval = c_snap, .combine_intervals = c_combine,
	.print_intervals = c_print_iv, .release_interval = c_release};

/* An MPI rank's times on rank 0's clock: the offset measured at MPI_Init,
 * plus the drift measured by MPI_Finalize, linearly in between. */
static void test_mpi_clock_map(void)
{
	/* this host's clock 50 s ahead of rank 0's, drifting 2 us in 10 s */
	pt_fw_mpi m = {.rank = 1, .clocks = 2};
	m.l[0] = 50000000000ull + 1000000;
	m.off[0] = -50000000000ll;
	m.l[1] = m.l[0] + 10000000000ull;
	m.off[1] = -50000000000ll + 2000;
	pt_fw_mpi_fit(&m);
	CU_ASSERT_EQUAL(pt_fw_mpi_map(&m, m.l[0]), 1000000);
	CU_ASSERT_EQUAL(pt_fw_mpi_map(&m, m.l[1]), m.l[1] - 50000000000ull + 2000);
	uint64_t mid = m.l[0] + (m.l[1] - m.l[0]) / 2; /* half the drift */
	CU_ASSERT_EQUAL(pt_fw_mpi_map(&m, mid), mid - 50000000000ull + 1000);
	/* after the last point: the same line */
	CU_ASSERT_EQUAL(pt_fw_mpi_map(&m, m.l[1] + 10000000000ull),
	                m.l[1] + 10000000000ull - 50000000000ull + 4000);
	/* one point (a rank killed before MPI_Finalize): the offset alone */
	m.clocks = 1;
	CU_ASSERT_EQUAL(pt_fw_mpi_map(&m, mid), mid - 50000000000ull);
	/* a clock behind rank 0's, drifting the other way */
	pt_fw_mpi n = {.rank = 2, .clocks = 2};
	n.l[0] = 5000;
	n.off[0] = 3000000000;
	n.l[1] = 5000 + 1000000000;
	n.off[1] = 3000000000 - 100;
	pt_fw_mpi_fit(&n);
	CU_ASSERT_EQUAL(pt_fw_mpi_map(&n, n.l[1]), n.l[1] + 3000000000 - 100);
	CU_ASSERT_EQUAL(pt_fw_mpi_map(&n, n.l[0] + 500000000),
	                n.l[0] + 500000000 + 3000000000 - 50);
}

/* Each clock point is only as good as half its round trip: a slow one
 * does not drive the drift beyond what its bound allows. */
static void test_mpi_clock_fit(void)
{
	/* one clock (no drift); the finalize exchange kept a 2 ms round trip
	 * whose answer was late: its offset is 1 ms off */
	pt_fw_mpi m = {.rank = 1, .clocks = 2};
	m.l[0] = 1000000000;
	m.off[0] = 7000;
	m.rtt[0] = 4000;
	m.l[1] = m.l[0] + 50000000;
	m.off[1] = 7000 + 1000000;
	m.rtt[1] = 2004000;
	pt_fw_mpi_fit(&m);
	CU_ASSERT_EQUAL(m.use[0], 7000);
	CU_ASSERT_EQUAL(m.use[1], 7000);
	CU_ASSERT_EQUAL(pt_fw_mpi_map(&m, m.l[1]), m.l[1] + 7000);
	/* the same with the slow exchange at MPI_Init */
	pt_fw_mpi s = m;
	s.off[0] = 7000 - 900000;
	s.rtt[0] = 1900000;
	s.off[1] = 7000;
	s.rtt[1] = 3000;
	pt_fw_mpi_fit(&s);
	CU_ASSERT_EQUAL(s.use[0], 7000);
	CU_ASSERT_EQUAL(pt_fw_mpi_map(&s, s.l[0] + 1000), s.l[0] + 1000 + 7000);
	/* a slow point that still proves a drift: the least one both allow */
	s.off[0] = 7000 - 1500000;
	pt_fw_mpi_fit(&s);
	CU_ASSERT_EQUAL(s.use[0], 7000 - 1500000 + 950000);
	CU_ASSERT_EQUAL(s.use[1], 7000 - 1500);
	/* two good points 100 us apart: the drift, less their half widths */
	pt_fw_mpi d = {.rank = 2, .clocks = 2};
	d.l[0] = 0;
	d.off[0] = 0;
	d.rtt[0] = 4000;
	d.l[1] = 10000000000ull;
	d.off[1] = 100000;
	d.rtt[1] = 2000;
	pt_fw_mpi_fit(&d);
	CU_ASSERT_EQUAL(d.use[0], 2000);
	CU_ASSERT_EQUAL(d.use[1], 99000);
	CU_ASSERT_EQUAL(pt_fw_mpi_map(&d, 5000000000ull), 5000000000ull + 50500);
	/* within each other's bounds: no drift, the middle of the overlap */
	d.off[0] = 1500;
	d.off[1] = 500;
	pt_fw_mpi_fit(&d);
	CU_ASSERT_EQUAL(d.use[0], 500);
	CU_ASSERT_EQUAL(d.use[1], 500);
	d.off[0] = 2500;
	pt_fw_mpi_fit(&d);
	CU_ASSERT_EQUAL(d.use[0], 1000); /* [500, 4500] and [-500, 1500] */
	CU_ASSERT_EQUAL(d.use[1], 1000);
}

static void test_framework_pass(void)
{
	char dir[512], err[512];
	snprintf(dir, sizeof dir, "%s/trace", workdir);
	write_trace(dir, 1000);
	memset(&g, 0, sizeof g);
	pthread_mutex_init(&g.lock, NULL);
	pt_fw_tool t = {&counting, NULL, NULL};
	FILE *devnull = fopen("/dev/null", "w");
	pt_fw_options o = {.dir = dir, .jobs = 2, .interval_ns = 5000, .out = devnull};
	pt_fw_stats st;
	CU_ASSERT_EQUAL(pt_fw_run(&o, &t, 1, &st, err, sizeof err), 0);
	CU_ASSERT_EQUAL(g.shards, 2);
	CU_ASSERT_EQUAL(g.calls, 2000);
	CU_ASSERT_EQUAL(g.events, 2 * (2000 + 1)); /* + the leading TIME record */
	CU_ASSERT_EQUAL(st.events, g.events);
	/* 1000 + 20000 ns of records per thread, from t0 = 1000: 5 us intervals */
	CU_ASSERT(g.snaps >= 4 && g.snaps <= 6);
	fclose(devnull);
}

static void test_framework_error(void)
{
	char dir[512], err[512];
	snprintf(dir, sizeof dir, "%s/trace", workdir);
	write_trace(dir, 10);
	memset(&g, 0, sizeof g);
	pthread_mutex_init(&g.lock, NULL);
	g.fail_at = 5; /* the 5th record: TIME at 256, then 8-byte records: offset 256+16+3*8 */
	pt_fw_tool t = {&counting, NULL, NULL};
	pt_fw_options o = {.dir = dir, .jobs = 1};
	CU_ASSERT_EQUAL(pt_fw_run(&o, &t, 1, NULL, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "tool counting"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, ".ptl: offset 296: deliberate failure"));
}

static void test_load_tool_errors(void)
{
	pt_fw_tool t;
	char err[512];
	CU_ASSERT_EQUAL(pt_fw_load_tool("/nonexistent/x.so:opt", &t, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/x.so"));
	/* a shared object without pt_tool_entry */
	CU_ASSERT_EQUAL(pt_fw_load_tool("libz.so.1", &t, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "pt_tool_entry"));
}

int main(void)
{
	pt_families_use(pt_family_builtin);
	snprintf(workdir, sizeof workdir, "/tmp/pt-analyzer-unit-XXXXXX");
	if (!mkdtemp(workdir))
		return 1;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("analyzer", NULL, NULL);
	CU_add_test(s, "merge, one worker", test_merge_one_worker);
	CU_add_test(s, "merge, several workers and partitions", test_merge_workers);
	CU_add_test(s, "merge, gzip members", test_merge_gz);
	CU_add_test(s, "merge, tiny streams", test_merge_small);
	CU_add_test(s, "merge, times past the packed range", test_merge_huge_times);
	CU_add_test(s, "MPI: a rank's clock mapped onto rank 0's", test_mpi_clock_map);
	CU_add_test(s, "MPI: a slow clock point does not drive the drift", test_mpi_clock_fit);
	CU_add_test(s, "framework: one pass, intervals", test_framework_pass);
	CU_add_test(s, "framework: tool error names file and offset", test_framework_error);
	CU_add_test(s, "--tool load errors", test_load_tool_errors);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", workdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", workdir);
	return failed ? 1 : 0;
}
