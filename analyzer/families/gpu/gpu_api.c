/* SPDX-License-Identifier: MIT */
/* The GPU APIs (gpu_api.h). */
#include "gpu_api.h"
#include "gpu_common.h"

#include <stdio.h>

/* Extrae's CUDA call ids and their names. */
static const gpu_call_value cuda_calls[] = {
	{PT_GPU_CALL_LAUNCH, "cudaLaunch"},
	{PT_GPU_CALL_MEMCPY, "cudaMemcpy"},
	{PT_GPU_CALL_DEVICE_SYNC, "cudaDeviceSynchronize"},
	{PT_GPU_CALL_STREAM_SYNC, "cudaStreamSynchronize"},
	{PT_GPU_CALL_STREAM_CREATE, "cudaStreamCreate"},
	{PT_GPU_CALL_MEMCPY_ASYNC, "cudaMemcpyAsync"},
	{PT_GPU_CALL_MALLOC, "cudaMalloc"},
	{PT_GPU_CALL_FREE, "cudaFree"},
	{PT_GPU_CALL_MEMSET, "cudaMemset"},
	{PT_GPU_CALL_EVENT_SYNC, "cudaEventSynchronize"},
	{PT_GPU_CALL_GRAPH_LAUNCH, "cudaGraphLaunch"},
};

/* "GPU-D<device>.S<stream>", Extrae's name of a CUDA stream's row. */
static void cuda_stream_label(uint32_t device, uint32_t seq, uint32_t flags, uint64_t stream,
                              char *buf, size_t len)
{
	(void)seq;
	(void)flags;
	snprintf(buf, len, "GPU-D%u.S%llu", device, (unsigned long long)stream);
}

/* "OpenCL-<GPU|CPU|ACC|DEV><device>-CQ<seq>", Extrae's name of a queue's row. */
static void opencl_stream_label(uint32_t device, uint32_t seq, uint32_t flags, uint64_t stream,
                                char *buf, size_t len)
{
	(void)stream;
	const char *type = flags & PT_GPU_STREAM_DEVICE_GPU     ? "GPU"
	                   : flags & PT_GPU_STREAM_DEVICE_CPU   ? "CPU"
	                   : flags & PT_GPU_STREAM_DEVICE_ACCEL ? "ACC"
	                                                        : "DEV";
	snprintf(buf, len, "OpenCL-%s%u-CQ%u", type, device, seq);
}

const gpu_api gpu_apis[GPU_NAPIS] = {
	{
		.id = PT_GPU_API_CUDA,
		.name = "CUDA",
		.call = {63000000u, "CUDA library call"},
		.func = {63100000u, "CUDA API function"}, /* ours: the CUPTI id */
		.launch = {63000009u, "CUDA kernel launch"},
		.kernel = {63000006u, "CUDA kernel"},
		.grid = {63000011u, "CUDA blocks per grid"},
		.block = {63000012u, "CUDA threads per block"},
		.shmem = {63000013u, "CUDA shared memory size"},
		.kernel_grid = {63000011u, "CUDA blocks per grid"},
		.kernel_block = {63000012u, "CUDA threads per block"},
		.transfer = {63000001u, "CUDA memory transfer size"},
		.calls = cuda_calls,
		.ncalls = sizeof cuda_calls / sizeof *cuda_calls,
		.stream_label = cuda_stream_label,
	},
	{
		.id = PT_GPU_API_OPENCL,
		.name = "OpenCL",
		.func = {64000000u, "OpenCL host call"},
		.launch = {64200000u, "OpenCL kernel name"},
		.kernel = {64200000u, "OpenCL kernel name"},
		.grid = {64300001u, "OpenCL global work size"}, /* ours */
		.block = {64300002u, "OpenCL local work size"}, /* ours; 0: the runtime's choice */
		.sizes_always = 1,
		.transfer = {64099999u, "OpenCL transfer size"},
		.stream_label = opencl_stream_label,
	},
};

const gpu_api *gpu_api_of(unsigned id)
{
	for (size_t i = 0; i < GPU_NAPIS; i++)
		if (gpu_apis[i].id == id)
			return &gpu_apis[i];
	return NULL;
}
