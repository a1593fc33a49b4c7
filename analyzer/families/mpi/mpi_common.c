/* SPDX-License-Identifier: MIT */
/* The analyzer's MPI parts' common ground (mpi_common.h): calls followed
 * per thread, messages gathered and matched, ranks and communicators. */
#define _GNU_SOURCE
#include "mpi_common.h"

#include "pt_fw_mpi.h"
#include "pt_fw_util.h"

#include <stdlib.h>
#include <string.h>

/* ---- calls ---------------------------------------------------------------- */

const char *mpi_call_name(unsigned call)
{
	switch (call) {
#define NAME_(name, id, family, state)                                                             \
	case id:                                                                                   \
		return "MPI_" #name;
		PT_MPI_CALLS(NAME_)
#undef NAME_
	default:
		return NULL;
	}
}

unsigned mpi_call_family(unsigned call)
{
	switch (call) {
#define FAMILY_(name, id, family, state)                                                           \
	case id:                                                                                   \
		return PT_MPI_##family;
		PT_MPI_CALLS(FAMILY_)
#undef FAMILY_
	default:
		return 0;
	}
}

unsigned mpi_call_state(unsigned call)
{
	switch (call) {
#define STATE_(name, id, family, state)                                                            \
	case id:                                                                                   \
		return state;
		PT_MPI_CALLS(STATE_)
#undef STATE_
	default:
		return 0;
	}
}

const char *mpi_family_label(unsigned family)
{
	static const char *const labels[] = {
	    NULL,        "MPI Point-to-point", "MPI Collective Comm",
	    "MPI Other", "MPI One-sided",      "MPI I/O"};
	return family < sizeof labels / sizeof labels[0] ? labels[family] : NULL;
}

/* ---- ends ------------------------------------------------------------------ */

int mpi_ends_push(mpi_ends *e, const mpi_end *x)
{
	if (e->n == e->cap) {
		size_t ncap = e->cap ? 2 * e->cap : 64;
		mpi_end *v = realloc(e->v, ncap * sizeof *v);
		if (!v)
			return -1;
		e->v = v;
		e->cap = ncap;
	}
	e->v[e->n++] = *x;
	return 0;
}

int mpi_ends_move(mpi_ends *dst, mpi_ends *src)
{
	if (!dst->v) {
		*dst = *src;
		memset(src, 0, sizeof *src);
		return 0;
	}
	if (dst->n + src->n > dst->cap) {
		size_t ncap = dst->n + src->n;
		mpi_end *v = realloc(dst->v, ncap * sizeof *v);
		if (!v)
			return -1;
		dst->v = v;
		dst->cap = ncap;
	}
	if (src->n) /* src->v is NULL when it has none */
		memcpy(dst->v + dst->n, src->v, src->n * sizeof *src->v);
	dst->n += src->n;
	mpi_ends_free(src);
	return 0;
}

void mpi_ends_free(mpi_ends *e)
{
	free(e->v);
	memset(e, 0, sizeof *e);
}

/* ---- one thread's calls ------------------------------------------------------ */

void mpi_track_init(mpi_track *t, const pt_trace_ctx *ctx, const pt_shard_info *shard,
                    int32_t rank)
{
	memset(t, 0, sizeof *t);
	t->ctx = ctx;
	t->shard = shard;
	t->rank = rank;
}

/* The sends of the call ending at `end` leave then (their physical time). */
static void close_call(mpi_track *t, uint64_t end)
{
	for (size_t i = t->sends.n - t->open_sends; i < t->sends.n; i++)
		t->sends.v[i].pt = end;
	t->open_sends = 0;
	t->call = 0;
}

/* ns of a span of the log's ticks (format.h's conversion, without the base). */
static uint64_t span_ns(const pt_file_header *h, uint64_t ticks)
{
	return (uint64_t)(((unsigned __int128)ticks * h->tick_mult) >> h->tick_shift);
}

void mpi_track_event(mpi_track *t, const pt_event *ev)
{
	switch (ev->kind) {
	case PT_REC_MPI_CALL:
		if (t->call)
			close_call(t, ev->time_ns);
		t->call = ev->rec->arg;
		t->begin = ev->time_ns;
		break;
	case PT_REC_MPI_CALL_END:
		close_call(t, ev->time_ns);
		break;
	case PT_REC_MPI_SEND: {
		const pt_rec_mpi_msg *m = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_msg);
		int32_t peer = pt_fw_mpi_rank_of(t->ctx, m->peer);
		if (peer < 0 || t->rank < 0)
			break;
		uint64_t lt = t->call ? t->begin : ev->time_ns;
		mpi_end e = {t->rank, peer,     m->tag, (uint32_t)t->shard->index,
		             m->comm, m->bytes, lt,     ev->time_ns,
		             lt,      t->seq++};
		if (mpi_ends_push(&t->sends, &e))
			t->oom = 1;
		else if (t->call)
			t->open_sends++;
		break;
	}
	case PT_REC_MPI_RECV: {
		const pt_rec_mpi_msg *m = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_msg);
		int32_t peer = pt_fw_mpi_rank_of(t->ctx, m->peer);
		if (peer < 0 || t->rank < 0)
			break;
		uint64_t posted = t->call ? t->begin : ev->time_ns;
		if (m->posted && m->posted <= ev->ticks) {
			uint64_t back = span_ns(t->shard->header, ev->ticks - m->posted);
			posted = back < ev->time_ns ? ev->time_ns - back : 0;
		}
		mpi_end e = {
		    peer,     t->rank, m->tag,      (uint32_t)t->shard->index,        m->comm,
		    m->bytes, posted,  ev->time_ns, t->call ? t->begin : ev->time_ns, t->seq++};
		if (mpi_ends_push(&t->recvs, &e))
			t->oom = 1;
		break;
	}
	default:
		break;
	}
}

void mpi_track_end(mpi_track *t, uint64_t last_ns)
{
	if (t->call)
		close_call(t, last_ns);
}

void mpi_track_free(mpi_track *t)
{
	mpi_ends_free(&t->sends);
	mpi_ends_free(&t->recvs);
}

/* ---- ranks -------------------------------------------------------------- */

int mpi_ranks_init(mpi_ranks *r, const pt_trace_ctx *ctx)
{
	memset(r, 0, sizeof *r);
	r->n = ctx->nprocesses;
	r->rank = malloc((r->n + 1) * sizeof *r->rank);
	r->size = calloc(r->n + 1, sizeof *r->size);
	r->host = calloc(r->n + 1, sizeof *r->host);
	r->known = calloc(r->n + 1, sizeof *r->known);
	if (!r->rank || !r->size || !r->host || !r->known)
		return -1;
	for (size_t p = 0; p < r->n; p++) {
		const pt_fw_mpi *m = pt_fw_mpi_process(ctx, p);
		r->rank[p] = m ? m->rank : -1;
		if (m) {
			r->known[p] = 1;
			r->any = 1;
			r->size[p] = m->size;
			r->host[p] = m->host ? strdup(m->host) : NULL;
		}
	}
	return 0;
}

void mpi_ranks_process_event(mpi_ranks *r, size_t process, const pt_event *ev)
{
	if (ev->kind != PT_REC_MPI_INIT || process >= r->n || r->known[process])
		return;
	/* a run without a launcher (the framework read nothing early) */
	const pt_rec_mpi_init *i = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_init);
	char msg[256];
	if (pt_fw_mpi_record_check(ev, msg, sizeof msg)) {
		/* the framework refuses it (said once, whichever tools run) */
		r->known[process] = 1; /* whatever else its log says */
		r->rank[process] = -1;
		return;
	}
	r->rank[process] = i->rank;
	r->size[process] = i->size;
	r->any = 1;
	if (!r->host[process]) {
		const char *h = pt_event_string(ev, sizeof *i);
		if (h && *h)
			r->host[process] = strdup(h);
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

size_t mpi_ranks_missing(const mpi_ranks *r, char *buf, size_t len)
{
	uint32_t size = 0;
	for (size_t p = 0; p < r->n; p++)
		if (r->rank[p] >= 0 && r->size[p] > size)
			size = r->size[p];
	buf[0] = 0;
	/* the ranks present below the size, sorted and each once: the
	 * missing ones are the gaps (the size is a record's word: never
	 * walked rank by rank) */
	uint32_t *in = malloc((r->n + 1) * sizeof *in);
	if (!in)
		return 0;
	size_t n = 0;
	for (size_t p = 0; p < r->n; p++)
		if (r->rank[p] >= 0 && (uint32_t)r->rank[p] < size)
			in[n++] = (uint32_t)r->rank[p];
	qsort(in, n, sizeof *in, cmp_u32);
	size_t distinct = 0;
	for (size_t i = 0; i < n; i++)
		if (!distinct || in[distinct - 1] != in[i])
			in[distinct++] = in[i];
	size_t missing = size - distinct, used = 0;
	int cut = 0;
	uint32_t k = 0; /* the next rank that may be missing */
	for (size_t i = 0; i <= distinct && !cut && k < size; i++) {
		uint32_t upto = i < distinct ? in[i] : size;
		for (; k < upto; k++) {
			/* room for this one and the " ... (of N)" that may follow */
			if (used + 40 >= len) {
				cut = 1;
				break;
			}
			used +=
			    (size_t)snprintf(buf + used, len - used, "%s%u", used ? ", " : "", k);
		}
		k = upto + 1;
	}
	free(in);
	if (missing)
		snprintf(buf + used, len - used, "%s (of %u)", cut ? ", ..." : "", size);
	return missing;
}

void mpi_ranks_free(mpi_ranks *r)
{
	for (size_t p = 0; r->host && p < r->n; p++)
		free(r->host[p]);
	free(r->rank);
	free(r->size);
	free(r->host);
	free(r->known);
	memset(r, 0, sizeof *r);
}

/* ---- communicators -------------------------------------------------------- */

void mpi_comms_process_event(mpi_comms *c, const pt_event *ev)
{
	if (ev->kind != PT_REC_MPI_COMM_DEF)
		return;
	const pt_rec_mpi_comm_def *d = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_comm_def);
	for (size_t i = 0; i < c->n; i++)
		if (c->id[i] == d->comm)
			return;
	if (c->n == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 16;
		uint64_t *id = realloc(c->id, ncap * sizeof *id);
		if (!id)
			return;
		c->id = id;
		uint32_t *sz = realloc(c->size, ncap * sizeof *sz);
		if (!sz)
			return;
		c->size = sz;
		c->cap = ncap;
	}
	c->id[c->n] = d->comm;
	c->size[c->n] = d->local_size + d->remote_size;
	c->n++;
	c->sorted = 0;
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	/* the fixed ids (WORLD, SELF) first */
	return x < y ? -1 : x > y;
}

uint32_t mpi_comms_number(mpi_comms *c, uint64_t id)
{
	if (!c->sorted) {
		/* sizes are only for the ids' own order: kept beside them */
		uint64_t *pairs = malloc(c->n * 2 * sizeof *pairs);
		if (pairs) {
			for (size_t i = 0; i < c->n; i++) {
				pairs[2 * i] = c->id[i];
				pairs[2 * i + 1] = c->size[i];
			}
			qsort(pairs, c->n, 2 * sizeof *pairs, cmp_id);
			for (size_t i = 0; i < c->n; i++) {
				c->id[i] = pairs[2 * i];
				c->size[i] = (uint32_t)pairs[2 * i + 1];
			}
			free(pairs);
		}
		c->sorted = 1;
	}
	if (id == PT_MPI_COMM_WORLD_ID || id == PT_MPI_COMM_SELF_ID)
		return (uint32_t)id;
	size_t lo = 0, hi = c->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (c->id[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == c->n || c->id[lo] != id)
		return 0;
	/* WORLD and SELF (ids 1, 2) sort first: the others follow from 3 */
	size_t fixed = 0;
	while (fixed < c->n && c->id[fixed] <= PT_MPI_COMM_SELF_ID)
		fixed++;
	return (uint32_t)(lo - fixed + 3);
}

void mpi_comms_free(mpi_comms *c)
{
	free(c->id);
	free(c->size);
	memset(c, 0, sizeof *c);
}

/* ---- matching --------------------------------------------------------------- */

/* Same channel: sender, receiver, communicator, tag. */
static int cmp_key(const mpi_end *x, const mpi_end *y)
{
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static int cmp_end(const void *a, const void *b)
{
	const mpi_end *x = a, *y = b;
	int c = cmp_key(x, y);
	if (c)
		return c;
	if (x->lt != y->lt)
		return x->lt < y->lt ? -1 : 1;
	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int mpi_match(mpi_ends *sends, mpi_ends *recvs,
              void (*fn)(void *arg, const mpi_end *send, const mpi_end *recv), void *arg,
              mpi_match_stats *st)
{
	memset(st, 0, sizeof *st);
	pt_qsort(sends->v, sends->n, sizeof *sends->v, cmp_end);
	pt_qsort(recvs->v, recvs->n, sizeof *recvs->v, cmp_end);
	size_t i = 0, j = 0;
	while (i < sends->n || j < recvs->n) {
		int c = i == sends->n   ? 1
		        : j == recvs->n ? -1
		                        : cmp_key(&sends->v[i], &recvs->v[j]);
		if (c < 0) {
			st->unmatched_sends++;
			i++;
			continue;
		}
		if (c > 0) {
			st->unmatched_recvs++;
			j++;
			continue;
		}
		mpi_end s = sends->v[i++], r = recvs->v[j++];
		/* what the corrected clocks could not settle: a receive ends
		 * after its send began, a send leaves before it arrives */
		if (r.pt < s.lt) {
			if (s.lt - r.pt > st->clamped_max_ns)
				st->clamped_max_ns = s.lt - r.pt;
			r.pt = s.lt;
			st->clamped++;
		}
		if (r.lt > r.pt)
			r.lt = r.pt;
		if (s.pt > r.pt)
			s.pt = r.pt;
		st->matched++;
		fn(arg, &s, &r);
	}
	return 0;
}
