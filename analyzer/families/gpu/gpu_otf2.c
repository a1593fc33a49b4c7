/* SPDX-License-Identifier: MIT */
/* GPUs in the OTF2 archive (tools/otf2/ot.h): each CUDA or OpenCL API call
 * a region of its paradigm on the calling thread (its name as the runtime
 * defined it: "cudaMemcpy", "clEnqueueNDRangeKernel"); on each stream's or
 * queue's location (an accelerator stream) its kernels as regions named
 * after the kernel and its copies and memsets as regions of the data
 * transfer role, at their device times, one at a time as on the Paraver
 * row (gpu_one_at_a_time). */
#define _GNU_SOURCE
#include "gpu_common.h"
#include "ot.h"

#ifdef PT_WITH_OTF2
#include "pt_fw_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* An API function's name by (api, func). */
typedef struct gpu_ot_func {
	uint64_t key; /* api << 32 | func */
	const char *name;
} gpu_ot_func;

typedef struct gpu_ot {
	gpu_names *names;
	ot_tool *tool;
	gpu_ot_func *funcs; /* sorted by key, from the first shard on */
	size_t nfuncs;
	int ready, oom;
	pthread_mutex_t lock;
} gpu_ot;

/* A thread's open API call, or a stream's last interval. */
typedef struct gpu_ot_shard {
	uint32_t call_region; /* thread: the API call open, 0 none */
	uint64_t busy_until;  /* stream: end of its last interval */
} gpu_ot_shard;

static int gpu_ot_init(const pt_trace_ctx *ctx, ot_tool *tool, void **global)
{
	gpu_ot *g = calloc(1, sizeof *g);
	if (!g || !(g->names = gpu_names_new(ctx->nprocesses))) {
		free(g);
		return -1;
	}
	g->tool = tool;
	pthread_mutex_init(&g->lock, NULL);
	*global = g;
	return 0;
}

static void gpu_ot_process_event(void *global, size_t process, const pt_event *ev)
{
	gpu_ot *g = global;
	gpu_names_process_event(g->names, process, ev);
}

static int cmp_func(const void *a, const void *b)
{
	const gpu_ot_func *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The functions' names, sorted once the pre-pass is over. */
static int gpu_ot_shard_init(void *global, ot_loc *l, void **shard)
{
	(void)l;
	gpu_ot *g = global;
	pthread_mutex_lock(&g->lock);
	if (!g->ready) {
		size_t n = gpu_names_nfuncs(g->names);
		g->funcs = n ? malloc(n * sizeof *g->funcs) : NULL;
		g->oom = n && !g->funcs;
		for (size_t i = 0; g->funcs && i < n; i++) {
			unsigned api;
			uint32_t func;
			const char *name;
			if (gpu_names_func_at(g->names, i, &api, &func, &name) == 0)
				g->funcs[g->nfuncs++] =
				    (gpu_ot_func){(uint64_t)api << 32 | func, name};
		}
		pt_qsort(g->funcs, g->nfuncs, sizeof *g->funcs, cmp_func);
		g->ready = 1;
	}
	pthread_mutex_unlock(&g->lock);
	if (g->oom)
		return -1;
	return (*shard = calloc(1, sizeof(gpu_ot_shard))) ? 0 : -1;
}

static const char *func_name(const gpu_ot *g, unsigned api, uint32_t func)
{
	uint64_t key = (uint64_t)api << 32 | func;
	size_t lo = 0, hi = g->nfuncs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (g->funcs[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->nfuncs && g->funcs[lo].key == key ? g->funcs[lo].name : NULL;
}

static OTF2_Paradigm paradigm(unsigned api)
{
	return api == PT_GPU_API_OPENCL ? OTF2_PARADIGM_OPENCL : OTF2_PARADIGM_CUDA;
}

static int gpu_ot_event(void *global, void **shard, ot_loc *l, const pt_event *ev)
{
	gpu_ot *g = global;
	gpu_ot_shard *s = *shard;
	const pt_rec_gpu_api *a = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_api);
	if (!s || !a)
		return 0;
	unsigned api = ev->rec->arg;
	if (ev->kind == PT_REC_GPU_API_BEGIN) {
		const char *name = func_name(g, api, a->func);
		char buf[64];
		if (!name) {
			snprintf(buf, sizeof buf, "%s call %u",
			         api == PT_GPU_API_OPENCL ? "OpenCL" : "CUDA", a->func);
			name = buf;
		}
		s->call_region = ot_region(g->tool, name, OTF2_REGION_ROLE_FUNCTION, paradigm(api));
		if (a->bytes)
			ot_enter_with(l, ev->time_ns, s->call_region, OT_ATTR_BYTES, a->bytes);
		else
			ot_enter(l, ev->time_ns, s->call_region);
	} else if (ev->kind == PT_REC_GPU_API_END && s->call_region) {
		ot_leave(l, ev->time_ns, s->call_region);
		s->call_region = 0;
	}
	return 0;
}

static int gpu_ot_device_event(void *global, void **shard, ot_loc *l, const pt_event *ev)
{
	gpu_ot *g = global;
	gpu_ot_shard *s = *shard;
	const pt_shard_info *in = l->info;
	uint64_t start, end, bytes = 0;
	const char *name;
	OTF2_RegionRole role = OTF2_REGION_ROLE_FUNCTION;
	char buf[64];
	if (!s)
		return 0;
	if (ev->kind == PT_REC_GPU_KERNEL) {
		const pt_rec_gpu_kernel *k = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_kernel);
		if (!k)
			return 0;
		start = gpu_ticks_ns(in, k->start);
		end = gpu_ticks_ns(in, k->end);
		name = gpu_names_kernel_name(g->names,
		                             gpu_names_kernel(g->names, in->process, k->kernel));
		if (!name)
			name = "kernel";
	} else if (ev->kind == PT_REC_GPU_MEMCPY || ev->kind == PT_REC_GPU_MEMSET) {
		const pt_rec_gpu_copy *c = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_copy);
		if (!c)
			return 0;
		start = gpu_ticks_ns(in, c->start);
		end = gpu_ticks_ns(in, c->end);
		if (ev->kind == PT_REC_GPU_MEMSET)
			snprintf(buf, sizeof buf, "memset");
		else
			snprintf(buf, sizeof buf, "%s %s",
			         c->flags & PT_GPU_COPY_F_MAP ? "map" : "copy",
			         gpu_copy_dir_name(c->direction));
		name = buf;
		role = OTF2_REGION_ROLE_DATA_TRANSFER;
		bytes = c->bytes;
	} else
		return 0;
	gpu_one_at_a_time(&s->busy_until, &start, &end);
	uint32_t r = ot_region(g->tool, name, role, paradigm(ev->rec->arg));
	if (role == OTF2_REGION_ROLE_DATA_TRANSFER)
		ot_enter_with(l, start, r, OT_ATTR_BYTES, bytes);
	else
		ot_enter(l, start, r);
	ot_leave(l, end, r);
	return 0;
}

static void gpu_ot_shard_end(void *global, void *shard, ot_loc *l, uint64_t last_ns)
{
	(void)global;
	gpu_ot_shard *s = shard;
	if (s && s->call_region)
		ot_leave(l, last_ns, s->call_region);
}

static int gpu_ot_shard_exit(void *global, void *shard)
{
	(void)global;
	free(shard);
	return 0;
}

static void gpu_ot_destroy(void *global)
{
	gpu_ot *g = global;
	if (!g)
		return;
	gpu_names_free(g->names);
	free(g->funcs);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

const ot_family gpu_otf2 = {
    .kind_first = PT_REC_RANGE_GPU_FIRST,
    .kind_last = PT_REC_RANGE_GPU_LAST,
    .init = gpu_ot_init,
    .process_event = gpu_ot_process_event,
    .shard_init = gpu_ot_shard_init,
    .event = gpu_ot_event,
    .device_event = gpu_ot_device_event,
    .shard_end = gpu_ot_shard_end,
    .shard_exit = gpu_ot_shard_exit,
    .destroy = gpu_ot_destroy,
};
#endif
