/* SPDX-License-Identifier: MIT */
/* What the GPU analyzer parts share (Paraver extension paraver/pv_ext_gpu.c
 * and the GPU profile tool gpu.c): names of kernels and API functions read
 * from the process logs, and the Paraver numbering of GPU activity. */
#ifndef PT_GPU_COMMON_H
#define PT_GPU_COMMON_H

#include <paratrace/tool.h>
#include <stdint.h>

/* Paraver types (Extrae's numbers where Extrae has one, docs/GPU.md). */
#define GPU_EV_CUDA_CALL 63000000u        /* host: pt_gpu_call value (Extrae's table), 0 = end */
#define GPU_EV_CUDA_TRANSFER 63000001u    /* stream row: bytes of the copy, 0 = end */
#define GPU_EV_CUDA_KERNEL 63000006u      /* stream row: kernel value, 0 = end */
#define GPU_EV_CUDA_LAUNCH 63000009u      /* host: kernel value at the launch, 0 = end */
#define GPU_EV_CUDA_GRID 63000011u        /* blocks per grid */
#define GPU_EV_CUDA_BLOCK 63000012u       /* threads per block */
#define GPU_EV_CUDA_SHMEM 63000013u       /* shared memory bytes */
#define GPU_EV_CUDA_FUNC 63100000u        /* ours: host CUDA function (CUPTI id), 0 = end */
#define GPU_EV_OCL_CALL 64000000u         /* host: OpenCL function, 0 = end */
#define GPU_EV_OCL_TRANSFER 64099999u     /* queue row: bytes of the transfer, 0 = end */
#define GPU_EV_OCL_KERNEL 64200000u       /* kernel value: host at the launch, queue row while it runs */
#define GPU_EV_OCL_GLOBAL 64300001u       /* ours: global work size (product) */
#define GPU_EV_OCL_LOCAL 64300002u        /* ours: local work size (product, 0 = runtime's choice) */
#define GPU_EV_COPY_DIR 64900000u         /* ours, both APIs: direction of a copy (enum pt_gpu_copy_dir + 1) */
/* Ours, both APIs: a launch's profile taken inside the kernel (instrument.so),
 * on the stream row at the end of the launch's execution. */
#define GPU_EV_PROF_INSTR 63200001u     /* instructions executed (IR, summed over blocks) */
#define GPU_EV_PROF_HOT_SHARE 63200002u /* % of them in the hottest block */
#define GPU_EV_PROF_HOT_LINE 63200003u  /* source line of the hottest block */
#define GPU_EV_PROF_GROUPS 63200004u    /* work-groups (CUDA blocks) */
#define GPU_EV_PROF_IMBALANCE 63200005u /* CUDA: longest / mean work-group time, in % */
#define GPU_EV_PROF_WG_MEAN 63200006u   /* CUDA: mean work-group time, ns */

#define GPU_STATE_RUNNING 1
#define GPU_STATE_SYNC 5
#define GPU_STATE_TRANSFER 17
#define GPU_STATE_CONFIG 32 /* Configuring accelerator */

typedef struct gpu_names gpu_names;

gpu_names *gpu_names_new(size_t nprocesses);
void gpu_names_free(gpu_names *n);
/* Feed every process-log record (GPU_KERNEL_DEF / GPU_FUNC_DEF are kept). */
void gpu_names_process_event(gpu_names *n, size_t process, const pt_event *ev);
/* Trace-wide kernel value (>= 1; same name = same value) of a process's
 * kernel id; 0 if the process never defined it. */
uint32_t gpu_names_kernel(const gpu_names *n, size_t process, uint32_t local_id);
uint32_t gpu_names_nkernels(const gpu_names *n);
/* Name (demangled when it is a C++ name) of a kernel value; NULL if none. */
const char *gpu_names_kernel_name(const gpu_names *n, uint32_t value);
/* API function names by (api, func), as the runtime defined them. */
size_t gpu_names_nfuncs(const gpu_names *n);
int gpu_names_func_at(const gpu_names *n, size_t i, unsigned *api, uint32_t *func, const char **name);

/* Device time (absolute ticks in a GPU payload) -> CLOCK_MONOTONIC ns. */
uint64_t gpu_ticks_ns(const pt_shard_info *shard, uint64_t ticks);

const char *gpu_copy_dir_name(uint32_t dir);

/* A device row shows one interval at a time: an interval that starts
 * before the previous one ended (an out-of-order queue) starts at its end.
 * Clamps [*start, *end) that way and moves *busy_until to its end. */
static inline void gpu_one_at_a_time(uint64_t *busy_until, uint64_t *start, uint64_t *end)
{
	if (*start < *busy_until)
		*start = *busy_until;
	if (*end < *start)
		*end = *start;
	*busy_until = *end;
}

/* The GPU profile tool (gpu.c): the report's GPU section. */
const pt_tool *pt_tool_gpu(void);
/* The report's kernel section (gpu_kernels.c): profiles taken inside
 * kernels. Options: csv, top=N. */
const pt_tool *pt_tool_gpu_kernels(void);
const char *gpu_call_name(unsigned api, unsigned call);

#endif
