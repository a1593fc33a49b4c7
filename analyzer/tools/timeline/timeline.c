/* SPDX-License-Identifier: MIT */
/* The timeline exports' shared part (timeline.h): records -> timeline
 * events (the families' through their tl_family), one temporary file per
 * shard, the final file assembled in finish. The encoders (chrome.c,
 * perfetto.c) only write. */
#define _GNU_SOURCE
#include "tl_tool.h"
#include "pt_framework.h"
#include "pt_fw_mpi.h"
#include "pt_fw_util.h"
#include "pt_throttle.h"
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
	pthread_mutex_t lock;
	void *fam[PT_MAX_FAMILIES]; /* each family's global state (tl_family) */
	size_t nfam;
} tl_tool_state;

/* A lock's name by address (NULL: no symbol names it). */
typedef struct tl_lock_name {
	uint64_t addr; /* 0: a free slot */
	char *name;
} tl_lock_name;

struct tl_shard {
	tl_tool_state *tool;
	tl_out out;
	char *buf;
	pt_callstack calls;
	pt_func_lookup fl;
	pt_throttles thr; /* THROTTLE_COUNTS seen */
	pt_waits waits;
	tl_lock_name *names; /* the locks this thread waited on, looked up once */
	size_t names_n, names_cap;
	tl_sel sel; /* what is written (timeline_sel.c) */
	void *fam[PT_MAX_FAMILIES]; /* each family's shard state */
	char err[256];
};

static const tl_family *fam(size_t i)
{
	return pt_families[i]->timeline;
}

static void tool_free(tl_tool_state *tl)
{
	for (size_t i = 0; i < tl->nfam; i++)
		if (fam(i) && fam(i)->destroy)
			fam(i)->destroy(tl->fam[i]);
	free(tl->path);
	free(tl->tmp);
	free(tl->tmpdir);
	pthread_mutex_destroy(&tl->lock);
	free(tl);
}

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
	size_t n = tl->path ? strlen(tl->path) + 32 : 0;
	tl->tmpdir = n ? malloc(n) : NULL;
	int oom = !tl->path || !tl->tmp || !tl->tmpdir;
	for (size_t i = 0; !oom && i < pt_nfamilies(); i++, tl->nfam++)
		oom = fam(i) && fam(i)->init && fam(i)->init(ctx, &tl->fam[i]);
	if (oom) {
		snprintf(err, errlen, "out of memory");
		tool_free(tl);
		return NULL;
	}
	snprintf(tl->tmpdir, n, "%s.tmp-XXXXXX", tl->path);
	if (!mkdtemp(tl->tmpdir)) {
		snprintf(err, errlen, "cannot create %s: %s", tl->tmpdir, strerror(errno));
		tool_free(tl);
		return NULL;
	}
	return tl;
}

int tl_process_event(void *tool, size_t process, const pt_event *ev)
{
	tl_tool_state *tl = tool;
	for (size_t i = 0; i < tl->nfam; i++)
		if (fam(i) && fam(i)->process_event)
			fam(i)->process_event(tl->fam[i], process, ev);
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

static void shard_free(tl_shard *s)
{
	tl_sel_free(&s->sel);
	if (s->tool->enc->shard_free && s->out.enc)
		s->tool->enc->shard_free(s->out.enc);
	free(s->buf);
	pt_callstack_free(&s->calls);
	pt_func_lookup_free(&s->fl);
	pt_throttles_free(&s->thr);
	for (size_t i = 0; i < s->names_cap; i++)
		free(s->names[i].name);
	free(s->names);
	free(s);
}

void *tl_shard_init(void *tool, const pt_shard_info *info, char *err, size_t errlen)
{
	tl_tool_state *tl = tool;
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
	pt_func_lookup_init(&s->fl, tl->ctx, info->process);
	pt_callstack_init(&s->calls, info->header);
	int oom = !s->sel.skip && tl->enc->shard_init && !(s->out.enc = tl->enc->shard_init(&s->out));
	size_t i = 0;
	for (; !oom && i < tl->nfam; i++)
		oom = fam(i) && fam(i)->shard_init && fam(i)->shard_init(tl->fam[i], info, &s->fam[i]);
	if (oom) {
		while (i--) /* the families' states made so far go */
			if (fam(i) && fam(i)->shard_exit && s->fam[i])
				fam(i)->shard_exit(tl->fam[i], s->fam[i]);
		snprintf(err, errlen, "out of memory");
		fclose(s->out.f);
		shard_free(s);
		return NULL;
	}
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

static void flow_point(tl_shard *s, uint64_t t, const char *name, int out, uint64_t flow,
                       const char *flow_name)
{
	tl_sel_flow(&s->sel, t, name, out, flow, flow_name);
}

/* A function the runtime throttled (format/throttle.h): a zero-length
 * slice where it began, naming it and the calls it counted after it
 * (exact) and their time (estimated from the runtime's mean), which no
 * slice shows. */
static void throttle_record(tl_shard *s, const pt_event *ev)
{
	pt_throttled th;
	int r = pt_throttles_record(&s->thr, ev, &th);
	if (r < 0)
		s->sel.oom = 1;
	uint32_t id = r > 0 ? pt_func_lookup_id(&s->fl, th.local_id) : 0;
	if (!id)
		return;
	char name[512];
	snprintf(name, sizeof name,
	         "throttled: %s (%llu calls after this, counted, not shown; ~%llu ns estimated)",
	         pt_ctx_func_info(s->tool->ctx, id)->name, (unsigned long long)th.count,
	         (unsigned long long)(th.count * th.mean_ns));
	tl_sel_device(&s->sel, ev->time_ns, 0, "throttling", name, 0, NULL);
}

static const char *lock_what(unsigned type)
{
	switch (type) {
	case PT_LOCK_MUTEX: return "mutex";
	case PT_LOCK_RWLOCK_READ:
	case PT_LOCK_RWLOCK_WRITE: return "rwlock";
	case PT_LOCK_SPIN: return "spinlock";
	case PT_LOCK_SEMAPHORE: return "semaphore";
	case PT_LOCK_C11_MTX: return "mtx_t";
	default: {
		const char *n = pt_family_lock_name(type);
		return n ? n : "mutex";
	}
	}
}

static tl_lock_name *lock_slot(tl_lock_name *v, size_t cap, uint64_t addr)
{
	size_t j = pt_mix64(addr) & (cap - 1);
	while (v[j].addr && v[j].addr != addr)
		j = (j + 1) & (cap - 1);
	return &v[j];
}

/* The lock at addr as the report and the .pcf name it ("result_mu",
 * "q+0x28"), NULL when no symbol does. Each address is looked up once per
 * thread: the symbol table's lookup takes its lock, which every worker
 * shares. */
static const char *lock_name(tl_shard *s, uint64_t addr)
{
	if (!addr)
		return NULL;
	if (s->names_cap) {
		tl_lock_name *e = lock_slot(s->names, s->names_cap, addr);
		if (e->addr)
			return e->name;
	}
	if (2 * (s->names_n + 1) > s->names_cap) {
		size_t cap = s->names_cap ? 2 * s->names_cap : 16;
		tl_lock_name *v = calloc(cap, sizeof *v);
		if (!v) {
			s->sel.oom = 1;
			return NULL;
		}
		for (size_t i = 0; i < s->names_cap; i++)
			if (s->names[i].addr)
				*lock_slot(v, cap, s->names[i].addr) = s->names[i];
		free(s->names);
		s->names = v;
		s->names_cap = cap;
	}
	char buf[512];
	tl_lock_name *e = lock_slot(s->names, s->names_cap, addr);
	e->addr = addr;
	e->name = NULL;
	if (pt_fw_object_name(s->tool->ctx, s->out.info->pid, addr, buf, sizeof buf) == 0 &&
	    !(e->name = strdup(buf)))
		s->sel.oom = 1;
	s->names_n++;
	return e->name;
}

/* A wait that ended, as a slice: "wait mutex", "wait condition", "wait futex", ... */
static void wait_ended(tl_shard *s, const pt_wait *w)
{
	static const char *const what[PT_WAIT_KINDS] = {"", "condition", "join", "barrier"};
	if (!w->begun)
		return;
	if (w->kind == PT_WAIT_LOCK)
		tl_sel_wait(&s->sel, w->begin, w->end - w->begin, lock_what(w->type), w->object,
		            lock_name(s, w->object));
	else
		tl_sel_wait(&s->sel, w->begin, w->end - w->begin,
		            w->kind == PT_WAIT_COND && w->type & PT_COND_FUTEX ? "futex"
		                                                               : what[w->kind],
		            w->object, NULL);
}

/* The families' part of a record: those whose kinds it is, or that follow
 * the thread from their first record on. */
static int families_event(tl_shard *s, const pt_event *ev, int device)
{
	tl_tool_state *tl = s->tool;
	for (size_t i = 0; i < tl->nfam; i++) {
		const tl_family *f = fam(i);
		if (!f || !(device ? f->device_event : f->event) ||
		    !((ev->kind >= f->kind_first && ev->kind <= f->kind_last) ||
		      (f->all_after_first && s->fam[i])))
			continue;
		s->sel.fam_now = (unsigned)i;
		if ((device ? f->device_event : f->event)(tl->fam[i], &s->fam[i], &s->sel, ev)) {
			snprintf(s->err, sizeof s->err, "out of memory");
			return -1;
		}
	}
	return 0;
}

int tl_shard_event(void *st, const pt_event *ev)
{
	tl_shard *s = st;
	const pt_shard_info *in = s->out.info;
	if (in->kind == PT_FILE_GPU) {
		if (families_event(s, ev, 1))
			return -1;
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
	if (families_event(s, ev, 0))
		return -1;
	switch (ev->kind) {
	case PT_REC_THREAD_START: {
		const pt_rec_thread_start *x = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_start);
		if (x && x->create_seq)
			flow_point(s, t, "thread start", 0, tl_flow_thread(in->pid, x->create_seq),
			           "thread creation");
		else if (x && (x->flags & PT_THREAD_MAIN) &&
			 s->tool->ctx->processes[in->process].forked)
			flow_point(s, t, "process start", 0, tl_flow_fork(in->pid), "fork");
		break;
	}
	case PT_REC_THREAD_CREATE: {
		const pt_rec_thread_create *x = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_create);
		if (x && x->create_seq && x->result == 0)
			flow_point(s, t, "pthread_create", 1, tl_flow_thread(in->pid, x->create_seq),
			           "thread creation");
		break;
	}
	case PT_REC_FORK: {
		const pt_rec_fork *x = PT_REC_PAYLOAD(ev->rec, pt_rec_fork);
		if (x)
			flow_point(s, t, "fork", 1, tl_flow_fork(x->child_pid), "fork");
		break;
	}
	case PT_REC_THROTTLE:
	case PT_REC_THROTTLE_COUNTS:
		throttle_record(s, ev);
		break;
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
	tl_tool_state *tl = s->tool;
	pt_wait w;
	for (int k = 0; k < PT_WAIT_KINDS; k++)
		if (pt_waits_close(&s->waits, k, last_ns, &w))
			wait_ended(s, &w);
	/* inside the frames still open */
	for (size_t i = 0; i < tl->nfam; i++)
		if (fam(i) && fam(i)->shard_end) {
			s->sel.fam_now = (unsigned)i;
			fam(i)->shard_end(tl->fam[i], s->fam[i], &s->sel, last_ns);
		}
	pt_callstack_end(&s->calls, last_ns, &tl_calls, s); /* frames still open */
	tl_sel_end(&s->sel);
	int rc = fclose(s->out.f) ? -1 : 0;
	if (rc)
		snprintf(s->err, sizeof s->err, "writing %s: %s", tl->tmp[s->out.info->index],
			 strerror(errno));
	if (s->sel.oom && !rc) {
		snprintf(s->err, sizeof s->err, "out of memory");
		rc = -1;
	}
	pthread_mutex_lock(&tl->lock);
	tl->events += s->sel.events;
	for (size_t i = 0; i < tl->nfam; i++)
		if (fam(i) && fam(i)->shard_exit && fam(i)->shard_exit(tl->fam[i], s->fam[i]) && !rc) {
			snprintf(s->err, sizeof s->err, "out of memory");
			rc = -1;
		}
	pthread_mutex_unlock(&tl->lock);
	shard_free(s);
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

struct tl_late {
	tl_tool_state *tool;
	FILE *f;
};

int tl_late_flows(tl_late *w, size_t shard, const char *name, const tl_flow_pt *v, size_t n)
{
	tl_tool_state *tl = w->tool;
	const pt_trace_ctx *ctx = tl->ctx;
	tl_out out = {w->f, ctx, &ctx->shards[shard], NULL, (uint32_t)(ctx->nshards + 2 + shard)};
	if (tl->enc->shard_init && !(out.enc = tl->enc->shard_init(&out)))
		return -1;
	for (size_t j = 0; j < n; j++)
		tl->enc->flow_point(&out, v[j].t, name, v[j].out, v[j].flow, name);
	tl->events += n;
	if (tl->enc->shard_free)
		tl->enc->shard_free(out.enc);
	return 0;
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
	tl_late late = {tl, o};
	for (size_t i = 0; i < tl->nfam; i++)
		if (fam(i) && fam(i)->finish && fam(i)->finish(tl->fam[i], &late)) {
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
	tool_free(tl);
}
