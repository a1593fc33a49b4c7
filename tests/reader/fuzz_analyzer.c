/* SPDX-License-Identifier: MIT */
/* Fuzz target for the analyzer's OpenMP and MPI parts: the input bytes
 * drive a generator that writes a small trace (1 to 3 processes of 1 to 3
 * threads), and every built-in tool that reads OpenMP or MPI records runs
 * on it in one pass: the profile (text, CSV, JSON: OpenMP and MPI
 * sections), the Paraver writer, the Chrome and Perfetto timelines and the
 * HTML report. Nothing may crash, leak or misbehave (ASan, UBSan), and no
 * allocation may be sized by a value read from a log beyond what the logs
 * can hold (the test runs with ASan's max_allocation_size_mb).
 *
 * The generator reads the bytes as choices. Process logs get MPI job, init,
 * clock and communicator records (ranks, sizes and worlds of any value,
 * also in the file header) and OpenMP location definitions; thread
 * logs a sequence of operations: a parallel region begun or ended, a
 * work-sharing construct with its chunks, a wait, a task created or
 * switched to or from, a lock, an MPI call with what it moved, a
 * set_num_threads, or one record of any OpenMP, MPI or lock kind with its
 * payload made of chosen words. Every value comes from a word chooser that
 * mostly picks small numbers and explicit task ids (so that ids, locations
 * and ranks meet), and sometimes the extremes or any 64 bits.
 *
 * fuzz_analyzer_main.c runs it on random inputs for a given time (the
 * test command) or on files. An input makes the same trace every time in
 * one build; another compiler may read the choices of one initializer in
 * another order. */
#define _GNU_SOURCE
#include "pt_family.h"
#include "pt_framework.h"
#include "pt_test_writer.h"
#include "report.h"
#include "tools.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- choices -------------------------------------------------------------- */
typedef struct src {
	const uint8_t *p;
	size_t n, pos;
} src;

static unsigned u8(src *s)
{
	return s->pos < s->n ? s->p[s->pos++] : 0;
}

static uint64_t bits(src *s, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)u8(s) << (8 * i);
	return v;
}

static int more(const src *s)
{
	return s->pos < s->n;
}

/* A 64-bit word: mostly small, an explicit task id, -1, an extreme, or any. */
static uint64_t word(src *s)
{
	unsigned k = u8(s);
	if (k < 110)
		return k % 7;
	if (k < 160)
		return PT_OMP_TASK_EXPLICIT | (uint64_t)(u8(s) % 7) << PT_OMP_LOC_SHIFT | u8(s) % 5;
	if (k < 180)
		return UINT64_MAX;
	if (k < 200) {
		static const uint64_t extreme[] = {0xffffffffull, 0x7fffffffull,  0x80000000ull,
		                                   INT64_MAX,     1ull << 63,     0xffffull,
		                                   0x800000ull,   PT_OMP_LOC_MAX, 1000000000000ull};
		return extreme[k % (sizeof extreme / sizeof extreme[0])];
	}
	return bits(s, 8);
}

static uint32_t word32(src *s)
{
	uint64_t w = word(s);
	return (uint32_t)(w >> 63 ? w >> 40 : w);
}

/* `len` bytes of chosen words (32-bit halves where the chooser says). */
static void fill(src *s, uint8_t *p, size_t len)
{
	for (size_t off = 0; off < len; off += 8) {
		uint8_t w[8];
		if (u8(s) & 1) {
			uint64_t v = word(s);
			memcpy(w, &v, 8);
		} else {
			uint32_t a = word32(s), b = word32(s);
			memcpy(w, &a, 4);
			memcpy(w + 4, &b, 4);
		}
		memcpy(p + off, w, len - off < 8 ? len - off : 8);
	}
}

/* A rank, size or world of an MPI record: small ones, or those just within
 * and past what a world can have (2^24 ranks), or any word. */
static uint32_t mpi_word(src *s)
{
	enum { W = 1u << PT_MPI_WORLD_SHIFT };
	static const uint32_t edge[] = {
	    W - 1, W, W + 1, 5000000, PT_MPI_WORLDS_MAX, PT_MPI_WORLDS_MAX + 1};
	unsigned k = u8(s);
	if (k < 128)
		return (uint32_t)((int)(k % 66) - 1);
	if (k < 192)
		return edge[k % (sizeof edge / sizeof edge[0])];
	return word32(s);
}

/* ---- logs ---------------------------------------------------------------- */
static const uint16_t min_payload[256] = {
#define MIN_(name, value, type, min, ...) [value] = (uint16_t)(min),
    PT_REC_SCHEMA(MIN_)
#undef MIN_
};

typedef struct gen {
	src *s;
	ptw w;
	uint64_t t;
	uint64_t next_id;
	/* open constructs of this thread, innermost last */
	struct {
		unsigned kind; /* PT_REC_OMP_PARALLEL_BEGIN, _WORK_BEGIN, _WAIT_BEGIN */
		uint64_t id;
		uint32_t loc;
	} open[16];
	unsigned depth;
	uint64_t tasks[8]; /* tasks created, to switch to */
	unsigned ntasks;
	uint64_t running; /* explicit task running, 0 none */
} gen;

static void rec(gen *g, unsigned kind, unsigned arg, const void *p, size_t len)
{
	unsigned k = u8(g->s);
	g->t += k < 200 ? k % 50 : k < 250 ? 1000 + k * 997 : bits(g->s, 5);
	ptw_rec(&g->w, kind, arg, g->t, p, len);
}

/* One record of `kind` whose payload is all chosen words. */
static void raw(gen *g, unsigned kind, unsigned arg)
{
	uint8_t p[256];
	size_t len = min_payload[kind] + 8 * (u8(g->s) % 4);
	if (len > sizeof p)
		len = sizeof p;
	fill(g->s, p, len);
	rec(g, kind, arg, p, len);
}

static uint32_t loc(gen *g)
{
	return u8(g->s) < 240 ? 1 + u8(g->s) % 6 : word32(g->s);
}

static void region(gen *g)
{
	if (g->depth == sizeof g->open / sizeof g->open[0])
		return;
	uint64_t id = u8(g->s) < 230 ? ++g->next_id : word(g->s);
	uint32_t l = loc(g);
	if (u8(g->s) < 200) { /* the thread encountered it */
		pt_rec_omp_parallel p = {id, l, (uint16_t)word32(g->s), (uint16_t)(u8(g->s) % 8)};
		rec(g, PT_REC_OMP_PARALLEL_BEGIN, u8(g->s) % 3, &p, sizeof p);
	}
	pt_rec_omp_implicit i = {id, l, (uint16_t)(1 + u8(g->s) % 4), (uint16_t)(u8(g->s) % 4)};
	rec(g, PT_REC_OMP_IMPLICIT_BEGIN, 0, &i, sizeof i);
	g->open[g->depth].kind = PT_REC_OMP_PARALLEL_BEGIN;
	g->open[g->depth].id = id;
	g->open[g->depth++].loc = l;
}

/* Ends the innermost open construct (or, sometimes, another). */
static void close_one(gen *g)
{
	if (!g->depth)
		return;
	unsigned d = u8(g->s) < 230 ? g->depth - 1 : u8(g->s) % g->depth;
	switch (g->open[d].kind) {
	case PT_REC_OMP_PARALLEL_BEGIN: {
		pt_rec_omp_implicit i = {g->open[d].id, g->open[d].loc, 0, 0};
		rec(g, PT_REC_OMP_IMPLICIT_END, 0, &i, sizeof i);
		if (u8(g->s) < 200) {
			pt_rec_omp_parallel p = {g->open[d].id, g->open[d].loc, 0, 0};
			rec(g, PT_REC_OMP_PARALLEL_END, u8(g->s) % 3, &p, sizeof p);
		}
		break;
	}
	case PT_REC_OMP_WORK_BEGIN:
		rec(g, PT_REC_OMP_WORK_END, (unsigned)g->open[d].id, NULL, 0);
		break;
	default:
		rec(g, PT_REC_OMP_WAIT_END, (unsigned)g->open[d].id, NULL, 0);
		break;
	}
	memmove(&g->open[d], &g->open[d + 1], (g->depth - d - 1) * sizeof g->open[0]);
	g->depth--;
}

static void open_construct(gen *g, unsigned kind, unsigned arg)
{
	if (g->depth < sizeof g->open / sizeof g->open[0]) {
		g->open[g->depth].kind = kind;
		g->open[g->depth].id = arg;
		g->open[g->depth++].loc = 0;
	}
}

static void work(gen *g)
{
	unsigned type = u8(g->s) % 11, sched = u8(g->s) % 6;
	pt_rec_omp_work w = {word(g->s), loc(g), word32(g->s)};
	rec(g, PT_REC_OMP_WORK_BEGIN, type | sched << 4, &w, sizeof w);
	for (unsigned n = u8(g->s) % 5; n--;) {
		pt_rec_omp_chunk c = {(int64_t)word(g->s), word(g->s)};
		rec(g, PT_REC_OMP_CHUNK, 0, &c, sizeof c);
	}
	open_construct(g, PT_REC_OMP_WORK_BEGIN, type);
}

static void wait_begin(gen *g)
{
	unsigned kind = u8(g->s) % 12;
	pt_rec_omp_sync y = {loc(g), 0};
	rec(g, PT_REC_OMP_WAIT_BEGIN, kind, &y, sizeof y);
	open_construct(g, PT_REC_OMP_WAIT_BEGIN, kind);
}

static void task_create(gen *g)
{
	uint64_t id = PT_OMP_TASK_EXPLICIT | (uint64_t)loc(g) << PT_OMP_LOC_SHIFT | ++g->next_id;
	if (u8(g->s) > 240)
		id = word(g->s);
	pt_rec_omp_task_create c = {id, word32(g->s), u8(g->s) % 3};
	rec(g, PT_REC_OMP_TASK_CREATE, 0, &c, sizeof c);
	if (u8(g->s) < 100) {
		pt_rec_omp_task_depend d = {id, word(g->s)};
		rec(g, PT_REC_OMP_TASK_DEPEND, u8(g->s) < 200 ? 0 : 1, &d, sizeof d);
	}
	g->tasks[g->ntasks++ % 8] = id;
}

/* A switch: to a task created here, or back from the running one. */
static void task_switch(gen *g)
{
	unsigned status = u8(g->s) % 10;
	uint64_t next = g->ntasks && u8(g->s) < 180
	                    ? g->tasks[u8(g->s) % (g->ntasks < 8 ? g->ntasks : 8)]
	                    : word(g->s);
	pt_rec_omp_task_schedule x = {g->running, next};
	if (g->running && u8(g->s) < 128) { /* it ends: back to the implicit task */
		x.next = g->depth ? g->open[0].id : 0;
		status = u8(g->s) < 200 ? PT_OMP_TASK_COMPLETE : status;
	}
	rec(g, PT_REC_OMP_TASK_SCHEDULE, status, &x, sizeof x);
	if (status != PT_OMP_TASK_EARLY_FULFILL && status != PT_OMP_TASK_LATE_FULFILL)
		g->running = x.next & PT_OMP_TASK_EXPLICIT ? x.next : 0;
}

static void lock(gen *g)
{
	unsigned type = u8(g->s) < 220 ? PT_LOCK_OMP_LOCK + u8(g->s) % 6 : u8(g->s);
	pt_rec_lock l = {word(g->s) & 7, 0, 0};
	rec(g, PT_REC_LOCK_REQUEST, type, &l, sizeof l);
	if (u8(g->s) < 230)
		rec(g, u8(g->s) < 230 ? PT_REC_LOCK_ACQUIRED : PT_REC_LOCK_FAILED, type, &l,
		    sizeof l);
	if (u8(g->s) < 220)
		rec(g, PT_REC_LOCK_RELEASED, type, &l, sizeof l);
}

static void mpi_call(gen *g)
{
	unsigned call = u8(g->s);
	rec(g, PT_REC_MPI_CALL, call, NULL, 0);
	for (unsigned n = u8(g->s) % 4; n--;) {
		unsigned k = PT_REC_MPI_SEND + u8(g->s) % 6;
		if (k == PT_REC_MPI_COLL) {
			pt_rec_mpi_coll c = {u8(g->s) < 200 ? PT_MPI_COMM_WORLD_ID : word(g->s),
			                     (int32_t)word32(g->s),
			                     word32(g->s),
			                     word(g->s),
			                     word(g->s),
			                     word(g->s)};
			rec(g, k, call, &c, sizeof c);
		} else if (k <= PT_REC_MPI_IRECV) {
			pt_rec_mpi_msg m = {(int32_t)(u8(g->s) % 5) - 1,
			                    (int32_t)word32(g->s),
			                    word(g->s),
			                    u8(g->s) < 200 ? PT_MPI_COMM_WORLD_ID : word(g->s),
			                    word(g->s),
			                    u8(g->s) < 128 ? g->t - u8(g->s) : word(g->s)};
			rec(g, k, call, &m, sizeof m);
		} else {
			raw(g, k, call);
		}
	}
	if (u8(g->s) < 240)
		rec(g, PT_REC_MPI_CALL_END, u8(g->s) < 240 ? call : u8(g->s), NULL, 0);
}

/* Kinds a raw record may be: the OpenMP and MPI ranges, the lock kinds;
 * not MPI_JOB and MPI_INIT, whose rank and size process_log chooses. */
static unsigned raw_kind(src *s)
{
	unsigned k = u8(s) % 30;
	if (k < 16)
		return PT_REC_RANGE_OPENMP_FIRST + k;
	if (k < 26)
		return PT_REC_MPI_CLOCK + (k - 16);
	return PT_REC_LOCK_REQUEST + (k - 26);
}

static void thread_log(src *s, ptw *out, uint32_t pid, uint32_t tid, uint64_t t0)
{
	gen g = {.s = s, .t = t0};
	ptw_begin(&g.w, PT_FILE_THREAD, pid, tid, t0, t0, 1, 0);
	ptw_time(&g.w, t0);
	pt_rec_thread_start st = {0, pid == tid ? 0 : pid, pid == tid ? PT_THREAD_MAIN : 0, 0};
	rec(&g, PT_REC_THREAD_START, 0, &st, sizeof st);
	for (unsigned ops = 0; ops < 96 && more(s); ops++) {
		switch (u8(s) % 13) {
		case 0:
		case 1:
			region(&g);
			break;
		case 2:
		case 3:
			close_one(&g);
			break;
		case 4:
			work(&g);
			break;
		case 5:
			wait_begin(&g);
			break;
		case 6:
			task_create(&g);
			break;
		case 7:
			task_switch(&g);
			break;
		case 8:
			lock(&g);
			break;
		case 9:
			mpi_call(&g);
			break;
		case 10: {
			pt_rec_omp_control c = {(int64_t)word(s), (int64_t)word(s)};
			rec(&g, PT_REC_OMP_CONTROL, u8(s) % 6, &c, sizeof c);
			break;
		}
		default: {
			unsigned kind = raw_kind(s);
			raw(&g, kind, u8(s));
			break;
		}
		}
	}
	while (g.depth && u8(s) < 200)
		close_one(&g);
	if (u8(s) < 200)
		ptw_close(&g.w, g.t + 1);
	*out = g.w;
}

static void process_log(src *s, ptw *out, uint32_t pid, unsigned rank, unsigned nprocs, uint64_t t0)
{
	gen g = {.s = s, .t = t0};
	ptw_begin(&g.w, PT_FILE_PROCESS, pid, 0, t0, t0, 1, 0);
	ptw_time(&g.w, t0);
	if (u8(s) < 160) {
		/* the job's size, world and this process's rank: the processes
		 * made here, or any (no table or loop may be sized by them) */
		uint32_t size = u8(s) < 200 ? nprocs : mpi_word(s);
		int32_t r = u8(s) < 230 ? (int32_t)rank : (int32_t)mpi_word(s);
		uint32_t world = u8(s) < 230 ? 0 : u8(s) < 128 ? u8(s) % 3 : mpi_word(s);
		if (u8(s) < 100) { /* started by a launcher: the framework reads these first */
			g.w.hdr.job_rank1 = u8(s) < 200 ? (uint32_t)r + 1 : mpi_word(s);
			g.w.hdr.job_size = size;
			g.w.hdr.job_world = u8(s) < 200 ? world : mpi_word(s);
			memcpy(g.w.buf, &g.w.hdr, sizeof g.w.hdr);
		}
		pt_rec_mpi_job j = {r, size, 1 + u8(s) % 3, world};
		ptw_rec_strs(&g.w, PT_REC_MPI_JOB, 0, g.t, &j, sizeof j, "host", "mpirun");
		if (u8(s) >= 230) {
			r = (int32_t)mpi_word(s);
			size = mpi_word(s);
		}
		pt_rec_mpi_init i = {r, size, -1, 0, 0, world};
		ptw_rec_strs(&g.w, PT_REC_MPI_INIT, 0, ++g.t, &i, sizeof i, "host", "fuzz MPI");
		for (unsigned at = 0; at < 2; at++) {
			pt_rec_mpi_clock c = {g.t + at * 1000,
			                      u8(s) < 200 ? g.t + at * 1000 : word(s),
			                      u8(s) < 200 ? u8(s) : word(s), 1 + u8(s) % 4, 0};
			rec(&g, PT_REC_MPI_CLOCK, u8(s) < 240 ? at : u8(s), &c, sizeof c);
		}
		for (unsigned n = u8(s) % 3; n--;) {
			uint8_t p[sizeof(pt_rec_mpi_comm_def) + 4 * 8];
			pt_rec_mpi_comm_def d = {u8(s) < 128 ? PT_MPI_COMM_WORLD_ID : word(s),
			                         u8(s) < 200 ? nprocs : word32(s),
			                         u8(s) % 3 ? 0 : word32(s), u8(s) % 4,
			                         (int32_t)rank};
			memcpy(p, &d, sizeof d);
			for (unsigned r = 0; r < 8; r++) {
				int32_t v =
				    u8(s) < 200 ? (int32_t)(r % nprocs) : (int32_t)word32(s);
				memcpy(p + sizeof d + 4 * r, &v, 4);
			}
			rec(&g, PT_REC_MPI_COMM_DEF, 0, p, sizeof d + 4 * (u8(s) % 9));
		}
	}
	for (unsigned n = u8(s) % 8; n--;) {
		pt_rec_omp_loc l = {loc(&g), word32(s), word(s), word(s)};
		rec(&g, PT_REC_OMP_LOC_DEF, 0, &l, sizeof l);
	}
	if (u8(s) < 40)
		raw(&g, raw_kind(s), u8(s));
	if (u8(s) < 200) {
		pt_rec_exit x = {0, PT_EXIT_NORMAL};
		rec(&g, PT_REC_EXIT, 0, &x, sizeof x);
	}
	ptw_close(&g.w, g.t + 1);
	*out = g.w;
}

/* ---- one input ------------------------------------------------------------- */
static char dir[256];

static void save(const char *path, const ptw *w)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(w->buf, 1, w->len, f) != w->len || fclose(f))
		abort();
}

static void clear(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	char sub[512];
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
		struct stat st;
		if (!lstat(sub, &st) && S_ISDIR(st.st_mode)) {
			clear(sub);
			rmdir(sub);
		} else {
			unlink(sub);
		}
	}
	closedir(d);
}

static void no_warn(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

typedef struct tool_list {
	pt_fw_tool v[16];
	size_t n;
} tool_list;

static void add_section(void *arg, const pf_section *sec)
{
	tool_list *l = arg;
	if (l->n < sizeof l->v / sizeof l->v[0])
		l->v[l->n++] = (pt_fw_tool){sec->tool(), NULL, NULL};
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		pt_families_use(pt_family_builtin);
		snprintf(dir, sizeof dir, "%s/pt-fuzz-analyzer-XXXXXX",
		         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(dir))
			abort();
	}
	char trace[300], path[400], out[300];
	snprintf(trace, sizeof trace, "%s/trace", dir);
	clear(dir);
	mkdir(trace, 0700);
	src s = {data, size, 0};
	unsigned nprocs = 1 + u8(&s) % 3;
	for (unsigned p = 0; p < nprocs; p++) {
		uint32_t pid = 100 + p;
		uint64_t t0 = 1000000 + bits(&s, 2);
		snprintf(path, sizeof path, "%s/p%u", trace, pid);
		mkdir(path, 0700);
		ptw w;
		process_log(&s, &w, pid, p, nprocs, t0);
		snprintf(path, sizeof path, "%s/p%u/process.ptl", trace, pid);
		save(path, &w);
		ptw_free(&w);
		for (unsigned n = 1 + u8(&s) % 3, k = 0; k < n; k++) {
			thread_log(&s, &w, pid, pid + k, t0 + k);
			snprintf(path, sizeof path, "%s/p%u/t%u.ptl", trace, pid, pid + k);
			save(path, &w);
			ptw_free(&w);
		}
	}
	/* every tool that reads OpenMP or MPI records, in one pass: the
	 * families' report sections too */
	snprintf(out, sizeof out, "%s/out", dir);
	tool_list tools = {
	    .v = {{pt_tool_profile(), NULL, NULL},
	          {pt_tool_profile(), "json", NULL},
	          {pt_tool_profile(), "csv", NULL},
	          {pt_tool_paraver(), NULL, NULL},
	          {pt_tool_plot(), "html", NULL}},
	    .n = 5};
	pt_report_sections(PF_IN_TEXT, add_section, &tools);
	FILE *sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	pt_fw_options o = {
	    .dir = trace, .output = out, .jobs = 2, .quiet = 1, .out = sink, .warn = no_warn};
	char err[1024];
	pt_fw_run(&o, tools.v, tools.n, NULL, err, sizeof err);
	/* the timelines write ctx->output too: a pass of their own */
	pt_fw_tool tl[] = {{pt_tool_chrome(), NULL, NULL}};
	pt_fw_run(&o, tl, 1, NULL, err, sizeof err);
	tl[0].tool = pt_tool_perfetto();
	pt_fw_run(&o, tl, 1, NULL, err, sizeof err);
	fclose(sink);
	return 0;
}

/* The trace directory goes when the process ends. */
__attribute__((destructor)) static void fuzz_cleanup(void)
{
	if (dir[0]) {
		clear(dir);
		rmdir(dir);
	}
}
