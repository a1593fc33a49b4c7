/* SPDX-License-Identifier: MIT */
/* The report's MPI section (paratrace report; docs/MPI.md, "The report"):
 *
 *   per rank: its threads' time, the time in MPI calls and its share,
 *     bytes sent and received (point to point, collectives), and the
 *     late-sender wait: time a receive waited for a send that began
 *     after the receiving call did (the time the receiver lost to the
 *     sender's lateness, Scalasca's Late Sender);
 *   load balance: time outside MPI, average over maximum across ranks;
 *   per call: calls, time, the least and most time any rank spent in it;
 *   the communication pairs that moved the most bytes;
 *   the calls that returned an error, by call and error (they moved
 *     nothing: the runtime records no traffic for them);
 *   every rank's clock synchronisation with rank 0 and the map it gave.
 *
 * Text, or with the option "json" one JSON object of the same figures (the
 * HTML report's MPI section; `report --csv` and `--json` leave it out);
 * nothing when the trace has no MPI rank. */
#define _GNU_SOURCE
#include "mpi_common.h"
#include "pt_fw_mpi.h"
#include "pt_fw_util.h"
#include "pt_text.h"
#include "tools.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct call_stat {
	uint64_t n, ns, bytes;
} call_stat;

typedef struct rank_stat {
	uint64_t thread_ns, mpi_ns, calls;
	uint64_t p2p_sent, p2p_recvd, coll_sent, coll_recvd;
	uint64_t msgs_sent, msgs_recvd; /* point to point */
	uint64_t late_ns;
	uint64_t io_calls, io_read, io_written; /* MPI_File_* reads and writes, bytes asked */
	uint32_t threads;
	call_stat call[256];
} rank_stat;

/* A rank some process of the trace is: the table has one per rank, in
 * rank order (ranks are words of the logs: never an index). */
typedef struct rank_slot {
	int32_t rank;
	const char *host;    /* of the first of its processes that says one, or NULL */
	const pt_fw_mpi *fw; /* of the first of them the framework knows, or NULL */
	rank_stat *stat;     /* its threads' figures; NULL until one of them ends */
} rank_slot;

typedef struct pair_stat {
	int32_t from, to;
	uint64_t n, bytes;
} pair_stat;

/* Calls that returned an error (MPI_ERROR), by call and error code. */
typedef struct err_stat {
	unsigned call;
	int32_t code;
	uint64_t n;
	char *what; /* the library's error string */
} err_stat;

typedef struct err_stats {
	err_stat *v;
	size_t n, cap;
} err_stats;

/* n more of (call, code); what is copied the first time. -1 on ENOMEM. */
static int err_add(err_stats *e, unsigned call, int32_t code, const char *what, uint64_t n)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].call == call && e->v[i].code == code) {
			e->v[i].n += n;
			return 0;
		}
	if (e->n == e->cap) {
		size_t ncap = e->cap ? 2 * e->cap : 8;
		err_stat *v = realloc(e->v, ncap * sizeof *v);
		if (!v)
			return -1;
		e->v = v;
		e->cap = ncap;
	}
	char *w = strdup(what && *what ? what : "?");
	if (!w)
		return -1;
	e->v[e->n++] = (err_stat){call, code, n, w};
	return 0;
}

static void err_free(err_stats *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i].what);
	free(e->v);
	memset(e, 0, sizeof *e);
}

typedef struct mr_tool {
	const pt_trace_ctx *ctx;
	mpi_ranks ranks;
	pthread_mutex_t lock; /* below */
	rank_slot *slot;      /* [nslot]: made when the first thread ends */
	size_t nslot;
	int slots_made;
	mpi_ends sends, recvs;
	int oom;
	pair_stat *pairs;
	size_t npairs, cappairs;
	mpi_match_stats st;
	err_stats errs;
	unsigned top;
	int json;
} mr_tool;

typedef struct mr_shard {
	mr_tool *tool;
	mpi_track track;
	int32_t rank;
	uint64_t first;
	uint64_t sent, recvd, csent, crecvd;
	uint64_t nsent, nrecvd;
	uint64_t io_calls, io_read, io_written;
	call_stat call[256];
	err_stats errs;
	int oom;
} mr_shard;

static void *mr_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	mr_tool *t = calloc(1, sizeof *t);
	if (!t || mpi_ranks_init(&t->ranks, ctx)) {
		if (t)
			mpi_ranks_free(&t->ranks);
		free(t);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->ctx = ctx;
	t->top = 25;
	const char *top = options ? strstr(options, "top=") : NULL;
	if (top)
		t->top = (unsigned)strtoul(top + 4, NULL, 10);
	t->json = options && !strncmp(options, "json", 4);
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

static int mr_process_event(void *tool, size_t process, const pt_event *ev)
{
	mr_tool *t = tool;
	mpi_ranks_process_event(&t->ranks, process, ev);
	return 0;
}

static void *mr_shard_init(void *tool, const pt_shard_info *shard, char *err, size_t errlen)
{
	mr_tool *t = tool;
	(void)err;
	(void)errlen;
	int32_t rank = shard->process < t->ranks.n ? t->ranks.rank[shard->process] : -1;
	if (shard->kind != PT_FILE_THREAD || rank < 0)
		return calloc(1, sizeof(mr_shard)); /* nothing to count: its tool stays NULL */
	mr_shard *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->tool = t;
	s->rank = rank;
	s->first = shard->first_ns;
	mpi_track_init(&s->track, t->ctx, shard, rank);
	return s;
}

static int mr_shard_event(void *st, const pt_event *ev)
{
	mr_shard *s = st;
	if (!s->tool || ev->kind < PT_REC_RANGE_MPI_FIRST || ev->kind > PT_REC_RANGE_MPI_LAST)
		return 0;
	unsigned call = s->track.call;
	uint64_t begin = s->track.begin;
	mpi_track_event(&s->track, ev);
	switch (ev->kind) {
	case PT_REC_MPI_CALL_END:
		if (call) {
			s->call[call].n++;
			s->call[call].ns += ev->time_ns - begin;
		}
		break;
	case PT_REC_MPI_SEND: {
		const pt_rec_mpi_msg *m = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_msg);
		s->sent += m->bytes;
		s->nsent++;
		s->call[ev->rec->arg].bytes += m->bytes;
		break;
	}
	case PT_REC_MPI_RECV: {
		const pt_rec_mpi_msg *m = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_msg);
		s->recvd += m->bytes;
		s->nrecvd++;
		s->call[ev->rec->arg].bytes += m->bytes;
		break;
	}
	case PT_REC_MPI_COLL: {
		const pt_rec_mpi_coll *c = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_coll);
		s->csent += c->sent;
		s->crecvd += c->recvd;
		s->call[ev->rec->arg].bytes += c->sent + c->recvd;
		break;
	}
	case PT_REC_MPI_RMA: {
		const pt_rec_mpi_rma *r = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_rma);
		s->call[ev->rec->arg].bytes += r->bytes;
		break;
	}
	case PT_REC_MPI_IO: {
		const pt_rec_mpi_io *r = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_io);
		s->call[ev->rec->arg].bytes += r->bytes;
		s->io_calls++;
		/* every MPI I/O call that moves bytes reads or writes, and says
		 * which in its name (MPI_File_iread_at_all...) */
		const char *name = mpi_call_name(ev->rec->arg);
		if (name && strstr(name, "read"))
			s->io_read += r->bytes;
		else
			s->io_written += r->bytes;
		break;
	}
	case PT_REC_MPI_ERROR: {
		const pt_rec_mpi_error *e = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_error);
		if (err_add(&s->errs, ev->rec->arg, e->code, pt_event_string(ev, sizeof *e), 1))
			s->oom = 1;
		break;
	}
	default:
		break;
	}
	return 0;
}

typedef struct rank_of {
	int32_t rank;
	size_t process;
} rank_of;

static int cmp_rank_of(const void *a, const void *b)
{
	const rank_of *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->process < y->process ? -1 : x->process > y->process;
}

/* The table of ranks, from what the pre-pass found (under lock). */
static int make_slots(mr_tool *t)
{
	t->slots_made = 1;
	rank_of *v = malloc((t->ranks.n + 1) * sizeof *v);
	t->slot = calloc(t->ranks.n + 1, sizeof *t->slot);
	if (!v || !t->slot) {
		free(v);
		return -1;
	}
	size_t n = 0;
	for (size_t p = 0; p < t->ranks.n; p++)
		if (t->ranks.rank[p] >= 0)
			v[n++] = (rank_of){t->ranks.rank[p], p};
	pt_qsort(v, n, sizeof *v, cmp_rank_of);
	for (size_t i = 0; i < n; i++) {
		if (!t->nslot || t->slot[t->nslot - 1].rank != v[i].rank)
			t->slot[t->nslot++].rank = v[i].rank;
		rank_slot *sl = &t->slot[t->nslot - 1];
		if (!sl->host)
			sl->host = t->ranks.host[v[i].process];
		if (!sl->fw)
			sl->fw = pt_fw_mpi_process(t->ctx, v[i].process);
	}
	free(v);
	return 0;
}

static int cmp_slot(const void *key, const void *elem)
{
	int32_t r = *(const int32_t *)key, s = ((const rank_slot *)elem)->rank;
	return r < s ? -1 : r > s;
}

static rank_slot *find_slot(const mr_tool *t, int32_t rank)
{
	return t->nslot ? bsearch(&rank, t->slot, t->nslot, sizeof *t->slot, cmp_slot) : NULL;
}

/* The figures of a rank whose thread ended (under lock). */
static rank_stat *rank_row(mr_tool *t, int32_t rank)
{
	if (!t->slots_made && make_slots(t))
		return NULL;
	rank_slot *sl = find_slot(t, rank);
	if (sl && !sl->stat)
		sl->stat = calloc(1, sizeof *sl->stat);
	return sl ? sl->stat : NULL;
}

static int mr_shard_exit(void *st, uint64_t last_ns, int complete)
{
	(void)complete;
	mr_shard *s = st;
	mr_tool *t = s->tool;
	if (!t) {
		free(s);
		return 0;
	}
	unsigned call = s->track.call;
	uint64_t begin = s->track.begin;
	mpi_track_end(&s->track, last_ns);
	if (call) { /* a call the log ended in */
		s->call[call].n++;
		s->call[call].ns += last_ns > begin ? last_ns - begin : 0;
	}
	pthread_mutex_lock(&t->lock);
	rank_stat *r = rank_row(t, s->rank);
	if (!r || mpi_ends_move(&t->sends, &s->track.sends) ||
	    mpi_ends_move(&t->recvs, &s->track.recvs) || s->track.oom || s->oom)
		t->oom = 1;
	for (size_t i = 0; i < s->errs.n; i++)
		if (err_add(&t->errs, s->errs.v[i].call, s->errs.v[i].code, s->errs.v[i].what,
		            s->errs.v[i].n))
			t->oom = 1;
	if (r) {
		r->threads++;
		r->thread_ns += last_ns > s->first ? last_ns - s->first : 0;
		r->p2p_sent += s->sent;
		r->p2p_recvd += s->recvd;
		r->msgs_sent += s->nsent;
		r->msgs_recvd += s->nrecvd;
		r->coll_sent += s->csent;
		r->coll_recvd += s->crecvd;
		r->io_calls += s->io_calls;
		r->io_read += s->io_read;
		r->io_written += s->io_written;
		for (unsigned c = 0; c < 256; c++) {
			r->call[c].n += s->call[c].n;
			r->call[c].ns += s->call[c].ns;
			r->call[c].bytes += s->call[c].bytes;
			r->calls += s->call[c].n;
			r->mpi_ns += s->call[c].ns;
		}
	}
	pthread_mutex_unlock(&t->lock);
	mpi_track_free(&s->track);
	err_free(&s->errs);
	free(s);
	return 0;
}

/* Each matched message: its pair's totals, and the receiver's wait for
 * a sender that began late. */
static void one_msg(void *arg, const mpi_end *snd, const mpi_end *rcv)
{
	mr_tool *t = arg;
	const rank_slot *sl = snd->lt > rcv->cb ? find_slot(t, rcv->to) : NULL;
	if (sl && sl->stat) {
		uint64_t until = snd->lt < rcv->pt ? snd->lt : rcv->pt;
		if (until > rcv->cb)
			sl->stat->late_ns += until - rcv->cb;
	}
	if (t->npairs && t->pairs[t->npairs - 1].from == snd->from &&
	    t->pairs[t->npairs - 1].to == snd->to) {
		t->pairs[t->npairs - 1].n++;
		t->pairs[t->npairs - 1].bytes += snd->bytes;
		return;
	}
	if (t->npairs == t->cappairs) {
		size_t ncap = t->cappairs ? 2 * t->cappairs : 64;
		pair_stat *p = realloc(t->pairs, ncap * sizeof *p);
		if (!p) {
			t->oom = 1;
			return;
		}
		t->pairs = p;
		t->cappairs = ncap;
	}
	t->pairs[t->npairs++] = (pair_stat){snd->from, snd->to, 1, snd->bytes};
}

/* mpi_match hands pairs in sender, receiver order: consecutive ones of a
 * pair are summed above; a pair split by communicators or tags is summed
 * here. */
static int cmp_pair_key(const void *a, const void *b)
{
	const pair_stat *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

static int cmp_pair_bytes(const void *a, const void *b)
{
	const pair_stat *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return cmp_pair_key(a, b);
}

static int mr_finish(void *tool, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	mr_tool *t = tool;
	mpi_match(&t->sends, &t->recvs, one_msg, t, &t->st);
	pt_qsort(t->pairs, t->npairs, sizeof *t->pairs, cmp_pair_key);
	size_t k = 0;
	for (size_t i = 0; i < t->npairs; i++) {
		if (k && !cmp_pair_key(&t->pairs[k - 1], &t->pairs[i])) {
			t->pairs[k - 1].n += t->pairs[i].n;
			t->pairs[k - 1].bytes += t->pairs[i].bytes;
		} else {
			t->pairs[k++] = t->pairs[i];
		}
	}
	t->npairs = k;
	pt_qsort(t->pairs, t->npairs, sizeof *t->pairs, cmp_pair_bytes);
	return 0;
}

static void fmt_bytes(char *buf, size_t n, uint64_t b)
{
	if (b >= 10000000000ull)
		snprintf(buf, n, "%.1fGB", (double)b / 1e9);
	else if (b >= 10000000ull)
		snprintf(buf, n, "%.1fMB", (double)b / 1e6);
	else if (b >= 10000ull)
		snprintf(buf, n, "%.1fKB", (double)b / 1e3);
	else
		snprintf(buf, n, "%lluB", (unsigned long long)b);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

typedef struct call_row {
	unsigned call;
	uint64_t n, ns, bytes, min_ns, max_ns;
} call_row;

static int cmp_call_row(const void *a, const void *b)
{
	const call_row *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->call < y->call ? -1 : x->call > y->call;
}

/* The calls made, by time (most first): rows[0..n), returns n. */
static size_t call_rows(const mr_tool *t, call_row rows[256])
{
	size_t n = 0;
	for (unsigned c = 1; c < 256; c++) {
		call_row row = {c, 0, 0, 0, UINT64_MAX, 0};
		for (size_t i = 0; i < t->nslot; i++) {
			if (!t->slot[i].stat)
				continue;
			const call_stat *s = &t->slot[i].stat->call[c];
			row.n += s->n;
			row.ns += s->ns;
			row.bytes += s->bytes;
			if (s->ns < row.min_ns)
				row.min_ns = s->ns;
			if (s->ns > row.max_ns)
				row.max_ns = s->ns;
		}
		if (row.n)
			rows[n++] = row;
	}
	qsort(rows, n, sizeof *rows, cmp_call_row);
	return n;
}

static void print_ranks(mr_tool *t, FILE *out)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], h[64];
	fputs("\nMPI time by rank\n", out);
	fprintf(out, "%-5s %-16s %7s %11s %11s %6s %10s %10s %10s %12s\n", "rank", "host",
	        "threads", "thread time", "in MPI", "%", "p2p sent", "p2p recvd", "coll bytes",
	        "late sender");
	uint64_t sum_out = 0, max_out = 0, sum_mpi = 0, max_mpi = 0;
	int32_t nr = 0;
	for (size_t i = 0; i < t->nslot; i++) {
		const rank_stat *s = t->slot[i].stat;
		if (!s)
			continue;
		int32_t r = t->slot[i].rank;
		const char *host = t->slot[i].host;
		if (!host)
			host = "?";
		pt_fmt_dur(a, sizeof a, s->thread_ns);
		pt_fmt_dur(b, sizeof b, s->mpi_ns);
		fmt_bytes(c, sizeof c, s->p2p_sent);
		fmt_bytes(d, sizeof d, s->p2p_recvd);
		fmt_bytes(e, sizeof e, s->coll_sent + s->coll_recvd);
		pt_fmt_dur(f, sizeof f, s->late_ns);
		pt_text_fit(h, sizeof h, host, 16, 0); /* as the rank's MPI records say it */
		fprintf(out, "%-5d %-16s %7u %11s %11s %5.1f%% %10s %10s %10s %12s\n", r, h,
		        s->threads, a, b, pct(s->mpi_ns, s->thread_ns), c, d, e, f);
		uint64_t outside = s->thread_ns > s->mpi_ns ? s->thread_ns - s->mpi_ns : 0;
		sum_out += outside;
		sum_mpi += s->mpi_ns;
		if (outside > max_out)
			max_out = outside;
		if (s->mpi_ns > max_mpi)
			max_mpi = s->mpi_ns;
		nr++;
	}
	if (nr > 1 && max_out && sum_mpi)
		fprintf(
		    out,
		    "Load balance (time outside MPI, average / maximum over ranks): %.2f; time in "
		    "MPI, maximum / average: %.2f\n",
		    (double)sum_out / nr / (double)max_out, (double)max_mpi * nr / (double)sum_mpi);
}

static void print_calls(mr_tool *t, FILE *out)
{
	call_row rows[256];
	size_t n = call_rows(t, rows);
	size_t shown = t->top && t->top < n ? t->top : n;
	fprintf(out, "\nMPI calls by time (%zu of %zu)\n", shown, n);
	fprintf(out, "%-26s %9s %11s %10s %11s %11s %10s\n", "call", "calls", "time", "mean",
	        "least rank", "most rank", "bytes");
	for (size_t i = 0; i < shown; i++) {
		char a[32], b[32], c[32], d[32], e[32];
		pt_fmt_dur(a, sizeof a, rows[i].ns);
		pt_fmt_dur(b, sizeof b, rows[i].ns / rows[i].n);
		pt_fmt_dur(c, sizeof c, rows[i].min_ns);
		pt_fmt_dur(d, sizeof d, rows[i].max_ns);
		fmt_bytes(e, sizeof e, rows[i].bytes);
		fprintf(out, "%-26s %9llu %11s %10s %11s %11s %10s\n", mpi_call_name(rows[i].call),
		        (unsigned long long)rows[i].n, a, b, c, d, e);
	}
}

/* MPI I/O by rank: the MPI_File_* calls that read or write, and their
 * bytes (what each asked for: count times its datatype's size). */
static void print_io(mr_tool *t, FILE *out)
{
	int any = 0;
	for (size_t i = 0; i < t->nslot && !any; i++)
		any = t->slot[i].stat && t->slot[i].stat->io_calls;
	if (!any)
		return;
	fprintf(out, "\nMPI I/O by rank (MPI_File_* reads and writes)\n");
	fprintf(out, "%-5s %9s %10s %10s\n", "rank", "calls", "read", "written");
	for (size_t i = 0; i < t->nslot; i++) {
		const rank_stat *r = t->slot[i].stat;
		if (!r || !r->io_calls)
			continue;
		char rd[32], wr[32];
		fmt_bytes(rd, sizeof rd, r->io_read);
		fmt_bytes(wr, sizeof wr, r->io_written);
		fprintf(out, "%-5d %9llu %10s %10s\n", t->slot[i].rank,
		        (unsigned long long)r->io_calls, rd, wr);
	}
}

static int cmp_err(const void *a, const void *b)
{
	const err_stat *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	if (x->call != y->call)
		return x->call < y->call ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

static void print_errors(mr_tool *t, FILE *out)
{
	if (!t->errs.n)
		return;
	qsort(t->errs.v, t->errs.n, sizeof *t->errs.v, cmp_err);
	fputs("\nMPI calls that returned an error (what they would have moved is not counted)\n",
	      out);
	fprintf(out, "%-26s %9s %6s  %s\n", "call", "calls", "code", "error");
	for (size_t i = 0; i < t->errs.n; i++) {
		const err_stat *e = &t->errs.v[i];
		const char *name = mpi_call_name(e->call);
		fprintf(out, "%-26s %9llu %6d  %s\n", name ? name : "?", (unsigned long long)e->n,
		        e->code, e->what);
	}
}

static void print_pairs(mr_tool *t, FILE *out)
{
	if (!t->npairs)
		return;
	size_t shown = t->npairs < 10 ? t->npairs : 10;
	fprintf(out, "\nLargest communication pairs (%zu of %zu)\n", shown, t->npairs);
	fprintf(out, "%5s %5s %10s %10s %10s\n", "from", "to", "messages", "bytes", "mean");
	for (size_t i = 0; i < shown; i++) {
		char a[32], b[32];
		fmt_bytes(a, sizeof a, t->pairs[i].bytes);
		fmt_bytes(b, sizeof b, t->pairs[i].bytes / t->pairs[i].n);
		fprintf(out, "%5d %5d %10llu %10s %10s\n", t->pairs[i].from, t->pairs[i].to,
		        (unsigned long long)t->pairs[i].n, a, b);
	}
}

/* Each rank's clock points (offset onto rank 0's clock, its bound's width) and
 * the offsets the analyzer's map uses there (pt_fw_mpi_fit), in ns. */
static void print_clocks(mr_tool *t, FILE *out)
{
	/* the ranks after 0 up to the last whose threads were counted */
	size_t end = t->nslot;
	while (end && !t->slot[end - 1].stat)
		end--;
	int head = 0;
	for (size_t i = 0; i < end; i++) {
		int32_t r = t->slot[i].rank;
		const pt_fw_mpi *m = t->slot[i].fw;
		if (r < 1 || !m || !m->clocks)
			continue;
		if (!head++)
			fprintf(out,
			        "\nMPI clocks onto rank 0's (ns; an offset is right to half its "
			        "bound's width, at most half a round trip)\n%-5s %14s %10s %14s "
			        "%10s %14s %14s\n",
			        "rank", "init offset", "width", "final offset", "width",
			        "map at init", "map at final");
		int two = m->clocks == 2;
		fprintf(out, "%-5d %14lld %10llu", r, (long long)m->off[0],
		        (unsigned long long)m->rtt[0]);
		if (two)
			fprintf(out, " %14lld %10llu", (long long)m->off[1],
			        (unsigned long long)m->rtt[1]);
		else
			fprintf(out, " %14s %10s", "-", "-");
		fprintf(out, " %14lld %14lld\n", (long long)m->use[0], (long long)m->use[two]);
	}
}

/* The same figures as one JSON object (times in ns, bytes in bytes);
 * every call and pair, not the top ones. */
static void print_json(mr_tool *t, FILE *out, int32_t nr, size_t nhosts)
{
	fprintf(out,
	        "{\"ranks\": %d, \"hosts\": %zu, \"matched\": %llu, \"unmatched_sends\": %llu, "
	        "\"unmatched_recvs\": %llu, \"incomplete\": %s, \"missing\": ",
	        nr, nhosts, (unsigned long long)t->st.matched,
	        (unsigned long long)t->st.unmatched_sends,
	        (unsigned long long)t->st.unmatched_recvs, t->oom ? "true" : "false");
	char missing[160];
	pt_json_str(out, mpi_ranks_missing(&t->ranks, missing, sizeof missing) ? missing : "");
	fputs(",\n\"by_rank\": [", out);
	int first = 1;
	for (size_t i = 0; i < t->nslot; i++) {
		const rank_stat *s = t->slot[i].stat;
		if (!s)
			continue;
		fprintf(out, "%s\n{\"rank\": %d, \"host\": ", first ? "" : ",", t->slot[i].rank);
		first = 0;
		const char *host = t->slot[i].host;
		pt_json_str(out, host ? host : "");
		fprintf(
		    out,
		    ", \"threads\": %u, \"thread_ns\": %llu, \"mpi_ns\": %llu, \"calls\": %llu, "
		    "\"msgs_sent\": %llu, \"bytes_sent\": %llu, \"msgs_recvd\": %llu, "
		    "\"bytes_recvd\": %llu, \"coll_bytes\": %llu, \"late_ns\": %llu, "
		    "\"io_calls\": %llu, \"io_read\": %llu, \"io_written\": %llu}",
		    s->threads, (unsigned long long)s->thread_ns, (unsigned long long)s->mpi_ns,
		    (unsigned long long)s->calls, (unsigned long long)s->msgs_sent,
		    (unsigned long long)s->p2p_sent, (unsigned long long)s->msgs_recvd,
		    (unsigned long long)s->p2p_recvd,
		    (unsigned long long)(s->coll_sent + s->coll_recvd),
		    (unsigned long long)s->late_ns, (unsigned long long)s->io_calls,
		    (unsigned long long)s->io_read, (unsigned long long)s->io_written);
	}
	fputs("],\n\"by_call\": [", out);
	call_row rows[256];
	size_t n = call_rows(t, rows);
	for (size_t i = 0; i < n; i++)
		fprintf(out,
		        "%s\n{\"call\": \"%s\", \"calls\": %llu, \"ns\": %llu, \"least_rank_ns\": "
		        "%llu, "
		        "\"most_rank_ns\": %llu, \"bytes\": %llu}",
		        i ? "," : "", mpi_call_name(rows[i].call), (unsigned long long)rows[i].n,
		        (unsigned long long)rows[i].ns, (unsigned long long)rows[i].min_ns,
		        (unsigned long long)rows[i].max_ns, (unsigned long long)rows[i].bytes);
	fputs("],\n\"pairs\": [", out);
	for (size_t i = 0; i < t->npairs; i++)
		fprintf(out, "%s\n{\"from\": %d, \"to\": %d, \"messages\": %llu, \"bytes\": %llu}",
		        i ? "," : "", t->pairs[i].from, t->pairs[i].to,
		        (unsigned long long)t->pairs[i].n, (unsigned long long)t->pairs[i].bytes);
	fputs("]}\n", out);
}

/* A run with jobs MPI_Comm_spawn started: which ranks each one's are. */
static void print_worlds(mr_tool *t, FILE *out)
{
	int32_t lo[PT_MPI_WORLDS_MAX + 1], hi[PT_MPI_WORLDS_MAX + 1];
	int any = 0;
	for (unsigned w = 0; w <= PT_MPI_WORLDS_MAX; w++)
		lo[w] = hi[w] = -1;
	for (size_t p = 0; p < t->ctx->nprocesses; p++) {
		const pt_fw_mpi *m = pt_fw_mpi_process(t->ctx, p);
		if (!m || m->world > PT_MPI_WORLDS_MAX)
			continue;
		any |= m->world > 0;
		if (lo[m->world] < 0 || m->rank < lo[m->world])
			lo[m->world] = m->rank;
		if (m->rank > hi[m->world])
			hi[m->world] = m->rank;
	}
	if (!any)
		return;
	fputs("Worlds (the job mpirun started, then those MPI_Comm_spawn started):", out);
	for (unsigned w = 0; w <= PT_MPI_WORLDS_MAX; w++)
		if (lo[w] >= 0)
			fprintf(out, "%s world %u ranks %d-%d", w ? ";" : "", w, lo[w], hi[w]);
	fputc('\n', out);
}

static int mr_print(void *tool, FILE *out)
{
	mr_tool *t = tool;
	if (!t->ranks.any)
		return 0;
	uint64_t calls = 0, mpi_ns = 0, thread_ns = 0, bytes = 0;
	int32_t nr = 0;
	size_t nhosts = 0;
	for (size_t i = 0; i < t->nslot; i++) {
		const rank_stat *s = t->slot[i].stat;
		if (!s)
			continue;
		nr++;
		calls += s->calls;
		mpi_ns += s->mpi_ns;
		thread_ns += s->thread_ns;
	}
	for (size_t i = 0; i < t->npairs; i++)
		bytes += t->pairs[i].bytes;
	for (size_t p = 0; p < t->ranks.n; p++) {
		if (!t->ranks.host[p])
			continue;
		size_t q = 0;
		while (q < p && (!t->ranks.host[q] || strcmp(t->ranks.host[q], t->ranks.host[p])))
			q++;
		nhosts += q == p;
	}
	if (t->json) {
		print_json(t, out, nr, nhosts);
		return 0;
	}
	char a[32], b[32];
	pt_fmt_dur(a, sizeof a, mpi_ns);
	fmt_bytes(b, sizeof b, bytes);
	fprintf(out,
	        "\nMPI: %d ranks on %zu host%s; %llu calls, %s in MPI (%.1f%% of the ranks' thread "
	        "time); %llu messages matched (%s), %llu sends and %llu receives unmatched\n",
	        nr, nhosts, nhosts == 1 ? "" : "s", (unsigned long long)calls, a,
	        pct(mpi_ns, thread_ns), (unsigned long long)t->st.matched, b,
	        (unsigned long long)t->st.unmatched_sends,
	        (unsigned long long)t->st.unmatched_recvs);
	print_worlds(t, out);
	char missing[160];
	if (mpi_ranks_missing(&t->ranks, missing, sizeof missing))
		fprintf(out, "Ranks missing from the trace (no log of theirs): %s\n", missing);
	if (t->oom)
		fputs("(out of memory: some calls or messages are missing)\n", out);
	print_ranks(t, out);
	print_calls(t, out);
	print_io(t, out);
	print_errors(t, out);
	print_pairs(t, out);
	print_clocks(t, out);
	return 0;
}

static void mr_destroy(void *tool)
{
	mr_tool *t = tool;
	mpi_ranks_free(&t->ranks);
	mpi_ends_free(&t->sends);
	mpi_ends_free(&t->recvs);
	for (size_t i = 0; i < t->nslot; i++)
		free(t->slot[i].stat);
	free(t->slot);
	free(t->pairs);
	err_free(&t->errs);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static const pt_tool mpi_tool = {
    .api_version = PT_TOOL_API_VERSION,
    .name = "mpi",
    .description = "MPI: time per rank and call, bytes, pairs, late senders, balance",
    .init = mr_init,
    .process_event = mr_process_event,
    .shard_init = mr_shard_init,
    .shard_event = mr_shard_event,
    .shard_exit = mr_shard_exit,
    .finish = mr_finish,
    .print_results = mr_print,
    .destroy = mr_destroy,
};

const pt_tool *pt_tool_mpi(void)
{
	return &mpi_tool;
}
