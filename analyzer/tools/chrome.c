/* Chrome trace-event JSON export (opens in ui.perfetto.dev and
 * chrome://tracing): processes and threads named; user functions as nested
 * B/E slices (same resync rules as the Paraver writer); lock, condition,
 * join and barrier waits as X slices; thread creation and fork as flows
 * (s -> f) between 0-length "pthread_create"/"fork" and "thread start"
 * slices. Times are microseconds from the start of the trace, with ns
 * precision.
 *
 * Streaming with bounded memory: each shard writes its events to its own
 * temporary file while the workers run; finish() concatenates them after
 * the metadata. Flow ids need no matching across shards: both ends compute
 * pid * 2^20 + create_seq (forks: 2^52 + child pid).
 */
#define _GNU_SOURCE
#include "common.h"
#include "tools.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct ch_tool {
	const pt_trace_ctx *ctx;
	char *path;
	char *tmpdir;
	char **tmp; /* per shard */
	uint64_t events;
	pthread_mutex_t lock;
} ch_tool;

typedef struct ch_shard {
	ch_tool *ch;
	const pt_shard_info *info;
	FILE *f;
	char *buf;
	uint32_t *stack;
	size_t depth, cap;
	pt_func_lookup fl;
	uint64_t wait_t[4];
	uint64_t wait_obj[4];
	const char *wait_what[4];
	int wait_open[4];
	uint64_t n;
	char err[256];
} ch_shard;

static void json_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c < 0x20)
			fprintf(o, "\\u%04x", c);
		else
			fputc(c, o);
	}
	fputc('"', o);
}

static void ts(FILE *o, const ch_shard *s, uint64_t t)
{
	uint64_t r = t > s->ch->ctx->t0_ns ? t - s->ch->ctx->t0_ns : 0;
	fprintf(o, "%llu.%03llu", (unsigned long long)(r / 1000), (unsigned long long)(r % 1000));
}

static void head(ch_shard *s, const char *ph, uint64_t t)
{
	fprintf(s->f, "{\"ph\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":", ph, s->info->pid,
		s->info->kind == PT_FILE_GPU ? (unsigned)(1000000000u + s->info->gpu_stream)
					     : s->info->tid);
	ts(s->f, s, t);
	s->n++;
}

static void *ch_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	(void)options;
	ch_tool *ch = calloc(1, sizeof *ch);
	if (!ch) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ch->ctx = ctx;
	pthread_mutex_init(&ch->lock, NULL);
	ch->path = strdup(ctx->output ? ctx->output : "trace.json");
	ch->tmp = calloc(ctx->nshards + 1, sizeof *ch->tmp);
	size_t n = strlen(ch->path) + 32;
	ch->tmpdir = malloc(n);
	if (!ch->path || !ch->tmp || !ch->tmpdir) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	snprintf(ch->tmpdir, n, "%s.tmp-XXXXXX", ch->path);
	if (!mkdtemp(ch->tmpdir)) {
		snprintf(err, errlen, "cannot create %s: %s", ch->tmpdir, strerror(errno));
		goto fail;
	}
	return ch;
fail:
	free(ch->path);
	free(ch->tmp);
	free(ch->tmpdir);
	free(ch);
	return NULL;
}

static void *ch_shard_init(void *tool, const pt_shard_info *info, char *err, size_t errlen)
{
	ch_tool *ch = tool;
	ch_shard *s = calloc(1, sizeof *s);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%zu.json", ch->tmpdir, info->index);
	if (!s || !(s->buf = malloc(1 << 16)) || !(ch->tmp[info->index] = strdup(path)) ||
	    !(s->f = fopen(path, "w"))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : ENOMEM));
		if (s)
			free(s->buf);
		free(s);
		return NULL;
	}
	setvbuf(s->f, s->buf, _IOFBF, 1 << 16);
	s->ch = ch;
	s->info = info;
	pt_func_lookup_init(&s->fl, ch->ctx, info->process);
	return s;
}

static const char *func_name(ch_shard *s, uint32_t id)
{
	const pt_func_info *fi = pt_ctx_func_info(s->ch->ctx, id);
	return fi ? fi->name : "?";
}

static void slice_begin(ch_shard *s, uint64_t t, uint32_t id)
{
	if (s->depth == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		uint32_t *n = realloc(s->stack, ncap * sizeof *n);
		if (!n)
			return; /* the frame is dropped from the export; its exit is ignored */
		s->stack = n;
		s->cap = ncap;
	}
	s->stack[s->depth++] = id;
	head(s, "B", t);
	fputs(",\"cat\":\"function\",\"name\":", s->f);
	json_str(s->f, func_name(s, id));
	fputs("},\n", s->f);
}

static void slice_end(ch_shard *s, uint64_t t)
{
	s->depth--;
	head(s, "E", t);
	fputs("},\n", s->f);
}

static void instant_slice(ch_shard *s, uint64_t t, const char *name, const char *flow_ph,
			  uint64_t flow_id)
{
	head(s, "X", t);
	fprintf(s->f, ",\"dur\":0,\"cat\":\"thread\",\"name\":\"%s\"},\n", name);
	head(s, flow_ph, t);
	fprintf(s->f, ",\"cat\":\"thread\",\"name\":\"%s\",\"id\":%llu%s},\n",
		flow_id >> 52 ? "fork" : "thread creation", (unsigned long long)flow_id,
		flow_ph[0] == 'f' ? ",\"bp\":\"e\"" : "");
}

static void wait_begin(ch_shard *s, int k, uint64_t t, uint64_t obj, const char *what)
{
	s->wait_open[k] = 1;
	s->wait_t[k] = t;
	s->wait_obj[k] = obj;
	s->wait_what[k] = what;
}

static void wait_end(ch_shard *s, int k, uint64_t t)
{
	if (!s->wait_open[k])
		return;
	s->wait_open[k] = 0;
	head(s, "X", s->wait_t[k]);
	uint64_t d = t - s->wait_t[k];
	fprintf(s->f, ",\"dur\":%llu.%03llu,\"cat\":\"wait\",\"name\":\"wait %s\"",
		(unsigned long long)(d / 1000), (unsigned long long)(d % 1000), s->wait_what[k]);
	if (s->wait_obj[k])
		fprintf(s->f, ",\"args\":{\"object\":\"0x%llx\"}", (unsigned long long)s->wait_obj[k]);
	fputs("},\n", s->f);
}

static const char *lock_what(unsigned type)
{
	switch (type) {
	case PT_LOCK_RWLOCK_READ:
	case PT_LOCK_RWLOCK_WRITE: return "rwlock";
	case PT_LOCK_SPIN: return "spinlock";
	case PT_LOCK_SEMAPHORE: return "semaphore";
	case PT_LOCK_C11_MTX: return "mtx_t";
	default: return "mutex";
	}
}

static int ch_shard_event(void *st, const pt_event *ev)
{
	ch_shard *s = st;
	const pt_shard_info *in = s->info;
	if (in->kind != PT_FILE_THREAD)
		return 0;
	uint64_t t = ev->time_ns;
	int is_enter;
	uint32_t id = pt_event_func(ev, &s->fl, &is_enter);
	if (id) {
		if (is_enter)
			slice_begin(s, t, id);
		else
			for (size_t i = s->depth; i-- > 0;)
				if (s->stack[i] == id) {
					while (s->depth > i)
						slice_end(s, t);
					break;
				}
		goto out;
	}
	switch (ev->kind) {
	case PT_REC_THREAD_START: {
		const pt_rec_thread_start *x = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_start);
		if (x && x->create_seq)
			instant_slice(s, t, "thread start", "f",
				      ((uint64_t)in->pid << 20) + x->create_seq);
		else if (x && (x->flags & PT_THREAD_MAIN) &&
			 s->ch->ctx->processes[in->process].forked)
			instant_slice(s, t, "process start", "f", (1ull << 52) + in->pid);
		break;
	}
	case PT_REC_THREAD_CREATE: {
		const pt_rec_thread_create *x = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_create);
		if (x && x->create_seq && x->result == 0)
			instant_slice(s, t, "pthread_create", "s",
				      ((uint64_t)in->pid << 20) + x->create_seq);
		break;
	}
	case PT_REC_FORK: {
		const pt_rec_fork *x = PT_REC_PAYLOAD(ev->rec, pt_rec_fork);
		if (x)
			instant_slice(s, t, "fork", "s", (1ull << 52) + x->child_pid);
		break;
	}
	case PT_REC_LOCK_REQUEST: {
		pt_rec_lock lk;
		const pt_rec_lock *l = pt_rec_lock_get(ev->rec, &lk);
		if (l)
			wait_begin(s, 0, t, l->object, lock_what(ev->rec->arg));
		break;
	}
	case PT_REC_LOCK_ACQUIRED:
	case PT_REC_LOCK_FAILED:
		wait_end(s, 0, t);
		break;
	case PT_REC_COND_WAIT_BEGIN: {
		const pt_rec_cond *c = PT_REC_PAYLOAD(ev->rec, pt_rec_cond);
		if (c)
			wait_begin(s, 1, t, c->cond, "condition");
		break;
	}
	case PT_REC_COND_WAIT_END: wait_end(s, 1, t); break;
	case PT_REC_THREAD_JOIN_BEGIN: wait_begin(s, 2, t, 0, "join"); break;
	case PT_REC_THREAD_JOIN_END: wait_end(s, 2, t); break;
	case PT_REC_BARRIER_BEGIN: {
		pt_rec_lock lk;
		const pt_rec_lock *l = pt_rec_lock_get(ev->rec, &lk);
		if (l)
			wait_begin(s, 3, t, l->object, "barrier");
		break;
	}
	case PT_REC_BARRIER_END: wait_end(s, 3, t); break;
	default: break;
	}
out:
	if (ferror(s->f)) {
		snprintf(s->err, sizeof s->err, "writing %s: %s", s->ch->tmp[in->index],
			 strerror(errno));
		return -1;
	}
	return 0;
}

static const char *ch_shard_error(void *st)
{
	return ((ch_shard *)st)->err;
}

static int ch_shard_exit(void *st, uint64_t last_ns, int complete)
{
	(void)complete;
	ch_shard *s = st;
	for (int k = 0; k < 4; k++)
		wait_end(s, k, last_ns);
	while (s->depth) /* frames still open end at the last record */
		slice_end(s, last_ns);
	int rc = fclose(s->f) ? -1 : 0;
	pthread_mutex_lock(&s->ch->lock);
	s->ch->events += s->n;
	pthread_mutex_unlock(&s->ch->lock);
	free(s->buf);
	free(s->stack);
	pt_pc_cache_free(&s->fl.pcs);
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

static int ch_finish(void *tool, char *err, size_t errlen)
{
	ch_tool *ch = tool;
	const pt_trace_ctx *ctx = ch->ctx;
	FILE *o = fopen(ch->path, "w");
	if (!o) {
		snprintf(err, errlen, "%s: %s", ch->path, strerror(errno));
		return -1;
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"paratrace\"},\n"
	      "\"traceEvents\":[\n",
	      o);
	for (size_t p = 0; p < ctx->nprocesses; p++) {
		const pt_process_info *pi = &ctx->processes[p];
		char name[512];
		snprintf(name, sizeof name, "%s (pid %u)", pi->program, pi->pid);
		fprintf(o, "{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_name\",\"args\":{\"name\":",
			pi->pid);
		json_str(o, name);
		fprintf(o, "}},\n{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_sort_index\","
			   "\"args\":{\"sort_index\":%u}},\n",
			pi->pid, pi->task);
	}
	for (size_t i = 0; i < ctx->nshards; i++) {
		const pt_shard_info *s = &ctx->shards[i];
		char name[256];
		unsigned tid = s->tid;
		if (s->kind == PT_FILE_GPU) {
			tid = (unsigned)(1000000000u + s->gpu_stream);
			snprintf(name, sizeof name, "GPU stream %llu", (unsigned long long)s->gpu_stream);
		} else
			snprintf(name, sizeof name, "%s%u", s->tid == s->pid ? "main " : "thread ",
				 s->tid);
		fprintf(o, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":",
			s->pid, tid);
		json_str(o, name);
		fprintf(o, "}},\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_sort_index\","
			   "\"args\":{\"sort_index\":%u}},\n",
			s->pid, tid, s->thread);
	}
	for (size_t i = 0; i < ctx->nshards; i++)
		if (ch->tmp[i] && copy_file(o, ch->tmp[i])) {
			snprintf(err, errlen, "%s: %s", ch->tmp[i], strerror(errno));
			fclose(o);
			return -1;
		}
	uint64_t end = ctx->t_end_ns > ctx->t0_ns ? ctx->t_end_ns - ctx->t0_ns : 0;
	/* the last element has no comma after it: a global instant at the end */
	fprintf(o, "{\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"name\":\"end of trace\",\"ts\":%llu.%03llu}\n]}\n",
		(unsigned long long)(end / 1000), (unsigned long long)(end % 1000));
	if (fclose(o)) {
		snprintf(err, errlen, "%s: %s", ch->path, strerror(errno));
		return -1;
	}
	return 0;
}

static int ch_print(void *tool, FILE *out)
{
	ch_tool *ch = tool;
	if (!ch->ctx->quiet)
		fprintf(out, "Chrome trace: %s (%llu events)\n", ch->path,
			(unsigned long long)ch->events);
	return 0;
}

static void ch_destroy(void *tool)
{
	ch_tool *ch = tool;
	for (size_t i = 0; i < ch->ctx->nshards; i++) {
		if (ch->tmp[i])
			unlink(ch->tmp[i]);
		free(ch->tmp[i]);
	}
	rmdir(ch->tmpdir);
	free(ch->tmp);
	free(ch->tmpdir);
	free(ch->path);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
}

static const pt_tool chrome_tool = {
	.api_version = PT_TOOL_API_VERSION,
	.name = "chrome",
	.description = "Chrome trace-event JSON",
	.init = ch_init,
	.shard_init = ch_shard_init,
	.shard_event = ch_shard_event,
	.shard_exit = ch_shard_exit,
	.shard_error = ch_shard_error,
	.finish = ch_finish,
	.print_results = ch_print,
	.destroy = ch_destroy,
};

const pt_tool *pt_tool_chrome(void)
{
	return &chrome_tool;
}
