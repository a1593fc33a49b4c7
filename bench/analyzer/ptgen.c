/* SPDX-License-Identifier: MIT */
/* ptgen: writes synthetic paratrace logs straight from <paratrace/format.h>,
 * so the analyzer can be tested and benchmarked without the runtime.
 *
 *   ptgen --out DIR --scenario bench [--threads 8] [--events N] [--seed S]
 *       random nested calls over 64 functions, a shared mutex taken every
 *       ~1000 events; N events in total over all threads (default 10 M).
 *   ptgen --out DIR --scenario known [--threads T] [--calls N]
 *         [--sleep-ns S] [--wait-ns W] [--hold-ns H] [--fork]
 *       deterministic timings, so tests can derive every figure of the
 *       profile from the parameters: see scenario_known() below.
 *   ptgen --out DIR --scenario script --script FILE
 *       the records a small text file lists, one per line (the golden tests'
 *       inputs, tests/analyzer/golden/): see scenario_script() below.
 *   ptgen --out DIR --scenario threads [--threads T] [--calls N]
 *       T short threads one after the other (the shape of a server that
 *       starts a thread per request), each calling N functions.
 *   --version-major V writes a header with that major version (tests of the
 *       "newer format" error).
 *
 * The clock is PT_CLOCK_MONOTONIC with mult 1, shift 0: ticks are ns.
 */
#define _GNU_SOURCE
#include <paratrace/format.h>
#include <paratrace/mpi_calls.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BASE_NS 1000000000ull /* arbitrary monotonic origin: times are absolute */
#define REALTIME_NS 1795000000000000000ull

static unsigned version_major = PT_FORMAT_VERSION_MAJOR;
static unsigned version_minor = PT_FORMAT_VERSION_MINOR;
static uint64_t run_id = 0x5eed5eedull;

typedef struct gen_file {
	FILE *f;
	char *path;
	uint64_t last;  /* time of the previous record */
	uint64_t nrecs; /* records written */
	uint64_t pos;   /* file offset of the next byte */
	uint64_t last_acquired; /* object of the last LOCK_ACQUIRED, 0 if none */
	uint32_t last_func;     /* id of the previous function record, 0 if none (3.0) */
	char *buf;
	size_t used, cap;
} gen_file;

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("ptgen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void flush_buf(gen_file *g)
{
	if (g->used && fwrite(g->buf, 1, g->used, g->f) != g->used)
		die("%s: write: %s", g->path, strerror(errno));
	g->used = 0;
}

static void put(gen_file *g, const void *p, size_t n)
{
	if (g->used + n > g->cap)
		flush_buf(g);
	memcpy(g->buf + g->used, p, n);
	g->used += n;
	g->pos += n;
}

/* Records with a payload start at a multiple of 8: after a short or
 * compact function record, 2-byte pads (format 3.0) or a pad word (2.0),
 * as the runtime writes them. */
static void align8(gen_file *g)
{
	while (version_major >= 3 && (g->pos & 7)) {
		uint16_t pad = PT_PAD16;
		put(g, &pad, sizeof pad);
	}
	if (g->pos & 4) {
		uint32_t pad = PT_COMPACT_PAD;
		put(g, &pad, sizeof pad);
	}
}

/* One record at absolute time t; a TIME record first when the delta does
 * not fit (and for the first record of the file). */
static void emit2(gen_file *g, uint64_t t, unsigned kind, unsigned arg, const void *p1,
		  size_t len1, const void *p2, size_t len2)
{
	if (t < g->last)
		die("%s: time goes backwards (%llu < %llu)", g->path, (unsigned long long)t,
		    (unsigned long long)g->last);
	align8(g);
	if (g->nrecs == 0 || t - g->last > UINT32_MAX) {
		pt_rec_head h = {PT_REC_TIME, 0, (uint16_t)(pt_rec_size_for(8) / 8), 0};
		pt_rec_time pl = {t};
		put(g, &h, sizeof h);
		put(g, &pl, sizeof pl);
		g->last = t;
		g->nrecs++;
	}
	size_t size = pt_rec_size_for(len1 + len2);
	pt_rec_head h = {(uint8_t)kind, (uint8_t)arg, (uint16_t)(size / 8),
			 (uint32_t)(t - g->last)};
	put(g, &h, sizeof h);
	if (len1)
		put(g, p1, len1);
	if (len2)
		put(g, p2, len2);
	static const char zeros[8];
	put(g, zeros, size - sizeof h - len1 - len2);
	g->last = t;
	g->nrecs++;
}

static void emit(gen_file *g, uint64_t t, unsigned kind, unsigned arg, const void *p, size_t len)
{
	emit2(g, t, kind, arg, p, len, NULL, 0);
}

static inline void emit_func(gen_file *g, uint64_t t, unsigned kind, uint32_t id)
{
	if (g->nrecs == 0 || t - g->last > UINT32_MAX || t < g->last) {
		emit2(g, t, PT_REC_TIME, 0, &t, 8, NULL, 0); /* resync; harmless extra record */
	}
	uint64_t d = t - g->last;
	if (version_major >= 3 && id == g->last_func && d < PT_SHORT_LIMIT) {
		uint16_t word = pt_short_word(kind == PT_REC_FUNC_EXIT, (uint32_t)d);
		put(g, &word, sizeof word);
	} else if (version_major >= 2 && pt_compact_fits(id, d)) {
		uint32_t word = pt_compact_word(kind, id, (uint32_t)d);
		put(g, &word, sizeof word);
	} else {
		pt_rec_head h = pt_rec_func(kind, id, (uint32_t)d);
		put(g, &h, sizeof h);
	}
	g->last_func = id;
	g->last = t;
	g->nrecs++;
}

static gen_file *gen_open(const char *path, int kind, uint32_t pid, uint32_t tid, uint32_t ppid,
			  uint32_t flags, const char *program, uint64_t open_ns, uint64_t stream)
{
	gen_file *g = calloc(1, sizeof *g);
	if (!g)
		die("out of memory");
	g->path = strdup(path);
	g->f = fopen(path, "wb");
	if (!g->f)
		die("%s: %s", path, strerror(errno));
	g->cap = 1 << 20;
	g->buf = malloc(g->cap);
	pt_file_header h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, PT_FORMAT_MAGIC, PT_FORMAT_MAGIC_LEN);
	h.version_major = (uint16_t)version_major;
	h.version_minor = (uint16_t)version_minor;
	h.header_size = sizeof h;
	h.byte_order = PT_BYTE_ORDER_LITTLE;
	h.file_kind = (uint8_t)kind;
	h.flags = flags;
	h.pid = pid;
	h.tid = tid;
	h.ppid = ppid;
	h.clock_source = PT_CLOCK_MONOTONIC;
	h.tick_shift = 0;
	h.tick_mult = 1;
	h.open.ticks = open_ns;
	h.open.mono_ns = open_ns;
	h.open.real_ns = REALTIME_NS + (open_ns - BASE_NS);
	h.run_id = run_id;
	h.gpu_stream = stream;
	snprintf(h.program, sizeof h.program, "%s", program);
	put(g, &h, sizeof h);
	return g;
}

static void gen_close(gen_file *g, int write_close)
{
	if (write_close) {
		pt_clock_pair c = {g->last, g->last, REALTIME_NS + (g->last - BASE_NS)};
		emit(g, g->last, PT_REC_CLOSE, 0, &c, sizeof c);
	}
	flush_buf(g);
	if (fclose(g->f))
		die("%s: close: %s", g->path, strerror(errno));
	free(g->buf);
	free(g->path);
	free(g);
}

static void mkdir_p(const char *path)
{
	if (mkdir(path, 0700) && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
}

static gen_file *open_process_log(const char *out, uint32_t pid, uint32_t ppid, uint32_t flags,
				  const char *program, uint64_t t)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/p%u", out, pid);
	mkdir_p(path);
	snprintf(path, sizeof path, "%s/p%u/process.ptl", out, pid);
	gen_file *g = gen_open(path, PT_FILE_PROCESS, pid, 0, ppid, flags, program, t, 0);
	/* PROCESS_INFO: exe path, then argv strings */
	char strs[256];
	int n = snprintf(strs, sizeof strs, "/usr/bin/%s%c%s%c--synthetic", program, 0, program, 0);
	pt_rec_process_info pi = {2, flags, 0};
	emit2(g, t, PT_REC_PROCESS_INFO, 0, &pi, sizeof pi, strs, (size_t)n + 1);
	char mpath[256];
	int m = snprintf(mpath, sizeof mpath, "/usr/bin/%s", program);
	pt_rec_module_map mm = {0x400000, 0x400000, 0x500000, 0, PT_MODULE_MAIN};
	emit2(g, t, PT_REC_MODULE_MAP, 0, &mm, sizeof mm, mpath, (size_t)m + 1);
	return g;
}

static void func_def(gen_file *g, uint64_t t, uint32_t id, const char *name, const char *file,
		     uint32_t line)
{
	char s[512];
	size_t ln = strlen(name) + 1, lf = strlen(file) + 1;
	if (ln + lf > sizeof s)
		die("name too long");
	memcpy(s, name, ln);
	memcpy(s + ln, file, lf);
	pt_rec_func_def d = {id, line, 0x400000};
	emit2(g, t, PT_REC_FUNC_DEF, 0, &d, sizeof d, s, ln + lf);
}

static gen_file *open_thread_log(const char *out, uint32_t pid, uint32_t tid, const char *program,
				 uint64_t t)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/p%u/t%u.ptl", out, pid, tid);
	return gen_open(path, PT_FILE_THREAD, pid, tid, 0, 0, program, t, 0);
}

static void thread_start(gen_file *g, uint64_t t, uint64_t seq, uint32_t creator, uint32_t flags,
			 uint64_t routine)
{
	pt_rec_thread_start s = {seq, creator, flags, routine};
	emit(g, t, PT_REC_THREAD_START, 0, &s, sizeof s);
}

static void thread_end(gen_file *g, uint64_t t)
{
	pt_rec_thread_end e = {0, 0, 0};
	emit(g, t, PT_REC_THREAD_END, 0, &e, sizeof e);
}

/* As the runtime writes them: the short form (object only, result 0). */
/* A lock record with result 0; 4 bytes for the object acquired last, taken
 * or released again (format 2.0), as the runtime writes it. */
static void lock_rec(gen_file *g, uint64_t t, unsigned kind, unsigned type, uint64_t obj)
{
	if (version_major >= 2 && obj == g->last_acquired && g->nrecs > 0 && t >= g->last &&
	    t - g->last < PT_COMPACT_LOCK_LIMIT &&
	    (kind == PT_REC_LOCK_ACQUIRED || kind == PT_REC_LOCK_RELEASED)) {
		uint32_t word = pt_compact_lock_word(kind, type, (uint32_t)(t - g->last));
		put(g, &word, sizeof word);
		g->last = t;
		g->nrecs++;
		return;
	}
	if (kind == PT_REC_LOCK_ACQUIRED)
		g->last_acquired = obj;
	emit(g, t, kind, type, &obj, sizeof obj);
}

/* xorshift64*: fast, deterministic, good enough for shaping a workload. */
static uint64_t rng_state = 88172645463325252ull;
static inline uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

/* ---------------------------------------------------------------------- */
/* bench: throughput input. Thread logs are dominated by FUNC records,
 * like a real instrumented run; a mutex every ~1000 events keeps the
 * synchronization paths of the analyzer exercised. */
static void scenario_bench(const char *out, unsigned nthreads, uint64_t events)
{
	const uint32_t pid = 4000;
	const unsigned nfuncs = 64;
	uint64_t t0 = BASE_NS;
	gen_file *p = open_process_log(out, pid, 1, 0, "synth", t0);
	for (unsigned i = 1; i <= nfuncs; i++) {
		char name[64];
		snprintf(name, sizeof name, "_ZN5synth4workILi%uEEvv", i); /* void synth::work<i>() */
		func_def(p, t0, i, name, "synth.cc", 10 * i);
	}
	uint64_t per_thread = events / nthreads;
	uint64_t tmax = t0;
	for (unsigned th = 0; th < nthreads; th++) {
		uint32_t tid = pid + th;
		uint64_t t = t0 + 1000 + th * 100;
		gen_file *g = open_thread_log(out, pid, tid, "synth", t);
		thread_start(g, t, th ? th : 0, th ? pid : 0, th ? 0 : PT_THREAD_MAIN, 0x401000);
		if (th == 0)
			for (unsigned k = 1; k < nthreads; k++) {
				pt_rec_thread_create c = {k, 0x401000, 0, 0};
				emit(g, t + k, PT_REC_THREAD_CREATE, 0, &c, sizeof c);
			}
		t += nthreads;
		uint32_t stack[16];
		unsigned depth = 0;
		uint64_t n = 0;
		while (n < per_thread) {
			uint64_t r = rnd();
			t += 5 + (r & 63);
			if ((r >> 8) % 1000 == 0 && depth == 0 && n + 3 <= per_thread) {
				/* Half the acquisitions wait (REQUEST first), half do not. */
				uint64_t w = (r >> 20) & 1 ? (r >> 21) & 1023 : 0;
				if (w) {
					lock_rec(g, t, PT_REC_LOCK_REQUEST, PT_LOCK_MUTEX, 0x601000);
					n++;
				}
				lock_rec(g, t + w, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, 0x601000);
				t += w + 50;
				lock_rec(g, t, PT_REC_LOCK_RELEASED, PT_LOCK_MUTEX, 0x601000);
				n += 2;
				continue;
			}
			int enter = depth == 0 || (depth < 12 && ((r >> 16) & 1));
			/* close every frame before the budget runs out */
			if (per_thread - n <= depth)
				enter = 0;
			if (enter) {
				uint32_t id = 1 + (uint32_t)((r >> 24) % nfuncs);
				stack[depth++] = id;
				emit_func(g, t, PT_REC_FUNC_ENTER, id);
			} else {
				emit_func(g, t, PT_REC_FUNC_EXIT, stack[--depth]);
			}
			n++;
		}
		t += 100;
		thread_end(g, t);
		if (t > tmax)
			tmax = t;
		gen_close(g, 1);
	}
	pt_rec_exit ex = {0, PT_EXIT_NORMAL};
	emit(p, tmax, PT_REC_EXIT, 0, &ex, sizeof ex);
	gen_close(p, 1);
}

/* ---------------------------------------------------------------------- */
/* known: timings fixed by construction (times in ns, relative to the
 * main thread's start at 0):
 *
 *   main (tid = pid): THREAD_START at 0; main() entered at 0; creates worker
 *     k (k = 1..T) at 1000*k (THREAD_CREATE seq k); joins them in order
 *     (JOIN_BEGIN at J0 = end of the last worker's creation + 1000, each
 *     JOIN_END when that worker has ended); exits main() and ends 1000 later.
 *   worker k (tid = pid + k): THREAD_START at 1000*k + 500; N iterations of
 *       enter work (id 2)
 *         enter sleep_fixed (id 3); exit after S          -> sleep_fixed: S each
 *         lock request on mutex 0x601000; acquired W later; released H later
 *         user event type 1000 value (i % 3) + 1 at the release
 *       exit work 100 after the release                   -> work: S + W + H + 100
 *       100 ns gap before the next iteration
 *   every worker enters worker_main (id 4) at start and exits it at the end;
 *   with --fork, main forks a child (pid+100) at 500 that runs one
 *     thread calling child_task (id 5) for 2*S and exits.
 * Tests compute expectations from T, N, S, W, H with the same formulas.
 */
static void scenario_known(const char *out, unsigned T, unsigned N, uint64_t S, uint64_t W,
			   uint64_t H, int do_fork)
{
	const uint32_t pid = 7000;
	const uint64_t lock = 0x601000;
	uint64_t t0 = BASE_NS;
	gen_file *p = open_process_log(out, pid, 1, 0, "known", t0);
	func_def(p, t0, 1, "main", "known.c", 50);
	func_def(p, t0, 2, "work", "known.c", 20);
	func_def(p, t0, 3, "sleep_fixed", "known.c", 10);
	func_def(p, t0, 4, "_Z11worker_mainPv", "known.c", 30); /* worker_main(void*) */
	func_def(p, t0, 5, "child_task", "known.c", 40);

	uint64_t iter = S + W + H + 100 + 100;
	uint64_t worker_end[65];
	if (T > 64)
		die("--threads at most 64 for the known scenario");
	for (unsigned k = 1; k <= T; k++) {
		uint32_t tid = pid + k;
		uint64_t t = t0 + 1000 * k + 500;
		gen_file *g = open_thread_log(out, pid, tid, "known", t);
		thread_start(g, t, k, pid, 0, 0x401200);
		emit_func(g, t, PT_REC_FUNC_ENTER, 4);
		if (k == 1) {
			pt_rec_user_type ut = {1000, 0};
			emit2(g, t, PT_REC_USER_TYPE, 0, &ut, sizeof ut, "Phase", 6);
			static const char *names[] = {"", "alpha", "beta", "gamma"};
			for (int v = 1; v <= 3; v++) {
				pt_rec_user_event ue = {1000, 0, v};
				emit2(g, t, PT_REC_USER_VALUE_NAME, 0, &ue, sizeof ue, names[v],
				      strlen(names[v]) + 1);
			}
		}
		for (unsigned i = 0; i < N; i++) {
			emit_func(g, t, PT_REC_FUNC_ENTER, 2);
			emit_func(g, t, PT_REC_FUNC_ENTER, 3);
			t += S;
			emit_func(g, t, PT_REC_FUNC_EXIT, 3);
			lock_rec(g, t, PT_REC_LOCK_REQUEST, PT_LOCK_MUTEX, lock);
			t += W;
			lock_rec(g, t, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, lock);
			t += H;
			lock_rec(g, t, PT_REC_LOCK_RELEASED, PT_LOCK_MUTEX, lock);
			pt_rec_user_event ue = {1000, 0, (int64_t)(i % 3) + 1};
			emit(g, t, PT_REC_USER_EVENT, 0, &ue, sizeof ue);
			t += 100;
			emit_func(g, t, PT_REC_FUNC_EXIT, 2);
			t += 100;
		}
		emit_func(g, t, PT_REC_FUNC_EXIT, 4);
		thread_end(g, t);
		worker_end[k] = t;
		(void)iter;
		gen_close(g, 1);
	}

	gen_file *m = open_thread_log(out, pid, pid, "known", t0);
	thread_start(m, t0, 0, 0, PT_THREAD_MAIN, 0);
	emit_func(m, t0, PT_REC_FUNC_ENTER, 1);
	if (do_fork) {
		pt_rec_fork f = {pid + 100, pid, 0, 0};
		emit(m, t0 + 500, PT_REC_FORK, 0, &f, sizeof f);
	}
	for (unsigned k = 1; k <= T; k++) {
		pt_rec_thread_create c = {k, 0x401200, 0, 0};
		emit(m, t0 + 1000 * k, PT_REC_THREAD_CREATE, 0, &c, sizeof c);
	}
	uint64_t t = t0 + 1000 * T + 1000;
	for (unsigned k = 1; k <= T; k++) {
		pt_rec_thread_join j = {0x7f0000 + k, k, 0, 0};
		emit(m, t, PT_REC_THREAD_JOIN_BEGIN, 0, &j, sizeof j);
		if (worker_end[k] > t)
			t = worker_end[k];
		emit(m, t, PT_REC_THREAD_JOIN_END, 0, &j, sizeof j);
	}
	emit_func(m, t, PT_REC_FUNC_EXIT, 1);
	t += 1000;
	thread_end(m, t);
	gen_close(m, 1);
	pt_rec_exit ex = {0, PT_EXIT_NORMAL};
	emit(p, t, PT_REC_EXIT, 0, &ex, sizeof ex);
	gen_close(p, 1);

	if (do_fork) {
		uint32_t cpid = pid + 100;
		uint64_t ct = t0 + 500;
		gen_file *cp = open_process_log(out, cpid, pid, PT_HDR_FLAG_FORKED, "known", ct);
		pt_rec_fork f = {cpid, pid, 0, 0};
		emit(cp, ct, PT_REC_FORK, 0, &f, sizeof f);
		func_def(cp, ct, 5, "child_task", "known.c", 40);
		gen_file *c = open_thread_log(out, cpid, cpid, "known", ct);
		thread_start(c, ct, 0, 0, PT_THREAD_MAIN, 0);
		emit_func(c, ct, PT_REC_FUNC_ENTER, 5);
		emit_func(c, ct + 2 * S, PT_REC_FUNC_EXIT, 5);
		thread_end(c, ct + 2 * S);
		gen_close(c, 1);
		pt_rec_exit cex = {0, PT_EXIT__EXIT};
		emit(cp, ct + 2 * S, PT_REC_EXIT, 0, &cex, sizeof cex);
		gen_close(cp, 1);
	}
}

static uint64_t num(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s)
		die("bad number '%s'", s);
	if (*end == 'k' || *end == 'K')
		v *= 1000, end++;
	else if (*end == 'M')
		v *= 1000000, end++;
	else if (*end == 'G')
		v *= 1000000000, end++;
	if (*end)
		die("bad number '%s'", s);
	return v;
}

/* ---------------------------------------------------------------------- */
/* threads: T short threads, one after the other, created and joined by
 * main (a server starting one thread per request). Each calls `calls`
 * functions (handle_request, nested parse/reply) and ends. */
static void scenario_threads(const char *out, unsigned T, unsigned calls)
{
	const uint32_t pid = 9000;
	uint64_t t0 = BASE_NS;
	gen_file *p = open_process_log(out, pid, 1, 0, "server", t0);
	func_def(p, t0, 1, "main", "server.c", 10);
	func_def(p, t0, 2, "handle_request", "server.c", 20);
	func_def(p, t0, 3, "parse", "server.c", 30);
	func_def(p, t0, 4, "reply", "server.c", 40);
	gen_file *m = open_thread_log(out, pid, pid, "server", t0);
	thread_start(m, t0, 0, 0, PT_THREAD_MAIN, 0);
	emit_func(m, t0, PT_REC_FUNC_ENTER, 1);
	uint64_t t = t0 + 100;
	for (unsigned k = 1; k <= T; k++) {
		pt_rec_thread_create c = {k, 0x401300, 0, 0};
		emit(m, t, PT_REC_THREAD_CREATE, 0, &c, sizeof c);
		uint64_t w = t + 50;
		gen_file *g = open_thread_log(out, pid, pid + k, "server", w);
		thread_start(g, w, k, pid, 0, 0x401300);
		for (unsigned i = 0; i < calls; i++) {
			emit_func(g, w, PT_REC_FUNC_ENTER, 2);
			emit_func(g, w + 10, PT_REC_FUNC_ENTER, 3);
			emit_func(g, w + 40, PT_REC_FUNC_EXIT, 3);
			emit_func(g, w + 50, PT_REC_FUNC_ENTER, 4);
			emit_func(g, w + 90, PT_REC_FUNC_EXIT, 4);
			emit_func(g, w + 100, PT_REC_FUNC_EXIT, 2);
			w += 110;
		}
		thread_end(g, w);
		gen_close(g, 1);
		pt_rec_thread_join j = {0x7f0000 + k, k, 0, 0};
		emit(m, t + 10, PT_REC_THREAD_JOIN_BEGIN, 0, &j, sizeof j);
		t = w + 10;
		emit(m, t, PT_REC_THREAD_JOIN_END, 0, &j, sizeof j);
		t += 10;
	}
	emit_func(m, t, PT_REC_FUNC_EXIT, 1);
	thread_end(m, t);
	gen_close(m, 1);
	pt_rec_exit ex = {0, PT_EXIT_NORMAL};
	emit(p, t, PT_REC_EXIT, 0, &ex, sizeof ex);
	gen_close(p, 1);
}

/* ---------------------------------------------------------------------- */
/* script: the records of a small trace, listed in a text file. '#' starts
 * a comment. Lines:
 *
 *   format MAJOR.MINOR                  the logs' format version (before any
 *                                       process; default this one's): how
 *                                       the analyzer reads what follows
 *   process PID PROGRAM [forked PPID]   opens pPID/process.ptl (at time 0; a
 *                                       forked one gets its FORK record)
 *   func ID NAME FILE LINE              FUNC_DEF in the last process opened
 *                                       (in NAME, "\s" stands for a space,
 *                                       "\xNN" for the byte NN)
 *   T TID RECORD ARGS...                a record of thread TID at T ns (from
 *                                       the run's origin); the thread's log
 *                                       is opened by its `start`
 *   T pPID exited STATUS                the process's EXIT record
 *
 * RECORD ARGS: start main | start SEQ CREATOR; end; name NAME; enter ID;
 * exit ID; landed ID (FUNC_LANDED); create SEQ; join-begin SEQ; join-end SEQ; lock-request TYPE OBJ;
 * lock-acquired TYPE OBJ; lock-failed TYPE OBJ ERRNO; lock-released TYPE
 * OBJ (TYPE: mutex rwlock-rd rwlock-wr spin sem mtx); cond-wait COND MUTEX;
 * cond-woken COND MUTEX; cond-signal COND; barrier-begin OBJ; barrier-end
 * OBJ; user-type TYPE NAME [scope]; user-value TYPE VALUE NAME; user-event
 * TYPE VALUE; fork CHILD; lost RECORDS REASON (no_space no_memory
 * reentrant limit); counter-def INDEX NAME PERF_TYPE PERF_CONFIG; counters
 * DELTA...; mpi-call NAME (MPI_CALL, NAME without MPI_: Recv, Barrier); mpi-end
 * (the open call's MPI_CALL_END); mpi-send PEER TAG BYTES COMM; mpi-recv
 * PEER TAG BYTES COMM POSTED (POSTED: when the receive was posted, a time
 * of the script); mpi-coll COMM ROOT SIZE SENT RECVD; and in a process
 * log mpi-init RANK SIZE (MPI_INIT: the process is that rank); offcpu
 * CAUSE OUT IN (CAUSE: blocked preempted call, or call:NUMBER for a blocking
 * call's stretch; OUT and IN in ns: the short form), offcpu-long CAUSE OUT IN
 * (the 24-byte form); offcpu-source SOURCE LOST (SOURCE: switches calls).
 * GPU (API: cuda opencl; device times START END in ns from the run's
 * origin): in a process log gpu-func API ID NAME, gpu-kernel-def API ID
 * NAME; a GPU stream's log is opened by `T gNAME gpu-stream API STREAM
 * DEVICE SEQ FLAGS` (pPID/gNAME.ptl of the last process; FLAGS a number)
 * and holds gpu-kernel API START END CORR KERNEL, gpu-memcpy API START END
 * CORR BYTES DIR [map] (DIR: the number of pt_gpu_copy_dir), gpu-memset
 * API START END CORR BYTES; a thread's host calls gpu-begin / gpu-end API
 * FUNC CALL FLAGS CORR STREAM (CALL: launch memcpy device-sync stream-sync
 * event-sync memcpy-async memset map other; FLAGS: sync transfer 0) and
 * gpu-launch API CORR CORR2 STREAM KERNEL.
 * Every log ends with a CLOSE at its last time.
 * A thread's records must come in time order. */
typedef struct script_log {
	char id[16]; /* "7001" (thread) or "p7000" (process) */
	uint32_t pid;
	gen_file *g;
} script_log;

static int lock_type(const char *s)
{
	static const char *const names[] = {"", "mutex", "rwlock-rd", "rwlock-wr", "spin",
					    "sem", "mtx", "barrier"};
	for (int i = 1; i < 8; i++)
		if (!strcmp(s, names[i]))
			return i;
	die("unknown lock type '%s'", s);
	return 0;
}

static unsigned lost_reason(const char *s)
{
	static const char *const names[] = {"", "no_space", "no_memory", "reentrant", "limit"};
	for (unsigned i = 1; i < 5; i++)
		if (!strcmp(s, names[i]))
			return i;
	die("unknown LOST reason '%s'", s);
	return 0;
}

static unsigned mpi_call(const char *name)
{
#define PTGEN_CALL_(n, id, family, state) {#n, id},
	static const struct {
		const char *name;
		unsigned id;
	} calls[] = {PT_MPI_CALLS(PTGEN_CALL_)};
#undef PTGEN_CALL_
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (!strcmp(calls[i].name, name))
			return calls[i].id;
	die("unknown MPI call '%s'", name);
	return 0;
}

static unsigned gpu_api(const char *s)
{
	if (!strcmp(s, "cuda"))
		return PT_GPU_API_CUDA;
	if (!strcmp(s, "opencl"))
		return PT_GPU_API_OPENCL;
	die("unknown GPU API '%s'", s);
	return 0;
}

static uint16_t gpu_call(const char *s)
{
	static const struct {
		const char *name;
		uint16_t call;
	} calls[] = {{"launch", PT_GPU_CALL_LAUNCH},
		     {"memcpy", PT_GPU_CALL_MEMCPY},
		     {"device-sync", PT_GPU_CALL_DEVICE_SYNC},
		     {"stream-sync", PT_GPU_CALL_STREAM_SYNC},
		     {"event-sync", PT_GPU_CALL_EVENT_SYNC},
		     {"memcpy-async", PT_GPU_CALL_MEMCPY_ASYNC},
		     {"memset", PT_GPU_CALL_MEMSET},
		     {"map", PT_GPU_CALL_MAP},
		     {"other", PT_GPU_CALL_OTHER}};
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (!strcmp(calls[i].name, s))
			return calls[i].call;
	die("unknown GPU call '%s'", s);
	return 0;
}

/* A GPU record of the script (the list above): 0 if `what` is none. */
static int script_gpu(gen_file *g, uint64_t t, const char *what, char **tok, int n)
{
	if (strncmp(what, "gpu-", 4))
		return 0;
	if (n < 4)
		die("%s wants an API", what);
	unsigned api = gpu_api(tok[3]);
	if (!strcmp(what, "gpu-func") || !strcmp(what, "gpu-kernel-def")) {
		if (n < 6)
			die("%s wants 6 fields", what);
		uint32_t d[2] = {(uint32_t)num(tok[4]), 0};
		emit2(g, t, what[4] == 'f' ? PT_REC_GPU_FUNC_DEF : PT_REC_GPU_KERNEL_DEF, api, d,
		      sizeof d, tok[5], strlen(tok[5]) + 1);
	} else if (!strcmp(what, "gpu-kernel")) {
		if (n < 8)
			die("%s wants 8 fields", what);
		pt_rec_gpu_kernel k = {.start = BASE_NS + num(tok[4]),
				       .end = BASE_NS + num(tok[5]),
				       .correlation = num(tok[6]),
				       .kernel = (uint32_t)num(tok[7]),
				       .grid = {1, 1, 1},
				       .block = {1, 1, 1}};
		emit(g, t, PT_REC_GPU_KERNEL, api, &k, sizeof k);
	} else if (!strcmp(what, "gpu-memcpy") || !strcmp(what, "gpu-memset")) {
		int set = what[7] == 's';
		if (n < (set ? 8 : 9))
			die("%s wants %d fields", what, set ? 8 : 9);
		pt_rec_gpu_copy c = {BASE_NS + num(tok[4]), BASE_NS + num(tok[5]), num(tok[6]),
				     num(tok[7]), set ? PT_GPU_COPY_MEMSET : (uint32_t)num(tok[8]),
				     !set && n >= 10 && !strcmp(tok[9], "map") ? PT_GPU_COPY_F_MAP : 0};
		emit(g, t, set ? PT_REC_GPU_MEMSET : PT_REC_GPU_MEMCPY, api, &c, sizeof c);
	} else if (!strcmp(what, "gpu-begin") || !strcmp(what, "gpu-end")) {
		if (n < 9)
			die("%s wants 9 fields", what);
		pt_rec_gpu_api a = {.func = (uint32_t)num(tok[4]),
				    .call = gpu_call(tok[5]),
				    .flags = !strcmp(tok[6], "sync")       ? PT_GPU_CALL_F_SYNC
					     : !strcmp(tok[6], "transfer") ? PT_GPU_CALL_F_TRANSFER
									   : 0,
				    .correlation = num(tok[7]),
				    .stream = num(tok[8])};
		emit(g, t, what[4] == 'b' ? PT_REC_GPU_API_BEGIN : PT_REC_GPU_API_END, api, &a,
		     sizeof a);
	} else if (!strcmp(what, "gpu-launch")) {
		if (n < 8)
			die("%s wants 8 fields", what);
		pt_rec_gpu_launch l = {.correlation = num(tok[4]),
				       .correlation2 = num(tok[5]),
				       .stream = num(tok[6]),
				       .kernel = (uint32_t)num(tok[7]),
				       .grid = {1, 1, 1},
				       .block = {1, 1, 1},
				       .work_dim = 1};
		emit(g, t, PT_REC_GPU_LAUNCH, api, &l, sizeof l);
	} else
		die("unknown record %s", what);
	return 1;
}

static void scenario_script(const char *out, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	script_log logs[256];
	unsigned open_call[256] = {0}; /* each log's open MPI call */
	size_t nlogs = 0;
	gen_file *proc = NULL;
	uint32_t proc_pid = 0;
	char line[1024];
	unsigned lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *tok[16];
		int n = 0;
		for (char *s = strtok(line, " \t\r\n"); s && n < 16; s = strtok(NULL, " \t\r\n"))
			tok[n++] = s;
		if (n == 0)
			continue;
#define NEED(k) \
	if (n < (k)) \
	die("%s:%u: %s wants %d fields", path, lineno, tok[0], (k))
		if (!strcmp(tok[0], "format")) {
			NEED(2);
			if (nlogs || sscanf(tok[1], "%u.%u", &version_major, &version_minor) != 2)
				die("%s:%u: format MAJOR.MINOR, before any process", path, lineno);
			continue;
		}
		if (!strcmp(tok[0], "process")) {
			NEED(3);
			uint32_t pid = (uint32_t)num(tok[1]);
			int forked = n >= 5 && !strcmp(tok[3], "forked");
			uint32_t ppid = forked ? (uint32_t)num(tok[4]) : 1;
			if (nlogs == 256)
				die("too many logs");
			proc = open_process_log(out, pid, ppid, forked ? PT_HDR_FLAG_FORKED : 0, tok[2],
						BASE_NS);
			if (forked) {
				pt_rec_fork fk = {pid, ppid, 0, 0};
				emit(proc, BASE_NS, PT_REC_FORK, 0, &fk, sizeof fk);
			}
			proc_pid = pid;
			script_log *l = &logs[nlogs++];
			snprintf(l->id, sizeof l->id, "p%u", pid);
			l->pid = pid;
			l->g = proc;
			continue;
		}
		if (!strcmp(tok[0], "func")) {
			NEED(5);
			if (!proc)
				die("%s:%u: func before process", path, lineno);
			for (char *p = tok[2], *q = tok[2];; p++, q++) {
				unsigned byte;
				if (p[0] == '\\' && p[1] == 's')
					*q = ' ', p++;
				else if (p[0] == '\\' && p[1] == 'x' && sscanf(p + 2, "%2x", &byte) == 1)
					*q = (char)byte, p += 3;
				else if (!(*q = *p))
					break;
			}
			func_def(proc, BASE_NS, (uint32_t)num(tok[1]), tok[2], tok[3],
				 (uint32_t)num(tok[4]));
			continue;
		}
		NEED(3);
		uint64_t t = BASE_NS + num(tok[0]);
		const char *what = tok[2];
		script_log *l = NULL;
		for (size_t i = 0; i < nlogs; i++)
			if (!strcmp(logs[i].id, tok[1]))
				l = &logs[i];
		if (!strcmp(what, "gpu-stream")) {
			NEED(8);
			if (l || nlogs == 256 || !proc)
				die("%s:%u: stream %s opened twice, or before its process", path,
				    lineno, tok[1]);
			l = &logs[nlogs++];
			snprintf(l->id, sizeof l->id, "%s", tok[1]);
			l->pid = proc_pid;
			char file[4096];
			snprintf(file, sizeof file, "%s/p%u/%s.ptl", out, proc_pid, tok[1]);
			uint64_t stream = num(tok[4]);
			l->g = gen_open(file, PT_FILE_GPU, proc_pid, 0, 0, 0, "script", t, stream);
			pt_rec_gpu_stream_def d = {stream, (uint32_t)num(tok[5]), (uint32_t)num(tok[6]),
						   (uint32_t)num(tok[7]), 0};
			emit2(l->g, t, PT_REC_GPU_STREAM_DEF, gpu_api(tok[3]), &d, sizeof d, "dev", 4);
			continue;
		}
		if (!strcmp(what, "start")) {
			NEED(4);
			if (l || nlogs == 256 || !proc)
				die("%s:%u: thread %s started twice, or before its process", path, lineno,
				    tok[1]);
			l = &logs[nlogs++];
			snprintf(l->id, sizeof l->id, "%s", tok[1]);
			l->pid = proc_pid;
			l->g = open_thread_log(out, proc_pid, (uint32_t)num(tok[1]), "script", t);
			if (!strcmp(tok[3], "main"))
				thread_start(l->g, t, 0, 0, PT_THREAD_MAIN, 0);
			else {
				NEED(5);
				thread_start(l->g, t, num(tok[3]), (uint32_t)num(tok[4]), 0, 0x401000);
			}
			continue;
		}
		if (!l)
			die("%s:%u: no log %s (start it first)", path, lineno, tok[1]);
		gen_file *g = l->g;
		if (script_gpu(g, t, what, tok, n)) {
		} else if (!strcmp(what, "enter") || !strcmp(what, "exit")) {
			NEED(4);
			emit_func(g, t, what[1] == 'n' ? PT_REC_FUNC_ENTER : PT_REC_FUNC_EXIT,
				  (uint32_t)num(tok[3]));
		} else if (!strcmp(what, "landed")) {
			NEED(4);
			pt_rec_landed x = {(uint32_t)num(tok[3]), 0};
			emit(g, t, PT_REC_FUNC_LANDED, 0, &x, sizeof x);
		} else if (!strcmp(what, "end")) {
			thread_end(g, t);
		} else if (!strcmp(what, "name")) {
			NEED(4);
			emit(g, t, PT_REC_THREAD_NAME, 0, tok[3], strlen(tok[3]) + 1);
		} else if (!strcmp(what, "create")) {
			NEED(4);
			pt_rec_thread_create c = {num(tok[3]), 0x401000, 0, 0};
			emit(g, t, PT_REC_THREAD_CREATE, 0, &c, sizeof c);
		} else if (!strcmp(what, "join-begin") || !strcmp(what, "join-end")) {
			NEED(4);
			pt_rec_thread_join j = {0x7f0000 + num(tok[3]), num(tok[3]), 0, 0};
			emit(g, t, what[5] == 'b' ? PT_REC_THREAD_JOIN_BEGIN : PT_REC_THREAD_JOIN_END, 0,
			     &j, sizeof j);
		} else if (!strncmp(what, "lock-", 5)) {
			NEED(5);
			unsigned kind = !strcmp(what, "lock-request")    ? PT_REC_LOCK_REQUEST
					: !strcmp(what, "lock-acquired") ? PT_REC_LOCK_ACQUIRED
					: !strcmp(what, "lock-failed")   ? PT_REC_LOCK_FAILED
					: !strcmp(what, "lock-released") ? PT_REC_LOCK_RELEASED
									 : 0;
			if (!kind)
				die("%s:%u: unknown record %s", path, lineno, what);
			if (kind == PT_REC_LOCK_FAILED) {
				NEED(6);
				pt_rec_lock lk = {num(tok[4]), (int32_t)num(tok[5]), 0};
				emit(g, t, kind, (unsigned)lock_type(tok[3]), &lk, sizeof lk);
			} else
				lock_rec(g, t, kind, (unsigned)lock_type(tok[3]), num(tok[4]));
		} else if (!strcmp(what, "cond-wait") || !strcmp(what, "cond-woken")) {
			NEED(5);
			pt_rec_cond c = {num(tok[3]), num(tok[4]), 0, 0};
			emit(g, t, what[5] == 'w' && what[6] == 'a' ? PT_REC_COND_WAIT_BEGIN
								    : PT_REC_COND_WAIT_END,
			     0, &c, sizeof c);
		} else if (!strcmp(what, "cond-signal")) {
			NEED(4);
			pt_rec_cond c = {num(tok[3]), 0, 0, 0};
			emit(g, t, PT_REC_COND_SIGNAL, 0, &c, sizeof c);
		} else if (!strcmp(what, "barrier-begin") || !strcmp(what, "barrier-end")) {
			NEED(4);
			uint64_t obj = num(tok[3]);
			emit(g, t, what[8] == 'b' ? PT_REC_BARRIER_BEGIN : PT_REC_BARRIER_END,
			     PT_LOCK_BARRIER, &obj, sizeof obj);
		} else if (!strcmp(what, "user-type")) {
			NEED(5);
			pt_rec_user_type ut = {(uint32_t)num(tok[3]),
					       n >= 6 && !strcmp(tok[5], "scope") ? PT_USER_TYPE_SCOPE : 0};
			emit2(g, t, PT_REC_USER_TYPE, 0, &ut, sizeof ut, tok[4], strlen(tok[4]) + 1);
		} else if (!strcmp(what, "user-value")) {
			NEED(6);
			pt_rec_user_event ue = {(uint32_t)num(tok[3]), 0, (int64_t)num(tok[4])};
			emit2(g, t, PT_REC_USER_VALUE_NAME, 0, &ue, sizeof ue, tok[5],
			      strlen(tok[5]) + 1);
		} else if (!strcmp(what, "user-event")) {
			NEED(5);
			pt_rec_user_event ue = {(uint32_t)num(tok[3]), 0, (int64_t)num(tok[4])};
			emit(g, t, PT_REC_USER_EVENT, 0, &ue, sizeof ue);
		} else if (!strcmp(what, "fork")) {
			NEED(4);
			pt_rec_fork fk = {(uint32_t)num(tok[3]), l->pid, 0, 0};
			emit(g, t, PT_REC_FORK, 0, &fk, sizeof fk);
		} else if (!strcmp(what, "lost")) {
			NEED(5);
			uint64_t records = num(tok[3]);
			pt_rec_lost lo = {records, records * 8, lost_reason(tok[4]), 0};
			emit(g, t, PT_REC_LOST, 0, &lo, sizeof lo);
			g->last_func = 0; /* readers forget the previous function at a LOST */
			g->last_acquired = 0;
		} else if (!strcmp(what, "counter-def")) {
			NEED(7);
			pt_rec_counter_def d = {num(tok[6]), (uint32_t)num(tok[5]), 0};
			emit2(g, t, PT_REC_COUNTER_DEF, (unsigned)num(tok[3]), &d, sizeof d, tok[4],
			      strlen(tok[4]) + 1);
		} else if (!strcmp(what, "counters")) {
			uint64_t v[12];
			unsigned nv = 0;
			for (int k = 3; k < n && nv < 12; k++)
				v[nv++] = num(tok[k]);
			emit(g, t, PT_REC_COUNTERS, nv, v, nv * sizeof v[0]);
		} else if (!strcmp(what, "mpi-init")) {
			NEED(5);
			pt_rec_mpi_init mi = {(int32_t)num(tok[3]), (uint32_t)num(tok[4]), -1, 0, 0, 0};
			emit2(g, t, PT_REC_MPI_INIT, 0, &mi, sizeof mi, "node0", 6);
		} else if (!strcmp(what, "mpi-call")) {
			NEED(4);
			open_call[l - logs] = mpi_call(tok[3]);
			emit(g, t, PT_REC_MPI_CALL, open_call[l - logs], NULL, 0);
		} else if (!strcmp(what, "mpi-end")) {
			emit(g, t, PT_REC_MPI_CALL_END, open_call[l - logs], NULL, 0);
			open_call[l - logs] = 0;
		} else if (!strcmp(what, "mpi-send") || !strcmp(what, "mpi-recv")) {
			int recv = what[4] == 'r';
			NEED(recv ? 8 : 7);
			pt_rec_mpi_msg m = {(int32_t)num(tok[3]), (int32_t)num(tok[4]), num(tok[5]),
					    num(tok[6]), 0, recv ? BASE_NS + num(tok[7]) : 0};
			emit(g, t, recv ? PT_REC_MPI_RECV : PT_REC_MPI_SEND, open_call[l - logs], &m,
			     sizeof m);
		} else if (!strcmp(what, "mpi-coll")) {
			NEED(8);
			pt_rec_mpi_coll m = {num(tok[3]), (int32_t)strtol(tok[4], NULL, 0),
					     (uint32_t)num(tok[5]), num(tok[6]), num(tok[7]), 0};
			emit(g, t, PT_REC_MPI_COLL, open_call[l - logs], &m, sizeof m);
		} else if (!strcmp(what, "offcpu") || !strcmp(what, "offcpu-long")) {
			NEED(6);
			uint64_t out_ns = BASE_NS + num(tok[4]), in_ns = BASE_NS + num(tok[5]);
			unsigned cause = !strncmp(tok[3], "call", 4)       ? PT_OFFCPU_IN_CALL
					 : !strcmp(tok[3], "preempted")    ? PT_OFFCPU_PREEMPTED
					 : !strcmp(tok[3], "blocked")      ? PT_OFFCPU_BLOCKED
									   : 15;
			if (cause == 15 || in_ns < out_ns || in_ns > t)
				die("%s:%u: bad offcpu record", path, lineno);
			unsigned arg = pt_offcpu_arg(
				cause, tok[3][4] == ':' ? (unsigned)num(tok[3] + 5) : 0);
			if (what[6]) {
				pt_rec_offcpu_long o = {out_ns, in_ns};
				emit(g, t, PT_REC_OFFCPU, arg, &o, sizeof o);
			} else {
				pt_rec_offcpu o = {(uint32_t)(t - in_ns), (uint32_t)(in_ns - out_ns)};
				emit(g, t, PT_REC_OFFCPU, arg, &o, sizeof o);
			}
		} else if (!strcmp(what, "offcpu-source")) {
			NEED(5);
			pt_rec_offcpu_source o = {num(tok[4])};
			emit(g, t, PT_REC_OFFCPU_SOURCE,
			     !strcmp(tok[3], "calls") ? PT_OFFCPU_SOURCE_CALLS : PT_OFFCPU_SOURCE_SWITCHES,
			     &o, sizeof o);
		} else if (!strcmp(what, "exited")) {
			NEED(4);
			pt_rec_exit ex = {(int32_t)num(tok[3]), PT_EXIT_NORMAL};
			emit(g, t, PT_REC_EXIT, 0, &ex, sizeof ex);
		} else {
			die("%s:%u: unknown record %s", path, lineno, what);
		}
#undef NEED
	}
	fclose(f);
	for (size_t i = 0; i < nlogs; i++)
		gen_close(logs[i].g, 1);
}

static void usage(void)
{
	fputs("usage: ptgen --out DIR [--scenario bench|known|threads|script] [--threads T]\n"
	      "             [--events N] [--calls N] [--sleep-ns S] [--wait-ns W] [--hold-ns H]\n"
	      "             [--fork] [--script FILE] [--seed S] [--version-major V]\n",
	      stderr);
	exit(2);
}


int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"out", required_argument, 0, 'o'},      {"scenario", required_argument, 0, 's'},
		{"threads", required_argument, 0, 't'},  {"events", required_argument, 0, 'e'},
		{"calls", required_argument, 0, 'n'},    {"sleep-ns", required_argument, 0, 'S'},
		{"wait-ns", required_argument, 0, 'W'},  {"hold-ns", required_argument, 0, 'H'},
		{"fork", no_argument, 0, 'f'},           {"seed", required_argument, 0, 'r'},
		{"version-major", required_argument, 0, 'V'}, {"script", required_argument, 0, 'x'},
		{0, 0, 0, 0}};
	const char *out = NULL, *scenario = "bench", *script = NULL;
	unsigned threads = 8, calls = 100;
	uint64_t events = 10000000, S = 1000000, W = 20000, H = 5000;
	int do_fork = 0, c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 's': scenario = optarg; break;
		case 't': threads = (unsigned)num(optarg); break;
		case 'e': events = num(optarg); break;
		case 'n': calls = (unsigned)num(optarg); break;
		case 'S': S = num(optarg); break;
		case 'W': W = num(optarg); break;
		case 'H': H = num(optarg); break;
		case 'f': do_fork = 1; break;
		case 'r': rng_state = num(optarg) | 1; run_id = rng_state; break;
		case 'V': version_major = (unsigned)num(optarg); break;
		case 'x': script = optarg; break;
		default: usage();
		}
	}
	if (!out || optind != argc || threads == 0)
		usage();
	mkdir_p(out);
	if (!strcmp(scenario, "bench"))
		scenario_bench(out, threads, events);
	else if (!strcmp(scenario, "known"))
		scenario_known(out, threads, calls, S, W, H, do_fork);
	else if (!strcmp(scenario, "threads"))
		scenario_threads(out, threads, calls);
	else if (!strcmp(scenario, "script") && script)
		scenario_script(out, script);
	else
		usage();
	return 0;
}
