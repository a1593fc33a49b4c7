/* SPDX-License-Identifier: MIT */
/* What the GPU family's parts share (Paraver: gpu_paraver.c, the report:
 * gpu_report.c, the timelines, the plot): names of kernels and API
 * functions read from the process logs, the Paraver numbering of GPU
 * activity common to the APIs (each API's: gpu_api.h). */
#ifndef PT_GPU_COMMON_H
#define PT_GPU_COMMON_H

#include <paratrace/tool.h>
#include <stdint.h>

/* Paraver types of both APIs (docs/GPU.md; each API's own: gpu_api.h). */
#define GPU_EV_COPY_DIR 64900000u /* ours: direction of a copy (enum pt_gpu_copy_dir + 1) */
/* Ours: a launch's profile taken inside the kernel (instrument.so), on the
 * stream row at the end of the launch's execution. */
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

#endif
