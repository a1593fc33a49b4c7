/* SPDX-License-Identifier: MIT */
/* CUDA tracing through CUPTI, loaded lazily with dlopen.
 *
 * Why CUPTI and not interposition: nvcc binaries reach the driver through
 * cuGetProcAddress, so no cu* symbol is ever bound through the PLT (see
 * docs/GPU.md). CUPTI sees every launch path (chevrons with static or shared
 * cudart, driver API, cuLaunchKernelEx, _ptsz, cooperative, graphs, library
 * kernels).
 *
 * When: libcupti is dlopen'ed only once libcuda is mapped (this part's init,
 * or its modules_changed after a dlopen) or when CUDA calls our exported
 * InitializeInjection (CUDA_INJECTION64_PATH=libtrace.so). A program that
 * never loads libcuda never maps libcupti.
 *
 * Host side: callbacks on the calling thread write GPU_API_BEGIN/END (and
 * GPU_LAUNCH for launches) for the outermost traced call only; a driver
 * call made by a runtime call adds its correlation id to the launch as
 * correlation2. Device side: activity records (concurrent kernels, memcpy,
 * memset) delivered in buffers on CUPTI's thread go to one GPU log per
 * (device, stream), joined to launches by correlation id in the analyzer.
 * Clock: CUPTI takes its timestamps from our callback (CLOCK_MONOTONIC ns,
 * GPU times interpolated by CUPTI), which we map to trace ticks.
 * Built only with PT_WITH_CUPTI (the CUPTI headers; libcupti itself is
 * found at run time). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr */
#endif
#include "gpu_internal.h"

#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_activity.h"
#include "cuda_kprof.h"

static struct {
	__typeof__(cuptiSubscribe) *subscribe;
	__typeof__(cuptiUnsubscribe) *unsubscribe;
	__typeof__(cuptiEnableDomain) *enable_domain;
	__typeof__(cuptiEnableCallback) *enable_callback;
	__typeof__(cuptiActivityEnable) *activity_enable;
	__typeof__(cuptiActivityRegisterCallbacks) *register_callbacks;
	__typeof__(cuptiActivityRegisterTimestampCallback) *register_timestamp;
	__typeof__(cuptiActivityGetNextRecord) *next_record;
	__typeof__(cuptiActivityGetNumDroppedRecords) *dropped;
	__typeof__(cuptiActivityFlushAll) *flush_all;
	__typeof__(cuptiGetResultString) *result_string;
	__typeof__(cuptiGetStreamIdEx) *stream_id;
	__typeof__(cuptiGetDeviceId) *device_id;
} cu;

enum { ST_IDLE, ST_ATTACHING, ST_ATTACHED, ST_FAILED };
static _Atomic int state = ST_IDLE;
static void *cupti_handle;
static CUpti_SubscriberHandle subscriber;

/* ---- activity buffers ----------------------------------------------------- */

#define BUF_SIZE (1u << 20)
#define BUF_ALIGN 8

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(BUF_ALIGN, BUF_SIZE);
	*size = *buffer ? BUF_SIZE : 0;
	*max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer, size_t size,
				      size_t valid)
{
	(void)stream_id;
	pt_cuda_clock_sample();
	CUpti_Activity *rec = NULL;
	while (valid && cu.next_record(buffer, valid, &rec) == CUPTI_SUCCESS)
		pt_cuda_activity(rec);
	size_t dropped = 0;
	if (cu.dropped && cu.dropped(ctx, stream_id, &dropped) == CUPTI_SUCCESS && dropped) {
		static _Atomic int warned;
		if (!atomic_exchange(&warned, 1))
			pt_warn("CUPTI dropped %zu GPU activity records (buffers full)", dropped);
	}
	(void)size;
	free(buffer);
}

/* ---- callbacks ------------------------------------------------------------ */

/* Classification of each callback id, learnt from its function name on
 * first sight (0 = not seen yet). Domains: driver 1, runtime 2. */
#define MAX_CBID 4096
static _Atomic uint32_t cls_cache[3][MAX_CBID];
#define CLS_SEEN 0x80000000u
#define CLS_TRACED 0x40000000u
/* below: layout (PT_CUDA_DIMS_*) << 24 | flags << 16 | call */

static uint32_t classify(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char *name)
{
	if (domain > 2 || cbid >= MAX_CBID)
		return CLS_SEEN;
	uint32_t c = atomic_load_explicit(&cls_cache[domain][cbid], memory_order_relaxed);
	if (c)
		return c;
	uint16_t call, flags;
	c = CLS_SEEN;
	if (name && pt_cuda_classify(name, &call, &flags))
		c |= CLS_TRACED | (uint32_t)pt_cuda_dims_layout(name) << 24 | (uint32_t)(flags & 0xff) << 16 |
		     call;
	if (c & CLS_TRACED)
		pt_gpu_func_define(PT_GPU_API_CUDA, (uint32_t)domain << 16 | cbid, name);
	atomic_store_explicit(&cls_cache[domain][cbid], c, memory_order_relaxed);
	return c;
}

static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				 const void *data)
{
	(void)ud;
	if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED)
		pt_cuda_graph_node_created();
	if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API)
		return;
	const CUpti_CallbackData *cb = data;
	int saved = errno; /* runs inside the program's CUDA call */
	/* Kernel profiling's own calls (in a launch's callback) are not the
	 * program's: nor are their copies and fills on the device. */
	if (pt_cuda_kprof_busy()) {
		if (cb->callbackSite == CUPTI_API_ENTER)
			pt_cuda_kprof_ignore(cb->correlationId);
		errno = saved;
		return;
	}
	uint32_t c = classify(domain, cbid, cb->functionName);
	if (!(c & CLS_TRACED)) {
		errno = saved;
		return;
	}
	int enter = cb->callbackSite == CUPTI_API_ENTER;
	pt_rec_gpu_launch dims, *dp = NULL;
	int layout = (int)(c >> 24 & 0xf);
	if (enter && layout && pt_cuda_launch_dims(layout, cb->functionParams, &dims) == 0)
		dp = &dims;
	int result = !enter && cb->functionReturnValue ? *(const int *)cb->functionReturnValue : 0;
	pt_cuda_api_event(enter, (uint32_t)domain << 16 | cbid, (uint16_t)(c & 0xffff), (uint16_t)(c >> 16 & 0xff),
			  cb->correlationId, cb->symbolName, dp, result);
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && (layout == PT_CUDA_DIMS_DRV || layout == PT_CUDA_DIMS_DRV_EX))
		pt_cuda_kprof_launch(enter, layout, cb->functionName && strstr(cb->functionName, "_ptsz") != NULL,
				     cb->functionParams, cb->context, cb->correlationId, cb->symbolName, result);
	else if (!enter && (c >> 16 & (PT_GPU_CALL_F_SYNC | PT_GPU_CALL_F_TRANSFER)))
		pt_cuda_kprof_poll();
	errno = saved;
}

/* ---- attach --------------------------------------------------------------- */

static int find_libcuda(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	const char *base = strrchr(info->dlpi_name, '/');
	base = base ? base + 1 : info->dlpi_name;
	if (!strncmp(base, "libcuda.so", 10)) {
		*(int *)data = 1;
		return 1;
	}
	return 0;
}

/* PARATRACE_CUPTI, when set, is the only candidate (a user who names a
 * library means that one); otherwise the usual names and CUDA locations. */
static void *open_cupti(void)
{
	const char *env = pt_config_get()->cupti;
	if (env && *env) {
		void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			pt_warn("PARATRACE_CUPTI=%s cannot be loaded (%s)", env, dlerror());
		return h;
	}
	static const char *const candidates[] = {
		"libcupti.so",
		"libcupti.so.13",
		"libcupti.so.12",
		"/usr/local/cuda/lib/libcupti.so",
		"/usr/local/cuda/lib64/libcupti.so",
		"/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
	};
	for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
		void *h = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
		if (h)
			return h;
	}
	return NULL;
}

static const char *result_str(CUptiResult r)
{
	const char *s = NULL;
	if (cu.result_string)
		cu.result_string(r, &s);
	return s ? s : "unknown CUPTI error";
}

static void flush_at_exit(void)
{
	if (atomic_load(&state) == ST_ATTACHED)
		cu.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

/* For kernel profiling: CUPTI's ids of a stream and of a context's device. */
static int kprof_stream_id(void *ctx, void *stream, int per_thread, uint32_t *id)
{
	return cu.stream_id((CUcontext)ctx, (CUstream)stream, (uint8_t)per_thread, id) == CUPTI_SUCCESS ? 0 : -1;
}

static int kprof_device_id(void *ctx, uint32_t *dev)
{
	return cu.device_id((CUcontext)ctx, dev) == CUPTI_SUCCESS ? 0 : -1;
}

/* Loads libcupti and subscribes; on any failure: one warning, host tracing
 * goes on without GPU records. */
static void attach(void)
{
	int expected = ST_IDLE;
	if (!atomic_compare_exchange_strong(&state, &expected, ST_ATTACHING))
		return;
	cupti_handle = open_cupti();
	if (!cupti_handle) {
		const char *env = pt_config_get()->cupti;
		if (!env || !*env) /* otherwise open_cupti said why */
			pt_warn("CUDA is in use but libcupti could not be found (set PARATRACE_CUPTI to "
				"its path); CUDA kernels are not traced");
		atomic_store(&state, ST_FAILED);
		return;
	}
#define LOAD(field, sym) cu.field = (__typeof__(cu.field))dlsym(cupti_handle, #sym)
	LOAD(subscribe, cuptiSubscribe);
	LOAD(unsubscribe, cuptiUnsubscribe);
	LOAD(enable_domain, cuptiEnableDomain);
	LOAD(enable_callback, cuptiEnableCallback);
	LOAD(activity_enable, cuptiActivityEnable);
	LOAD(register_callbacks, cuptiActivityRegisterCallbacks);
	LOAD(register_timestamp, cuptiActivityRegisterTimestampCallback);
	LOAD(next_record, cuptiActivityGetNextRecord);
	LOAD(dropped, cuptiActivityGetNumDroppedRecords);
	LOAD(flush_all, cuptiActivityFlushAll);
	LOAD(result_string, cuptiGetResultString);
	LOAD(stream_id, cuptiGetStreamIdEx);
	LOAD(device_id, cuptiGetDeviceId);
#undef LOAD
	if (!cu.subscribe || !cu.enable_domain || !cu.activity_enable || !cu.register_callbacks ||
	    !cu.next_record || !cu.flush_all) {
		pt_warn("libcupti lacks the functions paratrace needs; CUDA kernels are not traced");
		atomic_store(&state, ST_FAILED);
		return;
	}
	CUptiResult r = cu.subscribe(&subscriber, on_callback, NULL);
	if (r != CUPTI_SUCCESS) {
		/* Typically another profiler (Nsight Systems) owns CUPTI. */
		pt_warn("cannot subscribe to CUPTI (%s); CUDA is not traced, host tracing continues",
			result_str(r));
		atomic_store(&state, ST_FAILED);
		return;
	}
	pt_cuda_clock_sample();
	if (cu.register_timestamp && cu.register_timestamp(pt_cuda_timestamp) != CUPTI_SUCCESS)
		pt_debug(1, "CUPTI timestamp callback refused; GPU times may be off");
	cu.enable_domain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
	cu.enable_domain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
	if (cu.enable_callback)
		cu.enable_callback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
				   CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED);
	cu.register_callbacks(buffer_requested, buffer_completed);
	const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
					    CUPTI_ACTIVITY_KIND_MEMSET};
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if ((r = cu.activity_enable(kinds[i])) != CUPTI_SUCCESS)
			pt_warn("CUPTI activity kind %d not enabled (%s)", (int)kinds[i], result_str(r));
	if (cu.stream_id && cu.device_id) {
		static const pt_cuda_kprof_ops kops = {kprof_stream_id, kprof_device_id};
		pt_cuda_kprof_setup(&kops);
	}
	pt_debug(1, "CUPTI attached");
	atomic_store(&state, ST_ATTACHED);
	/* Exit handlers run in reverse order of registration: this one, made
	 * when CUDA is first loaded, runs before the runtime's shutdown closes
	 * the logs, so device records still buffered in CUPTI land in them.
	 * cuda_shutdown flushes again (nothing left by then). */
	atexit(flush_at_exit);
}

/* At init and after every dlopen/dlclose: attaches once libcuda is there. */
static void attach_if_cuda(void)
{
	const pt_config *c = pt_config_get();
	if (!c || !c->gpu || atomic_load(&state) != ST_IDLE)
		return;
	int found = 0;
	dl_iterate_phdr(find_libcuda, &found);
	if (found)
		attach();
}

/* CUDA_INJECTION64_PATH=/path/to/libtrace.so makes libcuda call this from
 * cuInit, whatever way the program reached the driver. */
PT_EXPORT int InitializeInjection(void)
{
	const pt_config *c = pt_config_get();
	if (c && c->gpu)
		attach();
	return 1;
}

/* Not from a fatal signal's handler: CUPTI takes its own locks, which the
 * thread that crashed may hold; its buffered records are lost then. */
static void cuda_shutdown(int in_signal)
{
	if (in_signal || atomic_load(&state) != ST_ATTACHED)
		return;
	/* Delivers every buffered record (on this thread) before logs close. */
	cu.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

static void cuda_fork_child(void)
{
	/* CUDA cannot be used in a fork child of a process that initialised it;
	 * nothing of the parent's subscription is ours to flush there. */
	if (atomic_load(&state) == ST_ATTACHED)
		atomic_store(&state, ST_FAILED);
	pt_cuda_fork_child();
}

PT_SUBSYSTEM(cuda_part) = {
	.name = "cuda",
	.order = PT_ORDER_GPU_API,
	.init = attach_if_cuda,
	.fork_child = cuda_fork_child,
	.modules_changed = attach_if_cuda,
	.shutdown = cuda_shutdown,
};
