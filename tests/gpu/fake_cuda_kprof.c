/* SPDX-License-Identifier: MIT */
/* Stands in for libcuda.so.1 in the CUDA kernel-profiling test
 * (cuda_kprof_synth.c): the driver functions runtime/gpu/cuda/cuda_kprof.c calls, on
 * host memory ("device" pointers are host addresses, every asynchronous
 * operation is done at once, which keeps stream order), and one module
 * holding the kernel "saxpy" as instrument.so would have compiled it (its
 * slot and table globals) and the kernel "plain" (not instrumented). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef void *CUmodule, *CUfunction, *CUstream;
enum { OK = 0, NOT_FOUND = 500 };

/* what the test reads and uses as handles */
uint64_t fake_slot_saxpy;
int fake_func_saxpy, fake_func_plain;
int fake_driver_calls;
/* set by the test: events stay pending (cuEventQuery: not ready) until
 * cuEventSynchronize; and the waits asked of streams */
int fake_events_busy, fake_stream_waits;
static int module;
static const char tab_saxpy[] = "T 1\n"
                                "F 0 /src/saxpy.cu\n"
                                "K e 0 0 10 saxpy -\n"
                                "K b 3 0 10 saxpy -\n"
                                "B 8 0 12\n"
                                "B 5 0 13\n"
                                "B 3 0 15\n";

CUresult cuFuncGetModule(CUmodule *m, CUfunction f)
{
	fake_driver_calls++;
	if (f != &fake_func_saxpy && f != &fake_func_plain)
		return 400; /* CUDA_ERROR_INVALID_HANDLE */
	*m = &module;
	return OK;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *d, size_t *n, CUmodule m, const char *name)
{
	fake_driver_calls++;
	if (m != &module)
		return 400;
	if (!strcmp(name, "__paratrace_prof_saxpy")) {
		*d = (CUdeviceptr)(uintptr_t)&fake_slot_saxpy;
		*n = sizeof fake_slot_saxpy;
		return OK;
	}
	if (!strcmp(name, "__paratrace_tab_saxpy")) {
		*d = (CUdeviceptr)(uintptr_t)tab_saxpy;
		*n = sizeof tab_saxpy; /* with its NUL, as a C array in device code would be */
		return OK;
	}
	return NOT_FOUND;
}

CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n)
{
	fake_driver_calls++;
	memcpy(h, (const void *)(uintptr_t)d, n);
	return OK;
}

CUresult cuMemAlloc_v2(CUdeviceptr *d, size_t n)
{
	fake_driver_calls++;
	void *p = aligned_alloc(256, (n + 255) / 256 * 256);
	*d = (CUdeviceptr)(uintptr_t)p;
	return p ? OK : 2;
}

CUresult cuMemAllocHost_v2(void **p, size_t n)
{
	fake_driver_calls++;
	*p = malloc(n);
	return *p ? OK : 2;
}

CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s)
{
	(void)s;
	fake_driver_calls++;
	memset((void *)(uintptr_t)d, v, n);
	return OK;
}

CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t n, CUstream s)
{
	(void)s;
	fake_driver_calls++;
	memcpy(h, (const void *)(uintptr_t)d, n);
	return OK;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n, CUstream s)
{
	(void)s;
	fake_driver_calls++;
	memcpy((void *)(uintptr_t)d, h, n);
	return OK;
}

/* Every operation is done when it is asked for: every event is complete. */
CUresult cuEventCreate(void **e, unsigned flags)
{
	(void)flags;
	fake_driver_calls++;
	*e = &module;
	return OK;
}

CUresult cuEventRecord(void *e, CUstream s)
{
	(void)e, (void)s;
	fake_driver_calls++;
	return OK;
}

CUresult cuEventQuery(void *e)
{
	(void)e;
	fake_driver_calls++;
	return fake_events_busy ? 600 /* CUDA_ERROR_NOT_READY */ : OK;
}

CUresult cuStreamWaitEvent(CUstream s, void *e, unsigned flags)
{
	(void)s, (void)e, (void)flags;
	fake_driver_calls++;
	fake_stream_waits++;
	return OK;
}

CUresult cuEventSynchronize(void *e)
{
	(void)e;
	fake_driver_calls++;
	return OK;
}
