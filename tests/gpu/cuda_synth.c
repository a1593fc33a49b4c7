/* SPDX-License-Identifier: MIT */
/* The CUDA path end to end without a GPU: this program links the runtime
 * itself (pt_runtime_obj, tracing set up from the environment as under
 * LD_PRELOAD) and feeds the CUDA part what CUPTI would: API callbacks on
 * this thread and activity records (as CUPTI's buffer thread would). The
 * checker then analyzes the trace like any other: rows GPU-D0.S7 and
 * GPU-D0.S13, kernels, copies, launch links, the profile's GPU section.
 *
 * What it feeds (device times a few microseconds after each launch, in
 * CUPTI's clock = our CLOCK_MONOTONIC timestamps):
 *   cudaLaunchKernel corr 42 -> (driver cuLaunchKernel corr 43) axpy on S7, grid 128x2, block 256
 *   cudaLaunchKernel corr 45, captured into a graph: no kernel, no launch record
 *   cuLaunchKernel corr 50 -> scale on S13, grid 64, block 128
 *   cudaGraphLaunch corr 60 -> 3 kernels "graph_node" on S13
 *   cudaMemcpyAsync corr 70 -> 1 MiB HtoD on S7
 *   cudaMemsetAsync corr 71 -> 4 KiB memset on S13
 *   cudaDeviceSynchronize corr 80 */
#include "cuda_activity.h"

#include <string.h>
#include <time.h>

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define RT(cbid) ((uint32_t)CUPTI_CB_DOMAIN_RUNTIME_API << 16 | (cbid))
#define DRV(cbid) ((uint32_t)CUPTI_CB_DOMAIN_DRIVER_API << 16 | (cbid))

static void call(uint32_t func, const char *name, uint32_t corr, const char *symbol,
		 const pt_rec_gpu_launch *dims)
{
	uint16_t c, f;
	if (!pt_cuda_classify(name, &c, &f))
		return;
	pt_gpu_func_define(PT_GPU_API_CUDA, func, name);
	pt_cuda_api_event(1, func, c, f, corr, symbol, dims, 0);
	pt_cuda_api_event(0, func, c, f, corr, NULL, NULL, 0);
}

static void kernel(uint32_t stream, uint32_t corr, const char *name, uint64_t start, uint64_t dur,
		   int gx, int bx)
{
	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.start = start;
	k.end = start + dur;
	k.streamId = stream;
	k.correlationId = corr;
	k.gridX = gx, k.gridY = 1, k.gridZ = 1;
	k.blockX = bx, k.blockY = 1, k.blockZ = 1;
	k.name = name;
	pt_cuda_activity((const CUpti_Activity *)&k);
}

int main(void)
{
	pt_cuda_clock_sample();
	/* host side, as the callbacks would see it */
	uint64_t t0 = mono_ns();
	cudaLaunchKernel_v7000_params rp;
	memset(&rp, 0, sizeof rp);
	rp.gridDim.x = 128, rp.gridDim.y = 2, rp.gridDim.z = 1;
	rp.blockDim.x = 256, rp.blockDim.y = 1, rp.blockDim.z = 1;
	pt_rec_gpu_launch dims;
	pt_cuda_launch_dims(PT_CUDA_DIMS_RT, &rp, &dims);
	uint16_t c, f;
	pt_cuda_classify("cudaLaunchKernel", &c, &f);
	pt_gpu_func_define(PT_GPU_API_CUDA, RT(211), "cudaLaunchKernel");
	pt_cuda_api_event(1, RT(211), c, f, 42, "_Z4axpyPfS_f", &dims, 0);
	pt_cuda_api_event(1, DRV(307), c, f, 43, "_Z4axpyPfS_f", NULL, 0); /* nested: not written */
	pt_cuda_api_event(0, DRV(307), c, f, 43, NULL, NULL, 0);
	pt_cuda_api_event(0, RT(211), c, f, 42, NULL, NULL, 0);
	/* a launch on a stream being captured: a graph node is made inside
	 * it (CUPTI's resource callback), and no kernel runs for it */
	pt_cuda_api_event(1, RT(211), c, f, 45, "_Z4axpyPfS_f", &dims, 0);
	pt_cuda_graph_node_created();
	pt_cuda_api_event(0, RT(211), c, f, 45, NULL, NULL, 0);
	struct {
		CUfunction f;
		unsigned gx, gy, gz, bx, by, bz, shmem;
		CUstream s;
	} dp = {NULL, 64, 1, 1, 128, 1, 1, 0, NULL}; /* cuLaunchKernel_params */
	pt_cuda_launch_dims(PT_CUDA_DIMS_DRV, &dp, &dims);
	call(DRV(307), "cuLaunchKernel", 50, "_Z5scalePf", &dims);
	call(RT(311), "cudaGraphLaunch", 60, NULL, NULL);
	call(RT(41), "cudaMemcpyAsync", 70, NULL, NULL);
	call(RT(49), "cudaMemsetAsync", 71, NULL, NULL);
	call(RT(165), "cudaDeviceSynchronize", 80, NULL, NULL);

	/* device side, as CUPTI's buffer callback would deliver it: the
	 * kernels ran after their launches */
	pt_cuda_clock_sample();
	t0 = mono_ns();
	kernel(7, 43, "_Z4axpyPfS_f", t0 + 20000, 30000, 128, 256); /* joined through correlation2 */
	CUpti_ActivityMemcpy6 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	m.bytes = 1 << 20;
	m.start = t0 + 60000;
	m.end = t0 + 160000;
	m.streamId = 7;
	m.correlationId = 70;
	pt_cuda_activity((const CUpti_Activity *)&m);
	kernel(13, 50, "_Z5scalePf", t0 + 25000, 10000, 64, 128);
	for (int i = 0; i < 3; i++)
		kernel(13, 60, "graph_node", t0 + 40000 + (uint64_t)i * 10000, 5000, 1, 32);
	CUpti_ActivityMemset4 s;
	memset(&s, 0, sizeof s);
	s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	s.bytes = 4096;
	s.start = t0 + 80000;
	s.end = t0 + 81000;
	s.streamId = 13;
	s.correlationId = 71;
	pt_cuda_activity((const CUpti_Activity *)&s);
	return 0;
}
