/* SPDX-License-Identifier: MIT */
/* GPU records in the Paraver trace, as Extrae writes them (the types of
 * each API are its row of gpu_api.c):
 *   host thread rows: each traced API call = its API's call events (CUDA:
 *     63000000 = Extrae's call id and 63100000 = the function; OpenCL:
 *     64000000 = the function), 0 at its end; the thread is in state
 *     Synchronization (5) while it waits for the device, Memory transfer
 *     (17) during a blocking copy, Configuring accelerator (32) during any
 *     other call; a launch adds the kernel and its sizes;
 *   one row per stream or queue (its API's label: GPU-D<dev>.S<stream>,
 *     OpenCL-<type><dev>-CQ<n>): kernels are Running (1) with the kernel
 *     value, copies and fills Memory transfer (17) with their size and our
 *     direction type 64900000;
 *   each launch -> its execution(s) as a communication (tag 3);
 *   a launch of a kernel instrumented by instrument.so: its profile
 *     (63200001..6: instructions executed, hot-block share and line,
 *     work-groups, CUDA work-group time imbalance and mean) on the stream
 *     row at the end of the execution.
 * Device times come from the records' payloads (trace ticks), converted
 * with the GPU log's own header. */
#include "gpu_api.h"
#include "gpu_common.h"
#include "gpu_prof.h"
#include "pt_dist.h"
#include "pt_text.h"
#include "pv.h"

#include <stdlib.h>
#include <string.h>

#define COMM_TAG_GPU_LAUNCH 3

typedef struct gpu_end {
	uint32_t pid;
	unsigned api;
	uint64_t corr;
	size_t shard;
	uint64_t t; /* absolute ns */
} gpu_end;

typedef struct row_info {
	int have;
	unsigned api;
	uint32_t device, seq, flags;
	uint64_t stream;
} row_info;

typedef struct gpu_vec {
	gpu_end *v;
	size_t n, cap;
} gpu_vec;

typedef struct gpu_global {
	const pt_trace_ctx *ctx;
	gpu_names *names;
	gpu_profs *profs;
	int used_prof, used_prof_time;
	gpu_vec launches, execs;
	row_info *rows; /* per shard */
	int used_api[GPU_NAPIS];
	int oom;
} gpu_global;

typedef struct gpu_shard {
	unsigned api;
	int in_call;
	unsigned saved_state;
	uint32_t call_types[2];
	size_t ncall_types;
	uint32_t launch_type;
	uint64_t call_begin; /* ns: the launch link starts with the call (the device may start first) */
	uint64_t busy_until; /* GPU rows: end of the last device interval (ns) */
	row_info row;
	gpu_vec launches, execs;
	gpu_prof_join *join; /* GPU rows: kernels and profiles by correlation */
	int used_api[GPU_NAPIS];
	int used_prof, used_prof_time;
	int oom;
} gpu_shard;

static int vec_push(gpu_vec *v, gpu_end e)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;
		gpu_end *n = realloc(v->v, cap * sizeof *n);
		if (!n)
			return -1;
		v->v = n;
		v->cap = cap;
	}
	v->v[v->n++] = e;
	return 0;
}

static int vec_append(gpu_vec *dst, const gpu_vec *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (vec_push(dst, src->v[i]))
			return -1;
	return 0;
}

static void *ext_init(const pt_trace_ctx *ctx)
{
	gpu_global *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->ctx = ctx;
	g->names = gpu_names_new(ctx->nprocesses);
	g->profs = gpu_profs_new(ctx->nprocesses);
	g->rows = calloc(ctx->nshards ? ctx->nshards : 1, sizeof *g->rows);
	if (!g->names || !g->profs || !g->rows) {
		gpu_names_free(g->names);
		gpu_profs_free(g->profs);
		free(g->rows);
		free(g);
		return NULL;
	}
	return g;
}

static void ext_process_event(void *global, size_t process, const pt_event *ev)
{
	gpu_global *g = global;
	if (g) {
		gpu_names_process_event(g->names, process, ev);
		gpu_profs_process_event(g->profs, process, ev);
	}
}

static void *ext_shard_init(void *global, pv_shard *s)
{
	(void)s;
	return global ? calloc(1, sizeof(gpu_shard)) : NULL;
}

static uint64_t product(const uint32_t v[3])
{
	uint64_t p = 1;
	int any = 0;
	for (int i = 0; i < 3; i++)
		if (v[i]) {
			p *= v[i];
			any = 1;
		}
	return any ? p : 0;
}

/* Records of an API the analyzer does not know are left out. */
static void host_record(gpu_global *g, gpu_shard *gs, pv_shard *s, const pt_event *ev)
{
	const gpu_api *api = gpu_api_of(ev->rec->arg);
	uint64_t t = ev->time_ns;
	size_t process = s->info->process;
	switch (ev->kind) {
	case PT_REC_GPU_API_BEGIN: {
		const pt_rec_gpu_api *a = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_api);
		if (!a || !api || gs->in_call)
			return;
		uint32_t types[2];
		int64_t values[2];
		size_t n = 0;
		if (api->call.type)
			types[n] = api->call.type, values[n++] = a->call;
		types[n] = api->func.type, values[n++] = a->func;
		pv_events(s, t, n, types, values);
		memcpy(gs->call_types, types, sizeof types);
		gs->ncall_types = n;
		gs->in_call = 1;
		gs->call_begin = t;
		gs->used_api[gpu_api_index(api)] = 1;
		gs->saved_state = s->state;
		pv_set_state(s, t,
			     a->flags & PT_GPU_CALL_F_SYNC       ? GPU_STATE_SYNC
			     : a->flags & PT_GPU_CALL_F_TRANSFER ? GPU_STATE_TRANSFER
								 : GPU_STATE_CONFIG);
		break;
	}
	case PT_REC_GPU_LAUNCH: {
		const pt_rec_gpu_launch *l = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_launch);
		if (!l || !api)
			return;
		uint32_t kv = gpu_names_kernel(g->names, process, l->kernel);
		uint32_t types[4];
		int64_t values[4];
		size_t n = 0;
		gs->launch_type = api->launch.type;
		types[n] = api->launch.type, values[n++] = kv;
		if (api->sizes_always || product(l->grid)) {
			types[n] = api->grid.type, values[n++] = (int64_t)product(l->grid);
			types[n] = api->block.type, values[n++] = (int64_t)product(l->block);
			if (api->shmem.type)
				types[n] = api->shmem.type, values[n++] = l->shared_mem;
		}
		pv_events(s, t, n, types, values);
		uint32_t pid = s->info->pid;
		uint64_t from = gs->in_call ? gs->call_begin : t;
		if (vec_push(&gs->launches,
		             (gpu_end){pid, api->id, l->correlation, s->info->index, from}) ||
		    (l->correlation2 &&
		     vec_push(&gs->launches,
		              (gpu_end){pid, api->id, l->correlation2, s->info->index, from})))
			gs->oom = 1;
		break;
	}
	case PT_REC_GPU_API_END: {
		if (!gs->in_call)
			return;
		uint32_t types[3];
		int64_t values[3] = {0, 0, 0};
		size_t n = gs->ncall_types;
		memcpy(types, gs->call_types, n * sizeof *types);
		if (gs->launch_type)
			types[n++] = gs->launch_type;
		pv_events(s, t, n, types, values);
		gs->launch_type = 0;
		gs->in_call = 0;
		pv_set_state(s, t, gs->saved_state);
		break;
	}
	default:
		break;
	}
}

/* A launch's profile at t (the end of its execution; pv moves it past the
 * row's last line when that is later). */
static void profile_events(gpu_global *g, gpu_shard *gs, pv_shard *s, const pt_rec_head *h, uint64_t t)
{
	const pt_rec_gpu_prof *r = PT_REC_PAYLOAD(h, pt_rec_gpu_prof);
	const gpu_prof_def *d = r ? gpu_profs_get(g->profs, s->info->process, r->prof) : NULL;
	gpu_launch_prof lp;
	if (!d || gpu_launch_prof_read(d, h, &lp) != 0)
		return;
	gpu_prof_values v;
	gpu_prof_values_of(d, &lp, &v);
	uint32_t types[6];
	int64_t values[6];
	size_t n = 0;
	types[n] = GPU_EV_PROF_GROUPS, values[n++] = (int64_t)v.groups;
	if (v.counted) {
		types[n] = GPU_EV_PROF_INSTR, values[n++] = (int64_t)v.instructions;
		types[n] = GPU_EV_PROF_HOT_SHARE, values[n++] = v.hot_share_pct;
		types[n] = GPU_EV_PROF_HOT_LINE, values[n++] = v.hot_line;
	}
	if (v.timed) {
		types[n] = GPU_EV_PROF_IMBALANCE, values[n++] = v.imbalance_pct;
		types[n] = GPU_EV_PROF_WG_MEAN, values[n++] = (int64_t)v.wg_mean_ns;
		gs->used_prof_time = 1;
	}
	pv_events(s, t, n, types, values);
	gs->used_prof = 1;
}

static void device_record(gpu_global *g, gpu_shard *gs, pv_shard *s, const pt_event *ev)
{
	const gpu_api *api = gpu_api_of(ev->rec->arg);
	const pt_shard_info *info = s->info;
	if (ev->kind == PT_REC_GPU_STREAM_DEF) {
		const pt_rec_gpu_stream_def *d = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_stream_def);
		if (!api)
			return;
		if (d)
			gs->row = (row_info){1, api->id, d->device, d->seq, d->flags, d->stream};
		gs->used_api[gpu_api_index(api)] = 1;
		return;
	}
	uint64_t start, end;
	uint32_t types[3];
	int64_t values[3];
	size_t n = 0;
	unsigned state;
	if (ev->kind == PT_REC_GPU_KERNEL) {
		const pt_rec_gpu_kernel *k = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_kernel);
		if (!k || !api)
			return;
		start = gpu_ticks_ns(info, k->start);
		end = gpu_ticks_ns(info, k->end);
		uint32_t kv = gpu_names_kernel(g->names, info->process, k->kernel);
		state = GPU_STATE_RUNNING;
		types[n] = api->kernel.type, values[n++] = kv;
		if (api->kernel_grid.type) {
			types[n] = api->kernel_grid.type, values[n++] = (int64_t)product(k->grid);
			types[n] = api->kernel_block.type, values[n++] = (int64_t)product(k->block);
		}
		if (vec_push(&gs->execs,
		             (gpu_end){info->pid, api->id, k->correlation, info->index,
		                       start < gs->busy_until ? gs->busy_until : start}))
			gs->oom = 1;
	} else if (ev->kind == PT_REC_GPU_MEMCPY || ev->kind == PT_REC_GPU_MEMSET) {
		const pt_rec_gpu_copy *c = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_copy);
		if (!c || !api)
			return;
		start = gpu_ticks_ns(info, c->start);
		end = gpu_ticks_ns(info, c->end);
		state = GPU_STATE_TRANSFER;
		types[n] = api->transfer.type, values[n++] = (int64_t)c->bytes;
		types[n] = GPU_EV_COPY_DIR, values[n++] = (int64_t)c->direction + 1;
	} else if (ev->kind == PT_REC_GPU_PROF) {
		if (!gs->join)
			gs->join = gpu_prof_join_new();
		if (gpu_prof_join_profile(gs->join, ev->rec, &start, &end))
			profile_events(g, gs, s, ev->rec, end);
		return;
	} else {
		return;
	}
	gpu_one_at_a_time(&gs->busy_until, &start, &end);
	pv_set_state(s, start, state);
	pv_events(s, start, n, types, values);
	for (size_t i = 0; i < n; i++)
		values[i] = 0;
	pv_events(s, end, n, types, values);
	pv_set_state(s, end, PV_STATE_IDLE);
	if (ev->kind == PT_REC_GPU_KERNEL) {
		if (!gs->join)
			gs->join = gpu_prof_join_new();
		const pt_rec_gpu_kernel *k = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_kernel);
		pt_rec_head *waiting = gpu_prof_join_kernel(gs->join, k->correlation, start, end);
		if (waiting)
			profile_events(g, gs, s, waiting, end);
		free(waiting);
	}
}

static int ext_event(void *global, void *shard_state, pv_shard *s, const pt_event *ev)
{
	gpu_global *g = global;
	gpu_shard *gs = shard_state;
	if (!g || !gs)
		return 0;
	if (s->info->kind == PT_FILE_GPU)
		device_record(g, gs, s, ev);
	else
		host_record(g, gs, s, ev);
	return 0;
}

static void ext_shard_exit(void *global, void *shard_state, pv_shard *s)
{
	gpu_global *g = global;
	gpu_shard *gs = shard_state;
	if (!g || !gs)
		return;
	if (gs->row.have && s->info->index < g->ctx->nshards)
		g->rows[s->info->index] = gs->row;
	for (size_t i = 0; i < GPU_NAPIS; i++)
		g->used_api[i] |= gs->used_api[i];
	g->used_prof |= gs->used_prof;
	g->used_prof_time |= gs->used_prof_time;
	gpu_prof_join_free(gs->join);
	if (gs->oom || vec_append(&g->launches, &gs->launches) || vec_append(&g->execs, &gs->execs))
		g->oom = 1;
	free(gs->launches.v);
	free(gs->execs.v);
	free(gs);
}

static int row_label(void *global, const pt_shard_info *shard, char *buf, size_t len)
{
	gpu_global *g = global;
	if (!g || shard->kind != PT_FILE_GPU || shard->index >= g->ctx->nshards)
		return -1;
	const row_info *r = &g->rows[shard->index];
	if (!r->have)
		return -1;
	gpu_api_of(r->api)->stream_label(r->device, r->seq, r->flags, r->stream, buf, len);
	return 0;
}

static int cmp_key(const gpu_end *x, const gpu_end *y)
{
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->api != y->api)
		return x->api < y->api ? -1 : 1;
	return x->corr < y->corr ? -1 : x->corr > y->corr;
}

static int cmp_end(const void *a, const void *b)
{
	return cmp_key(a, b);
}

/* Every execution gets a link from the launch with its correlation id (a
 * graph launch: one link per kernel of the graph). */
static size_t ext_comms(void *global, pv_comm **out)
{
	gpu_global *g = global;
	*out = NULL;
	if (!g || g->oom || !g->launches.n || !g->execs.n)
		return 0;
	qsort(g->launches.v, g->launches.n, sizeof *g->launches.v, cmp_end);
	pv_comm *c = malloc(g->execs.n * sizeof *c);
	if (!c)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < g->execs.n; i++) {
		const gpu_end *e = &g->execs.v[i];
		const gpu_end *l = bsearch(e, g->launches.v, g->launches.n, sizeof *e, cmp_end);
		if (l)
			c[n++] = (pv_comm){l->shard, l->t, e->shard, e->t, 0, COMM_TAG_GPU_LAUNCH, 0, 0};
	}
	*out = c;
	return n;
}

/* Under several analyzer processes (pt_dist.h): what this one's shards
 * found (the rows' definitions, the APIs and profiles used, the launches
 * and executions for the links); the numbering (kernels, API functions)
 * comes from the process logs, which every process reads whole. */
static void ext_pack(void *global, pt_buf *b)
{
	gpu_global *g = global;
	for (size_t i = 0; i < g->ctx->nshards; i++)
		if (g->rows[i].have) {
			pt_buf_u64(b, i);
			pt_buf_put(b, &g->rows[i], sizeof g->rows[i]);
		}
	pt_buf_u64(b, UINT64_MAX);
	for (size_t i = 0; i < GPU_NAPIS; i++)
		pt_buf_u64(b, (uint64_t)g->used_api[i]);
	pt_buf_u64(b, (uint64_t)g->used_prof | (uint64_t)g->used_prof_time << 1 |
	                  (uint64_t)g->oom << 2);
	PT_BUF_VEC(b, g->launches);
	PT_BUF_VEC(b, g->execs);
}

static int get_ends(pt_rbuf *r, gpu_vec *dst)
{
	size_t n = pt_rbuf_count(r, sizeof(gpu_end));
	for (size_t i = 0; i < n; i++) {
		gpu_end e;
		pt_rbuf_get(r, &e, sizeof e);
		if (vec_push(dst, e))
			return -1;
	}
	return r->err ? -1 : 0;
}

static int ext_unpack(void *global, const void *data, size_t len)
{
	gpu_global *g = global;
	pt_rbuf r = {data, (const char *)data + len, 0};
	for (;;) {
		uint64_t i = pt_rbuf_u64(&r);
		if (r.err || i == UINT64_MAX)
			break;
		if (i >= g->ctx->nshards)
			return -1;
		pt_rbuf_get(&r, &g->rows[i], sizeof g->rows[i]);
	}
	for (size_t i = 0; i < GPU_NAPIS; i++)
		g->used_api[i] |= (int)pt_rbuf_u64(&r);
	uint64_t flags = pt_rbuf_u64(&r);
	g->used_prof |= (int)(flags & 1);
	g->used_prof_time |= (int)(flags >> 1 & 1);
	g->oom |= (int)(flags >> 2 & 1);
	if (r.err || get_ends(&r, &g->launches) || get_ends(&r, &g->execs))
		return -1;
	return 0;
}

static void kernel_values(const gpu_global *g, FILE *f)
{
	fputs("VALUES\n0      End\n", f);
	for (uint32_t v = 1; v <= gpu_names_nkernels(g->names); v++) {
		const char *name = gpu_names_kernel_name(g->names, v);
		fprintf(f, "%-6u ", v);
		pt_label_put(f, name);
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void func_values(const gpu_global *g, FILE *f, unsigned api)
{
	fputs("VALUES\n0      End\n", f);
	for (size_t i = 0; i < gpu_names_nfuncs(g->names); i++) {
		unsigned a;
		uint32_t func;
		const char *name;
		if (gpu_names_func_at(g->names, i, &a, &func, &name) == 0 && a == api) {
			fprintf(f, "%-6u ", func);
			pt_label_put(f, name);
			fputc('\n', f);
		}
	}
	fputc('\n', f);
}

static void type_line(FILE *f, const gpu_type *t)
{
	if (t->type)
		fprintf(f, "0    %u    %s\n", t->type, t->label);
}

/* An API's types: its calls, functions, kernels, sizes. */
static void api_pcf(const gpu_global *g, const gpu_api *a, FILE *f)
{
	if (a->call.type) {
		fprintf(f, "EVENT_TYPE\n0    %u    %s\nVALUES\n0      End\n", a->call.type,
		        a->call.label);
		for (size_t i = 0; i < a->ncalls; i++)
			fprintf(f, "%-6u %s\n", a->calls[i].call, a->calls[i].name);
		fputs("\n\n", f);
	}
	fputs("EVENT_TYPE\n", f);
	type_line(f, &a->func);
	func_values(g, f, a->id);
	fputs("\nEVENT_TYPE\n", f);
	type_line(f, &a->kernel);
	if (a->launch.type != a->kernel.type)
		type_line(f, &a->launch);
	kernel_values(g, f);
	fputs("\nEVENT_TYPE\n", f);
	type_line(f, &a->transfer);
	type_line(f, &a->grid);
	type_line(f, &a->block);
	type_line(f, &a->shmem);
	fputc('\n', f);
}

static void ext_write_pcf(void *global, FILE *f)
{
	gpu_global *g = global;
	if (!g)
		return;
	int any = 0;
	for (size_t i = 0; i < GPU_NAPIS; i++)
		if (g->used_api[i]) {
			api_pcf(g, &gpu_apis[i], f);
			any = 1;
		}
	if (!any)
		return;
	if (g->used_prof) {
		fprintf(f,
			"EVENT_TYPE\n0    %u    Kernel work-groups (instrumented kernel)\n"
			"0    %u    Kernel instructions executed (IR, instrumented kernel)\n"
			"0    %u    Kernel hot-block share of instructions (%%)\n"
			"0    %u    Kernel hot-block source line\n\n",
			GPU_EV_PROF_GROUPS, GPU_EV_PROF_INSTR, GPU_EV_PROF_HOT_SHARE, GPU_EV_PROF_HOT_LINE);
		if (g->used_prof_time)
			fprintf(f,
				"EVENT_TYPE\n0    %u    Kernel work-group time imbalance (longest / mean, %%)\n"
				"0    %u    Kernel mean work-group time (ns)\n\n",
				GPU_EV_PROF_IMBALANCE, GPU_EV_PROF_WG_MEAN);
	}
	fprintf(f, "EVENT_TYPE\n0    %u    GPU transfer direction\nVALUES\n0      End\n", GPU_EV_COPY_DIR);
	for (uint32_t d = PT_GPU_COPY_OTHER; d <= PT_GPU_COPY_MEMSET; d++)
		fprintf(f, "%-6u %s\n", d + 1, gpu_copy_dir_name(d));
	fputs("\n\n", f);
}

static void ext_destroy(void *global)
{
	gpu_global *g = global;
	if (!g)
		return;
	gpu_names_free(g->names);
	gpu_profs_free(g->profs);
	free(g->launches.v);
	free(g->execs.v);
	free(g->rows);
	free(g);
}

const pv_family gpu_paraver = {
	.name = "gpu",
	.kind_first = PT_REC_RANGE_GPU_FIRST,
	.kind_last = PT_REC_RANGE_GPU_LAST,
	.init = ext_init,
	.process_event = ext_process_event,
	.shard_init = ext_shard_init,
	.event = ext_event,
	.shard_exit = ext_shard_exit,
	.row_label = row_label,
	.write_pcf = ext_write_pcf,
	.comms = ext_comms,
	.destroy = ext_destroy,
	.pack = ext_pack,
	.unpack = ext_unpack,
};
