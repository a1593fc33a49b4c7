/* SPDX-License-Identifier: MIT */
/* Unit tests of gpu/ without a GPU or libcupti: device clock alignment,
 * CUDA API classification, and the CUDA path from synthetic CUPTI callbacks
 * and activity records to GPU records (correlation, clock conversion, one
 * GPU log per stream). The runtime core is replaced by the fake core
 * (tests/fake). */
#include "fake_core.h"
#include "gpu_internal.h"

#include <CUnit/Basic.h>
#include <string.h>

/* The fatal-signal path (pt_parts_shutdown(1)) must not wait for a stream
 * lock: the thread that crashed may hold it (here: this thread). The other
 * logs are closed; the held one stays open, as written so far. */
static void test_shutdown_in_signal_skips_held_locks(void)
{
	pt_parts_fork_child(); /* forget streams of earlier tests */
	fake_reset();
	pt_gpu_stream *a = pt_gpu_stream_get(PT_GPU_API_OPENCL, 0, 1, 0, "dev");
	pt_gpu_stream *b = pt_gpu_stream_get(PT_GPU_API_OPENCL, 0, 2, 0, "dev");
	CU_ASSERT_FATAL(a && b && a->file && b->file);
	pt_spin_lock(&b->lock);
	pt_parts_shutdown(1); /* a deadlock here fails the test by its timeout */
	CU_ASSERT_PTR_NULL(a->file);
	CU_ASSERT_PTR_NOT_NULL(b->file);
	pt_spin_unlock(&b->lock);
	pt_parts_shutdown(0);
	CU_ASSERT_PTR_NULL(b->file);
	pt_parts_fork_child();
}

#ifdef PT_WITH_CUPTI
#include "cuda_activity.h"
#endif

static int64_t sdiff(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b);
}

static void test_clock_map(void)
{
	/* 2 ticks per ns around anchor (1000 ticks, 100 ns) */
	CU_ASSERT_EQUAL(pt_gpu_clock_map(1000, 100, 2.0, 150), 1100);
	CU_ASSERT_EQUAL(pt_gpu_clock_map(1000, 100, 2.0, 40), 880);
	CU_ASSERT_EQUAL(pt_gpu_clock_map(1000, 100, 2.0, 100), 1000);
	/* never wraps below zero */
	CU_ASSERT_EQUAL(pt_gpu_clock_map(10, 100, 2.0, 0), 0);
}

static void test_clock_keeps_tightest_bracket(void)
{
	pt_gpu_clock c = PT_GPU_CLOCK_INIT;
	CU_ASSERT_EQUAL(pt_gpu_clock_to_ticks(&c, 1234), 0); /* nothing known yet */
	pt_gpu_clock_bracket(&c, 1000, 3000, 500);           /* width 2000 */
	CU_ASSERT_EQUAL(c.anchor_ticks, 2000);
	pt_gpu_clock_bracket(&c, 10000, 10100, 4000); /* width 100: better */
	CU_ASSERT_EQUAL(c.anchor_ticks, 10050);
	CU_ASSERT_EQUAL(c.anchor_dev, 4000);
	pt_gpu_clock_bracket(&c, 20000, 29000, 9000); /* wider: ignored */
	CU_ASSERT_EQUAL(c.anchor_ticks, 10050);
	pt_gpu_clock_bracket(&c, 40000, 40100, 19000); /* as narrow, newer: follows drift */
	CU_ASSERT_EQUAL(c.anchor_ticks, 40050);
	pt_gpu_clock_bracket(&c, 50000, 49000, 1); /* inverted: ignored */
	CU_ASSERT_EQUAL(c.anchor_ticks, 40050);
	CU_ASSERT_EQUAL(c.brackets, 4);
}

/* Once the anchor is over 100 ms old, a bracket up to twice the narrowest
 * width replaces it (drift), a wider one still does not. */
static void test_clock_follows_drift(void)
{
	pt_gpu_clock c = PT_GPU_CLOCK_INIT;
	pt_gpu_clock_bracket(&c, 1000, 1100, 500); /* width 100 */
	pt_gpu_clock_bracket(&c, 50000, 50150, 25000); /* 150, anchor fresh: no */
	CU_ASSERT_EQUAL(c.anchor_ticks, 1050);
	uint64_t later = 1000 + 300000000; /* 150 ms at 2 ticks/ns */
	pt_gpu_clock_bracket(&c, later, later + 300, 150000000); /* 300 > 2 x 100: no */
	CU_ASSERT_EQUAL(c.anchor_ticks, 1050);
	pt_gpu_clock_bracket(&c, later, later + 180, 150000000); /* 180 <= 200: yes */
	CU_ASSERT_EQUAL(c.anchor_ticks, later + 90);
	CU_ASSERT_EQUAL(c.best, 100);
	pt_gpu_clock_reset(&c);
	CU_ASSERT_EQUAL(pt_gpu_clock_to_ticks(&c, 150000000), 0);
	pt_gpu_clock_bracket(&c, 7000, 7400, 3000); /* after a reset, anything anchors */
	CU_ASSERT_EQUAL(c.anchor_ticks, 7200);
	CU_ASSERT_EQUAL(c.best, 400);
}

static void test_clock_rate_matches_host(void)
{
	/* The fake trace clock runs at 2 ticks per ns. */
	double r = pt_gpu_ticks_per_ns();
	CU_ASSERT(r > 1.999 && r < 2.001);
}

static void test_clock_converts_device_times(void)
{
	/* A device clock 250 ms ahead of CLOCK_MONOTONIC (PoCL's RAW clock was
	 * that far off): brackets of enqueue calls give the offset. */
	pt_gpu_clock c = PT_GPU_CLOCK_INIT;
	const uint64_t ahead = 250000000;
	for (int i = 0; i < 20; i++) {
		uint64_t t0 = pt_now();
		uint64_t dev = fake_mono_ns() + ahead;
		uint64_t t1 = pt_now();
		pt_gpu_clock_bracket(&c, t0, t1, dev);
	}
	uint64_t dev_then = fake_mono_ns() + ahead + 5000000; /* 5 ms later on the device */
	uint64_t want = fake_ticks_of_ns(dev_then - ahead);
	uint64_t got = pt_gpu_clock_to_ticks(&c, dev_then);
	int64_t err = sdiff(got, want);
	CU_ASSERT(err > -20000 && err < 20000); /* within 10 us */
}

#ifdef PT_WITH_CUPTI

static void test_cuda_classify(void)
{
	static const struct {
		const char *name;
		int traced;
		uint16_t call, flags;
	} cases[] = {
		{"cudaLaunchKernel", 1, PT_GPU_CALL_LAUNCH, 0},
		{"cudaLaunchKernel_ptsz", 1, PT_GPU_CALL_LAUNCH, 0},
		{"cudaLaunchKernelExC", 1, PT_GPU_CALL_LAUNCH, 0},
		{"cudaLaunchCooperativeKernel", 1, PT_GPU_CALL_LAUNCH, 0},
		{"cuLaunchKernel", 1, PT_GPU_CALL_LAUNCH, 0},
		{"cuLaunchKernel_ptsz", 1, PT_GPU_CALL_LAUNCH, 0},
		{"cuLaunchKernelEx", 1, PT_GPU_CALL_LAUNCH, 0},
		{"cuLaunchCooperativeKernel_ptsz", 1, PT_GPU_CALL_LAUNCH, 0},
		{"cudaGraphLaunch", 1, PT_GPU_CALL_GRAPH_LAUNCH, 0},
		{"cuGraphLaunch_ptsz", 1, PT_GPU_CALL_GRAPH_LAUNCH, 0},
		{"cudaMemcpy", 1, PT_GPU_CALL_MEMCPY, PT_GPU_CALL_F_TRANSFER},
		{"cuMemcpyHtoD_v2", 1, PT_GPU_CALL_MEMCPY, PT_GPU_CALL_F_TRANSFER},
		{"cudaMemcpyAsync_ptsz", 1, PT_GPU_CALL_MEMCPY_ASYNC, 0},
		{"cuMemcpyDtoHAsync_v2", 1, PT_GPU_CALL_MEMCPY_ASYNC, 0},
		{"cudaMemset", 1, PT_GPU_CALL_MEMSET, 0},
		{"cuMemsetD32Async", 1, PT_GPU_CALL_MEMSET, 0},
		{"cudaDeviceSynchronize", 1, PT_GPU_CALL_DEVICE_SYNC, PT_GPU_CALL_F_SYNC},
		{"cuCtxSynchronize", 1, PT_GPU_CALL_DEVICE_SYNC, PT_GPU_CALL_F_SYNC},
		{"cudaStreamSynchronize_ptsz", 1, PT_GPU_CALL_STREAM_SYNC, PT_GPU_CALL_F_SYNC},
		{"cudaEventSynchronize", 1, PT_GPU_CALL_EVENT_SYNC, PT_GPU_CALL_F_SYNC},
		{"cudaStreamCreateWithFlags", 1, PT_GPU_CALL_STREAM_CREATE, 0},
		{"cudaMalloc", 1, PT_GPU_CALL_MALLOC, 0},
		{"cuMemAlloc_v2", 1, PT_GPU_CALL_MALLOC, 0},
		{"cudaFree", 1, PT_GPU_CALL_FREE, 0},
		{"cuMemFree_v2", 1, PT_GPU_CALL_FREE, 0},
		{"cudaGetDevice", 0, 0, 0},
		{"cuCtxGetCurrent", 0, 0, 0},
		{"cudaGetLastError", 0, 0, 0},
		{"cuLaunchHostFunc", 0, 0, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint16_t call = 0xffff, flags = 0xffff;
		int got = pt_cuda_classify(cases[i].name, &call, &flags);
		CU_ASSERT_EQUAL(got, cases[i].traced);
		if (got != cases[i].traced)
			fprintf(stderr, "classify %s: %d\n", cases[i].name, got);
		if (got && cases[i].traced) {
			CU_ASSERT_EQUAL(call, cases[i].call);
			CU_ASSERT_EQUAL(flags, cases[i].flags);
		}
	}
}

static void fresh(void)
{
	pt_parts_fork_child(); /* forget streams and names from earlier tests */
	fake_reset();
}

static const pt_rec_gpu_kernel *kernel_rec(int file, size_t nth)
{
	const fake_rec *r = fake_find(FAKE_FILE0 + file, PT_REC_GPU_KERNEL, nth);
	return r ? (const pt_rec_gpu_kernel *)r->payload : NULL;
}

static uint32_t kernel_def_id(const char *name)
{
	for (size_t i = 0;; i++) {
		const fake_rec *r = fake_find(FAKE_PROCESS, PT_REC_GPU_KERNEL_DEF, i);
		if (!r)
			return 0;
		pt_rec_gpu_kernel_def def;
		memcpy(&def, r->payload, sizeof def);
		if (!strcmp((const char *)r->payload + sizeof def, name))
			return def.kernel;
	}
}

/* A runtime launch (cudaLaunchKernel, correlation 42) that calls the
 * driver's cuLaunchKernel (correlation 43): one host call recorded, the
 * launch carries both ids, and the kernel record on stream 7 joins it. */
static void test_cuda_launch_and_kernel(void)
{
	fresh();
	pt_cuda_clock_sample();
	uint32_t rt = (uint32_t)CUPTI_CB_DOMAIN_RUNTIME_API << 16 | 211;
	uint32_t drv = (uint32_t)CUPTI_CB_DOMAIN_DRIVER_API << 16 | 307;
	uint64_t before = pt_now();
	/* what CUPTI hands the callback for cudaLaunchKernel(f, {128,2}, {256}, 1024 bytes) */
	cudaLaunchKernel_v7000_params rp;
	memset(&rp, 0, sizeof rp);
	rp.gridDim.x = 128, rp.gridDim.y = 2, rp.gridDim.z = 1;
	rp.blockDim.x = 256, rp.blockDim.y = 1, rp.blockDim.z = 1;
	rp.sharedMem = 1024;
	pt_rec_gpu_launch dims;
	int layout = pt_cuda_dims_layout("cudaLaunchKernel");
	CU_ASSERT_EQUAL(layout, PT_CUDA_DIMS_RT);
	CU_ASSERT_EQUAL_FATAL(pt_cuda_launch_dims(layout, &rp, &dims), 0);
	pt_cuda_api_event(1, rt, PT_GPU_CALL_LAUNCH, 0, 42, "_Z4axpyPfS_f", &dims, 0);
	pt_cuda_api_event(1, drv, PT_GPU_CALL_LAUNCH, 0, 43, "_Z4axpyPfS_f", NULL, 0);
	pt_cuda_api_event(0, drv, PT_GPU_CALL_LAUNCH, 0, 43, NULL, NULL, 0);
	pt_cuda_api_event(0, rt, PT_GPU_CALL_LAUNCH, 0, 42, NULL, NULL, 0);

	CU_ASSERT_EQUAL(fake_count(FAKE_THREAD, PT_REC_GPU_API_BEGIN), 1);
	CU_ASSERT_EQUAL(fake_count(FAKE_THREAD, PT_REC_GPU_API_END), 1);
	CU_ASSERT_EQUAL(fake_count(FAKE_THREAD, PT_REC_GPU_LAUNCH), 1);
	const fake_rec *b = fake_find(FAKE_THREAD, PT_REC_GPU_API_BEGIN, 0);
	const fake_rec *l = fake_find(FAKE_THREAD, PT_REC_GPU_LAUNCH, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	const pt_rec_gpu_api *a = (const pt_rec_gpu_api *)b->payload;
	CU_ASSERT_EQUAL(a->func, rt);
	CU_ASSERT_EQUAL(a->correlation, 42);
	CU_ASSERT_EQUAL(b->arg, PT_GPU_API_CUDA);
	const pt_rec_gpu_launch *lr = (const pt_rec_gpu_launch *)l->payload;
	CU_ASSERT_EQUAL(lr->correlation, 42);
	CU_ASSERT_EQUAL(lr->correlation2, 43);
	uint32_t kid = kernel_def_id("_Z4axpyPfS_f");
	CU_ASSERT(kid > 0);
	CU_ASSERT_EQUAL(lr->kernel, kid);
	CU_ASSERT_EQUAL(lr->grid[0], 128);
	CU_ASSERT_EQUAL(lr->grid[1], 2);
	CU_ASSERT_EQUAL(lr->block[0], 256);
	CU_ASSERT_EQUAL(lr->shared_mem, 1024);

	/* The device ran it 10..30 us after the launch (CUPTI ns = CLOCK_MONOTONIC). */
	uint64_t now_ns = fake_mono_ns();
	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.start = now_ns + 10000;
	k.end = now_ns + 30000;
	k.deviceId = 0;
	k.streamId = 7;
	k.correlationId = 42;
	k.gridX = 128, k.gridY = 2, k.gridZ = 1;
	k.blockX = 256, k.blockY = 1, k.blockZ = 1;
	k.dynamicSharedMemory = 1024;
	k.staticSharedMemory = 512;
	k.name = "_Z4axpyPfS_f";
	pt_cuda_clock_sample();
	pt_cuda_activity((const CUpti_Activity *)&k);

	int f = fake_file_index("gcuda0-7.ptl");
	CU_ASSERT_FATAL(f >= 0);
	CU_ASSERT_EQUAL(fake_files[f].kind, PT_FILE_GPU);
	CU_ASSERT_EQUAL(fake_files[f].stream, 7);
	const fake_rec *def = fake_find(FAKE_FILE0 + f, PT_REC_GPU_STREAM_DEF, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(def);
	CU_ASSERT_EQUAL(def, &fake_recs[def - fake_recs]);
	const pt_rec_gpu_stream_def *sd = (const pt_rec_gpu_stream_def *)def->payload;
	CU_ASSERT_EQUAL(sd->stream, 7);
	CU_ASSERT_EQUAL(sd->device, 0);
	const pt_rec_gpu_kernel *kr = kernel_rec(f, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(kr);
	CU_ASSERT_EQUAL(kr->correlation, 42);
	CU_ASSERT_EQUAL(kr->kernel, kid); /* same name, same id as the launch */
	CU_ASSERT_EQUAL(kr->grid[0], 128);
	CU_ASSERT_EQUAL(kr->grid[1], 2);
	CU_ASSERT_EQUAL(kr->block[0], 256);
	CU_ASSERT_EQUAL(kr->shared_mem, 1536);
	/* clock: ticks = 2 * ns + 1000 in the fake runtime, within 1 us */
	int64_t es = sdiff(kr->start, fake_ticks_of_ns(k.start));
	int64_t ee = sdiff(kr->end, fake_ticks_of_ns(k.end));
	CU_ASSERT(es > -2000 && es < 2000);
	CU_ASSERT(ee > -2000 && ee < 2000);
	CU_ASSERT(kr->start > before);
	/* 20 us at 2 ticks/ns: 40000 ticks, within 1% (the mapping's rate is
	 * fitted on clock samples taken as the test runs, so not exact; an
	 * exact "/ 1000 == 40" failed on 39999 under load) */
	int64_t dur = sdiff(kr->end, kr->start);
	CU_ASSERT(dur > 39600 && dur < 40400);
}

/* Copies and memsets land on their own stream's log, with direction and
 * bytes; a second stream gets a second log; graph kernels sharing one
 * correlation id all stay. */
static void test_cuda_streams_and_copies(void)
{
	fresh();
	pt_cuda_clock_sample();
	uint64_t now_ns = fake_mono_ns();
	CUpti_ActivityMemcpy6 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	m.bytes = 1 << 20;
	m.start = now_ns + 1000;
	m.end = now_ns + 101000;
	m.deviceId = 1;
	m.streamId = 13;
	m.correlationId = 77;
	pt_cuda_activity((const CUpti_Activity *)&m);
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
	m.start += 200000, m.end += 200000;
	m.correlationId = 78;
	pt_cuda_activity((const CUpti_Activity *)&m);

	CUpti_ActivityMemset4 s;
	memset(&s, 0, sizeof s);
	s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	s.bytes = 4096;
	s.start = now_ns + 500000;
	s.end = now_ns + 501000;
	s.deviceId = 1;
	s.streamId = 14;
	s.correlationId = 79;
	pt_cuda_activity((const CUpti_Activity *)&s);

	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.deviceId = 1;
	k.streamId = 14;
	k.correlationId = 90; /* a graph launch: several kernels, one id */
	k.name = "graph_node";
	for (int i = 0; i < 3; i++) {
		k.start = now_ns + 600000 + (uint64_t)i * 10000;
		k.end = k.start + 5000;
		pt_cuda_activity((const CUpti_Activity *)&k);
	}
	/* an activity kind we do not convert */
	CUpti_Activity other = {.kind = CUPTI_ACTIVITY_KIND_NAME};
	pt_cuda_activity(&other);

	int f13 = fake_file_index("gcuda1-13.ptl"), f14 = fake_file_index("gcuda1-14.ptl");
	CU_ASSERT_FATAL(f13 >= 0 && f14 >= 0);
	CU_ASSERT_EQUAL(fake_nfiles, 2);
	CU_ASSERT_EQUAL(fake_files[f13].stream, 13);
	CU_ASSERT_EQUAL(fake_count(FAKE_FILE0 + f13, PT_REC_GPU_MEMCPY), 2);
	const pt_rec_gpu_copy *c0 =
		(const pt_rec_gpu_copy *)fake_find(FAKE_FILE0 + f13, PT_REC_GPU_MEMCPY, 0)->payload;
	const pt_rec_gpu_copy *c1 =
		(const pt_rec_gpu_copy *)fake_find(FAKE_FILE0 + f13, PT_REC_GPU_MEMCPY, 1)->payload;
	CU_ASSERT_EQUAL(c0->direction, PT_GPU_COPY_HTOD);
	CU_ASSERT_EQUAL(c1->direction, PT_GPU_COPY_DTOH);
	CU_ASSERT_EQUAL(c0->bytes, 1 << 20);
	CU_ASSERT_EQUAL(c0->correlation, 77);
	CU_ASSERT_EQUAL(c1->correlation, 78);
	CU_ASSERT(c1->start > c0->end);
	CU_ASSERT_EQUAL(fake_count(FAKE_FILE0 + f14, PT_REC_GPU_MEMSET), 1);
	const pt_rec_gpu_copy *ms =
		(const pt_rec_gpu_copy *)fake_find(FAKE_FILE0 + f14, PT_REC_GPU_MEMSET, 0)->payload;
	CU_ASSERT_EQUAL(ms->direction, PT_GPU_COPY_MEMSET);
	CU_ASSERT_EQUAL(ms->bytes, 4096);
	CU_ASSERT_EQUAL(fake_count(FAKE_FILE0 + f14, PT_REC_GPU_KERNEL), 3);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(kernel_rec(f14, (size_t)i)->correlation, 90);
	CU_ASSERT_EQUAL(fake_files[f13].out_of_order + fake_files[f14].out_of_order, 0);
	/* one definition per kernel name */
	CU_ASSERT_EQUAL(fake_count(FAKE_PROCESS, PT_REC_GPU_KERNEL_DEF), 1);
}

/* Launch sizes from each parameter layout; unknown functions have none. */
static void test_cuda_launch_dims(void)
{
	CU_ASSERT_EQUAL(pt_cuda_dims_layout("cudaLaunchKernel_ptsz"), PT_CUDA_DIMS_RT);
	CU_ASSERT_EQUAL(pt_cuda_dims_layout("cudaLaunchCooperativeKernel_v9000"), PT_CUDA_DIMS_RT);
	CU_ASSERT_EQUAL(pt_cuda_dims_layout("cudaLaunchKernelExC"), PT_CUDA_DIMS_RT_EX);
	CU_ASSERT_EQUAL(pt_cuda_dims_layout("cuLaunchKernel_ptsz"), PT_CUDA_DIMS_DRV);
	CU_ASSERT_EQUAL(pt_cuda_dims_layout("cuLaunchKernelEx"), PT_CUDA_DIMS_DRV_EX);
	CU_ASSERT_EQUAL(pt_cuda_dims_layout("cudaGraphLaunch"), PT_CUDA_DIMS_NONE);
	CU_ASSERT_EQUAL(pt_cuda_dims_layout("cuLaunchKernelExtra"), PT_CUDA_DIMS_NONE);

	pt_rec_gpu_launch l;
	CUlaunchConfig cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.gridDimX = 7, cfg.gridDimY = 5, cfg.gridDimZ = 3;
	cfg.blockDimX = 32, cfg.blockDimY = 4, cfg.blockDimZ = 2;
	cfg.sharedMemBytes = 4096;
	struct {
		const CUlaunchConfig *config;
		CUfunction f;
		void **kernelParams, **extra;
	} ex = {&cfg, NULL, NULL, NULL}; /* cuLaunchKernelEx_params */
	memset(&l, 0, sizeof l);
	CU_ASSERT_EQUAL_FATAL(pt_cuda_launch_dims(PT_CUDA_DIMS_DRV_EX, &ex, &l), 0);
	CU_ASSERT(l.grid[0] == 7 && l.grid[1] == 5 && l.grid[2] == 3);
	CU_ASSERT(l.block[0] == 32 && l.block[1] == 4 && l.block[2] == 2);
	CU_ASSERT_EQUAL(l.shared_mem, 4096);

	struct {
		CUfunction f;
		unsigned gx, gy, gz, bx, by, bz, shmem;
		CUstream s;
		void **kernelParams, **extra;
	} drv = {NULL, 9, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL}; /* cuLaunchKernel_params */
	memset(&l, 0, sizeof l);
	CU_ASSERT_EQUAL_FATAL(pt_cuda_launch_dims(PT_CUDA_DIMS_DRV, &drv, &l), 0);
	CU_ASSERT(l.grid[0] == 9 && l.block[0] == 64 && l.shared_mem == 0);

	cudaLaunchConfig_t rc;
	memset(&rc, 0, sizeof rc);
	rc.gridDim.x = 11, rc.gridDim.y = 1, rc.gridDim.z = 1;
	rc.blockDim.x = 128, rc.blockDim.y = 1, rc.blockDim.z = 1;
	rc.dynamicSmemBytes = 256;
	cudaLaunchKernelExC_v11060_params rex = {&rc, NULL, NULL};
	memset(&l, 0, sizeof l);
	CU_ASSERT_EQUAL_FATAL(pt_cuda_launch_dims(PT_CUDA_DIMS_RT_EX, &rex, &l), 0);
	CU_ASSERT(l.grid[0] == 11 && l.block[0] == 128 && l.shared_mem == 256);

	rex.config = NULL;
	CU_ASSERT_EQUAL(pt_cuda_launch_dims(PT_CUDA_DIMS_RT_EX, &rex, &l), -1);
	CU_ASSERT_EQUAL(pt_cuda_launch_dims(PT_CUDA_DIMS_RT, NULL, &l), -1);
	CU_ASSERT_EQUAL(pt_cuda_launch_dims(PT_CUDA_DIMS_NONE, &drv, &l), -1);
}

/* A sync call the host thread waits in: flags survive to API_END, result
 * is kept; a call nested in it is not written. */
static void test_cuda_sync_call(void)
{
	fresh();
	uint32_t f = (uint32_t)CUPTI_CB_DOMAIN_RUNTIME_API << 16 | 165;
	pt_cuda_api_event(1, f, PT_GPU_CALL_DEVICE_SYNC, PT_GPU_CALL_F_SYNC, 5, NULL, NULL, 0);
	pt_cuda_api_event(1, 7 | 1u << 16, PT_GPU_CALL_DEVICE_SYNC, PT_GPU_CALL_F_SYNC, 6, NULL, NULL, 0);
	pt_cuda_api_event(0, 7 | 1u << 16, PT_GPU_CALL_DEVICE_SYNC, PT_GPU_CALL_F_SYNC, 6, NULL, NULL, 0);
	pt_cuda_api_event(0, f, PT_GPU_CALL_DEVICE_SYNC, PT_GPU_CALL_F_SYNC, 5, NULL, NULL, 700);
	CU_ASSERT_EQUAL(fake_count(FAKE_THREAD, PT_REC_GPU_API_BEGIN), 1);
	CU_ASSERT_EQUAL(fake_count(FAKE_THREAD, PT_REC_GPU_LAUNCH), 0);
	const fake_rec *e = fake_find(FAKE_THREAD, PT_REC_GPU_API_END, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	const pt_rec_gpu_api *a = (const pt_rec_gpu_api *)e->payload;
	CU_ASSERT_EQUAL(a->func, f);
	CU_ASSERT_EQUAL(a->flags, PT_GPU_CALL_F_SYNC);
	CU_ASSERT_EQUAL(a->result, 700);
	CU_ASSERT_EQUAL(a->correlation, 5);
}
#endif /* PT_WITH_CUPTI */

int main(void)
{
	fake_auto_thread = 1; /* gpu/ records on whatever thread calls it */
	pt_parts_collect();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("gpu", NULL, NULL);
	CU_add_test(s, "clock_map", test_clock_map);
	CU_add_test(s, "clock_keeps_tightest_bracket", test_clock_keeps_tightest_bracket);
	CU_add_test(s, "clock_follows_drift", test_clock_follows_drift);
	CU_add_test(s, "clock_rate_matches_host", test_clock_rate_matches_host);
	CU_add_test(s, "clock_converts_device_times", test_clock_converts_device_times);
	CU_add_test(s, "shutdown_in_signal_skips_held_locks", test_shutdown_in_signal_skips_held_locks);
#ifdef PT_WITH_CUPTI
	CU_add_test(s, "cuda_classify", test_cuda_classify);
	CU_add_test(s, "cuda_launch_and_kernel", test_cuda_launch_and_kernel);
	CU_add_test(s, "cuda_streams_and_copies", test_cuda_streams_and_copies);
	CU_add_test(s, "cuda_launch_dims", test_cuda_launch_dims);
	CU_add_test(s, "cuda_sync_call", test_cuda_sync_call);
#endif
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
