/* SPDX-License-Identifier: MIT */
/* The timeline exports' shared part (timeline.h): records -> timeline
 * events, one temporary file per shard, the final file assembled in
 * finish. The encoders (chrome.c, perfetto.c) only write. */
#define _GNU_SOURCE
#include "timeline.h"
#include "gpu_common.h"
#include "gpu_prof.h"
#include "omp_common.h"
#include "mpi_common.h"
#include "pt_fw_mpi.h"
#include "pt_fw_util.h"
#include "pt_waits.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct tl_tool_state {
	const tl_encoder *enc;
	const pt_trace_ctx *ctx;
	char *path;
	char *tmpdir;
	char **tmp; /* per shard */
	uint64_t events;
	gpu_names *names; /* kernel names, from the process logs */
	gpu_profs *profs; /* kernel profiles' definitions */
	omp_names *omp;   /* OpenMP code locations, from the process logs */
	pthread_mutex_t lock;
	/* MPI: ranks, and the messages of every thread (under lock), matched
	 * into flows at the end */
	mpi_ranks ranks;
	mpi_ends sends, recvs;
	int mpi_oom;
} tl_tool_state;

struct tl_shard {
	tl_tool_state *tool;
	tl_out out;
	char *buf;
	pt_callstack calls;
	pt_func_lookup fl;
	pt_waits waits;
	uint64_t busy_until; /* GPU stream: end of the last device interval */
	tl_omp *omp;         /* from the thread's first OpenMP record */
	tl_sel sel;          /* what is written (timeline_sel.c) */
	gpu_prof_join *join; /* GPU stream: kernels and their profiles */
	mpi_track mpi;        /* this thread's MPI calls and messages */
	unsigned mpi_call;    /* the open MPI call: a slice at its end */
	uint64_t mpi_begin;
	char err[256];
};

void *tl_init(const tl_encoder *enc, const pt_trace_ctx *ctx, char *err, size_t errlen)
{
	tl_tool_state *tl = calloc(1, sizeof *tl);
	if (!tl) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	tl->enc = enc;
	tl->ctx = ctx;
	pthread_mutex_init(&tl->lock, NULL);
	tl->path = strdup(ctx->output ? ctx->output : "trace.out");
	tl->tmp = calloc(ctx->nshards + 1, sizeof *tl->tmp);
	tl->names = gpu_names_new(ctx->nprocesses);
	tl->profs = gpu_profs_new(ctx->nprocesses);
	tl->omp = omp_names_new(ctx);
	size_t n = tl->path ? strlen(tl->path) + 32 : 0;
	tl->tmpdir = n ? malloc(n) : NULL;
	if (!tl->path || !tl->tmp || !tl->names || !tl->profs || !tl->omp || !tl->tmpdir) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (mpi_ranks_init(&tl->ranks, ctx)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	snprintf(tl->tmpdir, n, "%s.tmp-XXXXXX", tl->path);
	if (!mkdtemp(tl->tmpdir)) {
		snprintf(err, errlen, "cannot create %s: %s", tl->tmpdir, strerror(errno));
		goto fail;
	}
	return tl;
fail:
	mpi_ranks_free(&tl->ranks);
	free(tl->path);
	free(tl->tmp);
	free(tl->tmpdir);
	if (tl->names)
		gpu_names_free(tl->names);
	gpu_profs_free(tl->profs);
	omp_names_free(tl->omp);
	pthread_mutex_destroy(&tl->lock);
	free(tl);
	return NULL;
}

int tl_process_event(void *tool, size_t process, const pt_event *ev)
{
	tl_tool_state *tl = tool;
	gpu_names_process_event(tl->names, process, ev);
	gpu_profs_process_event(tl->profs, process, ev);
	omp_names_process_event(tl->omp, process, ev);
	mpi_ranks_process_event(&tl->ranks, process, ev);
	return 0;
}

void tl_process_name(const pt_trace_ctx *ctx, size_t process, char *buf, size_t len)
{
	const pt_process_info *p = &ctx->processes[process];
	const pt_fw_mpi *m = pt_fw_mpi_process(ctx, process);
	char rank[64];
	if (m)
		pt_fw_mpi_label(m, rank, sizeof rank);
	if (m)
		snprintf(buf, len, "%s %s (pid %u)", p->program, rank, p->pid);
	else
		snprintf(buf, len, "%s (pid %u)", p->program, p->pid);
}

void *tl_shard_init(void *tool, const pt_shard_info *info, char *err, size_t errlen)
{
	tl_tool_state *tl = tool;
	if (omp_names_finish(tl->omp)) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	tl_shard *s = calloc(1, sizeof *s);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%zu", tl->tmpdir, info->index);
	if (!s || !(s->buf = malloc(1 << 16)) || !(tl->tmp[info->index] = strdup(path)) ||
	    !(s->out.f = fopen(path, "w"))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : ENOMEM));
		if (s)
			free(s->buf);
		free(s);
		return NULL;
	}
	setvbuf(s->out.f, s->buf, _IOFBF, 1 << 16);
	s->tool = tl;
	s->out.ctx = tl->ctx;
	s->out.info = info;
	tl_sel_init(&s->sel, &s->out, tl->enc, pt_fw_select(tl->ctx));
	if (!s->sel.skip && tl->enc->shard_init && !(s->out.enc = tl->enc->shard_init(&s->out))) {
		tl_sel_free(&s->sel);
		snprintf(err, errlen, "out of memory");
		fclose(s->out.f);
		free(s->buf);
		free(s);
		return NULL;
	}
	pt_func_lookup_init(&s->fl, tl->ctx, info->process);
	pt_callstack_init(&s->calls);
	mpi_track_init(&s->mpi, tl->ctx, info,
	               info->process < tl->ranks.n ? tl->ranks.rank[info->process] : -1);
	return s;
}

static void calls_push(void *arg, pt_callstack *cs)
{
	tl_shard *s = arg;
	tl_sel_enter(&s->sel, cs->at[cs->depth - 1].t, cs->ids[cs->depth - 1]);
}

static void calls_pop(void *arg, pt_callstack *cs, size_t n, uint64_t t, enum pt_call_end how)
{
	(void)cs;
	tl_shard *s = arg;
	tl_sel_exit(&s->sel, t, n, how == PT_CALL_CUT);
}

static const pt_callstack_ops tl_calls = {calls_push, calls_pop};

static void flow_point(tl_shard *s, uint64_t t, const char *name, int out, uint64_t flow)
{
	tl_sel_flow(&s->sel, t, name, out, flow);
}

static const char *lock_what(unsigned type)
{
	switch (type) {
	case PT_LOCK_RWLOCK_READ:
	case PT_LOCK_RWLOCK_WRITE: return "rwlock";
	case PT_LOCK_SPIN: return "spinlock";
	case PT_LOCK_SEMAPHORE: return "semaphore";
	case PT_LOCK_C11_MTX: return "mtx_t";
	default: return pt_lock_is_omp(type) ? omp_lock_name(type) : "mutex";
	}
}

/* A wait that ended, as a slice: "wait mutex", "wait condition", "wait futex", ... */
static void wait_ended(tl_shard *s, const pt_wait *w)
{
	static const char *const what[PT_WAIT_KINDS] = {"", "condition", "join", "barrier"};
	if (w->begun)
		tl_sel_wait(&s->sel, w->begin, w->end - w->begin,
		            w->kind == PT_WAIT_LOCK                              ? lock_what(w->type)
		            : w->kind == PT_WAIT_COND && w->type & PT_COND_FUTEX ? "futex"
		                                                                 : what[w->kind],
		            w->object);
}

static const char *kernel_name(tl_shard *s, uint32_t local_id)
{
	const gpu_names *names = s->tool->names;
	const char *n = gpu_names_kernel_name(names,
					      gpu_names_kernel(names, s->out.info->process, local_id));
	return n ? n : "kernel";
}

const char *const tl_counter_names[TL_COUNTERS] = {
	"instructions executed",
	"hot block share %",
	"work-groups",
	"work-group imbalance %",
};

/* A kernel's profile as the stream's counters over its execution. */
static void profile_counters(tl_shard *s, const pt_rec_head *h, uint64_t start, uint64_t end)
{
	const pt_rec_gpu_prof *r = PT_REC_PAYLOAD(h, pt_rec_gpu_prof);
	const gpu_prof_def *d = r ? gpu_profs_get(s->tool->profs, s->out.info->process, r->prof) : NULL;
	gpu_launch_prof lp;
	if (!s->tool->enc->counter || !d || gpu_launch_prof_read(d, h, &lp) != 0)
		return;
	gpu_prof_values v;
	gpu_prof_values_of(d, &lp, &v);
	double values[TL_COUNTERS] = {(double)v.instructions, v.hot_share_pct, (double)v.groups,
				      v.imbalance_pct};
	int shown[TL_COUNTERS] = {v.counted, v.counted, 1, v.timed};
	for (unsigned i = 0; i < TL_COUNTERS; i++)
		if (shown[i])
			tl_sel_counter(&s->sel, start, end, i, values[i]);
}

/* A GPU stream's log: its kernels and copies, at their device times. One
 * interval at a time, as on the Paraver row: one that starts before the
 * previous one ended (an out-of-order queue) starts at its end. */
static void device_event(tl_shard *s, const pt_event *ev)
{
	const pt_shard_info *in = s->out.info;
	uint64_t start, end, flow = 0;
	const char *cat, *name;
	char buf[64];
	if (ev->kind == PT_REC_GPU_KERNEL) {
		const pt_rec_gpu_kernel *k = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_kernel);
		if (!k)
			return;
		start = gpu_ticks_ns(in, k->start);
		end = gpu_ticks_ns(in, k->end);
		cat = "kernel";
		name = kernel_name(s, k->kernel);
		flow = tl_flow_gpu(in->pid, ev->rec->arg, k->correlation);
	} else if (ev->kind == PT_REC_GPU_MEMCPY || ev->kind == PT_REC_GPU_MEMSET) {
		const pt_rec_gpu_copy *c = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_copy);
		if (!c)
			return;
		start = gpu_ticks_ns(in, c->start);
		end = gpu_ticks_ns(in, c->end);
		cat = "transfer";
		if (ev->kind == PT_REC_GPU_MEMSET)
			snprintf(buf, sizeof buf, "memset %llu B", (unsigned long long)c->bytes);
		else
			snprintf(buf, sizeof buf, "%s %s %llu B", c->flags & PT_GPU_COPY_F_MAP ? "map" : "copy",
				 gpu_copy_dir_name(c->direction), (unsigned long long)c->bytes);
		name = buf;
	} else if (ev->kind == PT_REC_GPU_PROF) {
		if (!s->join)
			s->join = gpu_prof_join_new();
		if (gpu_prof_join_profile(s->join, ev->rec, &start, &end))
			profile_counters(s, ev->rec, start, end);
		return;
	} else {
		return;
	}
	gpu_one_at_a_time(&s->busy_until, &start, &end);
	tl_sel_device(&s->sel, start, end - start, cat, name, flow);
	if (ev->kind == PT_REC_GPU_KERNEL) {
		if (!s->join)
			s->join = gpu_prof_join_new();
		const pt_rec_gpu_kernel *k = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_kernel);
		pt_rec_head *waiting = gpu_prof_join_kernel(s->join, k->correlation, start, end);
		if (waiting)
			profile_counters(s, waiting, start, end);
		free(waiting);
	}
}

/* A kernel launch on the host: the source of the flow to its execution
 * (CUDA: also the nested driver call's id, which device records may carry). */
static void launch_event(tl_shard *s, const pt_event *ev)
{
	const pt_rec_gpu_launch *l = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_launch);
	if (!l)
		return;
	char name[256];
	if (l->kernel)
		snprintf(name, sizeof name, "launch %s", kernel_name(s, l->kernel));
	else
		snprintf(name, sizeof name, "launch"); /* a graph: its kernels are on the device */
	uint32_t pid = s->out.info->pid;
	flow_point(s, ev->time_ns, name, 1, tl_flow_gpu(pid, ev->rec->arg, l->correlation));
	if (l->correlation2 && l->correlation2 != l->correlation)
		flow_point(s, ev->time_ns, name, 1, tl_flow_gpu(pid, ev->rec->arg, l->correlation2));
}

int tl_shard_event(void *st, const pt_event *ev)
{
	tl_shard *s = st;
	const pt_shard_info *in = s->out.info;
	if (in->kind == PT_FILE_GPU) {
		device_event(s, ev);
		goto out;
	}
	if (in->kind != PT_FILE_THREAD)
		return 0;
	uint64_t t = ev->time_ns;
	if (t >= s->sel.edge)
		tl_sel_cross(&s->sel, t, &s->calls);
	int is_enter;
	uint32_t id = pt_event_func(ev, &s->fl, &is_enter);
	if (id) {
		/* a frame dropped for want of memory is dropped from the export */
		pt_callstack *cs = &s->calls;
		if (!pt_callstack_step(cs, id, is_enter, t))
			pt_callstack_func(cs, id, is_enter, t, &tl_calls, s);
		else if (is_enter)
			tl_sel_enter(&s->sel, t, id);
		else
			tl_sel_exit(&s->sel, t, 1, 0);
		goto out;
	}
	pt_callstack_record(&s->calls, ev, &tl_calls, s);
	if ((s->omp ||
	     (ev->kind >= PT_REC_RANGE_OPENMP_FIRST && ev->kind <= PT_REC_RANGE_OPENMP_LAST)) &&
	    tl_omp_event(&s->omp, s->tool->omp, &s->sel, ev)) {
		snprintf(s->err, sizeof s->err, "out of memory");
		return -1;
	}
	switch (ev->kind) {
	case PT_REC_THREAD_START: {
		const pt_rec_thread_start *x = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_start);
		if (x && x->create_seq)
			flow_point(s, t, "thread start", 0, tl_flow_thread(in->pid, x->create_seq));
		else if (x && (x->flags & PT_THREAD_MAIN) &&
			 s->tool->ctx->processes[in->process].forked)
			flow_point(s, t, "process start", 0, tl_flow_fork(in->pid));
		break;
	}
	case PT_REC_THREAD_CREATE: {
		const pt_rec_thread_create *x = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_create);
		if (x && x->create_seq && x->result == 0)
			flow_point(s, t, "pthread_create", 1, tl_flow_thread(in->pid, x->create_seq));
		break;
	}
	case PT_REC_FORK: {
		const pt_rec_fork *x = PT_REC_PAYLOAD(ev->rec, pt_rec_fork);
		if (x)
			flow_point(s, t, "fork", 1, tl_flow_fork(x->child_pid));
		break;
	}
	case PT_REC_GPU_LAUNCH: launch_event(s, ev); break;
	case PT_REC_MPI_CALL:
		mpi_track_event(&s->mpi, ev);
		s->mpi_call = ev->rec->arg;
		s->mpi_begin = t;
		break;
	case PT_REC_MPI_CALL_END: {
		mpi_track_event(&s->mpi, ev);
		const char *name = mpi_call_name(s->mpi_call);
		if (s->mpi_call && name)
			tl_sel_device(&s->sel, s->mpi_begin, t - s->mpi_begin, "mpi", name, 0);
		s->mpi_call = 0;
		break;
	}
	case PT_REC_MPI_SEND:
	case PT_REC_MPI_RECV: mpi_track_event(&s->mpi, ev); break;
	default: break;
	}
	pt_wait w;
	if (pt_waits_record(&s->waits, ev, &w) == PT_WAITS_ENDED)
		wait_ended(s, &w);
out:
	if (s->sel.oom) {
		snprintf(s->err, sizeof s->err, "out of memory");
		return -1;
	}
	if (ferror(s->out.f)) {
		snprintf(s->err, sizeof s->err, "writing %s: %s", s->tool->tmp[in->index],
			 strerror(errno));
		return -1;
	}
	return 0;
}

const char *tl_shard_error(void *st)
{
	return ((tl_shard *)st)->err;
}

int tl_shard_exit(void *st, uint64_t last_ns, int complete)
{
	(void)complete;
	tl_shard *s = st;
	pt_wait w;
	for (int k = 0; k < PT_WAIT_KINDS; k++)
		if (pt_waits_close(&s->waits, k, last_ns, &w))
			wait_ended(s, &w);
	tl_omp_end(s->omp, &s->sel, last_ns); /* inside the frames still open */
	pt_callstack_end(&s->calls, last_ns, &tl_calls, s); /* frames still open */
	tl_sel_end(&s->sel);
	int rc = fclose(s->out.f) ? -1 : 0;
	if (rc)
		snprintf(s->err, sizeof s->err, "writing %s: %s", s->tool->tmp[s->out.info->index],
			 strerror(errno));
	if (s->sel.oom && !rc) {
		snprintf(s->err, sizeof s->err, "out of memory");
		rc = -1;
	}
	mpi_track_end(&s->mpi, last_ns);
	pthread_mutex_lock(&s->tool->lock);
	s->tool->events += s->sel.events;
	if (mpi_ends_move(&s->tool->sends, &s->mpi.sends) ||
	    mpi_ends_move(&s->tool->recvs, &s->mpi.recvs) || s->mpi.oom)
		s->tool->mpi_oom = 1;
	pthread_mutex_unlock(&s->tool->lock);
	mpi_track_free(&s->mpi);
	tl_sel_free(&s->sel);
	if (s->tool->enc->shard_free && s->out.enc)
		s->tool->enc->shard_free(s->out.enc);
	free(s->buf);
	pt_callstack_free(&s->calls);
	pt_func_lookup_free(&s->fl);
	gpu_prof_join_free(s->join);
	free(s);
	return rc;
}

static int copy_file(FILE *out, const char *path)
{
	FILE *in = fopen(path, "r");
	if (!in)
		return -1;
	char buf[1 << 16];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		if (fwrite(buf, 1, n, out) != n) {
			fclose(in);
			return -1;
		}
	int rc = ferror(in) ? -1 : 0;
	fclose(in);
	return rc;
}

/* MPI messages as flows, once every thread's are known: each matched
 * message a flow from its send (when the send began) to its receive (when
 * it completed), written per thread row in time order, on a sequence of
 * the row's own after the shards' files. */
typedef struct flow_pt {
	uint64_t t, flow;
	int out;
} flow_pt;
typedef struct flow_pts {
	flow_pt *v;
	size_t n, cap;
} flow_pts;
typedef struct flows {
	flow_pts *per; /* per shard */
	uint64_t k;
	int oom;
} flows;

static void flow_push(flows *f, uint32_t shard, uint64_t t, int out, uint64_t flow)
{
	flow_pts *p = &f->per[shard];
	if (p->n == p->cap) {
		size_t ncap = p->cap ? 2 * p->cap : 16;
		flow_pt *v = realloc(p->v, ncap * sizeof *v);
		if (!v) {
			f->oom = 1;
			return;
		}
		p->v = v;
		p->cap = ncap;
	}
	p->v[p->n++] = (flow_pt){t, flow, out};
}

static void one_flow(void *arg, const mpi_end *snd, const mpi_end *rcv)
{
	flows *f = arg;
	uint64_t id = tl_flow_mpi(f->k++);
	flow_push(f, snd->shard, snd->lt, 1, id);
	flow_push(f, rcv->shard, rcv->pt, 0, id);
}

static int cmp_flow_pt(const void *a, const void *b)
{
	const flow_pt *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

static int mpi_flows(tl_tool_state *tl, FILE *o)
{
	const pt_trace_ctx *ctx = tl->ctx;
	if (!tl->sends.n || !tl->recvs.n)
		return 0;
	flows f = {calloc(ctx->nshards + 1, sizeof *f.per), 0, 0};
	if (!f.per)
		return -1;
	mpi_match_stats st;
	mpi_match(&tl->sends, &tl->recvs, one_flow, &f, &st);
	for (size_t i = 0; i < ctx->nshards && !f.oom; i++) {
		flow_pts *p = &f.per[i];
		if (!p->n)
			continue;
		pt_qsort(p->v, p->n, sizeof *p->v, cmp_flow_pt);
		tl_out out = {o, ctx, &ctx->shards[i], NULL, (uint32_t)(ctx->nshards + 2 + i)};
		if (tl->enc->shard_init && !(out.enc = tl->enc->shard_init(&out))) {
			f.oom = 1;
			break;
		}
		for (size_t j = 0; j < p->n; j++)
			tl->enc->flow_point(&out, p->v[j].t, "MPI message", p->v[j].out, p->v[j].flow);
		tl->events += p->n;
		if (tl->enc->shard_free)
			tl->enc->shard_free(out.enc);
	}
	for (size_t i = 0; i < ctx->nshards; i++)
		free(f.per[i].v);
	free(f.per);
	return f.oom ? -1 : 0;
}

int tl_finish(void *tool, char *err, size_t errlen)
{
	tl_tool_state *tl = tool;
	const pt_trace_ctx *ctx = tl->ctx;
	/* Written in the temporary folder beside the output and renamed into
	 * place, as analyze writes its files: never through whatever was at
	 * the output path (a symbolic link to someone else's file), and never
	 * half-written. */
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s/out", tl->tmpdir);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	FILE *o = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!o) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		return -1;
	}
	if (tl->enc->header(o, ctx))
		goto write_error;
	for (size_t i = 0; i < ctx->nshards; i++)
		if (tl->tmp[i] && copy_file(o, tl->tmp[i])) {
			snprintf(err, errlen, "%s: %s", tl->tmp[i], strerror(errno));
			fclose(o);
			unlink(tmp);
			return -1;
		}
	if (mpi_flows(tl, o)) {
		snprintf(err, errlen, "out of memory");
		fclose(o);
		unlink(tmp);
		return -1;
	}
	if (tl->enc->footer(o, ctx) || ferror(o))
		goto write_error;
	if (fclose(o)) {
		snprintf(err, errlen, "%s: %s", tl->path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, tl->path)) {
		snprintf(err, errlen, "%s: %s", tl->path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
write_error:
	snprintf(err, errlen, "%s: %s", tl->path, strerror(errno ? errno : EIO));
	fclose(o);
	unlink(tmp);
	return -1;
}

int tl_print(void *tool, FILE *out)
{
	tl_tool_state *tl = tool;
	if (!tl->ctx->quiet)
		fprintf(out, "%s: %s (%llu events)\n", tl->enc->name, tl->path,
			(unsigned long long)tl->events);
	return 0;
}

void tl_destroy(void *tool)
{
	tl_tool_state *tl = tool;
	for (size_t i = 0; i < tl->ctx->nshards; i++) {
		if (tl->tmp[i])
			unlink(tl->tmp[i]);
		free(tl->tmp[i]);
	}
	rmdir(tl->tmpdir);
	gpu_names_free(tl->names);
	gpu_profs_free(tl->profs);
	omp_names_free(tl->omp);
	mpi_ranks_free(&tl->ranks);
	mpi_ends_free(&tl->sends);
	mpi_ends_free(&tl->recvs);
	free(tl->tmp);
	free(tl->tmpdir);
	free(tl->path);
	pthread_mutex_destroy(&tl->lock);
	free(tl);
}
