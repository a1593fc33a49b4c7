/* SPDX-License-Identifier: MIT */
/* CUDA kernel profiling (runtime/gpu/cuda/cuda_kprof.c): launches of kernels that clang
 * compiled with instrument.so get a profile buffer through their slot
 * global (include/paratrace/gpu_abi.h), read back in stream order. Driven by
 * cupti.c's driver-API launch callbacks; separate so that a test can drive
 * it with synthetic callbacks and a stand-in libcuda, without a GPU. */
#ifndef PT_GPU_CUDA_KPROF_H
#define PT_GPU_CUDA_KPROF_H

#include "gpu_internal.h"

/* What only CUPTI knows: the ids its activity records use for a stream
 * and a context's device. 0 on success. */
typedef struct pt_cuda_kprof_ops {
	int (*stream_id)(void *ctx, void *stream, int per_thread, uint32_t *id);
	int (*device_id)(void *ctx, uint32_t *dev);
} pt_cuda_kprof_ops;

/* cupti.c once attached (tests: their stand-ins). */
PT_HIDDEN void pt_cuda_kprof_setup(const pt_cuda_kprof_ops *ops);

/* A driver-level launch callback of this thread (layout: PT_CUDA_DIMS_DRV
 * or PT_CUDA_DIMS_DRV_EX; ptsz: the per-thread-default-stream variant).
 * At entry (enter = 1) an instrumented kernel's slot is pointed at a zeroed
 * buffer; at exit (result: the launch's CUresult) the buffer is read back
 * and its GPU_PROF record written when the stream gets there. */
PT_HIDDEN void pt_cuda_kprof_launch(int enter, int layout, int ptsz, const void *params, void *ctx,
                                    uint32_t corr, const char *symbol, int result);

/* While this thread runs CUDA calls of our own (in a launch callback):
 * their callbacks are not the program's, and neither are their activity
 * records, whose correlation ids are set aside here. */
/* Writes the records of profiled launches whose buffers are back (a call
 * that waited for the device has just returned). */
PT_HIDDEN void pt_cuda_kprof_poll(void);
PT_HIDDEN int pt_cuda_kprof_busy(void);
PT_HIDDEN void pt_cuda_kprof_ignore(uint32_t corr);
/* 1 if corr is one of ours (and forgets it: each is consumed once). */
PT_HIDDEN int pt_cuda_kprof_ignored(uint32_t corr);

#endif /* PT_GPU_CUDA_KPROF_H */
