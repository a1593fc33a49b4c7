/* SPDX-License-Identifier: MIT */
/* The CUDA driver API reached through dlopen, for the test and benchmark
 * programs that run clang-compiled PTX on a real GPU (cuda_kernels_host.c,
 * bench/gpu/cuda_bench_host.c): they link nothing of CUDA, so they build
 * and skip (exit 77) where no driver is installed. */
#ifndef PT_TESTS_CU_DRIVER_H
#define PT_TESTS_CU_DRIVER_H

#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static struct {
	CUresult (*init)(unsigned);
	CUresult (*device_get)(CUdevice *, int);
	CUresult (*primary_ctx_retain)(CUcontext *, CUdevice);
	CUresult (*ctx_set_current)(CUcontext);
	CUresult (*module_load_data)(CUmodule *, const void *);
	CUresult (*module_get_function)(CUfunction *, CUmodule, const char *);
	CUresult (*mem_alloc)(CUdeviceptr *, size_t);
	CUresult (*memcpy_htod)(CUdeviceptr, const void *, size_t);
	CUresult (*memcpy_dtoh)(void *, CUdeviceptr, size_t);
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
	                   unsigned, CUstream, void **, void **);
	CUresult (*synchronize)(void);
	CUresult (*event_create)(CUevent *, unsigned);
	CUresult (*event_record)(CUevent, CUstream);
	CUresult (*event_synchronize)(CUevent);
	CUresult (*event_elapsed)(float *, CUevent, CUevent);
	CUresult (*stream_create)(CUstream *, unsigned);
} cu;

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		CUresult r_ = (x);                                                                 \
		if (r_ != CUDA_SUCCESS) {                                                          \
			fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, r_);           \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

/* Loads the driver, makes device 0's primary context current and loads the
 * PTX file at path. Returns 0, or 77 (no driver or GPU: the caller exits
 * with it), or 2 (the file cannot be read). */
static int cu_open(const char *path, CUmodule *mod)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "no CUDA driver (%s)\n", dlerror());
		return 77;
	}
#define LOAD(f, s) cu.f = (__typeof__(cu.f))dlsym(lib, #s)
	LOAD(init, cuInit);
	LOAD(device_get, cuDeviceGet);
	LOAD(primary_ctx_retain, cuDevicePrimaryCtxRetain);
	LOAD(ctx_set_current, cuCtxSetCurrent);
	LOAD(module_load_data, cuModuleLoadData);
	LOAD(module_get_function, cuModuleGetFunction);
	LOAD(mem_alloc, cuMemAlloc_v2);
	LOAD(memcpy_htod, cuMemcpyHtoD_v2);
	LOAD(memcpy_dtoh, cuMemcpyDtoH_v2);
	LOAD(launch, cuLaunchKernel);
	LOAD(synchronize, cuCtxSynchronize);
	LOAD(event_create, cuEventCreate);
	LOAD(event_record, cuEventRecord);
	LOAD(event_synchronize, cuEventSynchronize);
	LOAD(stream_create, cuStreamCreate);
	LOAD(event_elapsed, cuEventElapsedTime_v2);
	if (!cu.event_elapsed) /* before CUDA 13 */
		LOAD(event_elapsed, cuEventElapsedTime);
#undef LOAD
	CUdevice dev;
	CUcontext ctx;
	if (!cu.init || cu.init(0) != CUDA_SUCCESS || cu.device_get(&dev, 0) != CUDA_SUCCESS) {
		fprintf(stderr, "no usable GPU\n");
		return 77;
	}
	CHECK(cu.primary_ctx_retain(&ctx, dev));
	CHECK(cu.ctx_set_current(ctx));
	FILE *f = fopen(path, "rb");
	if (!f)
		return 2;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	rewind(f);
	char *ptx = calloc(1, (size_t)len + 1);
	if (!ptx || fread(ptx, 1, (size_t)len, f) != (size_t)len)
		return 2;
	fclose(f);
	CHECK(cu.module_load_data(mod, ptx));
	free(ptx);
	return 0;
}

/* FNV-1a over n 32-bit words: what the programs print of their results,
 * to compare untraced and traced runs. */
static inline uint64_t cu_checksum(const void *v, size_t n)
{
	const uint32_t *w = v;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ w[i]) * 1099511628211ull;
	return h;
}

#endif
