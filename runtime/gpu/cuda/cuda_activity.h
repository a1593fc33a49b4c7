/* SPDX-License-Identifier: MIT */
/* CUDA record conversion, separate from the CUPTI plumbing in cupti.c so a
 * unit test can drive it with synthetic callbacks and activity records
 * without libcupti or a GPU. Needs the CUPTI headers (PT_WITH_CUPTI). */
#ifndef PT_CUDA_ACTIVITY_H
#define PT_CUDA_ACTIVITY_H

#include "gpu_internal.h"

#include <cupti.h>

/* Is `name` (a CUDA runtime or driver function) one we trace, and as what?
 * Sets *call (enum pt_gpu_call) and *flags (PT_GPU_CALL_F_*). */
PT_HIDDEN int pt_cuda_classify(const char *name, uint16_t *call, uint16_t *flags);

/* Prefixes of cuLaunchKernel(_ptsz)_params / cuLaunchCooperativeKernel(_ptsz)_params
 * and cuLaunchKernelEx(_ptsz)_params in CUDA's generated_cuda_meta.h, which
 * cannot be included next to cupti.h (it needs cuda.h's internal _v1 types).
 * The runtime's parameter structs come with cupti.h. Layouts PT_CUDA_DIMS_DRV
 * and PT_CUDA_DIMS_DRV_EX below. */
typedef struct pt_cuda_drv_launch_params {
	CUfunction f;
	unsigned int gridDimX, gridDimY, gridDimZ;
	unsigned int blockDimX, blockDimY, blockDimZ;
	unsigned int sharedMemBytes;
	CUstream hStream;
} pt_cuda_drv_launch_params;

typedef struct pt_cuda_drv_launch_ex_params {
	const CUlaunchConfig *config;
	CUfunction f;
} pt_cuda_drv_launch_ex_params;

/* How a launch function's CUPTI parameter block gives the launch sizes
 * (by function name; PT_CUDA_DIMS_NONE: not a launch we can read). */
enum {
	PT_CUDA_DIMS_NONE = 0,
	PT_CUDA_DIMS_RT,    /* cudaLaunchKernel / cudaLaunchCooperativeKernel (+ _ptsz) */
	PT_CUDA_DIMS_RT_EX, /* cudaLaunchKernelExC (+ _ptsz) */
	PT_CUDA_DIMS_DRV,   /* cuLaunchKernel / cuLaunchCooperativeKernel (+ _ptsz) */
	PT_CUDA_DIMS_DRV_EX /* cuLaunchKernelEx (+ _ptsz) */
};
PT_HIDDEN int pt_cuda_dims_layout(const char *name);
/* Fills l->grid, l->block, l->shared_mem from a parameter block of that
 * layout. Returns 0, or -1 when it cannot (NULL params or config). */
PT_HIDDEN int pt_cuda_launch_dims(int layout, const void *params, pt_rec_gpu_launch *l);

/* One traced API callback on the calling thread (enter = 1 at entry, 0 at
 * exit). Only the outermost traced call of a thread is written; a launch
 * nested in a launch (runtime -> driver) gives its correlation id to the
 * outer launch's GPU_LAUNCH record as correlation2. symbol: kernel name
 * (launches). dims: the launch sizes read at entry (NULL: unknown).
 * result: the call's return value (exit). */
PT_HIDDEN void pt_cuda_api_event(int enter, uint32_t func, uint16_t call, uint16_t flags, uint32_t corr,
				 const char *symbol, const pt_rec_gpu_launch *dims, int result);
/* CUPTI's resource callback: a graph node was created on this thread. Inside
 * a launch, the launch was captured (stream capture): it gets no GPU_LAUNCH
 * record, since no kernel runs for it until the graph is launched. */
PT_HIDDEN void pt_cuda_graph_node_created(void);

/* One activity record (CONCURRENT_KERNEL/KERNEL, MEMCPY, MEMSET; others are
 * ignored) -> a record in the GPU log of its (device, stream). */
PT_HIDDEN void pt_cuda_activity(const CUpti_Activity *rec);

/* CUPTI's timestamps (our callback: CLOCK_MONOTONIC ns) -> trace ticks.
 * pt_cuda_clock_sample renews the host bracket; call it before converting. */
PT_HIDDEN uint64_t CUPTIAPI pt_cuda_timestamp(void);
PT_HIDDEN void pt_cuda_clock_sample(void);
PT_HIDDEN uint64_t pt_cuda_ticks(uint64_t cupti_ns);

PT_HIDDEN void pt_cuda_fork_child(void);

#endif /* PT_CUDA_ACTIVITY_H */
