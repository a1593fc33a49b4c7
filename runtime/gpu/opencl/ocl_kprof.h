/* SPDX-License-Identifier: MIT */
/* OpenCL kernel profiling (runtime/gpu/opencl/ocl_kprof.c), as opencl.c's launch wrapper
 * uses it. */
#ifndef PT_GPU_OCL_KPROF_H
#define PT_GPU_OCL_KPROF_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#include <CL/cl.h>

#include "gpu_internal.h"

#include <string.h>

typedef struct pt_ocl_kprof_launch pt_ocl_kprof_launch;

/* The application's clBuildProgram options that mean something to clang,
 * for compiling its source again: macros, include paths, the language
 * version, the -cl-* optimisation and math switches, warnings (-D and -I
 * with their value as the next word too). The rest (PoCL's own, -g) is not
 * for the device compile. words (strlen(options) + 1 bytes) holds the
 * copies, argv (at most max - 1 entries, never a -D or -I without its
 * value) points into it. Returns the entries; *has_std: -cl-std= given. */
PT_HIDDEN size_t pt_ocl_kprof_options(const char *options, char *words, const char **argv,
                                      size_t max, int *has_std);

/* Copies a value for a clGet*Info answer, with OpenCL's size rules:
 * what both the queue wrappers and the kernel twins answer with. */
static inline cl_int pt_ocl_info_answer(const void *val, size_t len, size_t size, void *out,
                                        size_t *size_ret)
{
	if (out) {
		if (size < len)
			return CL_INVALID_VALUE;
		memcpy(out, val, len);
	}
	if (size_ret)
		*size_ret = len;
	return CL_SUCCESS;
}

/* The name the program knows `kernel` by when it is an instrumented twin
 * paratrace substituted (pointer valid while the kernel lives), else NULL. */
PT_HIDDEN const char *pt_ocl_kprof_name(cl_kernel kernel);

/* Before the real clEnqueueNDRangeKernel of `kernel` on `queue`: NULL when
 * the kernel is not an instrumented twin (nothing else to do); otherwise a
 * zeroed profile buffer is now its hidden argument. */
PT_HIDDEN pt_ocl_kprof_launch *pt_ocl_kprof_begin(cl_kernel kernel, cl_command_queue queue,
                                                  cl_uint work_dim, const size_t *local_size);

/* After it (before anything may release ev): err is the enqueue's result,
 * ev the launch's event (never NULL when err is CL_SUCCESS). Enqueues the
 * read-back whose completion writes the GPU_PROF record to `stream` (none
 * when stream is NULL), and puts the kernel's hidden arguments back to
 * their defaults. Frees l. */
PT_HIDDEN void pt_ocl_kprof_end(pt_ocl_kprof_launch *l, cl_int err, cl_command_queue queue,
                                cl_event ev, pt_gpu_stream *stream, uint64_t correlation);

#endif /* PT_GPU_OCL_KPROF_H */
