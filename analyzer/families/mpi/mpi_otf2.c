/* SPDX-License-Identifier: MIT */
/* MPI in the OTF2 archive (tools/otf2/ot.h), as Score-P writes it: each
 * call a region of the MPI paradigm entered and left on its thread;
 * messages as MpiSend / MpiIsend + MpiIsendComplete, MpiIrecvRequest,
 * MpiIrecv / MpiRecv, with the communicator, the peer's rank in it, the
 * tag, the bytes and the request; collectives as MpiCollectiveBegin/End
 * with the operation, the root's rank in the communicator and the bytes
 * sent and received; non-blocking ones as NonBlockingCollectiveRequest in
 * their call and NonBlockingCollectiveComplete (the same fields) in the
 * Wait or Test that completed them. A send's and a non-blocking
 * collective's completion is the MPI_DONE of that Wait or Test (format
 * 3.5), matched by its request to the start on the same thread; a log
 * older than 3.5 has none: its MpiIsendComplete is written at the end of
 * the call that started the send, its non-blocking collectives as blocking
 * ones inside their call. Definitions: the ranks'
 * locations (a COMM_LOCATIONS group), and each communicator the process
 * logs define (MPI_COMM_WORLD, MPI_COMM_SELF, those the program made) with
 * its members. */
#define _GNU_SOURCE
#include "mpi_common.h"
#include "ot.h"

#ifdef PT_WITH_OTF2
#include "pt_fw_mpi.h"
#include "pt_fw_util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A communicator: its members' ranks in the run, in its rank order. */
typedef struct ot_comm {
	uint64_t id;
	int32_t *members;
	uint32_t n;
} ot_comm;

typedef struct mpi_ot {
	const pt_trace_ctx *ctx;
	ot_tool *tool;
	uint32_t comms_base; /* WORLD; SELF next, then the others */
	mpi_ranks ranks;
	ot_comm *comms; /* sorted by id from the first shard on */
	size_t ncomms, cap;
	int sorted, oom;
	pthread_mutex_t lock;
} mpi_ot;

/* Calls whose regions a thread keeps (<paratrace/mpi_calls.h>'s ids). */
#define MPI_OT_CALLS 256

/* A send or non-blocking collective started on the thread and not yet
 * completed (coll: what NonBlockingCollectiveComplete repeats). */
typedef struct ot_pending {
	uint64_t request;
	int coll;
	OTF2_CollectiveOp op;
	OTF2_CommRef comm;
	uint32_t root;
	uint64_t sent, recvd;
} ot_pending;

typedef struct mpi_ot_thread {
	uint32_t regions[MPI_OT_CALLS]; /* by call, once asked for */
	unsigned call;                  /* the open call, 0 none */
	uint32_t region;                /* its region */
	int coll_open;                  /* MpiCollectiveBegin written, End not yet */
	int done_records;               /* the log has MPI_DONE (3.5) */
	ot_pending *pending;            /* in start order */
	size_t npending, cap;
} mpi_ot_thread;

static int ot_mpi_init(const pt_trace_ctx *ctx, ot_tool *tool, void **global)
{
	mpi_ot *g = calloc(1, sizeof *g);
	if (!g || mpi_ranks_init(&g->ranks, ctx)) {
		if (g)
			mpi_ranks_free(&g->ranks);
		free(g);
		return -1;
	}
	g->ctx = ctx;
	g->tool = tool;
	g->comms_base = ot_comm_block(tool);
	pthread_mutex_init(&g->lock, NULL);
	*global = g;
	return 0;
}

static void add_comm(mpi_ot *g, const pt_event *ev)
{
	const pt_rec_mpi_comm_def *d = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_comm_def);
	if (!d || d->comm == PT_MPI_COMM_SELF_ID)
		return;
	for (size_t i = 0; i < g->ncomms; i++)
		if (g->comms[i].id == d->comm)
			return;
	/* the members follow the payload, within the record */
	const int32_t *world = (const int32_t *)(d + 1);
	size_t have = pt_rec_size(ev->rec) > sizeof *ev->rec + sizeof *d
	                  ? (pt_rec_size(ev->rec) - sizeof *ev->rec - sizeof *d) / sizeof *world
	                  : 0;
	if (d->local_size > have)
		return;
	if (g->ncomms == g->cap) {
		size_t ncap = g->cap ? 2 * g->cap : 16;
		ot_comm *v = realloc(g->comms, ncap * sizeof *v);
		if (!v) {
			g->oom = 1;
			return;
		}
		g->comms = v;
		g->cap = ncap;
	}
	ot_comm *c = &g->comms[g->ncomms];
	c->id = d->comm;
	c->n = d->local_size;
	c->members = malloc((c->n + 1) * sizeof *c->members);
	if (!c->members) {
		g->oom = 1;
		return;
	}
	for (uint32_t k = 0; k < c->n; k++)
		c->members[k] = pt_fw_mpi_rank_of(g->ctx, world[k]);
	g->ncomms++;
}

static void ot_mpi_process_event(void *global, size_t process, const pt_event *ev)
{
	mpi_ot *g = global;
	mpi_ranks_process_event(&g->ranks, process, ev);
	if (ev->kind == PT_REC_MPI_COMM_DEF)
		add_comm(g, ev);
}

static int cmp_comm(const void *a, const void *b)
{
	const ot_comm *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int ot_mpi_shard_init(void *global, ot_loc *l, void **shard)
{
	mpi_ot *g = global;
	if (l->info->kind != PT_FILE_THREAD)
		return 0;
	pthread_mutex_lock(&g->lock);
	if (!g->sorted)
		pt_qsort(g->comms, g->ncomms, sizeof *g->comms, cmp_comm);
	g->sorted = 1;
	pthread_mutex_unlock(&g->lock);
	if (g->oom)
		return -1;
	mpi_ot_thread *m = calloc(1, sizeof *m);
	*shard = m;
	if (!m)
		return -1;
	const pt_file_header *h = l->info->header;
	m->done_records =
	    h && (h->version_major > 3 ||
	          (h->version_major == 3 && h->version_minor >= PT_MPI_DONE_SINCE_MINOR));
	return 0;
}

/* A start whose handle an earlier start still has replaces it: that one
 * was never completed here (freed, or completed on another thread) and
 * MPI gave its handle to this one. So the list stays as short as the
 * handles in use. */
static int pending_add(mpi_ot_thread *m, const ot_pending *p)
{
	for (size_t i = m->npending; i-- > 0;)
		if (m->pending[i].request == p->request) {
			m->pending[i] = *p;
			return 0;
		}
	if (m->npending == m->cap) {
		size_t ncap = m->cap ? 2 * m->cap : 16;
		ot_pending *v = realloc(m->pending, ncap * sizeof *v);
		if (!v)
			return -1;
		m->pending = v;
		m->cap = ncap;
	}
	m->pending[m->npending++] = *p;
	return 0;
}

/* The start a completion of request stands for, taken off the list. */
static int pending_take(mpi_ot_thread *m, uint64_t request, ot_pending *out)
{
	for (size_t i = m->npending; i-- > 0;)
		if (m->pending[i].request == request) {
			*out = m->pending[i];
			memmove(&m->pending[i], &m->pending[i + 1],
			        (m->npending - i - 1) * sizeof *m->pending);
			m->npending--;
			return 0;
		}
	return -1;
}

/* A non-blocking collective's call, written as a request and a completion
 * (a log with MPI_DONE records). */
static int nonblocking_coll(const mpi_ot_thread *m, unsigned call)
{
	const char *name = mpi_call_name(call);
	return m->done_records && name && mpi_call_family(call) == PT_MPI_COLL &&
	       (name[4] == 'I' || name[4] == 'i');
}

/* The communicators' refs: WORLD, SELF, then the others in order of id
 * (an id no process log defined: WORLD's, whose ranks are the run's). */
static const ot_comm *find_comm(const mpi_ot *g, uint64_t id, OTF2_CommRef *ref)
{
	size_t lo = 0, hi = g->ncomms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (g->comms[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (id == PT_MPI_COMM_SELF_ID) {
		*ref = g->comms_base + 1;
		return NULL;
	}
	if (lo < g->ncomms && g->comms[lo].id == id && id != PT_MPI_COMM_WORLD_ID) {
		*ref = g->comms_base + 2 + (OTF2_CommRef)lo;
		return &g->comms[lo];
	}
	*ref = g->comms_base;
	return NULL;
}

/* A run rank's rank in the communicator (c NULL: WORLD's, the run's). */
static uint32_t rank_in(const ot_comm *c, int32_t run_rank)
{
	if (run_rank < 0)
		return OTF2_UNDEFINED_UINT32;
	if (!c)
		return (uint32_t)run_rank;
	for (uint32_t k = 0; k < c->n; k++)
		if (c->members[k] == run_rank)
			return k;
	return OTF2_UNDEFINED_UINT32;
}

static OTF2_RegionRole call_role(unsigned call, const char *name)
{
	if (mpi_call_family(call) == PT_MPI_PTOP)
		return OTF2_REGION_ROLE_POINT2POINT;
	if (mpi_call_family(call) != PT_MPI_COLL)
		return OTF2_REGION_ROLE_FUNCTION;
	const char *n = name + 4 + (name[4] == 'I'); /* after "MPI_" and a non-blocking I */
	if (!strcmp(n, "Barrier") || !strcmp(n, "barrier"))
		return OTF2_REGION_ROLE_BARRIER;
	if (!strncmp(n, "Bcast", 5) || !strncmp(n, "bcast", 5) || !strncmp(n, "Scatter", 7) ||
	    !strncmp(n, "scatter", 7))
		return OTF2_REGION_ROLE_COLL_ONE2ALL;
	if (!strncmp(n, "Gather", 6) || !strncmp(n, "gather", 6) || !strcmp(n, "Reduce") ||
	    !strcmp(n, "reduce"))
		return OTF2_REGION_ROLE_COLL_ALL2ONE;
	if (strstr(n, "can"))
		return OTF2_REGION_ROLE_COLL_OTHER;
	return OTF2_REGION_ROLE_COLL_ALL2ALL;
}

static OTF2_CollectiveOp coll_op(const char *name)
{
	static const struct {
		const char *n;
		OTF2_CollectiveOp op;
	} v[] = {
	    {"Barrier", OTF2_COLLECTIVE_OP_BARRIER},
	    {"Bcast", OTF2_COLLECTIVE_OP_BCAST},
	    {"Gatherv", OTF2_COLLECTIVE_OP_GATHERV},
	    {"Gather", OTF2_COLLECTIVE_OP_GATHER},
	    {"Scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
	    {"Scatter", OTF2_COLLECTIVE_OP_SCATTER},
	    {"Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
	    {"Allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
	    {"Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
	    {"Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW},
	    {"Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},
	    {"Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE},
	    {"Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
	    {"Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
	    {"Reduce", OTF2_COLLECTIVE_OP_REDUCE},
	    {"Scan", OTF2_COLLECTIVE_OP_SCAN},
	    {"Exscan", OTF2_COLLECTIVE_OP_EXSCAN},
	};
	/* the non-blocking ones' names go on in lower case: MPI_Iallreduce */
	const char *n = name + 4 + (name[4] == 'I');
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (!strcasecmp(n, v[i].n))
			return v[i].op;
	return OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE; /* neighbourhood ones */
}

static int ot_mpi_event(void *global, void **shard, ot_loc *l, const pt_event *ev)
{
	mpi_ot *g = global;
	mpi_ot_thread *m = *shard;
	if (!m)
		return 0;
	uint64_t t = ev->time_ns;
	switch (ev->kind) {
	case PT_REC_MPI_CALL: {
		const char *name = mpi_call_name(ev->rec->arg);
		if (!name)
			break;
		m->call = ev->rec->arg;
		uint32_t *at = m->call < MPI_OT_CALLS ? &m->regions[m->call] : &m->region;
		if (!*at || at == &m->region)
			*at = ot_region(g->tool, name, call_role(m->call, name), OTF2_PARADIGM_MPI);
		m->region = *at;
		ot_enter(l, t, m->region);
		if (mpi_call_family(m->call) == PT_MPI_COLL && !nonblocking_coll(m, m->call)) {
			OTF2_EvtWriter_MpiCollectiveBegin(l->w, NULL, ot_time(l, t));
			m->coll_open = 1;
		}
		break;
	}
	case PT_REC_MPI_CALL_END:
		if (!m->call)
			break;
		if (m->coll_open) /* it failed: nothing moved */
			OTF2_EvtWriter_MpiCollectiveEnd(l->w, NULL, ot_time(l, t),
			                                coll_op(mpi_call_name(m->call)),
			                                g->comms_base, OTF2_UNDEFINED_UINT32, 0, 0);
		m->coll_open = 0;
		ot_leave(l, t, m->region);
		m->call = 0;
		break;
	case PT_REC_MPI_SEND:
	case PT_REC_MPI_RECV:
	case PT_REC_MPI_IRECV: {
		const pt_rec_mpi_msg *x = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_msg);
		if (!x)
			break;
		OTF2_CommRef comm;
		const ot_comm *c = find_comm(g, x->comm, &comm);
		uint32_t peer = rank_in(c, pt_fw_mpi_rank_of(g->ctx, x->peer));
		OTF2_TimeStamp ts = ot_time(l, t);
		uint32_t tag = (uint32_t)x->tag;
		if (ev->kind == PT_REC_MPI_IRECV)
			OTF2_EvtWriter_MpiIrecvRequest(l->w, NULL, ts, x->request);
		else if (peer == OTF2_UNDEFINED_UINT32)
			break; /* MPI_PROC_NULL, or a peer the trace does not have */
		else if (ev->kind == PT_REC_MPI_RECV && x->request)
			OTF2_EvtWriter_MpiIrecv(l->w, NULL, ts, peer, comm, tag, x->bytes,
			                        x->request);
		else if (ev->kind == PT_REC_MPI_RECV)
			OTF2_EvtWriter_MpiRecv(l->w, NULL, ts, peer, comm, tag, x->bytes);
		else if (x->request) {
			OTF2_EvtWriter_MpiIsend(l->w, NULL, ts, peer, comm, tag, x->bytes,
			                        x->request);
			ot_pending p = {.request = x->request};
			if (!m->done_records)
				OTF2_EvtWriter_MpiIsendComplete(l->w, NULL, ts, x->request);
			else if (pending_add(m, &p))
				return -1;
		} else
			OTF2_EvtWriter_MpiSend(l->w, NULL, ts, peer, comm, tag, x->bytes);
		break;
	}
	case PT_REC_MPI_COLL: {
		const pt_rec_mpi_coll *x = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_coll);
		int nb = x && x->request && nonblocking_coll(m, ev->rec->arg);
		if (!x || (!m->coll_open && !nb))
			break;
		OTF2_CommRef comm;
		const ot_comm *c = find_comm(g, x->comm, &comm);
		uint32_t root = x->root < 0 ? OTF2_UNDEFINED_UINT32
		                            : rank_in(c, pt_fw_mpi_rank_of(g->ctx, x->root));
		OTF2_CollectiveOp op = coll_op(mpi_call_name(ev->rec->arg));
		if (nb) {
			ot_pending p = {x->request, 1, op, comm, root, x->sent, x->recvd};
			OTF2_EvtWriter_NonBlockingCollectiveRequest(l->w, NULL, ot_time(l, t),
			                                            x->request);
			if (pending_add(m, &p))
				return -1;
			break;
		}
		OTF2_EvtWriter_MpiCollectiveEnd(l->w, NULL, ot_time(l, t), op, comm, root, x->sent,
		                                x->recvd);
		m->coll_open = 0;
		break;
	}
	case PT_REC_MPI_DONE: {
		const pt_rec_mpi_done *x = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_done);
		ot_pending p;
		if (!x || pending_take(m, x->request, &p))
			break; /* started on another thread, or a request not described */
		if (p.coll)
			OTF2_EvtWriter_NonBlockingCollectiveComplete(l->w, NULL, ot_time(l, t),
			                                             p.op, p.comm, p.root, p.sent,
			                                             p.recvd, p.request);
		else
			OTF2_EvtWriter_MpiIsendComplete(l->w, NULL, ot_time(l, t), p.request);
		break;
	}
	default:
		break;
	}
	return 0;
}

static void ot_mpi_shard_end(void *global, void *shard, ot_loc *l, uint64_t last_ns)
{
	mpi_ot *g = global;
	mpi_ot_thread *m = shard;
	if (m && m->coll_open)
		OTF2_EvtWriter_MpiCollectiveEnd(l->w, NULL, ot_time(l, last_ns),
		                                coll_op(mpi_call_name(m->call)), g->comms_base,
		                                OTF2_UNDEFINED_UINT32, 0, 0);
	if (m)
		m->coll_open = 0;
}

static int ot_mpi_shard_exit(void *global, void *shard)
{
	(void)global;
	mpi_ot_thread *m = shard;
	if (m)
		free(m->pending);
	free(shard);
	return 0;
}

/* The rank's location, by rank in the run; *n the ranks. NULL when the
 * trace has none (or no memory: *n = 1). */
static uint64_t *rank_locations(const mpi_ot *g, uint32_t *n)
{
	const pt_trace_ctx *ctx = g->ctx;
	*n = 0;
	for (size_t p = 0; p < ctx->nprocesses; p++) {
		const pt_fw_mpi *f = pt_fw_mpi_process(ctx, p);
		if (f && f->rank >= 0 && (uint32_t)f->rank + 1 > *n)
			*n = (uint32_t)f->rank + 1;
	}
	if (!*n)
		return NULL;
	uint64_t *loc = malloc(*n * sizeof *loc);
	if (!loc) {
		*n = 1;
		return NULL;
	}
	for (uint32_t r = 0; r < *n; r++)
		loc[r] = OTF2_UNDEFINED_LOCATION;
	for (size_t p = 0; p < ctx->nprocesses; p++) {
		const pt_fw_mpi *f = pt_fw_mpi_process(ctx, p);
		if (f && f->rank >= 0)
			loc[f->rank] = ot_process_location(ctx, p);
	}
	return loc;
}

static int write_comm(const mpi_ot *g, ot_defs *d, OTF2_CommRef ref, const char *name,
                      OTF2_GroupType type, uint32_t n, const uint64_t *members)
{
	OTF2_GroupRef grp = ot_group(d);
	OTF2_StringRef s = ot_string(d, name);
	OTF2_GlobalDefWriter_WriteGroup(d->w, grp, s, type, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
	                                n, members);
	return ot_comm_def(d, ref, s, grp,
	                   ref == g->comms_base ? OTF2_UNDEFINED_COMM : g->comms_base);
}

static int ot_mpi_defs(void *global, ot_defs *d)
{
	mpi_ot *g = global;
	uint32_t n;
	uint64_t *loc = rank_locations(g, &n);
	if (!loc)
		return n ? -1 : 0;
	OTF2_GlobalDefWriter_WriteGroup(d->w, ot_group(d), ot_string(d, "MPI ranks"),
	                                OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
	                                OTF2_GROUP_FLAG_NONE, n, loc);
	/* the members are indices into that group: ranks in the run */
	for (uint32_t r = 0; r < n; r++)
		loc[r] = r;
	int rc =
	    write_comm(g, d, g->comms_base, "MPI_COMM_WORLD", OTF2_GROUP_TYPE_COMM_GROUP, n, loc) ||
	    write_comm(g, d, g->comms_base + 1, "MPI_COMM_SELF", OTF2_GROUP_TYPE_COMM_SELF, 0,
	               NULL);
	char name[64];
	for (size_t i = 0; i < g->ncomms && !rc; i++) {
		const ot_comm *c = &g->comms[i];
		if (c->id == PT_MPI_COMM_WORLD_ID)
			continue;
		uint64_t *m = malloc((c->n + 1) * sizeof *m);
		if (!m) {
			rc = -1;
			break;
		}
		uint32_t k = 0;
		for (uint32_t j = 0; j < c->n; j++)
			if (c->members[j] >= 0 && (uint32_t)c->members[j] < n)
				m[k++] = (uint64_t)c->members[j];
		snprintf(name, sizeof name, "MPI communicator %zu", i + 1);
		rc = write_comm(g, d, g->comms_base + 2 + (uint32_t)i, name,
		                OTF2_GROUP_TYPE_COMM_GROUP, k, m);
		free(m);
	}
	free(loc);
	return rc;
}

static void ot_mpi_destroy(void *global)
{
	mpi_ot *g = global;
	if (!g)
		return;
	for (size_t i = 0; i < g->ncomms; i++)
		free(g->comms[i].members);
	free(g->comms);
	mpi_ranks_free(&g->ranks);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

const ot_family mpi_otf2 = {
    .kind_first = PT_REC_RANGE_MPI_FIRST,
    .kind_last = PT_REC_RANGE_MPI_LAST,
    .all_after_first = 1, /* and MPI_DONE, outside the range */
    .init = ot_mpi_init,
    .process_event = ot_mpi_process_event,
    .shard_init = ot_mpi_shard_init,
    .event = ot_mpi_event,
    .shard_end = ot_mpi_shard_end,
    .shard_exit = ot_mpi_shard_exit,
    .defs = ot_mpi_defs,
    .destroy = ot_mpi_destroy,
};
#endif
