/* SPDX-License-Identifier: MIT */
/* The wait-state facts of each thread log, gathered as the framework's
 * pass reads it, and kept in the set until the analysis (waits.h). */
#define _GNU_SOURCE
#include "gpu_api.h"
#include "gpu_common.h"
#include "pt_dist.h"
#include "pt_family.h"
#include "pt_fw_mpi.h"
#include "pt_waits.h"
#include "waits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Memory stays bounded (32 MB): a thread keeps at most WS_SEGS_ALL / threads
 * stretches (WS_SEGS_MIN at least); past that, each pair of neighbours
 * becomes one, named after the longer, and the causes' functions and the
 * critical path's shares are exact to the width of the merged stretches. */
#define WS_SEGS_ALL (2u << 20)
#define WS_SEGS_MIN (64u << 10)

int ws_grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	void *p = realloc(*v, ncap * size);
	if (!p)
		return -1;
	*v = p;
	*cap = ncap;
	return 0;
}

const char *ws_pattern_name(unsigned p)
{
	static const char *const names[WS_NPATTERNS] = {
	    "late_sender",  "late_receiver", "wait_at_barrier", "wait_at_nxn", "late_broadcast",
	    "early_reduce", "lock_wait",     "cond_wait",       "join_wait",   "gpu_sync_wait"};
	return p < WS_NPATTERNS ? names[p] : "?";
}

/* A copy's name: "memcpy HtoD", "memset", "map" (OpenCL's map; its unmap
 * writes back, "unmap"). */
static const char *copy_name(uint32_t v)
{
	static const char *const copies[] = {"memcpy",      "memcpy HtoD", "memcpy DtoH",
	                                     "memcpy DtoD", "memcpy HtoH", "memcpy PtoP",
	                                     "memset"};
	uint32_t dir = v & 0xff;
	if (v >> 8 & PT_GPU_COPY_F_MAP)
		return dir == PT_GPU_COPY_HTOD ? "unmap" : "map";
	return dir < sizeof copies / sizeof *copies ? copies[dir] : "memcpy";
}

const char *ws_name(const ws_set *s, uint32_t name)
{
	if ((name & (WS_NAME_MPI | WS_NAME_GPU)) == WS_NAME_GPU) {
		if (name & WS_NAME_COPY)
			return copy_name(name & 0xffff);
		const char *k = gpu_names_kernel_name(s->gpu, name & ~WS_NAME_GPU);
		return k ? k : "(kernel)";
	}
	if (name & WS_NAME_MPI) {
		const char *n = mpi_call_name(name & ~WS_NAME_MPI);
		return n ? n : "MPI call";
	}
	const pt_func_info *fi = name ? pt_ctx_func_info(s->ctx, name) : NULL;
	return fi ? fi->name : "(no traced function)";
}

size_t ws_seg_at(const ws_thread *t, uint64_t a)
{
	size_t lo = 0, hi = t->segs.n;
	while (hi - lo > 1) {
		size_t m = (lo + hi) / 2;
		if (t->segs.v[m].t <= a)
			lo = m;
		else
			hi = m;
	}
	return lo;
}

/* ---- call paths, interned ---------------------------------------------- */
static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

uint32_t ws_strs_id(ws_strs *t, const char *s)
{
	if ((t->s.n + 1) * 2 > t->nslot) {
		size_t n = t->nslot ? 2 * t->nslot : 64;
		uint32_t *slot = calloc(n, sizeof *slot);
		if (!slot)
			return WS_NONE;
		for (size_t i = 0; i < t->s.n; i++) {
			size_t j = hash_str(t->s.v[i]) & (n - 1);
			while (slot[j])
				j = (j + 1) & (n - 1);
			slot[j] = (uint32_t)i + 1;
		}
		free(t->slot);
		t->slot = slot;
		t->nslot = n;
	}
	size_t j = hash_str(s) & (t->nslot - 1);
	for (; t->slot[j]; j = (j + 1) & (t->nslot - 1))
		if (!strcmp(t->s.v[t->slot[j] - 1], s))
			return t->slot[j] - 1;
	char *c = strdup(s);
	if (!c || WS_PUSH(t->s, c)) {
		free(c);
		return WS_NONE;
	}
	t->slot[j] = (uint32_t)t->s.n;
	return (uint32_t)t->s.n - 1;
}

void ws_strs_free(ws_strs *t)
{
	for (size_t i = 0; i < t->s.n; i++)
		free(t->s.v[i]);
	free(t->s.v);
	free(t->slot);
}

/* ---- the set ------------------------------------------------------------ */
int ws_set_init(ws_set *s, const pt_trace_ctx *ctx)
{
	memset(s, 0, sizeof *s);
	s->ctx = ctx;
	s->th = calloc(ctx->nshards ? ctx->nshards : 1, sizeof *s->th);
	if (!s->th || !(s->gpu = gpu_names_new(ctx->nprocesses)) ||
	    mpi_ranks_init(&s->ranks, ctx)) {
		free(s->th);
		s->th = NULL;
		gpu_names_free(s->gpu);
		s->gpu = NULL;
		return -1;
	}
	pthread_mutex_init(&s->lock, NULL);
	return 0;
}

void ws_set_process_event(ws_set *s, size_t process, const pt_event *ev)
{
	mpi_ranks_process_event(&s->ranks, process, ev);
	if (ev->kind >= PT_REC_RANGE_GPU_FIRST && ev->kind <= PT_REC_RANGE_GPU_LAST)
		gpu_names_process_event(s->gpu, process, ev);
}

/* A thread's stretches, the bulk of what the section keeps. Past
 * WS_SEGS_MAP of them, the most it keeps are reserved at once (they never
 * grow past that: coarsen), touched as they are written, in huge pages
 * where the system gives them on request: a page fault per 4 KiB of them
 * cost more than writing them. At most WS_MAPS threads so (the system
 * bounds a process's mappings). */
#define WS_SEGS_MAP 8192u
#define WS_MAPS 4096u
static ws_seg *segs_map(size_t n)
{
	/* on a huge page's boundary: the rest trimmed off */
	const size_t huge = 2u << 20;
	size_t len = n * sizeof(ws_seg), span = len + huge;
	char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	char *a = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (a + len < p + span)
		munmap(a + len, (size_t)(p + span - (a + len)));
#ifdef MADV_HUGEPAGE
	madvise(a, len, MADV_HUGEPAGE);
#endif
	return (ws_seg *)a;
}

static void thread_free(ws_thread *t)
{
	if (t->segs_mapped)
		munmap(t->segs.v, t->segs.cap * sizeof *t->segs.v);
	else
		free(t->segs.v);
	free(t->waits.v);
	free(t->calls.v);
	free(t->gcalls.v);
	free(t->ops.v);
}

void ws_set_free(ws_set *s)
{
	if (!s->th)
		return;
	for (size_t i = 0; i < s->ctx->nshards; i++)
		thread_free(&s->th[i]);
	free(s->th);
	free(s->releases.v);
	free(s->signals.v);
	free(s->creates.v);
	mpi_ends_free(&s->sends);
	mpi_ends_free(&s->recvs);
	mpi_ranks_free(&s->ranks);
	ws_strs_free(&s->paths);
	gpu_names_free(s->gpu);
	pthread_mutex_destroy(&s->lock);
	memset(s, 0, sizeof *s);
}

/* ---- one shard ---------------------------------------------------------- */
struct ws_reader {
	ws_set *set;
	const pt_shard_info *in;
	ws_thread t;
	pt_callstack cs;
	pt_func_lookup fl;
	pt_waits waits;
	uint32_t wait_path[PT_WAIT_KINDS];
	mpi_track track;
	int mpi;
	ws_strs paths; /* local ids, made the set's at the end */
	unsigned call; /* the open MPI call */
	ws_call open;
	uint32_t cur;  /* the name of the last segment */
	uint64_t last; /* the time of the last record */
	int device;    /* a GPU stream's log */
	int in_gcall;  /* inside a GPU API call: gopen */
	ws_gcall gopen;
	uint64_t busy_until; /* a GPU stream's: the end of its last kernel or copy */
	size_t seg_cap;      /* the most stretches it keeps */
	WS_VEC(ws_mark) rel, sig;
	WS_VEC(ws_create) cre;
	int oom;
};

static const pt_callstack_ops no_ops = {NULL, NULL};

ws_reader *ws_reader_new(ws_set *s, const pt_shard_info *in)
{
	ws_reader *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->set = s;
	r->in = in;
	int32_t rank = in->process < s->ranks.n ? s->ranks.rank[in->process] : -1;
	r->mpi = rank >= 0 && in->kind == PT_FILE_THREAD;
	r->t.rank = rank >= 0 ? rank : 0;
	r->t.pid = in->pid;
	r->t.thread = in->thread ? in->thread - 1 : 0;
	r->t.first = in->first_ns;
	r->device = in->kind == PT_FILE_GPU;
	r->t.gpu_stream = in->gpu_stream;
	r->seg_cap = WS_SEGS_ALL / (s->ctx->nshards ? s->ctx->nshards : 1);
	if (r->seg_cap < WS_SEGS_MIN)
		r->seg_cap = WS_SEGS_MIN;

	pt_callstack_init(&r->cs, in->header);
	pt_func_lookup_init(&r->fl, s->ctx, in->process);
	pt_waits_init(&r->waits);
	if (r->mpi)
		mpi_track_init(&r->track, s->ctx, in, rank);
	return r;
}

/* The innermost name changed (or not) at t. */

static void coarsen(ws_thread *t, uint64_t now)
{
	size_t o = 0;
	for (size_t i = 0; i < t->segs.n; i += 2) {
		ws_seg a = t->segs.v[i];
		if (i + 1 < t->segs.n) {
			const ws_seg *b = &t->segs.v[i + 1];
			uint64_t end = i + 2 < t->segs.n ? t->segs.v[i + 2].t : now;
			if (end - b->t > b->t - a.t)
				a.name = b->name;
		}
		t->segs.v[o++] = a;
	}
	t->segs.n = o;
}

static void put_seg(ws_reader *r, uint64_t t, uint32_t name)
{
	if (name == r->cur && r->t.segs.n)
		return;
	if (r->t.segs.n && r->t.segs.v[r->t.segs.n - 1].t == t) {
		r->t.segs.v[r->t.segs.n - 1].name = name;
		r->cur = name;
		return;
	}
	if (r->t.segs.n >= r->seg_cap)
		coarsen(&r->t, t);
	else if (r->t.segs.n == r->t.segs.cap && r->t.segs.n >= WS_SEGS_MAP && !r->t.segs_mapped &&
	         __atomic_add_fetch(&r->set->maps, 1, __ATOMIC_RELAXED) <= WS_MAPS) {
		ws_seg *v = segs_map(r->seg_cap + 1);
		if (v) {
			memcpy(v, r->t.segs.v, r->t.segs.n * sizeof *v);
			free(r->t.segs.v);
			r->t.segs.v = v;
			r->t.segs.cap = r->seg_cap + 1;
			r->t.segs_mapped = 1;
		}
	}
	if (WS_PUSH(r->t.segs, ((ws_seg){t, name, 0})))
		r->oom = 1;
	r->cur = name;
}

static void note_name(ws_reader *r, uint64_t t)
{
	put_seg(r, t,
	        r->call       ? WS_NAME_MPI | r->call
	        : r->cs.depth ? r->cs.ids[r->cs.depth - 1]
	                      : WS_NAME_NONE);
}

static const char *wait_call(int kind, unsigned type)
{
	static const char *const locks[] = {"lock",
	                                    "pthread_mutex_lock",
	                                    "pthread_rwlock_rdlock",
	                                    "pthread_rwlock_wrlock",
	                                    "pthread_spin_lock",
	                                    "sem_wait",
	                                    "mtx_lock",
	                                    "pthread_barrier_wait"};
	switch (kind) {
	case PT_WAIT_COND:
		return "pthread_cond_wait";
	case PT_WAIT_JOIN:
		return "pthread_join";
	case PT_WAIT_BARRIER:
		return "pthread_barrier_wait";
	default: {
		const char *f = pt_family_lock_name(type);
		return f ? f : type < 8 ? locks[type] : "lock";
	}
	}
}

/* The call path now, ending with `last`: the local id. */
static uint32_t path_now(ws_reader *r, const char *last)
{
	char buf[1024];
	size_t depth = r->cs.depth, from = depth, len = strlen(last) + 1;
	const pt_trace_ctx *ctx = r->set->ctx;
	/* the innermost frames that fit, the outermost left out first */
	while (from > 0) {
		const pt_func_info *fi = pt_ctx_func_info(ctx, r->cs.ids[from - 1]);
		size_t n = strlen(fi ? fi->name : "?") + 1;
		if (len + n + 4 > sizeof buf)
			break;
		len += n;
		from--;
	}
	size_t o = 0;
	if (from > 0)
		o += (size_t)snprintf(buf, sizeof buf, ".../");
	for (size_t i = from; i < depth; i++) {
		const pt_func_info *fi = pt_ctx_func_info(ctx, r->cs.ids[i]);
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%s/", fi ? fi->name : "?");
	}
	snprintf(buf + o, sizeof buf - o, "%s", last);
	uint32_t id = ws_strs_id(&r->paths, buf);
	if (id == WS_NONE)
		r->oom = 1;
	return id;
}

static void mpi_event(ws_reader *r, const pt_event *ev)
{
	mpi_track_event(&r->track, ev);
	switch (ev->kind) {
	case PT_REC_MPI_CALL: {
		const char *name = mpi_call_name(ev->rec->arg);
		r->call = ev->rec->arg;
		r->open = (ws_call){.begin = ev->time_ns, .root = -1, .call = r->call};
		r->open.path = path_now(r, name ? name : "MPI call");
		note_name(r, ev->time_ns);
		break;
	}
	case PT_REC_MPI_COLL: {
		const pt_rec_mpi_coll *c = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_coll);
		if (c && r->call && !c->request) {
			r->open.coll = 1;
			r->open.comm = c->comm;
			r->open.root = c->root < 0 ? -1 : pt_fw_mpi_rank_of(r->set->ctx, c->root);
		}
		break;
	}
	case PT_REC_MPI_CALL_END:
		if (!r->call)
			break;
		r->open.end = ev->time_ns;
		if (WS_PUSH(r->t.calls, r->open))
			r->oom = 1;
		r->call = 0;
		note_name(r, ev->time_ns);
		break;
	default:
		break;
	}
}

static void sync_event(ws_reader *r, const pt_event *ev)
{
	uint32_t sh = (uint32_t)r->in->index;
	pt_rec_lock lk;
	const pt_rec_lock *l;
	switch (ev->kind) {
	case PT_REC_LOCK_RELEASED:
		l = pt_rec_lock_get(ev->rec, &lk);
		if (l && WS_PUSH(r->rel, ((ws_mark){ev->time_ns, l->object, sh, r->t.pid})))
			r->oom = 1;
		break;
	case PT_REC_COND_SIGNAL: {
		const pt_rec_cond *c = PT_REC_PAYLOAD(ev->rec, pt_rec_cond);
		if (c && WS_PUSH(r->sig, ((ws_mark){ev->time_ns, c->cond, sh, r->t.pid})))
			r->oom = 1;
		break;
	}
	case PT_REC_THREAD_CREATE: {
		const pt_rec_thread_create *c = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_create);
		if (c && WS_PUSH(r->cre, ((ws_create){ev->time_ns, c->create_seq, sh, r->t.pid})))
			r->oom = 1;
		break;
	}
	case PT_REC_THREAD_START: {
		const pt_rec_thread_start *s = PT_REC_PAYLOAD(ev->rec, pt_rec_thread_start);
		if (s && !(s->flags & PT_THREAD_MAIN))
			r->t.start_seq = s->create_seq;
		break;
	}
	default:
		break;
	}
	pt_wait w;
	switch (pt_waits_record(&r->waits, ev, &w)) {
	case PT_WAITS_BEGAN: {
		/* inside an MPI call (a lock of the library's): that call too */
		char last[128];
		const char *mpi = r->call ? mpi_call_name(r->call) : NULL;
		snprintf(last, sizeof last, "%s%s%s", mpi ? mpi : "", mpi ? "/" : "",
		         wait_call(w.kind, w.type));
		r->wait_path[w.kind] = path_now(r, last);
		break;
	}
	case PT_WAITS_ENDED:
		if (w.begun && w.end > w.begin && !w.failed) {
			uint64_t obj = w.object;
			if (w.kind == PT_WAIT_JOIN) {
				const pt_rec_thread_join *j =
				    PT_REC_PAYLOAD(ev->rec, pt_rec_thread_join);
				obj = j ? j->create_seq : 0;
			}
			ws_wait x = {w.begin, w.end, obj, (uint32_t)w.kind, r->wait_path[w.kind]};
			if (WS_PUSH(r->t.waits, x))
				r->oom = 1;
		}
		break;
	default:
		break;
	}
}

/* ---- GPU calls and device work --------------------------------------------- */
static const char *gpu_func_name(const ws_set *s, unsigned api, uint32_t func)
{
	unsigned a;
	uint32_t f;
	const char *n;
	for (size_t i = 0; !gpu_names_func_at(s->gpu, i, &a, &f, &n); i++)
		if (a == api && f == func)
			return n;
	return "GPU call";
}

/* A host thread's API calls: each call that may start device work or wait
 * for it, with the call path of those that wait. */
static void gpu_host_event(ws_reader *r, const pt_event *ev)
{
	const pt_rec_gpu_api *a = ev->kind == PT_REC_GPU_API_BEGIN || ev->kind == PT_REC_GPU_API_END
	                              ? PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_api)
	                              : NULL;
	switch (ev->kind) {
	case PT_REC_GPU_API_BEGIN:
		if (!a || r->in_gcall)
			break;
		r->in_gcall = 1;
		r->gopen = (ws_gcall){.begin = ev->time_ns,
		                      .end = ev->time_ns,
		                      .corr = a->correlation,
		                      .stream = a->stream,
		                      .call = a->call,
		                      .flags = a->flags,
		                      .path = WS_NONE};
		if (a->flags & (PT_GPU_CALL_F_SYNC | PT_GPU_CALL_F_TRANSFER))
			r->gopen.path = path_now(r, gpu_func_name(r->set, ev->rec->arg, a->func));
		break;
	case PT_REC_GPU_LAUNCH: {
		const pt_rec_gpu_launch *l = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_launch);
		if (!l)
			break;
		if (!r->in_gcall) { /* a launch outside a call: one of its own */
			ws_gcall g = {ev->time_ns,
			              ev->time_ns,
			              l->correlation,
			              l->correlation2,
			              l->stream,
			              PT_GPU_CALL_LAUNCH,
			              0,
			              WS_NONE,
			              0};
			if (WS_PUSH(r->t.gcalls, g))
				r->oom = 1;
			break;
		}
		if (l->correlation2)
			r->gopen.corr2 = l->correlation2;
		if (l->stream && !r->gopen.stream)
			r->gopen.stream = l->stream;
		break;
	}
	case PT_REC_GPU_API_END:
		if (!r->in_gcall)
			break;
		r->in_gcall = 0;
		r->gopen.end = ev->time_ns;
		if (a && a->stream && !r->gopen.stream)
			r->gopen.stream = a->stream;
		if (WS_PUSH(r->t.gcalls, r->gopen))
			r->oom = 1;
		break;
	default:
		break;
	}
}

/* A GPU stream's log: its kernels and copies, one at a time as its row
 * shows them, are its segments. */
static void gpu_device_event(ws_reader *r, const pt_event *ev)
{
	if (ev->kind < PT_REC_RANGE_GPU_FIRST || ev->kind > PT_REC_RANGE_GPU_LAST)
		return;
	if (!r->t.gpu)
		r->t.gpu = ev->rec->arg ? ev->rec->arg : ~0u;
	const pt_file_header *h = r->in->header;
	uint64_t start, end, corr;
	uint32_t name;
	switch (ev->kind) {
	case PT_REC_GPU_STREAM_DEF: {
		const pt_rec_gpu_stream_def *d = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_stream_def);
		if (d) {
			r->t.gpu_device = d->device;
			r->t.gpu_seq = d->seq;
			r->t.gpu_flags = d->flags;
		}
		return;
	}
	case PT_REC_GPU_KERNEL: {
		const pt_rec_gpu_kernel *k = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_kernel);
		if (!k)
			return;
		start = pt_ticks_to_ns(h, k->start);
		end = pt_ticks_to_ns(h, k->end);
		corr = k->correlation;
		name = WS_NAME_GPU | gpu_names_kernel(r->set->gpu, r->in->process, k->kernel);
		break;
	}
	case PT_REC_GPU_MEMCPY:
	case PT_REC_GPU_MEMSET: {
		const pt_rec_gpu_copy *c = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_copy);
		if (!c)
			return;
		start = pt_ticks_to_ns(h, c->start);
		end = pt_ticks_to_ns(h, c->end);
		corr = c->correlation;
		name = WS_NAME_GPU | WS_NAME_COPY | (c->direction & 0xff) |
		       (c->flags & PT_GPU_COPY_F_MAP) << 8;
		break;
	}
	default:
		return;
	}
	gpu_one_at_a_time(&r->busy_until, &start, &end);
	if (WS_PUSH(r->t.ops, ((ws_op){start, end, corr, name, 0})))
		r->oom = 1;
	put_seg(r, start, name);
	put_seg(r, end, WS_NAME_NONE);
	if (end > r->last)
		r->last = end;
}

void ws_reader_event(ws_reader *r, const pt_event *ev)
{
	if (ev->kind != PT_REC_TIME && ev->time_ns > r->last)
		r->last = ev->time_ns;
	if (r->device) {
		gpu_device_event(r, ev);
		return;
	}
	int enter;
	uint32_t id = pt_event_func(ev, &r->fl, &enter);
	if (id || ev->kind == PT_REC_FUNC_ENTER || ev->kind == PT_REC_FUNC_EXIT ||
	    ev->kind == PT_REC_FUNC_ENTER_PC || ev->kind == PT_REC_FUNC_EXIT_PC ||
	    ev->kind == PT_REC_FUNC_LANDED) {
		if (!pt_callstack_step(&r->cs, id, enter, ev->time_ns))
			pt_callstack_func(&r->cs, id, enter, ev->time_ns, &no_ops, r);
		note_name(r, ev->time_ns);
		return;
	}
	pt_callstack_record(&r->cs, ev, &no_ops, r);
	if (r->mpi && ev->kind >= PT_REC_RANGE_MPI_FIRST && ev->kind <= PT_REC_RANGE_MPI_LAST)
		mpi_event(r, ev);
	else if (ev->kind >= PT_REC_RANGE_GPU_FIRST && ev->kind <= PT_REC_RANGE_GPU_LAST)
		gpu_host_event(r, ev);
	else
		sync_event(r, ev);
	if (r->cs.depth == 0 || r->t.segs.n == 0)
		note_name(r, ev->time_ns);
}

/* Moves src's marks into dst; -1 on ENOMEM. */
#define WS_MOVE(dst, src)                                                                          \
	({                                                                                         \
		int rc_ = 0;                                                                       \
		for (size_t i_ = 0; i_ < (src).n && !rc_; i_++)                                    \
			rc_ = WS_PUSH(dst, (src).v[i_]);                                           \
		free((src).v);                                                                     \
		(src).v = NULL;                                                                    \
		(src).n = (src).cap = 0;                                                           \
		rc_;                                                                               \
	})

int ws_reader_end(ws_reader *r, uint64_t last_ns)
{
	ws_set *s = r->set;
	if (r->last > last_ns)
		last_ns = r->last;
	pt_callstack_end(&r->cs, last_ns, &no_ops, r);
	if (r->call) {
		r->open.end = last_ns;
		if (WS_PUSH(r->t.calls, r->open))
			r->oom = 1;
	}
	if (r->in_gcall) {
		r->gopen.end = last_ns;
		if (WS_PUSH(r->t.gcalls, r->gopen))
			r->oom = 1;
	}
	if (r->device && !r->t.gpu)
		r->t.gpu = ~0u;
	note_name(r, last_ns);
	if (r->mpi)
		mpi_track_end(&r->track, last_ns);
	r->t.last = last_ns;
	r->t.used = 1;
	pthread_mutex_lock(&s->lock);
	/* local path ids -> the set's */
	uint32_t *map = calloc(r->paths.s.n + 1, sizeof *map);
	int oom = r->oom || !map || (r->mpi && r->track.oom);
	for (size_t i = 0; map && i < r->paths.s.n; i++) {
		map[i] = ws_strs_id(&s->paths, r->paths.s.v[i]);
		oom |= map[i] == WS_NONE;
	}
	for (size_t i = 0; map && i < r->t.waits.n; i++)
		r->t.waits.v[i].path =
		    r->t.waits.v[i].path < r->paths.s.n ? map[r->t.waits.v[i].path] : WS_NONE;
	for (size_t i = 0; map && i < r->t.calls.n; i++)
		r->t.calls.v[i].path =
		    r->t.calls.v[i].path < r->paths.s.n ? map[r->t.calls.v[i].path] : WS_NONE;
	for (size_t i = 0; map && i < r->t.gcalls.n; i++)
		r->t.gcalls.v[i].path =
		    r->t.gcalls.v[i].path < r->paths.s.n ? map[r->t.gcalls.v[i].path] : WS_NONE;
	free(map);
	s->th[r->in->index] = r->t;
	oom |= WS_MOVE(s->releases, r->rel) | WS_MOVE(s->signals, r->sig) |
	       WS_MOVE(s->creates, r->cre);
	if (r->mpi)
		oom |= mpi_ends_move(&s->sends, &r->track.sends) |
		       mpi_ends_move(&s->recvs, &r->track.recvs);
	s->oom |= oom;
	pthread_mutex_unlock(&s->lock);
	if (r->mpi)
		mpi_track_free(&r->track);
	pt_callstack_free(&r->cs);
	pt_func_lookup_free(&r->fl);
	ws_strs_free(&r->paths);
	free(r);
	return oom ? -1 : 0;
}

/* ---- several analyzer processes ----------------------------------------- */
void ws_set_pack(ws_set *s, pt_buf *b)
{
	pt_buf_u64(b, s->paths.s.n);
	for (size_t i = 0; i < s->paths.s.n; i++)
		pt_buf_str(b, s->paths.s.v[i]);
	for (size_t i = 0; i < s->ctx->nshards; i++) {
		const ws_thread *t = &s->th[i];
		if (!t->used)
			continue;
		pt_buf_u64(b, i);
		pt_buf_put(b, t, offsetof(ws_thread, segs));
		PT_BUF_VEC(b, t->segs);
		PT_BUF_VEC(b, t->waits);
		PT_BUF_VEC(b, t->calls);
		PT_BUF_VEC(b, t->gcalls);
		PT_BUF_VEC(b, t->ops);
	}
	pt_buf_u64(b, UINT64_MAX);
	PT_BUF_VEC(b, s->releases);
	PT_BUF_VEC(b, s->signals);
	PT_BUF_VEC(b, s->creates);
	PT_BUF_VEC(b, s->sends);
	PT_BUF_VEC(b, s->recvs);
}

/* n elements of `size` bytes from r into a malloc'ed array (NULL: none). */
static void *get_arr(pt_rbuf *r, size_t *n, size_t size)
{
	size_t k = pt_rbuf_count(r, size);
	*n = k;
	if (!k)
		return NULL;
	void *v = malloc(k * size);
	if (!v) {
		r->err = 1;
		*n = 0;
		return NULL;
	}
	pt_rbuf_get(r, v, k * size);
	return v;
}

#define GET_VEC(r, vec) ((vec).v = get_arr(r, &(vec).n, sizeof *(vec).v), (vec).cap = (vec).n)
#define ADD_VEC(r, dst)                                                                            \
	({                                                                                         \
		__typeof__(dst) tmp_ = {0};                                                        \
		GET_VEC(r, tmp_);                                                                  \
		WS_MOVE(dst, tmp_);                                                                \
	})

int ws_set_unpack(ws_set *s, const void *data, size_t len)
{
	pt_rbuf r = {data, (const char *)data + len, 0};
	size_t np = (size_t)pt_rbuf_u64(&r);
	if (r.err || np > len)
		return -1;
	uint32_t *map = calloc(np + 1, sizeof *map);
	if (!map)
		return -1;
	for (size_t i = 0; i < np && !r.err; i++) {
		char *p = pt_rbuf_str(&r);
		map[i] = p ? ws_strs_id(&s->paths, p) : WS_NONE;
		free(p);
	}
	for (;;) {
		uint64_t i = pt_rbuf_u64(&r);
		if (r.err || i == UINT64_MAX)
			break;
		if (i >= s->ctx->nshards || s->th[i].used) {
			r.err = 1;
			break;
		}
		ws_thread *t = &s->th[i];
		pt_rbuf_get(&r, t, offsetof(ws_thread, segs));
		GET_VEC(&r, t->segs);
		GET_VEC(&r, t->waits);
		GET_VEC(&r, t->calls);
		GET_VEC(&r, t->gcalls);
		GET_VEC(&r, t->ops);
		for (size_t k = 0; k < t->waits.n; k++)
			t->waits.v[k].path =
			    t->waits.v[k].path < np ? map[t->waits.v[k].path] : WS_NONE;
		for (size_t k = 0; k < t->calls.n; k++)
			t->calls.v[k].path =
			    t->calls.v[k].path < np ? map[t->calls.v[k].path] : WS_NONE;
		for (size_t k = 0; k < t->gcalls.n; k++)
			t->gcalls.v[k].path =
			    t->gcalls.v[k].path < np ? map[t->gcalls.v[k].path] : WS_NONE;
	}
	free(map);
	if (!r.err) {
		int oom =
		    ADD_VEC(&r, s->releases) | ADD_VEC(&r, s->signals) | ADD_VEC(&r, s->creates);
		mpi_ends e = {0};
		e.v = get_arr(&r, &e.n, sizeof *e.v);
		e.cap = e.n;
		oom |= mpi_ends_move(&s->sends, &e);
		mpi_ends_free(&e);
		e.v = get_arr(&r, &e.n, sizeof *e.v);
		e.cap = e.n;
		oom |= mpi_ends_move(&s->recvs, &e);
		mpi_ends_free(&e);
		if (oom)
			r.err = 1;
	}
	return r.err ? -1 : 0;
}
