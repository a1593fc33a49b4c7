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
/* A family's calls left out since the row's last summary (pv_left_def). */
typedef struct tw_fam {
	uint64_t n, ns, tally[PV_TALLY_MAX];
} tw_fam;

typedef struct tw {
	pv_stream *out;
	const uint32_t *fval; /* final function values (pv_ids.c) */
	const pv_tool *pv;
	uint64_t key;
	int active, mixed;
	uint32_t pops;
	size_t len;
	tw_fam fam[PT_MAX_FAMILIES];
	unsigned fam_pending, fam_summarised; /* bit i: family i's */
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

/* Room for what one item adds to a line: a summary of calls, waits and
 * every family's calls (each pair at most 32 bytes). */
#define TW_ROOM (32 * (4 + PT_MAX_FAMILIES * (2 + PV_TALLY_MAX)))

static void tw_start(tw *w, uint64_t key)
{
	if (w->active && (w->key != key || w->len > PV_LINE_MAX - TW_ROOM))
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

static void op_summary(void *arg, uint64_t t, uint64_t calls, uint64_t ns, uint64_t sync,
                       uint64_t wait)
{
	tw *w = arg;
	tw_start(w, t);
	if (calls) {
		tw_pair(w, PV_EV_LEFT_CALLS, calls);
		tw_pair(w, PV_EV_LEFT_NS, ns);
	}
	if (sync) {
		tw_pair(w, PV_EV_LEFT_SYNC, sync);
		tw_pair(w, PV_EV_LEFT_WAIT, wait);
	}
	for (unsigned f = 0; w->fam_pending && f < PT_MAX_FAMILIES; f++) {
		if (!(w->fam_pending & 1u << f))
			continue;
		const pv_left_def *d = pv_ext(f)->left;
		tw_fam *x = &w->fam[f];
		tw_pair(w, d->calls_type, x->n);
		if (d->ns_type)
			tw_pair(w, d->ns_type, x->ns);
		for (size_t i = 0; i < d->ntally; i++)
			tw_pair(w, d->tally[i].type, x->tally[i]);
		memset(x, 0, sizeof *x);
		w->fam_pending &= ~(1u << f);
	}
	w->mixed = 1;
}

/* A call of family f left out, which lasted ns; its tallies (r: its end). */
static void tw_fam_left(tw *w, const rec *r, uint64_t ns)
{
	const pv_left_def *d =
	    r->fam < PT_MAX_FAMILIES && pt_families[r->fam] ? pv_ext(r->fam)->left : NULL;
	if (!d)
		return;
	tw_fam *x = &w->fam[r->fam];
	x->n++;
	x->ns += ns;
	for (size_t i = 0; i < d->ntally && i < r->ntally; i++)
		x->tally[i] = d->tally[i].last ? r->tally[i] : x->tally[i] + r->tally[i];
	w->fam_pending |= 1u << r->fam;
	w->fam_summarised |= 1u << r->fam;
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

/* ---- synchronization calls ------------------------------------------------ */
/* Deciding requests, ahead: one wait is open at a time (a request while
 * one is open, or a PV_SY_PIN, keeps it); it is left out when it ends
 * within the threshold, kept once it has lasted it or at the run's end.
 * Decisions by request number, in a ring the writer releases. */
typedef struct sy_in {
	uint64_t thr; /* 0: nothing left out */
	uint8_t *dec;
	size_t dmask;
	uint64_t seq_next, seq_base;
	int open;
	unsigned open_kind; /* 0: a wait; 1 + f: a call of family f */
	uint64_t open_seq, open_key;
	int oom;
} sy_in;

static void sy_decide(sy_in *y, int d)
{
	if (y->open && y->open_seq >= y->seq_base)
		y->dec[y->open_seq & y->dmask] = (uint8_t)d;
	y->open = 0;
}

static void sy_request(sy_in *y, uint64_t key)
{
	size_t cap = y->dec ? y->dmask + 1 : 0;
	if (y->seq_next - y->seq_base >= cap) {
		size_t ncap = cap ? 2 * cap : 256;
		uint8_t *d = calloc(ncap, 1);
		if (!d) {
			y->oom = 1;
			return;
		}
		for (uint64_t q = y->seq_base; q < y->seq_next; q++)
			d[q & (ncap - 1)] = y->dec[q & y->dmask];
		free(y->dec);
		y->dec = d;
		y->dmask = ncap - 1;
	}
	y->open_seq = y->seq_next++;
	y->dec[y->open_seq & y->dmask] = PT_THIN_UNDECIDED;
	y->open = 1;
	y->open_key = key;
}

static void sy_rec(sy_in *y, const rec *r)
{
	if (!y->thr)
		return;
	if (y->open && r->key - y->open_key >= y->thr)
		sy_decide(y, PT_THIN_KEEP);
	if (r->op == PV_OP_CALL) {
		/* a family's call: as a wait that lasts as long as it does */
		if (r->sub == PV_FC_BEGIN) {
			sy_decide(y, PT_THIN_KEEP);
			sy_request(y, r->key);
			y->open_kind = 1 + r->fam;
		} else if (y->open && y->open_kind == 1 + r->fam)
			sy_decide(y, PT_THIN_LEAVE);
		return;
	}
	if (r->op != PV_OP_SYNC)
		return;
	switch (r->sub) {
	case PV_SY_REQ:
		sy_decide(y, PT_THIN_KEEP);
		sy_request(y, r->key);
		y->open_kind = 0;
		break;
	case PV_SY_END:
		if (y->open && y->open_kind) /* not the end of what is open */
			break;
		sy_decide(y, PT_THIN_LEAVE); /* within the threshold */
		break;
	case PV_SY_PIN:
		sy_decide(y, PT_THIN_KEEP);
		break;
	}
}

/* ---- the state run, rewritten: a wait left out is Running ---------------------- */
typedef struct st_line {
	uint64_t b, e;
	unsigned state;
	int mod; /* not the original line */
	uint16_t tlen;
	char text[48]; /* the original text (tlen < sizeof text), else parsed only */
} st_line;

typedef struct st_rw {
	rd r;
	pv_stream out;
	st_line nx, pend; /* the next line read, the line not written yet */
	int has_nx, has_pend, opened;
} st_rw;

/* The next line of the run into nx: 1, 0 at the end, -1 on an error. */
static int st_read(st_rw *w)
{
	rec r;
	int k = rd_next(&w->r, &r);
	if (k <= 0)
		return k;
	st_line *l = &w->nx;
	char buf[64];
	size_t n = r.tlen < sizeof buf ? r.tlen : sizeof buf - 1;
	memcpy(buf, r.text, n);
	buf[n] = 0;
	char *q;
	l->b = r.key;
	l->e = strtoull(buf + 1, &q, 10);
	l->state = *q == ':' ? (unsigned)strtoul(q + 1, NULL, 10) : UINT_MAX;
	l->mod = 0;
	l->tlen = r.tlen;
	if (r.tlen < sizeof l->text)
		memcpy(l->text, r.text, r.tlen);
	else
		l->state = UINT_MAX; /* not a state line this rewrite knows: as it is */
	return 1;
}

static void st_emit(st_rw *w)
{
	if (!w->has_pend)
		return;
	w->has_pend = 0;
	const st_line *l = &w->pend;
	char *p = pv_stream_reserve(&w->out, l->b), *o = p;
	if (l->mod) {
		*o++ = ':';
		o = pv_u64(o, l->e);
		*o++ = ':';
		o = pv_u64(o, l->state);
		*o++ = '\n';
	} else {
		memcpy(o, l->text, l->tlen);
		o += l->tlen;
	}
	pv_stream_commit(&w->out, (size_t)(o - p));
}

/* A line, merged into the one before when one of them was changed and
 * they are the same state, one right after the other. */
static void st_put(st_rw *w, const st_line *l)
{
	st_line *p = &w->pend;
	if (w->has_pend && (p->mod || l->mod) && p->state == l->state && p->e == l->b &&
	    l->state != UINT_MAX) {
		p->e = l->e;
		p->mod = 1;
		return;
	}
	st_emit(w);
	w->pend = *l;
	w->has_pend = 1;
}

/* Lines up to key; with `left`, the wait or call that began at key was
 * left out: its state `from` (beginning at its key) is `to` (the state
 * around it; Idle, which has no lines: none). 0, or -1 on an error. */
static int st_leave(st_rw *w, uint64_t key, int left, unsigned from, unsigned to)
{
	for (;;) {
		if (!w->has_nx) {
			int k = st_read(w);
			if (k <= 0)
				return k;
			w->has_nx = 1;
		}
		if (w->nx.b > key)
			return 0;
		w->has_nx = 0;
		if (left && w->nx.b == key && w->nx.state == from) {
			if (to == PV_STATE_IDLE)
				continue;
			w->nx.state = to;
			w->nx.mod = 1;
		}
		st_put(w, &w->nx);
	}
}

/* The wait or call that began at req was left out: its state `from` is
 * `to` (st_leave). 0, or -1 with a message. */
static int leave_state(st_rw *w, uint64_t req, unsigned from, unsigned to, char *err, size_t errlen)
{
	if (st_leave(w, req, 1, from, to) >= 0)
		return 0;
	snprintf(err, errlen, "reading back a temporary file: %s", strerror(w->r.error));
	return -1;
}

/* ---- one run --------------------------------------------------------------- */
typedef struct thin_job {
	pv_tool *pv;
	uint64_t min_ns, sync_ns;
	pv_run *out, *out_st;
	unsigned gen; /* in the files' names: two rewrites can coexist */
	size_t next; /* atomic: next shard */
	pthread_mutex_t lock;
	pv_thin_stats st;
	char err[PATH_MAX + 256]; /* the first failure */
} thin_job;

/* The next record of a, to both deciders: 1, 0 at the end, -1 on an error. */
static int feed(pt_thin_in *in, sy_in *y, rd *a, int *a_done)
{
	rec r;
	int k = *a_done ? 0 : rd_next(a, &r);
	if (k < 0)
		return -1;
	if (k == 0) {
		if (!*a_done) {
			*a_done = 1;
			pt_thin_in_end(in);
			sy_decide(y, PT_THIN_KEEP);
		}
		return 0;
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
	sy_rec(y, &r);
	return in->oom || y->oom ? -1 : 1;
}

/* The decision of call entry seq, reading ahead with a as far as it needs. */
static int decision(pt_thin_in *in, sy_in *y, rd *a, int *a_done, uint64_t seq)
{
	while (in->seq_next <= seq || pt_thin_in_decision(in, seq) == PT_THIN_UNDECIDED) {
		int k = feed(in, y, a, a_done);
		if (k < 0 || (k == 0 && in->seq_next <= seq))
			return -1; /* the two readers disagree: damage */
	}
	return pt_thin_in_decision(in, seq);
}

/* The same for request seq. */
static int sync_decision(pt_thin_in *in, sy_in *y, rd *a, int *a_done, uint64_t seq)
{
	while (y->seq_next <= seq || y->dec[seq & y->dmask] == PT_THIN_UNDECIDED) {
		int k = feed(in, y, a, a_done);
		if (k < 0 || (k == 0 && y->seq_next <= seq))
			return -1;
	}
	return y->dec[seq & y->dmask];
}

static int run_prefix(const pv_run *run, char *prefix)
{
	memcpy(prefix, run->prefix, run->prefix_len);
	prefix[run->prefix_len] = 0;
	return run->prefix_len != 0;
}

/* Opens the rewrite of row i's state run (j->sync_ns set). */
static int st_open(thin_job *j, size_t i, st_rw *w, char *err, size_t errlen)
{
	const pv_run *run = &j->pv->runs[2 * i];
	char path[PATH_MAX], prefix[PV_RUN_PREFIX_MAX + 1];
	snprintf(path, sizeof path, "%s/%zu.thin-st%u", j->pv->tmpdir, i, j->gen);
	int hp = run_prefix(run, prefix);
	int e = rd_open(&w->r, run);
	w->opened = 1;
	if (!e && pv_stream_open(&w->out, path, hp ? prefix : NULL))
		e = w->out.error;
	if (e)
		snprintf(err, errlen, "%s: %s", path, strerror(e));
	return e ? -1 : 0;
}

/* The rest of the state run, and its end. */
static int st_close(thin_job *j, size_t i, st_rw *w, pv_thin_stats *st, char *err, size_t errlen)
{
	int k = st_leave(w, UINT64_MAX, 0, 0, 0);
	st_emit(w);
	if (k < 0) {
		snprintf(err, errlen, "reading back a temporary file: %s", strerror(w->r.error));
		return -1;
	}
	if (pv_stream_finish(&w->out, &j->pv->pool, &j->out_st[i])) {
		snprintf(err, errlen, "%s: %s", w->out.path ? w->out.path : "state run",
		         strerror(w->out.error));
		return -1;
	}
	st->text += j->out_st[i].text;
	st->text_st_before += j->pv->runs[2 * i].text;
	return 0;
}

static void st_free(st_rw *w)
{
	if (!w->opened)
		return;
	pv_stream_free(&w->out);
	rd_close(&w->r);
}

static int thin_run(thin_job *j, size_t i, pv_thin_stats *st, char *err, size_t errlen)
{
	pv_tool *pv = j->pv;
	const pv_run *run = &pv->runs[2 * i + 1];
	char path[PATH_MAX], prefix[PV_RUN_PREFIX_MAX + 1];
	snprintf(path, sizeof path, "%s/%zu.thin%u", pv->tmpdir, i, j->gen);
	int hp = run_prefix(run, prefix);
	pv_stream out;
	rd a, b;
	pt_thin_in in;
	pt_thin_out o;
	sy_in y = {.thr = j->sync_ns};
	st_rw *sw = calloc(1, sizeof *sw);
	tw *w = malloc(sizeof *w);
	memset(&out, 0, sizeof out);
	out.fd = -1;
	int ea = rd_open(&a, run), eb = rd_open(&b, run), rc = -1;
	pt_thin_in_init(&in, j->min_ns, pv->sel, pv->ctx);
	if (!w || !sw || pv_stream_open(&out, path, hp ? prefix : NULL)) {
		snprintf(err, errlen, "%s: %s", path, strerror(w && sw ? out.error : ENOMEM));
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
	if (j->sync_ns && st_open(j, i, sw, err, errlen))
		goto done;
	int a_done = 0, k;
	uint64_t seq = 0, seq_sy = 0;
	/* the wait or family call open in what is written: none, kept, or left
	 * out since req (open_kind: as sy_in's; req_aux: a call's states) */
	int open = 0;
	unsigned open_kind = 0;
	uint64_t req = 0;
	uint32_t req_aux = 0;
	rec r;
	while ((k = rd_next(&b, &r)) > 0) {
		int d;
		switch (r.op) {
		case PV_OP_FUNC:
			if (r.id) {
				d = decision(&in, &y, &a, &a_done, seq);
				if (d < 0)
					goto ahead_failed;
				pt_thin_out_enter(&o, r.key, r.id, d == PT_THIN_KEEP);
				pt_thin_in_release(&in, ++seq);
			} else
				pt_thin_out_exit(&o, r.key, 1, 0);
			continue;
		case PV_OP_POP:
		case PV_OP_CUT:
			pt_thin_out_exit(&o, r.key, r.id, r.op == PV_OP_CUT);
			continue;
		case PV_OP_SYNC:
			if (!j->sync_ns)
				break;
			if (r.sub == PV_SY_REQ) {
				d = sync_decision(&in, &y, &a, &a_done, seq_sy);
				if (d < 0)
					goto ahead_failed;
				y.seq_base = ++seq_sy;
				open = d;
				open_kind = 0;
				req = r.key;
				if (d == PT_THIN_LEAVE)
					continue;
			} else if (r.sub == PV_SY_END) {
				if (open && open_kind) { /* not the end of what is open */
					st->sync_kept++;
					break;
				}
				int was = open;
				open = 0;
				if (was == PT_THIN_LEAVE) {
					pt_thin_out_left(&o, r.key, 1, r.key - req);
					if (leave_state(sw, req, PV_STATE_SYNC, PV_STATE_RUNNING,
					                err, errlen))
						goto done;
					continue;
				}
				st->sync_kept++;
			} else if (r.sub == PV_SY_INST) {
				pt_thin_out_left(&o, r.key, 1, 0);
				continue;
			}
			break;
		case PV_OP_CALL:
			if (!j->sync_ns)
				break;
			if (r.sub == PV_FC_BEGIN) {
				d = sync_decision(&in, &y, &a, &a_done, seq_sy);
				if (d < 0)
					goto ahead_failed;
				y.seq_base = ++seq_sy;
				open = d;
				open_kind = 1 + r.fam;
				req = r.key;
				req_aux = r.aux;
				if (d == PT_THIN_LEAVE)
					continue;
			} else if (open && open_kind == 1 + r.fam) {
				int was = open;
				open = 0;
				if (was == PT_THIN_LEAVE) {
					tw_fam_left(w, &r, r.key - req);
					pt_thin_out_left_own(&o, r.key);
					st->fam_left++;
					if (leave_state(sw, req, PV_FC_CALL(req_aux),
					                PV_FC_BACK(req_aux), err, errlen))
						goto done;
					continue;
				}
				st->fam_kept++;
			} else
				st->fam_kept++;
			break;
		default:
			break;
		}
		pt_thin_out_other(&o, r.key);
		text_line(w, r.key, &r);
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
	if (j->sync_ns && st_close(j, i, sw, st, err, errlen))
		goto done;
	st->calls_left += o.calls_left;
	st->calls_kept += o.calls_kept;
	st->ns_left += o.ns_left;
	st->sync_left += o.sync_left;
	st->wait_left += o.wait_left;
	st->fam_summarised |= w->fam_summarised;
	rc = 0;
	goto done;
ahead_failed:
	snprintf(err, errlen, "reading back a temporary file: %s",
	         strerror(a.error           ? a.error
	                  : in.oom || y.oom ? ENOMEM
	                                    : EIO));
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
	if (sw)
		st_free(sw);
	free(sw);
	free(y.dec);
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
	j->st.sync_left += st.sync_left;
	j->st.sync_kept += st.sync_kept;
	j->st.wait_left += st.wait_left;
	j->st.fam_left += st.fam_left;
	j->st.fam_kept += st.fam_kept;
	j->st.fam_summarised |= st.fam_summarised;
	j->st.text += st.text;
	j->st.text_st_before += st.text_st_before;
	if (failed && !j->err[0])
		snprintf(j->err, sizeof j->err, "%s", err);
	if (failed) /* the others stop at their next run */
		__atomic_store_n(&j->next, ctx->nshards, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

int pv_thin_runs(pv_tool *pv, uint64_t min_ns, uint64_t sync_ns, pv_run *out, pv_run *out_st,
                 pv_thin_stats *st, char *err, size_t errlen)
{
	thin_job j;
	memset(&j, 0, sizeof j);
	j.pv = pv;
	j.min_ns = min_ns;
	j.sync_ns = sync_ns;
	j.out = out;
	j.out_st = out_st;
	j.gen = pv->thin_gen++;
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
