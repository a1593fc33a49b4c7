/* SPDX-License-Identifier: MIT */
/* Thinning the rows' event runs: calls left out, summarised (pt_thin.h),
 * before the merge. Each run is read twice at once: one reader decides
 * the calls (pt_thin_in), running ahead of the other only as far as the
 * oldest undecided call needs (the threshold's worth of records), and the
 * other writes the new run (pt_thin_out): kept entries and exits as they
 * were, the other lines as they were, and the summaries as
 * 61000030 (calls left out) / 61000031 (their time, ns) events. Keys are
 * the original ones (a summary takes the key of the exit of the last call
 * it counts, which is left out), so rows stay strictly increasing. */
#define _GNU_SOURCE
#include "pt_thin.h"
#include "pt_workers.h"
#include "pv_budget.h"
#include "pv_codec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- reading a run ----------------------------------------------------- */
#define RD_BUF (64u << 10)

typedef struct rd {
	int fd, own;
	uint64_t base, off, end; /* off: bytes read of [0, end) */
	uint8_t *buf;
	size_t pos, len;
	uint64_t key;
	int error;
} rd;

static int rd_open(rd *r, const pv_run *run)
{
	memset(r, 0, sizeof *r);
	r->fd = -1;
	r->buf = malloc(RD_BUF + PV_REC_MAX);
	if (!r->buf)
		return ENOMEM;
	if (run->pool) {
		r->fd = run->pool->fd;
		r->base = run->base;
	} else {
		r->fd = open(run->path, O_RDONLY | O_CLOEXEC);
		if (r->fd < 0)
			return errno;
		r->own = 1;
	}
	r->end = run->off;
	return 0;
}

static void rd_close(rd *r)
{
	if (r->own)
		close(r->fd);
	free(r->buf);
}

/* 1 with the next record in *out (its text valid until the next call), 0
 * at the end, -1 on an error (r->error). */
static int rd_next(rd *r, rec *out)
{
	if (r->len - r->pos < PV_REC_MAX && r->off < r->end) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
		size_t want = RD_BUF + PV_REC_MAX - r->len;
		if (want > r->end - r->off)
			want = (size_t)(r->end - r->off);
		while (want) {
			ssize_t n = pread(r->fd, r->buf + r->len, want, (off_t)(r->base + r->off));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				r->error = n < 0 ? errno : EIO;
				return -1;
			}
			r->len += (size_t)n;
			r->off += (uint64_t)n;
			want -= (size_t)n;
		}
	}
	if (r->pos == r->len)
		return 0;
	long n = rec_decode(r->buf + r->pos, r->buf + r->len, r->key, out);
	if (n <= 0) {
		r->error = EIO;
		return -1;
	}
	r->pos += (size_t)n;
	r->key = out->key;
	return 1;
}

/* ---- writing the new run ------------------------------------------------ */
/* Exits and summaries at one key make one line (the lines a call's end
 * wrote at one time stay one line). */
typedef struct tw {
	pv_stream *out;
	const uint32_t *fval; /* final function values (pv_ids.c) */
	const pv_tool *pv;
	uint64_t key;
	int active, mixed;
	uint32_t pops;
	size_t len;
	char line[PV_LINE_MAX];
} tw;

static void tw_flush(tw *w)
{
	if (!w->active)
		return;
	w->active = 0;
	if (!w->mixed && w->pops == 1)
		pv_stream_func(w->out, w->key, 0);
	else if (!w->mixed && w->pops <= PV_POP_MAX)
		pv_stream_pop(w->out, w->key, w->pops);
	else {
		char *p = pv_stream_reserve(w->out, w->key);
		memcpy(p, w->line, w->len);
		p[w->len] = '\n';
		pv_stream_commit(w->out, w->len + 1);
	}
}

static void tw_start(tw *w, uint64_t key)
{
	if (w->active && (w->key != key || w->len > PV_LINE_MAX - 128))
		tw_flush(w);
	if (!w->active) {
		w->active = 1;
		w->key = key;
		w->mixed = 0;
		w->pops = 0;
		w->len = 0;
	}
}

static void tw_pair(tw *w, uint32_t type, uint64_t value)
{
	char *p = w->line + w->len;
	*p++ = ':';
	p = pv_u64(p, type);
	*p++ = ':';
	p = pv_u64(p, value);
	w->len = (size_t)(p - w->line);
}

static void op_enter(void *arg, uint64_t t, uint32_t id)
{
	tw *w = arg;
	tw_flush(w);
	pv_stream_func(w->out, t, w->fval[id]);
}

static void op_exit(void *arg, uint64_t t, uint32_t id, int cut)
{
	tw *w = arg;
	tw_start(w, t);
	memcpy(w->line + w->len, PV_POP_PAIR, PV_POP_PAIR_LEN);
	w->len += PV_POP_PAIR_LEN;
	if (cut) {
		tw_pair(w, PV_EV_FUNC_CUT, w->fval[id]);
		w->mixed = 1;
	} else
		w->pops++;
}

static void op_summary(void *arg, uint64_t t, uint64_t calls, uint64_t ns)
{
	tw *w = arg;
	tw_start(w, t);
	tw_pair(w, PV_EV_LEFT_CALLS, calls);
	tw_pair(w, PV_EV_LEFT_NS, ns);
	w->mixed = 1;
}

static const pt_thin_ops thin_ops = {op_enter, op_exit, op_summary};

/* A line of another kind, with its values' final numbers (pv_ids.c). */
static void text_line(tw *w, uint64_t key, const rec *r)
{
	tw_flush(w);
	char *p = pv_stream_reserve(w->out, key), *o = p;
	const char *t = r->text, *e = r->text + r->tlen;
	if (!w->pv->renumber) {
		memcpy(p, t, r->tlen);
		pv_stream_commit(w->out, r->tlen);
		return;
	}
	/* ":type:value" pairs, then "\n" */
	while (t < e && *t == ':') {
		char *q;
		uint32_t type = (uint32_t)strtoul(t + 1, &q, 10);
		int64_t v = strtoll(q + 1, &q, 10);
		if (pv_final_value(w->pv, type, &v)) {
			*o++ = ':';
			o = pv_u64(o, type);
			*o++ = ':';
			o = pv_i64(o, v);
		} else {
			memcpy(o, t, (size_t)(q - t));
			o += q - t;
		}
		t = q;
	}
	memcpy(o, t, (size_t)(e - t));
	o += e - t;
	pv_stream_commit(w->out, (size_t)(o - p));
}

/* ---- one run --------------------------------------------------------------- */
typedef struct thin_job {
	pv_tool *pv;
	uint64_t min_ns;
	pv_run *out;
	size_t next; /* atomic: next shard */
	pthread_mutex_t lock;
	pv_thin_stats st;
	char err[PATH_MAX + 256]; /* the first failure */
} thin_job;

/* The decision of entry seq, reading ahead with a as far as it needs. */
static int decision(pt_thin_in *in, rd *a, int *a_done, uint64_t seq)
{
	while (in->seq_next <= seq || pt_thin_in_decision(in, seq) == PT_THIN_UNDECIDED) {
		rec r;
		int k = *a_done ? 0 : rd_next(a, &r);
		if (k < 0)
			return -1;
		if (k == 0) {
			*a_done = 1;
			pt_thin_in_end(in);
			if (in->seq_next <= seq)
				return -1; /* the two readers disagree: damage */
			continue;
		}
		switch (r.op) {
		case PV_OP_FUNC:
			if (r.id)
				pt_thin_in_enter(in, r.key, r.id);
			else
				pt_thin_in_exit(in, r.key, 1, 0);
			break;
		case PV_OP_POP:
		case PV_OP_CUT:
			pt_thin_in_exit(in, r.key, r.id, r.op == PV_OP_CUT);
			break;
		default:
			pt_thin_in_other(in, r.key);
		}
		if (in->oom)
			return -1;
	}
	return pt_thin_in_decision(in, seq);
}

static int thin_run(thin_job *j, size_t i, pv_thin_stats *st, char *err, size_t errlen)
{
	pv_tool *pv = j->pv;
	const pv_run *run = &pv->runs[2 * i + 1];
	char path[PATH_MAX], prefix[PV_RUN_PREFIX_MAX + 1];
	snprintf(path, sizeof path, "%s/%zu.thin", pv->tmpdir, i);
	memcpy(prefix, run->prefix, run->prefix_len);
	prefix[run->prefix_len] = 0;
	pv_stream out;
	rd a, b;
	pt_thin_in in;
	pt_thin_out o;
	tw *w = malloc(sizeof *w);
	memset(&out, 0, sizeof out);
	out.fd = -1;
	int ea = rd_open(&a, run), eb = rd_open(&b, run), rc = -1;
	pt_thin_in_init(&in, j->min_ns, pv->sel, pv->ctx);
	if (!w || pv_stream_open(&out, path, run->prefix_len ? prefix : NULL)) {
		snprintf(err, errlen, "%s: %s", path, strerror(w ? out.error : ENOMEM));
		goto done_stream;
	}
	out.strict = 1;
	memset(w, 0, sizeof *w);
	w->out = &out;
	w->pv = pv;
	w->fval = pv->fval;
	pt_thin_out_init(&o, &thin_ops, w);
	if (ea || eb) {
		snprintf(err, errlen, "reading back a temporary file: %s", strerror(ea ? ea : eb));
		goto done;
	}
	int a_done = 0, k;
	uint64_t seq = 0;
	rec r;
	while ((k = rd_next(&b, &r)) > 0) {
		switch (r.op) {
		case PV_OP_FUNC:
			if (r.id) {
				int d = decision(&in, &a, &a_done, seq);
				if (d < 0) {
					snprintf(err, errlen, "reading back a temporary file: %s",
					         strerror(a.error  ? a.error
					                  : in.oom ? ENOMEM
					                           : EIO));
					goto done;
				}
				pt_thin_out_enter(&o, r.key, r.id, d == PT_THIN_KEEP);
				pt_thin_in_release(&in, ++seq);
			} else
				pt_thin_out_exit(&o, r.key, 1, 0);
			break;
		case PV_OP_POP:
		case PV_OP_CUT:
			pt_thin_out_exit(&o, r.key, r.id, r.op == PV_OP_CUT);
			break;
		default:
			pt_thin_out_other(&o, r.key);
			text_line(w, r.key, &r);
		}
	}
	if (k < 0) {
		snprintf(err, errlen, "reading back a temporary file: %s", strerror(b.error));
		goto done;
	}
	pt_thin_out_end(&o);
	tw_flush(w);
	if (o.oom) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	st->calls_left += o.calls_left;
	st->calls_kept += o.calls_kept;
	st->ns_left += o.ns_left;
	rc = 0;
done:
	pt_thin_out_free(&o);
	if (rc == 0) {
		if (pv_stream_finish(&out, &pv->pool, &j->out[i])) {
			snprintf(err, errlen, "%s: %s", path, strerror(out.error));
			rc = -1;
		} else
			st->text += j->out[i].text;
	}
done_stream:
	pv_stream_free(&out);
	pt_thin_in_free(&in);
	rd_close(&a);
	rd_close(&b);
	free(w);
	return rc;
}

static void *thin_worker(void *arg)
{
	thin_job *j = arg;
	const pt_trace_ctx *ctx = j->pv->ctx;
	pv_thin_stats st = {0};
	char err[PATH_MAX + 256] = "";
	int failed = 0;
	for (;;) {
		size_t i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		if (i >= ctx->nshards)
			break;
		const pv_run *run = &j->pv->runs[2 * i + 1];
		if (ctx->shards[i].kind != PT_FILE_THREAD || !run->nrec)
			continue; /* no calls: the run stays */
		if (thin_run(j, i, &st, err, sizeof err)) {
			failed = 1;
			break;
		}
	}
	pthread_mutex_lock(&j->lock);
	j->st.calls_left += st.calls_left;
	j->st.calls_kept += st.calls_kept;
	j->st.ns_left += st.ns_left;
	j->st.text += st.text;
	if (failed && !j->err[0])
		snprintf(j->err, sizeof j->err, "%s", err);
	if (failed) /* the others stop at their next run */
		__atomic_store_n(&j->next, ctx->nshards, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

int pv_thin_runs(pv_tool *pv, uint64_t min_ns, pv_run *out, pv_thin_stats *st, char *err,
                 size_t errlen)
{
	thin_job j;
	memset(&j, 0, sizeof j);
	j.pv = pv;
	j.min_ns = min_ns;
	j.out = out;
	pthread_mutex_init(&j.lock, NULL);
	pt_workers_run(pv->ctx->nworkers, thin_worker, &j);
	pthread_mutex_destroy(&j.lock);
	*st = j.st;
	if (j.err[0]) {
		snprintf(err, errlen, "%s", j.err);
		return -1;
	}
	if (pv_pool_flush(&pv->pool)) {
		snprintf(err, errlen, "%s: %s", pv->pool.path, strerror(pv->pool.error));
		return -1;
	}
	return 0;
}
