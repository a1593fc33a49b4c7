/* SPDX-License-Identifier: MIT */
/* The I/O family's part of the report: per file (by name, over every
 * process) its calls, bytes read and written, the time in its calls and
 * the throughput that makes; then per thread the same. Text, CSV, JSON.
 *
 * MPI-IO (docs/IO.md, "MPI-IO"): the files MPI_File_open named (MPI_FILE)
 * are rows of their own, marked MPI-IO, with the MPI calls that read or
 * wrote them (their MPI_IO records: the bytes asked, the time in the
 * call). The POSIX calls the MPI library makes for them are attributed
 * to the MPI calls, counted in no row, so that no byte is counted twice:
 * every one inside an MPI-IO call (ROMIO's open, pread, pwrite...), and
 * those inside any other MPI call on a file an MPI_File_open opened (a
 * non-blocking MPI-IO call's pread made in its MPI_Wait). */
#include "pt_fw_util.h"
#include "io_common.h"
#include "pt_family.h"
#include "pt_text.h"
#include "report.h"
#include "tools.h"

#include <paratrace/mpi_calls.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct io_stat {
	uint64_t calls, reads, writes, failed;
	uint64_t bytes_read, bytes_written, ns;
} io_stat;

typedef struct io_thread_row {
	uint32_t pid, tid;
	io_stat s;
} io_thread_row;

typedef struct io_pf_global {
	io_names *names;
	io_stat *file; /* by file value; 0: calls on no named file */
	uint32_t nfile;
	io_thread_row *thr;
	size_t nthr, capthr;
	int oom;
} io_pf_global;

/* A thread's MPI-IO call in progress. */
typedef struct io_mpi_track {
	int in_call;     /* any MPI call */
	int open, moved; /* an MPI-IO call; it recorded MPI_IO */
	unsigned call;
	uint64_t begin_ns, bytes, fh;
} io_mpi_track;

typedef struct io_pf_shard {
	io_track track;
	io_mpi_track mpi;
	size_t process;
	io_stat *file;
	uint32_t nfile;
	io_stat total;
	int oom;
} io_pf_shard;

/* The MPI calls by id: 0 not MPI-IO, else what it does to its file. */
enum { IO_MPI_NONE, IO_MPI_OTHER, IO_MPI_READ, IO_MPI_WRITE };
static unsigned char io_mpi_calls[256];

static void io_mpi_calls_init(void)
{
#define IO_MPI_CALL_(name, id, family, state)                                                      \
	if (PT_MPI_##family == PT_MPI_IO)                                                          \
		io_mpi_calls[id] = strstr(#name, "read")    ? IO_MPI_READ                          \
		                   : strstr(#name, "write") ? IO_MPI_WRITE                         \
		                                            : IO_MPI_OTHER;
	PT_MPI_CALLS(IO_MPI_CALL_)
#undef IO_MPI_CALL_
}

static int io_pf_init(const pt_trace_ctx *ctx, void **global)
{
	io_pf_global *g = calloc(1, sizeof *g);
	if (!g || !(g->names = io_names_new(ctx->nprocesses))) {
		free(g);
		return -1;
	}
	io_names_want_mpi(g->names);
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, io_mpi_calls_init);
	*global = g;
	return 0;
}

static void io_pf_destroy(void *global)
{
	io_pf_global *g = global;
	if (!g)
		return;
	io_names_free(g->names);
	free(g->file);
	free(g->thr);
	free(g);
}

static void io_pf_process_event(void *global, size_t process, const pt_event *ev)
{
	io_pf_global *g = global;
	io_names_process_event(g->names, process, ev);
}

static void io_stat_add(io_stat *to, const io_stat *from)
{
	to->calls += from->calls;
	to->reads += from->reads;
	to->writes += from->writes;
	to->failed += from->failed;
	to->bytes_read += from->bytes_read;
	to->bytes_written += from->bytes_written;
	to->ns += from->ns;
}

static void io_stat_call(io_stat *s, const io_done *d)
{
	s->calls++;
	s->failed += d->failed != 0;
	s->ns += d->end_ns > d->begin_ns ? d->end_ns - d->begin_ns : 0;
	if (pt_io_op_reads(d->op)) {
		s->reads++;
		s->bytes_read += d->bytes;
	} else if (pt_io_op_writes(d->op)) {
		s->writes++;
		s->bytes_written += d->bytes;
	}
}

/* One call on the file value v. */
static void io_pf_count(io_pf_shard *x, uint32_t v, const io_done *d)
{
	if (v >= x->nfile) {
		size_t n;
		io_stat *f = pt_grow_zeroed(x->file, x->nfile, v, sizeof *f, 8, &n);
		if (!f) {
			x->oom = 1;
			return;
		}
		x->file = f;
		x->nfile = (uint32_t)n;
	}
	io_stat_call(&x->file[v], d);
	io_stat_call(&x->total, d);
}

static void io_pf_done(io_pf_global *g, io_pf_shard *x, const io_done *d)
{
	if (x->mpi.open) /* made by the MPI library inside an MPI-IO call */
		return;
	uint32_t v = io_names_value(g->names, x->process, d->file);
	if (x->mpi.in_call && io_names_mpi_twin(g->names, v))
		return;
	io_pf_count(x, v, d);
}

/* MPI_CALL, MPI_IO, MPI_CALL_END: an MPI-IO call that read or wrote is
 * one call on its file (io_done's op: a POSIX read or write). */
static void io_pf_mpi(io_pf_global *g, io_pf_shard *x, const pt_event *ev)
{
	io_mpi_track *m = &x->mpi;
	unsigned call = ev->rec->arg & 0xff;
	if (ev->kind == PT_REC_MPI_CALL) {
		*m = (io_mpi_track){1, io_mpi_calls[call] != IO_MPI_NONE, 0, call, ev->time_ns, 0,
		                    0};
		return;
	}
	if (ev->kind == PT_REC_MPI_CALL_END)
		m->in_call = 0;
	if (!m->open)
		return;
	if (ev->kind == PT_REC_MPI_IO) {
		const pt_rec_mpi_io *r = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_io);
		if (r) {
			m->moved = 1;
			m->bytes = r->bytes;
			m->fh = r->file;
		}
		return;
	}
	if (ev->kind != PT_REC_MPI_CALL_END)
		return;
	m->open = 0;
	unsigned dir = io_mpi_calls[m->call];
	if (!m->moved || (dir != IO_MPI_READ && dir != IO_MPI_WRITE))
		return;
	io_done d = {dir == IO_MPI_READ ? PT_IO_OP_READ : PT_IO_OP_WRITE,
	             m->begin_ns,
	             ev->time_ns,
	             m->bytes,
	             m->bytes,
	             -1,
	             0,
	             0};
	io_pf_count(x, io_names_mpi_value(g->names, x->process, m->fh, m->begin_ns), &d);
}

static int io_pf_event(void *global, void **shard, const pt_shard_info *in, const pt_event *ev)
{
	io_pf_global *g = global;
	io_pf_shard *x = *shard;
	if (!x) {
		if (!(x = *shard = calloc(1, sizeof *x)))
			return -1;
		x->process = in->process;
	}
	if (ev->kind >= PT_REC_RANGE_MPI_FIRST) {
		io_pf_mpi(g, x, ev);
		return x->oom ? -1 : 0;
	}
	io_done d;
	int step = io_track_step(&x->track, ev, &d);
	if (step == IO_STEP_END || (step == IO_STEP_BEGIN && d.end_ns))
		io_pf_done(g, x, &d);
	return x->oom ? -1 : 0;
}

static int io_pf_shard_exit(void *global, void *shard, const pt_shard_info *in, pf_thread *t,
                            uint64_t last_ns)
{
	(void)t;
	io_pf_global *g = global;
	io_pf_shard *x = shard;
	if (!x)
		return 0;
	int rc = 0;
	if (x->track.open) { /* the log ended inside the call */
		io_done d = {x->track.op, x->track.begin_ns, last_ns,       x->track.size,
		             0,           x->track.fd,       x->track.file, 1};
		io_pf_done(g, x, &d);
	}
	if (x->nfile > g->nfile) {
		io_stat *f = realloc(g->file, x->nfile * sizeof *f);
		if (f) {
			memset(f + g->nfile, 0, (x->nfile - g->nfile) * sizeof *f);
			g->file = f;
			g->nfile = x->nfile;
		}
	}
	for (uint32_t v = 0; v < x->nfile && v < g->nfile; v++)
		io_stat_add(&g->file[v], &x->file[v]);
	if (x->nfile > g->nfile)
		rc = -1;
	if (x->total.calls) {
		if (g->nthr == g->capthr) {
			size_t cap = g->capthr ? g->capthr * 2 : 16;
			io_thread_row *r = realloc(g->thr, cap * sizeof *r);
			if (r) {
				g->thr = r;
				g->capthr = cap;
			}
		}
		if (g->nthr < g->capthr)
			g->thr[g->nthr++] = (io_thread_row){in->pid, in->tid, x->total};
		else
			rc = -1;
	}
	if (x->oom)
		rc = -1;
	free(x->file);
	free(x);
	return rc;
}

/* ---- printing ---------------------------------------------------------- */
static const io_pf_global *io_sort_g;

/* Files by time in I/O, then by name. */
static int io_file_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const io_stat *s = io_sort_g->file;
	if (s[x].ns != s[y].ns)
		return s[x].ns > s[y].ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int io_thread_cmp(const void *a, const void *b)
{
	const io_thread_row *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The files that had calls, in the order they print (*n 0: none, and
 * nothing to free). */
static uint32_t *io_files_sorted(io_pf_global *g, uint32_t *n)
{
	*n = 0;
	uint32_t *v = malloc((g->nfile ? g->nfile : 1) * sizeof *v);
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < g->nfile; i++)
		if (g->file[i].calls)
			v[(*n)++] = i;
	io_sort_g = g; /* printing runs on one thread */
	pt_qsort(v, *n, sizeof *v, io_file_cmp);
	pt_qsort(g->thr, g->nthr, sizeof *g->thr, io_thread_cmp);
	if (!*n) {
		free(v);
		v = NULL;
	}
	return v;
}

static const char *io_file_label(const io_pf_global *g, uint32_t v)
{
	const char *name = io_names_name(g->names, v);
	return name ? name : "(descriptor not named)";
}

/* Which interface a file's row counts: "posix" or "mpi-io". */
static const char *io_file_api(const io_pf_global *g, uint32_t v)
{
	return io_names_is_mpi(g->names, v) ? "mpi-io" : "posix";
}

/* Bytes per second of time in the calls (0 without time). */
static double io_rate(const io_stat *s)
{
	return s->ns ? (double)(s->bytes_read + s->bytes_written) * 1e9 / (double)s->ns : 0;
}

static void io_text_row(FILE *o, unsigned nw, const char *label, const io_stat *s)
{
	char r[32], w[32], t[32], rate[40];
	pt_fmt_bytes(r, sizeof r, (double)s->bytes_read);
	pt_fmt_bytes(w, sizeof w, (double)s->bytes_written);
	pt_fmt_dur(t, sizeof t, s->ns);
	pt_fmt_bytes(rate, sizeof rate - 2, io_rate(s));
	strcat(rate, "/s");
	char name[512];
	pt_text_fit(name, sizeof name, label, nw, 1);
	fprintf(o, "%-*s %8llu %11s %11s %9s %13s\n", (int)nw, name, (unsigned long long)s->calls,
	        r, w, t, rate);
}

static void io_pf_text(void *global, unsigned nw, int short_form, unsigned top, FILE *o)
{
	io_pf_global *g = global;
	uint32_t n;
	uint32_t *v = io_files_sorted(g, &n);
	if (!n)
		return;
	io_stat all = {0};
	for (uint32_t i = 0; i < n; i++)
		io_stat_add(&all, &g->file[v[i]]);
	char t[32];
	pt_fmt_dur(t, sizeof t, all.ns);
	fprintf(o, "\nFile I/O (%u files, %llu calls, %s in the calls)\n", n,
	        (unsigned long long)all.calls, t);
	fprintf(o, "%-*s %8s %11s %11s %9s %13s\n", (int)nw, "file", "calls", "read", "written",
	        "time", "throughput");
	for (uint32_t i = 0; i < n && (!top || i < top); i++) {
		char label[4200];
		snprintf(label, sizeof label, "%s%s", io_file_label(g, v[i]),
		         io_names_is_mpi(g->names, v[i]) ? " (MPI-IO)" : "");
		io_text_row(o, nw, label, &g->file[v[i]]);
	}
	if (!short_form && g->nthr) {
		fprintf(o, "%-*s %8s %11s %11s %9s %13s\n", (int)nw, "thread", "calls", "read",
		        "written", "time", "throughput");
		for (size_t i = 0; i < g->nthr && (!top || i < top); i++) {
			char label[64];
			snprintf(label, sizeof label, "%u:%u", g->thr[i].pid, g->thr[i].tid);
			io_text_row(o, nw, label, &g->thr[i].s);
		}
	}
	free(v);
}

#define IO_CSV_COLS "calls,reads,writes,failed,bytes_read,bytes_written,io_ns,bytes_per_s"

/* api: the file row's last column, NULL for a thread's row. */
static void io_csv_stat(FILE *o, const io_stat *s, const char *api)
{
	fprintf(o, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.0f%s%s\n", (unsigned long long)s->calls,
	        (unsigned long long)s->reads, (unsigned long long)s->writes,
	        (unsigned long long)s->failed, (unsigned long long)s->bytes_read,
	        (unsigned long long)s->bytes_written, (unsigned long long)s->ns, io_rate(s),
	        api ? "," : "", api ? api : "");
}

static void io_pf_csv(void *global, FILE *o)
{
	io_pf_global *g = global;
	uint32_t n;
	uint32_t *v = io_files_sorted(g, &n);
	if (!n)
		return;
	fputs("\ntable,file," IO_CSV_COLS ",api\n", o);
	for (uint32_t i = 0; i < n; i++) {
		fputs("io_file,", o);
		pt_csv_str(o, io_file_label(g, v[i]));
		io_csv_stat(o, &g->file[v[i]], io_file_api(g, v[i]));
	}
	fputs("\ntable,pid,tid," IO_CSV_COLS "\n", o);
	for (size_t i = 0; i < g->nthr; i++) {
		fprintf(o, "io_thread,%u,%u", g->thr[i].pid, g->thr[i].tid);
		io_csv_stat(o, &g->thr[i].s, NULL);
	}
	free(v);
}

static void io_json_stat(FILE *o, const io_stat *s)
{
	fprintf(o,
	        "\"calls\": %llu, \"reads\": %llu, \"writes\": %llu, \"failed\": %llu, "
	        "\"bytes_read\": %llu, \"bytes_written\": %llu, \"io_ns\": %llu, "
	        "\"bytes_per_s\": %.0f}",
	        (unsigned long long)s->calls, (unsigned long long)s->reads,
	        (unsigned long long)s->writes, (unsigned long long)s->failed,
	        (unsigned long long)s->bytes_read, (unsigned long long)s->bytes_written,
	        (unsigned long long)s->ns, io_rate(s));
}

static void io_pf_json(void *global, FILE *o)
{
	io_pf_global *g = global;
	uint32_t n;
	uint32_t *v = io_files_sorted(g, &n);
	fputs(",\n \"io_files\": [", o);
	for (uint32_t i = 0; v && i < n; i++) {
		fprintf(o, "%s\n  {\"file\": ", i ? "," : "");
		pt_json_str(o, io_file_label(g, v[i]));
		fprintf(o, ", \"api\": \"%s\", ", io_file_api(g, v[i]));
		io_json_stat(o, &g->file[v[i]]);
	}
	fputs("\n ],\n \"io_threads\": [", o);
	for (size_t i = 0; i < g->nthr; i++) {
		fprintf(o, "%s\n  {\"pid\": %u, \"tid\": %u, ", i ? "," : "", g->thr[i].pid,
		        g->thr[i].tid);
		io_json_stat(o, &g->thr[i].s);
	}
	fputs("\n ]", o);
	free(v);
}

extern const pf_html io_html;

const pf_family io_report = {
    /* the POSIX calls' records, and the MPI calls' (MPI-IO) */
    .kind_first = PT_REC_IO_CALL,
    .kind_last = PT_REC_RANGE_MPI_LAST,
    .init = io_pf_init,
    .process_event = io_pf_process_event,
    .event = io_pf_event,
    .shard_exit = io_pf_shard_exit,
    .print_text = io_pf_text,
    .print_csv = io_pf_csv,
    .print_json = io_pf_json,
    .destroy = io_pf_destroy,
    .html = &io_html,
};
