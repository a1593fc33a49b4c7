/* SPDX-License-Identifier: MIT */
/* CUDA: host API events and activity-record conversion (see cuda_activity.h). */
#include "cuda_activity.h"
#include "cuda_kprof.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* ---- classification --------------------------------------------------------- */

static int has(const char *s, const char *part)
{
	return strstr(s, part) != NULL;
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* By name, so every variant (_v2, _ptsz, _ptds, Ex, Async, cooperative)
 * of a family is caught without a list that each CUDA release outdates. */
int pt_cuda_classify(const char *n, uint16_t *call, uint16_t *flags)
{
	*flags = 0;
	int rt = starts(n, "cuda"), drv = starts(n, "cu") && !rt;
	if (!rt && !drv)
		return 0;
	const char *f = n + (rt ? 4 : 2); /* after the prefix */
	if (starts(f, "GraphLaunch")) {
		*call = PT_GPU_CALL_GRAPH_LAUNCH;
		return 1;
	}
	if (starts(f, "LaunchKernel") || starts(f, "LaunchCooperativeKernel") || !strcmp(f, "Launch") ||
	    starts(f, "Launch_")) {
		*call = PT_GPU_CALL_LAUNCH;
		return 1;
	}
	if (starts(f, "Memcpy")) {
		if (has(f, "Async")) {
			*call = PT_GPU_CALL_MEMCPY_ASYNC;
		} else {
			*call = PT_GPU_CALL_MEMCPY;
			*flags = PT_GPU_CALL_F_TRANSFER;
		}
		return 1;
	}
	if (starts(f, "Memset") || (drv && starts(f, "MemsetD"))) {
		*call = PT_GPU_CALL_MEMSET;
		return 1;
	}
	if ((rt && starts(f, "DeviceSynchronize")) || (drv && starts(f, "CtxSynchronize"))) {
		*call = PT_GPU_CALL_DEVICE_SYNC;
		*flags = PT_GPU_CALL_F_SYNC;
		return 1;
	}
	if (starts(f, "StreamSynchronize")) {
		*call = PT_GPU_CALL_STREAM_SYNC;
		*flags = PT_GPU_CALL_F_SYNC;
		return 1;
	}
	if (starts(f, "EventSynchronize")) {
		*call = PT_GPU_CALL_EVENT_SYNC;
		*flags = PT_GPU_CALL_F_SYNC;
		return 1;
	}
	if (starts(f, "StreamCreate")) {
		*call = PT_GPU_CALL_STREAM_CREATE;
		return 1;
	}
	if ((rt && starts(f, "Malloc")) || (drv && (starts(f, "MemAlloc") || starts(f, "MemHostAlloc")))) {
		*call = PT_GPU_CALL_MALLOC;
		return 1;
	}
	if ((rt && starts(f, "Free")) || (drv && (starts(f, "MemFree")))) {
		*call = PT_GPU_CALL_FREE;
		return 1;
	}
	return 0;
}

/* ---- clock ---------------------------------------------------------------- */

static pt_gpu_clock cuda_clock = PT_GPU_CLOCK_INIT;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CUPTI's clock = CLOCK_MONOTONIC; the host bracket is exact up to the
 * time of one clock read, and is renewed at every buffer. */
uint64_t CUPTIAPI pt_cuda_timestamp(void)
{
	return mono_ns();
}

void pt_cuda_clock_sample(void)
{
	uint64_t t0 = pt_now();
	uint64_t ns = mono_ns();
	uint64_t t1 = pt_now();
	pt_gpu_clock_bracket(&cuda_clock, t0, t1, ns);
}

uint64_t pt_cuda_ticks(uint64_t cupti_ns)
{
	return pt_gpu_clock_to_ticks(&cuda_clock, cupti_ns);
}



/* ---- launch sizes ------------------------------------------------------------- */

/* name without a trailing _v<digits> (CUPTI names some callbacks that way) */
static int name_is(const char *name, const char *want)
{
	size_t n = strlen(want);
	if (strncmp(name, want, n))
		return 0;
	const char *rest = name + n;
	if (!*rest)
		return 1;
	if (rest[0] != '_' || rest[1] != 'v' || !rest[2])
		return 0;
	for (rest += 2; *rest; rest++)
		if (*rest < '0' || *rest > '9')
			return 0;
	return 1;
}

int pt_cuda_dims_layout(const char *name)
{
	static const struct {
		const char *name;
		int layout;
	} table[] = {
		{"cudaLaunchKernel", PT_CUDA_DIMS_RT},
		{"cudaLaunchKernel_ptsz", PT_CUDA_DIMS_RT},
		{"cudaLaunchCooperativeKernel", PT_CUDA_DIMS_RT},
		{"cudaLaunchCooperativeKernel_ptsz", PT_CUDA_DIMS_RT},
		{"cudaLaunchKernelExC", PT_CUDA_DIMS_RT_EX},
		{"cudaLaunchKernelExC_ptsz", PT_CUDA_DIMS_RT_EX},
		{"cuLaunchKernel", PT_CUDA_DIMS_DRV},
		{"cuLaunchKernel_ptsz", PT_CUDA_DIMS_DRV},
		{"cuLaunchCooperativeKernel", PT_CUDA_DIMS_DRV},
		{"cuLaunchCooperativeKernel_ptsz", PT_CUDA_DIMS_DRV},
		{"cuLaunchKernelEx", PT_CUDA_DIMS_DRV_EX},
		{"cuLaunchKernelEx_ptsz", PT_CUDA_DIMS_DRV_EX},
	};
	for (size_t i = 0; name && i < sizeof table / sizeof *table; i++)
		if (name_is(name, table[i].name))
			return table[i].layout;
	return PT_CUDA_DIMS_NONE;
}

int pt_cuda_launch_dims(int layout, const void *params, pt_rec_gpu_launch *l)
{
	if (!params)
		return -1;
	switch (layout) {
	case PT_CUDA_DIMS_RT: {
		/* the _ptsz and cooperative variants share this layout */
		const cudaLaunchKernel_v7000_params *p = params;
		l->grid[0] = p->gridDim.x, l->grid[1] = p->gridDim.y, l->grid[2] = p->gridDim.z;
		l->block[0] = p->blockDim.x, l->block[1] = p->blockDim.y, l->block[2] = p->blockDim.z;
		l->shared_mem = p->sharedMem > UINT32_MAX ? UINT32_MAX : (uint32_t)p->sharedMem;
		return 0;
	}
	case PT_CUDA_DIMS_RT_EX: {
		const cudaLaunchKernelExC_v11060_params *p = params;
		const cudaLaunchConfig_t *c = p->config;
		if (!c)
			return -1;
		l->grid[0] = c->gridDim.x, l->grid[1] = c->gridDim.y, l->grid[2] = c->gridDim.z;
		l->block[0] = c->blockDim.x, l->block[1] = c->blockDim.y, l->block[2] = c->blockDim.z;
		l->shared_mem = c->dynamicSmemBytes > UINT32_MAX ? UINT32_MAX : (uint32_t)c->dynamicSmemBytes;
		return 0;
	}
	case PT_CUDA_DIMS_DRV: {
		const pt_cuda_drv_launch_params *p = params;
		l->grid[0] = p->gridDimX, l->grid[1] = p->gridDimY, l->grid[2] = p->gridDimZ;
		l->block[0] = p->blockDimX, l->block[1] = p->blockDimY, l->block[2] = p->blockDimZ;
		l->shared_mem = p->sharedMemBytes;
		return 0;
	}
	case PT_CUDA_DIMS_DRV_EX: {
		const pt_cuda_drv_launch_ex_params *p = params;
		const CUlaunchConfig *c = p->config;
		if (!c)
			return -1;
		l->grid[0] = c->gridDimX, l->grid[1] = c->gridDimY, l->grid[2] = c->gridDimZ;
		l->block[0] = c->blockDimX, l->block[1] = c->blockDimY, l->block[2] = c->blockDimZ;
		l->shared_mem = c->sharedMemBytes;
		return 0;
	}
	default:
		return -1;
	}
}

/* ---- host API events ---------------------------------------------------------- */

/* The outermost traced call of this thread: nested ones (a runtime call's
 * driver calls) are not written; a nested launch lends its correlation. */
static __thread __attribute__((tls_model("initial-exec"))) struct {
	uint32_t corr;
	uint32_t corr2;
	uint16_t call, flags;
	uint32_t func;
	uint32_t kernel;
	int active;
	int have_dims;
	int captured; /* the launch was recorded into a graph, not run */
	pt_rec_gpu_launch dims; /* grid, block, shared_mem */
} cur;

void pt_cuda_graph_node_created(void)
{
	if (cur.active && cur.call == PT_GPU_CALL_LAUNCH)
		cur.captured = 1;
}

void pt_cuda_api_event(int enter, uint32_t func, uint16_t call, uint16_t flags, uint32_t corr,
		       const char *symbol, const pt_rec_gpu_launch *dims, int result)
{
	if (enter) {
		if (cur.active) {
			/* A call made by the traced one (cudaLaunchKernel ->
			 * cuLaunchKernel): device records may carry its id. */
			if (call == PT_GPU_CALL_LAUNCH && cur.call == PT_GPU_CALL_LAUNCH) {
				if (!cur.corr2)
					cur.corr2 = corr;
				if (dims && !cur.have_dims) {
					cur.dims = *dims;
					cur.have_dims = 1;
				}
			}
			cur.active++;
			return;
		}
		pt_thread *t = pt_enter();
		if (!t)
			return;
		cur.active = 1;
		cur.corr = corr;
		cur.corr2 = 0;
		cur.call = call;
		cur.flags = flags;
		cur.func = func;
		cur.captured = 0;
		cur.have_dims = dims != NULL;
		if (dims)
			cur.dims = *dims;
		cur.kernel = (call == PT_GPU_CALL_LAUNCH && symbol) ? pt_gpu_kernel_id(PT_GPU_API_CUDA, symbol) : 0;
		pt_rec_gpu_api a = {.func = func, .call = call, .flags = flags, .correlation = corr};
		pt_emit(t, PT_REC_GPU_API_BEGIN, PT_GPU_API_CUDA, &a, sizeof a);
		pt_leave(t);
		return;
	}
	if (!cur.active)
		return;
	if (--cur.active)
		return;
	pt_thread *t = pt_enter();
	if (!t)
		return;
	/* A launch on a stream being captured only adds a node to a graph:
	 * the kernel runs (and is linked) when the graph is launched. */
	if ((cur.call == PT_GPU_CALL_LAUNCH && !cur.captured) || cur.call == PT_GPU_CALL_GRAPH_LAUNCH) {
		pt_rec_gpu_launch l = {.correlation = cur.corr, .correlation2 = cur.corr2, .kernel = cur.kernel,
				       .work_dim = 3};
		if (cur.have_dims) {
			memcpy(l.grid, cur.dims.grid, sizeof l.grid);
			memcpy(l.block, cur.dims.block, sizeof l.block);
			l.shared_mem = cur.dims.shared_mem;
		}
		pt_emit(t, PT_REC_GPU_LAUNCH, PT_GPU_API_CUDA, &l, sizeof l);
	}
	pt_rec_gpu_api a = {.func = cur.func, .call = cur.call, .flags = cur.flags, .result = result,
			    .correlation = cur.corr};
	pt_emit(t, PT_REC_GPU_API_END, PT_GPU_API_CUDA, &a, sizeof a);
	pt_leave(t);
}


/* ---- activity records ---------------------------------------------------------- */

static uint32_t copy_dir(uint8_t kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
		return PT_GPU_COPY_HTOD;
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
		return PT_GPU_COPY_DTOH;
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
		return PT_GPU_COPY_DTOD;
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
		return PT_GPU_COPY_HTOH;
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
		return PT_GPU_COPY_PTOP;
	default:
		return PT_GPU_COPY_OTHER;
	}
}

static pt_gpu_stream *stream_of(uint32_t device, uint32_t stream)
{
	char name[32];
	snprintf(name, sizeof name, "CUDA device %u", device);
	return pt_gpu_stream_get(PT_GPU_API_CUDA, device, stream, PT_GPU_STREAM_IN_ORDER, name);
}

static uint32_t clamp_dim(int32_t v)
{
	return v < 0 ? 0 : (uint32_t)v;
}

void pt_cuda_activity(const CUpti_Activity *rec)
{
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
		pt_rec_gpu_kernel r = {
			.start = pt_cuda_ticks(k->start),
			.end = pt_cuda_ticks(k->end),
			.correlation = k->correlationId,
			.kernel = pt_gpu_kernel_id(PT_GPU_API_CUDA, k->name),
			.shared_mem = clamp_dim(k->dynamicSharedMemory) + clamp_dim(k->staticSharedMemory),
			.grid = {clamp_dim(k->gridX), clamp_dim(k->gridY), clamp_dim(k->gridZ)},
			.block = {clamp_dim(k->blockX), clamp_dim(k->blockY), clamp_dim(k->blockZ)},
		};
		pt_gpu_stream_emit(stream_of(k->deviceId, k->streamId), r.start, PT_REC_GPU_KERNEL, &r, sizeof r);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
		if (pt_cuda_kprof_ignored(m->correlationId)) /* kernel profiling's own */
			break;
		pt_rec_gpu_copy r = {
			.start = pt_cuda_ticks(m->start),
			.end = pt_cuda_ticks(m->end),
			.correlation = m->correlationId,
			.bytes = m->bytes,
			.direction = copy_dir(m->copyKind),
		};
		pt_gpu_stream_emit(stream_of(m->deviceId, m->streamId), r.start, PT_REC_GPU_MEMCPY, &r, sizeof r);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
		if (pt_cuda_kprof_ignored(m->correlationId)) /* kernel profiling's own */
			break;
		pt_rec_gpu_copy r = {
			.start = pt_cuda_ticks(m->start),
			.end = pt_cuda_ticks(m->end),
			.correlation = m->correlationId,
			.bytes = m->bytes,
			.direction = PT_GPU_COPY_MEMSET,
		};
		pt_gpu_stream_emit(stream_of(m->deviceId, m->streamId), r.start, PT_REC_GPU_MEMSET, &r, sizeof r);
		break;
	}
	default:
		break;
	}
}

void pt_cuda_fork_child(void)
{
	memset(&cur, 0, sizeof cur);
	pt_spin_reset(&cuda_clock.lock);
}

