/* SPDX-License-Identifier: MIT */
/* CUDA kernel profiling end to end without a GPU: this program links the
 * runtime itself (pt_runtime_obj, tracing set up from the environment as
 * under LD_PRELOAD), loads a stand-in libcuda.so.1 (fake_cuda_kprof.c) and
 * feeds the CUDA part what CUPTI would for driver-level launches of the
 * instrumented kernel "saxpy" (4 launches on stream 7) and of "plain" (1
 * launch, not instrumented). Between each launch's entry and exit callbacks
 * it plays the device: it reads saxpy's slot and, when the slot points at a
 * buffer, writes what the instrumented kernel would (8 work-groups of 128
 * threads, group g of launch i lasting 1000 * (g + 1) + i ns, and with
 * block counters 1024, 512 and 3072 executions of its three blocks). Then
 * CUPTI's kernel activity records. It prints what it saw of the slot.
 * Usage: cuda_kprof_synth FAKE_LIBCUDA */
#include "cuda_activity.h"
#include "cuda_kprof.h"

#include <dlfcn.h>
#include <paratrace/gpu_abi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define GROUPS 8
#define THREADS 128

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The launches alternate between two stream handles, which CUPTI would
 * number 7 and 9; both are stream 7 here, where the kernels' records are. */
static int stream_id(void *ctx, void *stream, int per_thread, uint32_t *id)
{
	(void)ctx;
	(void)per_thread;
	(void)stream;
	*id = 7;
	return 0;
}

static int device_id(void *ctx, uint32_t *dev)
{
	(void)ctx;
	*dev = 0;
	return 0;
}

/* What instrument.so's code does in the kernel, for launch i. */
static void device_run(uint64_t slot, int i)
{
	uint64_t *w = (uint64_t *)(uintptr_t)(slot & PT_GPU_SLOT_ADDR_MASK);
	uint64_t base = 5000000 + (uint64_t)i * 100000;
	for (int g = 0; g < GROUPS; g++) {
		uint64_t d = 1000 * (uint64_t)(g + 1) + (uint64_t)i, t0 = base + (uint64_t)g * 10;
		w[PT_GPU_PROF_WG_ENTRIES]++;
		w[PT_GPU_PROF_WG_EXITS]++;
		w[PT_GPU_PROF_WORK_ITEMS] += THREADS;
		if (~t0 > w[PT_GPU_PROF_START_MIN_INV])
			w[PT_GPU_PROF_START_MIN_INV] = ~t0;
		if (t0 + d > w[PT_GPU_PROF_END_MAX])
			w[PT_GPU_PROF_END_MAX] = t0 + d;
		w[PT_GPU_PROF_DUR_SUM] += d;
		if (d > w[PT_GPU_PROF_DUR_MAX])
			w[PT_GPU_PROF_DUR_MAX] = d;
		if (~d > w[PT_GPU_PROF_DUR_MIN_INV])
			w[PT_GPU_PROF_DUR_MIN_INV] = ~d;
		if (slot & PT_GPU_SLOT_BLOCKS) {
			w[PT_GPU_PROF_HEADER_WORDS + 0] += THREADS;
			w[PT_GPU_PROF_HEADER_WORDS + 1] += THREADS / 2;
			w[PT_GPU_PROF_HEADER_WORDS + 2] += 3 * THREADS;
		}
	}
}

static void launch(int *func, const char *name, uint32_t corr, uint64_t *slot, int i,
                   uintptr_t stream)
{
	uint16_t call, flags;
	pt_cuda_classify("cuLaunchKernel", &call, &flags);
	struct {
		CUfunction f;
		unsigned grid[3], block[3], shmem;
		CUstream s;
	} p = {(CUfunction)func,
	       {GROUPS, 1, 1},
	       {THREADS, 1, 1},
	       0,
	       (CUstream)stream}; /* cuLaunchKernel_params */
	pt_rec_gpu_launch dims;
	pt_cuda_launch_dims(PT_CUDA_DIMS_DRV, &p, &dims);
	uint32_t fn = (uint32_t)CUPTI_CB_DOMAIN_DRIVER_API << 16 | 307;
	pt_gpu_func_define(PT_GPU_API_CUDA, fn, "cuLaunchKernel");
	pt_cuda_api_event(1, fn, call, flags, corr, name, &dims, 0);
	pt_cuda_kprof_launch(1, PT_CUDA_DIMS_DRV, 0, &p, (void *)1, corr, name, 0);
	uint64_t v = *slot;
	if (func == dlsym(RTLD_DEFAULT, "fake_func_saxpy")) {
		printf("slot_set %d\nslot_blocks %d\n", v != 0, (int)(v & PT_GPU_SLOT_BLOCKS));
		if (v)
			device_run(v, i);
	}
	pt_cuda_api_event(0, fn, call, flags, corr, NULL, NULL, 0);
	pt_cuda_kprof_launch(0, PT_CUDA_DIMS_DRV, 0, &p, (void *)1, corr, NULL,
	                     0 /* CUDA_SUCCESS */);
	printf("slot_after %llu\n", (unsigned long long)*slot);
}

static void kernel_record(uint32_t corr, const char *name, uint64_t start)
{
	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.start = start;
	k.end = start + 20000;
	k.streamId = 7;
	k.correlationId = corr;
	k.gridX = GROUPS, k.gridY = 1, k.gridZ = 1;
	k.blockX = THREADS, k.blockY = 1, k.blockZ = 1;
	k.name = name;
	pt_cuda_activity((const CUpti_Activity *)&k);
}

int main(int argc, char **argv)
{
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL) : NULL;
	if (!h) {
		fprintf(stderr, "cannot load the stand-in libcuda: %s\n", dlerror());
		return 2;
	}
	uint64_t *slot = dlsym(h, "fake_slot_saxpy");
	int *saxpy = dlsym(h, "fake_func_saxpy"), *plain = dlsym(h, "fake_func_plain");
	static const pt_cuda_kprof_ops ops = {stream_id, device_id};
	pt_cuda_kprof_setup(&ops);
	pt_cuda_clock_sample();
	uint64_t t0 = mono_ns();
	/* saxpy on two streams in turn, each launch still running when the
	 * next is made (events not ready): each must make its stream wait for
	 * the previous one, which the slot, one per kernel, would mix */
	int *busy = dlsym(h, "fake_events_busy"), *waits = dlsym(h, "fake_stream_waits");
	if (busy)
		*busy = 1;
	for (int i = 0; i < 4; i++)
		launch(saxpy, "saxpy", 200 + (uint32_t)i, slot, i, i % 2 ? 9 : 7);
	launch(plain, "plain", 300, slot, 4, 7);
	if (busy)
		*busy = 0;
	printf("stream_waits %d\n", waits ? *waits : -1);
	/* the device records, as CUPTI's buffer delivers them: after the
	 * profiles, which the runtime wrote at the next launch (the last one
	 * at exit) */
	pt_cuda_clock_sample();
	for (int i = 0; i < 4; i++)
		kernel_record(200 + (uint32_t)i, "saxpy", t0 + 10000 + (uint64_t)i * 40000);
	kernel_record(300, "plain", t0 + 200000);
	int *calls = dlsym(h, "fake_driver_calls");
	printf("driver_calls %d\n", calls ? *calls : -1);
	return 0;
}
