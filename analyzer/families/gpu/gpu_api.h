/* SPDX-License-Identifier: MIT */
/* The GPU APIs the runtime traces, one row each (gpu_api.c): what the
 * outputs make of a record depends on its API (the records' arg, enum
 * pt_gpu_api) only through its row. Adding an API is a row (and its
 * runtime part, gpu/). */
#ifndef PT_GPU_API_H
#define PT_GPU_API_H

#include <stddef.h>
#include <stdint.h>

/* A value of a host call's `call` type: Extrae's call id (pt_gpu_call). */
typedef struct gpu_call_value {
	unsigned call;
	const char *name;
} gpu_call_value;

/* A Paraver event type and its .pcf label. */
typedef struct gpu_type {
	uint32_t type; /* 0: none */
	const char *label;
} gpu_type;

typedef struct gpu_api {
	unsigned id;      /* enum pt_gpu_api: the records' arg */
	const char *name; /* "CUDA" */
	/* Paraver types (docs/GPU.md; Extrae's numbers where Extrae has one).
	 * A host call: with `call` (Extrae's call table, `calls` its values),
	 * call = pt_gpu_call and func = the API function; without, func = the
	 * API function. */
	gpu_type call, func;
	gpu_type launch; /* host, at a launch: the kernel */
	gpu_type kernel; /* the stream's row, while a kernel runs: the kernel */
	/* At a launch: the grid's and the block's sizes (products) and the
	 * shared memory; sizes_always: even for a grid of size 0 (then all
	 * three are left out). */
	gpu_type grid, block, shmem;
	int sizes_always;
	/* On the stream's row with a kernel: its grid and block sizes. */
	gpu_type kernel_grid, kernel_block;
	gpu_type transfer; /* the stream's row, during a copy: its bytes */
	const gpu_call_value *calls;
	size_t ncalls;
	/* A stream's row label from its GPU_STREAM_DEF. */
	void (*stream_label)(uint32_t device, uint32_t seq, uint32_t flags, uint64_t stream,
	                     char *buf, size_t len);
} gpu_api;

#define GPU_NAPIS 2
extern const gpu_api gpu_apis[GPU_NAPIS];

/* The row of a record's arg; NULL for an API not known (its records are
 * left out). */
const gpu_api *gpu_api_of(unsigned id);

/* Its index in gpu_apis, for per-API arrays. */
static inline size_t gpu_api_index(const gpu_api *a)
{
	return (size_t)(a - gpu_apis);
}

#endif
