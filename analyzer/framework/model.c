/* SPDX-License-Identifier: MIT */
/* The model of a trace the tools see (pt_trace_ctx): its processes, in
 * order of birth, and their shards, in row order, from the scanned
 * directory and each log's header and first record; then the serial
 * pre-pass over the process logs (names, process facts, the tools'
 * process_event). */
#define _GNU_SOURCE
#include "fw_internal.h"
#include "pt_workers.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* How many of a thread log's first records may come before its
 * THREAD_START (TIME, a LOST when its first event was lost...). */
#define START_WITHIN 4

/* Time of a log's first record (its leading TIME record), 0 if none; th
 * (a thread log's): what its THREAD_START says. */
static uint64_t first_time(const char *path, pt_file_header *hdr, pt_fw_thread *th)
{
	char err[256];
	pt_log *log = pt_log_open_path(path, 0, err, sizeof err);
	if (!log)
		return 0;
	pt_event ev;
	uint64_t t = 0;
	if (pt_log_read(log, &ev) == 0)
		t = ev.time_ns;
	for (int n = 0; th && n < START_WITHIN && pt_log_read(log, &ev) == 0; n++) {
		const pt_rec_thread_start *x = ev.kind == PT_REC_THREAD_START
		                                   ? PT_REC_PAYLOAD(ev.rec, pt_rec_thread_start)
		                                   : NULL;
		if (x) {
			th->main = !!(x->flags & PT_THREAD_MAIN);
			th->start_routine = x->start_routine;
			th->creator = x->creator_tid;
			break;
		}
	}
	const pt_file_header *h = pt_log_header(log);
	if (h && hdr)
		*hdr = *h;
	pt_log_close(log);
	return t;
}

static char *join_args(const char *p, const char *end, uint32_t argc)
{
	size_t cap = (size_t)(end - p) + 1;
	char *s = malloc(cap), *o = s;
	if (!s)
		return NULL;
	for (uint32_t i = 0; i < argc && p < end; i++) {
		size_t n = strnlen(p, (size_t)(end - p));
		if (o != s)
			*o++ = ' ';
		memcpy(o, p, n);
		o += n;
		p += n + 1;
	}
	*o = 0;
	return s;
}

/* Reads one process log: symbols, function table, process facts. */
static int prepass_process(fw *w, size_t pi, const char *path)
{
	fw_process *p = &w->procs[pi];
	char err[512];
	pt_log *log = pt_log_open_path(path, 0, err, sizeof err);
	if (!log) {
		fw_warnf(w, "%s", err);
		return 0;
	}
	pt_event ev;
	while (pt_log_read(log, &ev) == 0) {
		if (p->mpi.clocks)
			ev.time_ns = pt_fw_mpi_map(&p->mpi, ev.time_ns);
		if (ev.time_ns > w->prepass_end)
			w->prepass_end = ev.time_ns;
		pt_symtab_add(p->symtab, &ev);
		for (size_t t = 0; t < w->ntools; t++) {
			const pt_tool *tool = w->tools[t].tool;
			if (tool->process_event && tool->process_event(w->tool_state[t], pi, &ev)) {
				pt_log_close(log);
				fw_failf(w, "tool %s: %s: offset %llu: process record failed",
				         tool->name, path, (unsigned long long)ev.offset);
				return -1;
			}
		}
		switch (ev.kind) {
		case PT_REC_MPI_INIT: {
			/* a run without a launcher: its ranks were not read
			 * before (fw_mpi_scan); the tools that number ranks
			 * leave it out as well (pt_fw_mpi_record_check) */
			char msg[256];
			if (!p->mpi.confirmed && !p->mpi.no_rank &&
			    pt_fw_mpi_record_check(&ev, msg, sizeof msg)) {
				__atomic_add_fetch(&w->data_errors, 1, __ATOMIC_RELAXED);
				fw_warnf(w, "%s: offset %llu: %s", path,
				         (unsigned long long)ev.offset, msg);
			}
			break;
		}
		case PT_REC_THREAD_NAME:
			if (fw_threads_note(w, pi, &ev)) {
				pt_log_close(log);
				fw_failf(w, "out of memory");
				return -1;
			}
			break;
		case PT_REC_FUNC_DEF: {
			const pt_rec_func_def *d = PT_REC_PAYLOAD(ev.rec, pt_rec_func_def);
			if (d && fw_funcs_define(&w->funcs, p, d->id)) {
				pt_log_close(log);
				fw_failf(w, "out of memory");
				return -1;
			}
			break;
		}
		case PT_REC_PROCESS_INFO: {
			const pt_rec_process_info *i = PT_REC_PAYLOAD(ev.rec, pt_rec_process_info);
			const char *exe = pt_event_string(&ev, sizeof *i);
			if (i && exe) {
				free(p->exe);
				p->exe = strdup(exe);
				const char *a = exe + strlen(exe) + 1;
				const char *end = (const char *)ev.rec + ev.size;
				free(p->args);
				p->args = join_args(a, end, i->argc);
				if (i->flags & PT_HDR_FLAG_FORKED)
					p->info.forked = 1;
			}
			break;
		}
		case PT_REC_FORK: {
			const pt_rec_fork *f = PT_REC_PAYLOAD(ev.rec, pt_rec_fork);
			/* in the child's process log: when it was born */
			if (f && f->child_pid == p->info.pid) {
				p->info.forked = 1;
				p->info.fork_ns = ev.time_ns;
			}
			break;
		}
		case PT_REC_EXIT: {
			const pt_rec_exit *x = PT_REC_PAYLOAD(ev.rec, pt_rec_exit);
			if (x) {
				p->info.exited = 1;
				p->info.exit_how = (int)x->how;
				p->info.exit_status = x->status;
				p->info.exit_ns = ev.time_ns;
			}
			break;
		}
		default:
			break;
		}
	}
	w->logs++;
	if (!(ev.state == PT_LOG_EOF && ev.complete))
		w->unclosed++;
	if (ev.state == PT_LOG_ERROR)
		__atomic_add_fetch(&w->data_errors, 1, __ATOMIC_RELAXED);
	if (ev.state == PT_LOG_ERROR)
		fw_warnf(w, "%s: offset %llu: %s (records before it were used)", path,
		         (unsigned long long)ev.offset, ev.error ? ev.error : "corrupted data");
	char *sw = pt_symtab_take_warnings(p->symtab);
	if (sw) {
		for (char *line = strtok(sw, "\n"); line; line = strtok(NULL, "\n"))
			fw_warnf(w, "%s", line);
		free(sw);
	}
	pt_log_close(log);
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	const fw_process *x = a, *y = b;
	/* MPI ranks first, in rank order (task = rank + 1); of two processes
	 * that say they are one rank (an image before exec, a process killed
	 * before MPI_Init), the one whose MPI_Init was seen first */
	int rx = x->mpi.rank >= 0, ry = y->mpi.rank >= 0;
	if (rx != ry)
		return rx ? -1 : 1;
	if (rx && x->mpi.rank != y->mpi.rank)
		return x->mpi.rank < y->mpi.rank ? -1 : 1;
	if (rx && x->mpi.confirmed != y->mpi.confirmed)
		return x->mpi.confirmed ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->info.pid < y->info.pid ? -1 : x->info.pid > y->info.pid;
}

static int cmp_shard(const void *a, const void *b)
{
	const pt_shard_info *x = a, *y = b;
	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	if (x->kind != y->kind) /* threads first, then GPU streams */
		return x->kind == PT_FILE_THREAD ? -1 : 1;
	if (x->kind == PT_FILE_GPU && x->gpu_stream != y->gpu_stream)
		return x->gpu_stream < y->gpu_stream ? -1 : 1;
	/* the main thread starts first; ties by tid then file */
	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* A log whose header and first record time are read (first_time); a
 * process log of an MPI rank is read whole for its MPI facts. */
typedef struct first_read {
	const char *path;
	pt_file_header *h;
	uint64_t t;
	pt_fw_mpi *mpi; /* process logs: where the MPI facts go */
	pt_fw_thread *th; /* thread logs: what their THREAD_START says */
} first_read;

typedef struct first_reads {
	first_read *v;
	size_t n;
	size_t next; /* atomic */
} first_reads;

static void *first_reader(void *arg)
{
	first_reads *r = arg;
	for (;;) {
		size_t i = __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED);
		if (i >= r->n)
			return NULL;
		r->v[i].t = first_time(r->v[i].path, r->v[i].h, r->v[i].th);
		if (r->v[i].mpi && r->v[i].h->file_kind == PT_FILE_PROCESS && r->v[i].h->job_rank1)
			fw_mpi_scan(r->v[i].path, r->v[i].mpi);
	}
}

/* The rank a log's header says its process is, unless no process can be
 * it (a damaged header: said, and the process is no rank). */
static void header_rank(fw *w, fw_process *p, const char *path, const pt_file_header *h)
{
	char why[160];
	if (pt_fw_mpi_rank_check((int64_t)h->job_rank1 - 1, h->job_size, h->job_world, 1, why,
	                         sizeof why)) {
		w->data_errors++;
		fw_warnf(w,
		         "%s: offset %zu: damaged file header (%s); this process is counted as no "
		         "MPI rank",
		         path, offsetof(pt_file_header, job_rank1), why);
		p->mpi.no_rank = 1;
		return;
	}
	p->mpi.rank = (int)h->job_rank1 - 1;
	p->mpi.world = h->job_world;
}

/* Processes and shards from the scanned files; each log's first record
 * and header are read here (t0: the earliest time of the run). */
static int read_logs(fw *w, unsigned nworkers, uint64_t *t0, uint64_t *real0)
{
	pt_trace *tr = w->trace;
	first_reads r = {calloc(tr->nfiles + 1, sizeof *r.v), 0, 0};
	pt_file_header *other = calloc(tr->nfiles + 1, sizeof *other); /* process logs */
	if (!r.v || !other) {
		free(r.v);
		free(other);
		return -1;
	}
	/* the shards in file order; every file's header where it will stay */
	for (size_t pi = 0; pi < tr->nprocesses; pi++) {
		const pt_trace_process *tp = &tr->processes[pi];
		for (int f = tp->first_file; f < tp->first_file + tp->nfiles; f++) {
			const pt_trace_file *tf = &tr->files[f];
			first_read *fr = &r.v[r.n++];
			fr->path = tf->path;
			fr->h = &other[r.n - 1];
			fr->mpi = tf->kind == PT_FILE_PROCESS ? &w->procs[pi].mpi : NULL;
			w->procs[pi].mpi.rank = -1;
			if (tf->kind != PT_FILE_THREAD && tf->kind != PT_FILE_GPU)
				continue;
			pt_shard_info *s = &w->shards[w->nshards];
			fr->h = &w->headers[w->nshards];
			fr->th = tf->kind == PT_FILE_THREAD ? &w->threads[w->nshards] : NULL;
			s->path = tf->path;
			s->kind = tf->kind;
			s->pid = tf->pid;
			s->tid = tf->tid;
			s->process = pi;
			s->bytes = tf->size;
			w->nshards++;
		}
	}
	/* on the workers: a trace of 100,000 threads has as many files to open */
	pt_workers_run(nworkers, first_reader, &r);
	/* damaged clock points, left out: damaged data, said in process order */
	for (size_t pi = 0; pi < tr->nprocesses; pi++) {
		char *refused = w->procs[pi].mpi.refused;
		for (char *line = refused ? strtok(refused, "\n") : NULL; line;
		     line = strtok(NULL, "\n")) {
			w->data_errors++;
			fw_warnf(w, "%s", line);
		}
		free(refused);
		w->procs[pi].mpi.refused = NULL;
	}
	/* what they say, in file order (the first program name, the earliest
	 * time, as when they were read one by one) */
	size_t k = 0, shard = 0;
	for (size_t pi = 0; pi < tr->nprocesses; pi++) {
		fw_process *p = &w->procs[pi];
		const pt_trace_process *tp = &tr->processes[pi];
		p->scan_index = (int)pi;
		p->info.pid = tp->pid;
		p->info.ppid = tp->ppid;
		p->info.parent = -1;
		p->parent = -1;
		p->start_ns = UINT64_MAX;
		p->symtab = pt_symtab_new();
		if (!p->symtab)
			break;
		for (int f = tp->first_file; f < tp->first_file + tp->nfiles; f++) {
			const pt_trace_file *tf = &tr->files[f];
			const pt_file_header *h = r.v[k].h;
			uint64_t t = r.v[k++].t;
			/* a rank without its process log still says which it is */
			if (p->mpi.rank < 0 && h->job_rank1 && !p->mpi.no_rank)
				header_rank(w, p, tf->path, h);
			uint64_t real = h->open.real_ns - h->open.mono_ns + t;
			if (t && p->mpi.clocks)
				t = pt_fw_mpi_map(&p->mpi, t);
			if (t && t < p->start_ns)
				p->start_ns = t;
			if (t && t < *t0) {
				*t0 = t;
				*real0 = real;
			}
			if (!p->program && h->program[0])
				p->program = strndup(h->program, sizeof h->program);
			if (h->flags & PT_HDR_FLAG_FORKED)
				p->info.forked = 1;
			if (tf->kind != PT_FILE_THREAD && tf->kind != PT_FILE_GPU)
				continue;
			w->shards[shard].gpu_stream = h->gpu_stream;
			w->shards[shard++].first_ns = t;
		}
	}
	free(r.v);
	free(other);
	return shard == w->nshards ? 0 : -1;
}

/* Processes in order of birth (forked children after their parents), their
 * shards in row order, each shard's header moved along with it. */
static int sort_model(fw *w)
{
	fw_process *sorted = malloc(w->nprocs * sizeof *sorted);
	size_t *pos = malloc(w->nprocs * sizeof *pos);
	pt_file_header *hdrs = malloc(w->nshards * sizeof *hdrs);
	pt_fw_thread *ths = malloc(w->nshards * sizeof *ths);
	if (!sorted || !pos || !hdrs || !ths) {
		free(sorted);
		free(pos);
		free(hdrs);
		free(ths);
		return -1;
	}
	memcpy(sorted, w->procs, w->nprocs * sizeof *sorted);
	qsort(sorted, w->nprocs, sizeof *sorted, cmp_proc);
	for (size_t i = 0; i < w->nprocs; i++)
		pos[sorted[i].scan_index] = i;
	memcpy(w->procs, sorted, w->nprocs * sizeof *sorted);
	free(sorted);
	for (size_t i = 0; i < w->nshards; i++)
		w->shards[i].process = pos[w->shards[i].process];
	free(pos);
	/* headers (and what THREAD_START said) travel with their shard
	 * through the sort */
	for (size_t i = 0; i < w->nshards; i++)
		w->shards[i].header = &w->headers[i];
	qsort(w->shards, w->nshards, sizeof *w->shards, cmp_shard);
	for (size_t i = 0; i < w->nshards; i++) {
		size_t from = (size_t)(w->shards[i].header - w->headers);
		hdrs[i] = *w->shards[i].header;
		ths[i] = w->threads[from];
		w->shards[i].header = &hdrs[i];
	}
	free(w->headers);
	w->headers = hdrs;
	free(w->threads);
	w->threads = ths;
	return 0;
}

/* Parents; Paraver tasks (processes with at least one shard, in birth
 * order: a task cannot have zero threads; the others keep task 0), and
 * each shard's task, thread and row. */
static void number_model(fw *w)
{
	for (size_t pi = 0; pi < w->nprocs; pi++) {
		fw_process *p = &w->procs[pi];
		p->info.index = pi;
		for (size_t q = 0; q < w->nprocs; q++)
			if (q != pi && w->procs[q].info.pid == p->info.ppid)
				p->parent = p->info.parent = (int)q;
		p->info.first_shard = SIZE_MAX;
	}
	unsigned row = 0, ntasks = 0;
	for (size_t i = 0; i < w->nshards; i++) {
		pt_shard_info *s = &w->shards[i];
		fw_process *p = &w->procs[s->process];
		s->index = i;
		if (p->info.first_shard == SIZE_MAX) {
			p->info.first_shard = i;
			p->info.task = ++ntasks;
		}
		p->info.nshards++;
		s->task = p->info.task;
		s->thread = (unsigned)p->info.nshards;
		s->row = ++row;
	}
	for (size_t pi = 0; pi < w->nprocs; pi++)
		if (w->procs[pi].info.first_shard == SIZE_MAX)
			w->procs[pi].info.first_shard = 0;
}

int fw_build_model(fw *w, unsigned nworkers, char *err, size_t errlen)
{
	pt_trace *tr = w->trace;
	w->nprocs = tr->nprocesses;
	w->procs = calloc(w->nprocs ? w->nprocs : 1, sizeof *w->procs);
	size_t nshards = 0;
	for (size_t i = 0; i < tr->nfiles; i++)
		if (tr->files[i].kind == PT_FILE_THREAD || tr->files[i].kind == PT_FILE_GPU)
			nshards++;
	w->shards = calloc(nshards ? nshards : 1, sizeof *w->shards);
	w->headers = calloc(nshards ? nshards : 1, sizeof *w->headers);
	w->threads = calloc(nshards ? nshards : 1, sizeof *w->threads);
	uint64_t t0 = UINT64_MAX, real0 = 0;
	if (!w->procs || !w->shards || !w->headers || !w->threads ||
	    read_logs(w, nworkers, &t0, &real0))
		goto oom;
	if (w->nshards == 0) {
		snprintf(err, errlen, "%s: no thread or GPU logs in this trace", w->o->dir);
		return -1;
	}
	if (t0 == UINT64_MAX)
		t0 = 0;
	fw_mpi_number(w);
	if (sort_model(w))
		goto oom;
	number_model(w);
	w->pinfo = calloc(w->nprocs ? w->nprocs : 1, sizeof *w->pinfo);
	if (!w->pinfo)
		goto oom;
	w->ctx.dir = w->o->dir;
	w->ctx.t0_ns = t0;
	w->ctx.realtime0_ns = real0;
	w->ctx.ops = &fw_ops;
	w->ctx.framework = w;
	w->ctx.nshards = w->nshards;
	w->ctx.shards = w->shards;
	w->ctx.nprocesses = w->nprocs;
	w->ctx.processes = w->pinfo;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int fw_prepass(fw *w)
{
	for (size_t pi = 0; pi < w->nprocs; pi++) {
		fw_process *p = &w->procs[pi];
		const pt_trace_process *tp = &w->trace->processes[p->scan_index];
		/* a thread log given alone: the process.ptl beside it */
		const char *plog = pt_trace_process_log(w->trace, (size_t)p->scan_index);
		if (!plog) {
			fw_warnf(w, "%s: no process.ptl (function names and process facts unknown)",
			         tp->dir);
			continue;
		}
		if (prepass_process(w, pi, plog))
			return -1;
	}
	fw_threads_assign(w);
	for (size_t pi = 0; pi < w->nprocs; pi++) {
		fw_process *p = &w->procs[pi];
		if (!p->program)
			p->program = strdup("?");
		p->info.program = p->program;
		p->info.exe = p->exe ? p->exe : "";
		p->info.args = p->args ? p->args : "";
		w->pinfo[pi] = p->info;
	}
	return 0;
}
