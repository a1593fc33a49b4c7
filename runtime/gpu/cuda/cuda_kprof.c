/* SPDX-License-Identifier: MIT */
/* CUDA kernel profiling (PARATRACE_GPU_KERNELS=entries|blocks) for kernels
 * compiled by clang with instrument.so (cuda_kprof.h).
 *
 * Such a kernel K dispatches on its device global __paratrace_prof_K: 0 runs
 * the original code, else the slot holds the address of a profile buffer
 * (ORed with PT_GPU_SLOT_BLOCKS for block counters). At the entry of a
 * driver-level launch of K (CUPTI callback on the launching thread), on the
 * launch's stream: the buffer is zeroed and the slot pointed at it; at the
 * exit: the buffer is copied to pinned host memory, the slot set back to 0,
 * and an event recorded; once it has completed the GPU_PROF record is
 * written (the launch's correlation id, the stream's GPU log), seen at the
 * next profiled launch, after a call that waits for the device, or at exit
 * (poll_pending). Everything is stream ordered: nothing waits on the host.
 * K's table (__paratrace_tab_K) is read once per function, at its first
 * launch, and announced as GPU_PROF_DEF.
 *
 * The slot is one per kernel: a launch on another stream than K's previous
 * profiled launch, still running, makes its stream wait for that one.
 * Limits: two host threads launching K at the same instant can still mix
 * their profiles; kernels launched inside a CUDA graph run their original
 * code (the slot is 0 outside a launch). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cuda_kprof.h"

#include "cuda_activity.h"
#include "kprof.h"

#include <cupti.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the driver, as libcuda exports it ----------------------------------------- */

static struct {
	CUresult (*func_get_module)(CUmodule *, CUfunction);
	CUresult (*module_get_global)(CUdeviceptr *, size_t *, CUmodule, const char *);
	CUresult (*memcpy_dtoh)(void *, CUdeviceptr, size_t);
	CUresult (*mem_alloc)(CUdeviceptr *, size_t);
	CUresult (*mem_alloc_host)(void **, size_t);
	CUresult (*memset_d8_async)(CUdeviceptr, unsigned char, size_t, CUstream);
	CUresult (*memcpy_dtoh_async)(void *, CUdeviceptr, size_t, CUstream);
	CUresult (*memcpy_htod_async)(CUdeviceptr, const void *, size_t, CUstream);
	CUresult (*event_create)(CUevent *, unsigned);
	CUresult (*event_record)(CUevent, CUstream);
	CUresult (*event_query)(CUevent);
	CUresult (*event_synchronize)(CUevent);
	CUresult (*stream_wait_event)(CUstream, CUevent, unsigned);
} drv;

static pt_spin setup_lock;
static int drv_state; /* 0 not tried, 1 ready, -1 unusable */
static pt_cuda_kprof_ops ops;

void pt_cuda_kprof_setup(const pt_cuda_kprof_ops *o)
{
	pt_spin_lock(&setup_lock);
	ops = *o;
	pt_spin_unlock(&setup_lock);
}

static int drv_ready(void)
{
	pt_spin_lock(&setup_lock);
	if (!drv_state) {
		void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
#define LOAD(field, sym) drv.field = h ? (__typeof__(drv.field))dlsym(h, #sym) : NULL
		LOAD(func_get_module, cuFuncGetModule);
		LOAD(module_get_global, cuModuleGetGlobal_v2);
		LOAD(memcpy_dtoh, cuMemcpyDtoH_v2);
		LOAD(mem_alloc, cuMemAlloc_v2);
		LOAD(mem_alloc_host, cuMemAllocHost_v2);
		LOAD(memset_d8_async, cuMemsetD8Async);
		LOAD(memcpy_dtoh_async, cuMemcpyDtoHAsync_v2);
		LOAD(memcpy_htod_async, cuMemcpyHtoDAsync_v2);
		LOAD(event_create, cuEventCreate);
		LOAD(event_record, cuEventRecord);
		LOAD(event_query, cuEventQuery);
		LOAD(event_synchronize, cuEventSynchronize);
		LOAD(stream_wait_event, cuStreamWaitEvent);
#undef LOAD
		int ok = drv.func_get_module && drv.module_get_global && drv.memcpy_dtoh &&
		         drv.mem_alloc && drv.mem_alloc_host && drv.memset_d8_async &&
		         drv.memcpy_dtoh_async && drv.memcpy_htod_async && drv.event_create &&
		         drv.event_record && drv.event_query && drv.event_synchronize &&
		         drv.stream_wait_event &&
		         ops.stream_id && ops.device_id;
		drv_state = ok ? 1 : -1;
		if (!ok)
			pt_warn(
			    "the CUDA driver lacks what kernel profiling needs (cuFuncGetModule: "
			    "CUDA 12 or later); CUDA kernels are not profiled");
		/* the handle stays: libcuda is never unloaded while CUDA is used */
	}
	int r = drv_state;
	pt_spin_unlock(&setup_lock);
	return r == 1;
}

/* ---- our own CUDA calls ---------------------------------------------------------- */

static __thread __attribute__((tls_model("initial-exec"))) int busy;

int pt_cuda_kprof_busy(void)
{
	return busy;
}

/* Correlation ids of our calls, until their activity record comes:
 * open addressing, 0 = free, 1 = deleted. */
#define IGNORE_SLOTS 65536
static pt_spin ignore_lock;
static uint32_t ignore_set[IGNORE_SLOTS];
static uint32_t ignore_used;

void pt_cuda_kprof_ignore(uint32_t corr)
{
	if (corr < 2)
		return;
	pt_spin_lock(&ignore_lock);
	if (ignore_used < IGNORE_SLOTS / 2) {
		uint32_t i = (corr * 2654435761u) % IGNORE_SLOTS;
		while (ignore_set[i] > 1 && ignore_set[i] != corr)
			i = (i + 1) % IGNORE_SLOTS;
		if (ignore_set[i] != corr) {
			ignore_set[i] = corr;
			ignore_used++;
		}
	}
	pt_spin_unlock(&ignore_lock);
}

int pt_cuda_kprof_ignored(uint32_t corr)
{
	if (corr < 2 || !__atomic_load_n(&ignore_used, __ATOMIC_RELAXED))
		return 0;
	int found = 0;
	pt_spin_lock(&ignore_lock);
	for (uint32_t i = (corr * 2654435761u) % IGNORE_SLOTS, n = 0;
	     ignore_set[i] && n < IGNORE_SLOTS; i = (i + 1) % IGNORE_SLOTS, n++)
		if (ignore_set[i] == corr) {
			/* deleted, not free: later entries of the chain stay found */
			ignore_set[i] = 1;
			found = 1;
			break;
		}
	if (found && --ignore_used == 0)
		memset(ignore_set, 0, sizeof ignore_set);
	pt_spin_unlock(&ignore_lock);
	return found;
}

/* ---- kernels ------------------------------------------------------------------- */

typedef struct kp_func {
	CUfunction f;
	int state; /* 1 instrumented, -1 not */
	CUdeviceptr slot;
	uint32_t prof, nblocks;
	int blocks; /* the version with block counters */
	/* its last profiled launch: the event after its read-back, its stream
	 * (under funcs_lock) */
	CUevent last_done;
	CUstream last_stream;
	struct kp_func *next;
} kp_func;

#define FUNC_BUCKETS 256
static pt_spin funcs_lock;
static kp_func *funcs[FUNC_BUCKETS];

static unsigned func_bucket(CUfunction f)
{
	return (unsigned)(((uintptr_t)f >> 4) * 2654435761u % FUNC_BUCKETS);
}

/* Reads K's slot and table at its first launch; NULL if K is not
 * instrumented (or cannot be profiled). Runs with `busy` set. */
static kp_func *func_get(CUfunction f, void *ctx, const char *symbol, int mode)
{
	unsigned b = func_bucket(f);
	pt_spin_lock(&funcs_lock);
	kp_func *e;
	for (e = funcs[b]; e; e = e->next)
		if (e->f == f)
			break;
	pt_spin_unlock(&funcs_lock);
	if (e)
		return e->state == 1 ? e : NULL;
	if (!(e = calloc(1, sizeof *e)))
		return NULL;
	e->f = f;
	e->state = -1;
	CUmodule mod;
	CUdeviceptr tab = 0;
	size_t slot_size = 0, tab_size = 0;
	char name[1024];
	if (symbol && drv.func_get_module(&mod, f) == CUDA_SUCCESS &&
	    snprintf(name, sizeof name, "%s%s", PT_GPU_SLOT_PREFIX, symbol) < (int)sizeof name &&
	    drv.module_get_global(&e->slot, &slot_size, mod, name) == CUDA_SUCCESS &&
	    slot_size == 8 &&
	    snprintf(name, sizeof name, "%s%s", PT_GPU_TABLE_PREFIX, symbol) < (int)sizeof name &&
	    drv.module_get_global(&tab, &tab_size, mod, name) == CUDA_SUCCESS && tab_size &&
	    tab_size < (1u << 24)) {
		char *text = malloc(tab_size);
		pt_kprof_table t;
		const char *why = NULL;
		if (text && drv.memcpy_dtoh(text, tab, tab_size) == CUDA_SUCCESS &&
		    pt_kprof_parse(text, strnlen(text, tab_size), &t, &why) == 0) {
			const pt_kprof_kernel *k = NULL;
			if (mode == PT_GPU_KERNELS_BLOCKS)
				k = pt_kprof_find(&t, symbol, 'b');
			if (!k)
				k = pt_kprof_find(&t, symbol, 'e');
			if (k && (e->prof = pt_kprof_define(PT_GPU_API_CUDA, &t, k, 1))) {
				e->nblocks = k->mode == 'b' ? k->nblocks : 0;
				e->blocks = k->mode == 'b';
				e->state = 1;
			}
			pt_kprof_table_free(&t);
		} else if (why) {
			pt_debug(1, "CUDA kernel %s: its paratrace table cannot be read (%s)",
			         symbol, why);
		}
		free(text);
	}
	(void)ctx;
	pt_spin_lock(&funcs_lock);
	e->next = funcs[b];
	funcs[b] = e;
	pt_spin_unlock(&funcs_lock);
	return e->state == 1 ? e : NULL;
}

/* ---- profile buffers ---------------------------------------------------------------- */

/* A device buffer and its pinned host copy, followed by the two values a
 * kernel's slot is set to around the launch (pinned: the stream copies them
 * when it gets there), and the event recorded once the copy back is done;
 * kept for reuse (device memory belongs to a context: reused only there). */
typedef struct kp_buf {
	void *ctx;
	size_t bytes;
	CUdeviceptr dev;
	uint64_t *host;
	uint64_t *slot_values; /* [0] during the launch, [1] = 0 after */
	CUevent done;
	/* what the record needs */
	uint32_t prof, nblocks;
	uint64_t correlation;
	pt_gpu_stream *stream;
	struct kp_buf *next;
} kp_buf;

static pt_spin pool_lock;
static kp_buf *pool;
static _Atomic long kp_pending;
/* read-backs under way, oldest first */
static pt_spin pending_lock;
static kp_buf *pending, **pending_tail = &pending;

static kp_buf *buf_get(void *ctx, size_t bytes)
{
	pt_spin_lock(&pool_lock);
	kp_buf **pp, *b = NULL;
	for (pp = &pool; *pp; pp = &(*pp)->next)
		if ((*pp)->ctx == ctx && (*pp)->bytes == bytes) {
			b = *pp;
			*pp = b->next;
			break;
		}
	pt_spin_unlock(&pool_lock);
	if (b)
		return b;
	if (!(b = calloc(1, sizeof *b)))
		return NULL;
	b->ctx = ctx;
	b->bytes = bytes;
	void *host = NULL;
	if (drv.mem_alloc(&b->dev, bytes) != CUDA_SUCCESS ||
	    drv.mem_alloc_host(&host, bytes + 2 * sizeof(uint64_t)) != CUDA_SUCCESS ||
	    drv.event_create(&b->done, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) {
		/* what was allocated stays: freeing needs the context current */
		free(b);
		return NULL;
	}
	b->host = host;
	b->slot_values = (uint64_t *)((char *)host + bytes);
	return b;
}

static void buf_put(kp_buf *b)
{
	pt_spin_lock(&pool_lock);
	b->next = pool;
	pool = b;
	pt_spin_unlock(&pool_lock);
}

/* The records of the launches whose buffer has been copied back, oldest
 * first, until one that is not; wait: until every one is (at exit). Runs
 * with `busy` set. An event that fails (the context is gone) loses its
 * launch's profile, which the exit warning counts. A host function on the
 * stream would write each record as soon as it is ready, but it holds the
 * stream until it has run: 45-75 us per launch on an H200. */
static void poll_pending(int wait)
{
	for (;;) {
		pt_spin_lock(&pending_lock);
		kp_buf *b = pending;
		if (b && !(pending = b->next))
			pending_tail = &pending;
		pt_spin_unlock(&pending_lock);
		if (!b)
			return;
		CUresult r = wait ? drv.event_synchronize(b->done) : drv.event_query(b->done);
		if (r == CUDA_ERROR_NOT_READY) {
			/* back in front: the rest are younger */
			pt_spin_lock(&pending_lock);
			if (!(b->next = pending))
				pending_tail = &b->next;
			pending = b;
			pt_spin_unlock(&pending_lock);
			return;
		}
		if (r == CUDA_SUCCESS) {
			pt_thread *self = pt_enter();
			pt_kprof_fold(b->host, b->nblocks, PT_GPU_CUDA_COPIES);
			pt_kprof_emit(b->stream, PT_GPU_API_CUDA, pt_now(), b->correlation, b->prof,
			              b->nblocks, 1, b->host);
			if (self)
				pt_leave(self);
			buf_put(b);
			atomic_fetch_sub(&kp_pending, 1);
		}
		/* else the buffer may still be written: not reused, still counted */
	}
}

void pt_cuda_kprof_poll(void)
{
	const pt_config *c = pt_config_get();
	if (!c || c->gpu_kernels == PT_GPU_KERNELS_OFF || busy ||
	    !__atomic_load_n(&pending, __ATOMIC_RELAXED))
		return;
	busy = 1;
	poll_pending(0);
	busy = 0;
}

/* ---- launches ---------------------------------------------------------------------- */

static __thread __attribute__((tls_model("initial-exec"))) struct {
	kp_buf *buf;
	kp_func *func;
	CUstream stream;
	void *ctx;
	int per_thread;
	uint32_t corr;
} launch;

/* One 8-byte copy from the buffer's pinned slot values (one stream
 * operation, where writing the two halves took two). */
static int set_slot(CUdeviceptr slot, const uint64_t *value, CUstream s)
{
	return drv.memcpy_htod_async(slot, value, sizeof *value, s) == CUDA_SUCCESS ? 0 : -1;
}

static void launch_enter(int layout, int ptsz, const void *params, void *ctx, uint32_t corr,
                         const char *symbol, int mode)
{
	CUfunction f = NULL;
	CUstream s = NULL;
	if (layout == PT_CUDA_DIMS_DRV) {
		const pt_cuda_drv_launch_params *p = params;
		f = p->f;
		s = p->hStream;
	} else if (layout == PT_CUDA_DIMS_DRV_EX) {
		const pt_cuda_drv_launch_ex_params *p = params;
		f = p->f;
		s = p->config ? p->config->hStream : NULL;
	}
	if (!f || !drv_ready())
		return;
	/* The per-thread default stream, for our calls (non-ptsz API). */
	if (ptsz && !s)
		s = CU_STREAM_PER_THREAD;
	busy = 1;
	kp_func *k = func_get(f, ctx, symbol, mode);
	kp_buf *b = k ? buf_get(ctx, PT_GPU_CUDA_COPIES * pt_kprof_words(k->nblocks) * sizeof(uint64_t))
	              : NULL;
	if (b) {
		b->slot_values[0] = (uint64_t)b->dev | (k->blocks ? PT_GPU_SLOT_BLOCKS : 0);
		b->slot_values[1] = 0;
		/* The slot is one per kernel: a profiled launch of it still running
		 * on another stream would add to this launch's buffer, and this
		 * one to its. This stream waits until that one is read back:
		 * profiled launches of one kernel do not overlap. */
		pt_spin_lock(&funcs_lock);
		CUevent prev = k->last_stream != s ? k->last_done : NULL;
		pt_spin_unlock(&funcs_lock);
		if (prev && drv.event_query(prev) == CUDA_ERROR_NOT_READY)
			drv.stream_wait_event(s, prev, 0);
	}
	if (b && (drv.memset_d8_async(b->dev, 0, b->bytes, s) != CUDA_SUCCESS ||
	          set_slot(k->slot, &b->slot_values[0], s))) {
		buf_put(b);
		b = NULL;
	}
	busy = 0;
	if (!b)
		return;
	launch.buf = b;
	launch.func = k;
	launch.stream = s;
	launch.ctx = ctx;
	launch.per_thread = ptsz;
	launch.corr = corr;
}

static void launch_exit(int result)
{
	kp_buf *b = launch.buf;
	kp_func *k = launch.func;
	CUstream s = launch.stream;
	launch.buf = NULL;
	busy = 1;
	uint32_t sid = 0, dev = 0;
	int ok = result == CUDA_SUCCESS &&
	         ops.stream_id(launch.ctx, s, launch.per_thread, &sid) == 0 &&
	         ops.device_id(launch.ctx, &dev) == 0;
	if (ok) {
		char name[32];
		snprintf(name, sizeof name, "CUDA device %u", dev);
		b->stream =
		    pt_gpu_stream_get(PT_GPU_API_CUDA, dev, sid, PT_GPU_STREAM_IN_ORDER, name);
		b->prof = k->prof;
		b->nblocks = k->nblocks;
		b->correlation = launch.corr;
		ok = drv.memcpy_dtoh_async(b->host, b->dev, b->bytes, s) == CUDA_SUCCESS;
	}
	/* whatever happened, the kernel's later launches run the original
	 * code unless profiled again */
	set_slot(k->slot, &b->slot_values[1], s);
	if (ok && drv.event_record(b->done, s) == CUDA_SUCCESS) {
		pt_spin_lock(&funcs_lock);
		k->last_done = b->done;
		k->last_stream = s;
		pt_spin_unlock(&funcs_lock);
		atomic_fetch_add(&kp_pending, 1);
		b->next = NULL;
		pt_spin_lock(&pending_lock);
		*pending_tail = b;
		pending_tail = &b->next;
		pt_spin_unlock(&pending_lock);
		busy = 0;
		return;
	}
	busy = 0;
	/* the buffer may still be written by the stream: not reused */
	pt_debug(1, "CUDA launch %u: its kernel profile is lost", launch.corr);
}

void pt_cuda_kprof_launch(int enter, int layout, int ptsz, const void *params, void *ctx,
                          uint32_t corr, const char *symbol, int result)
{
	const pt_config *c = pt_config_get();
	if (!c || !c->gpu || c->gpu_kernels == PT_GPU_KERNELS_OFF || busy)
		return;
	if (enter) {
		launch.buf = NULL;
		pt_cuda_kprof_poll();
		launch_enter(layout, ptsz, params, ctx, corr, symbol, c->gpu_kernels);
	} else if (launch.buf && launch.corr == corr) {
		launch_exit(result);
	}
}

/* ---- lifecycle --------------------------------------------------------------------- */

static void cuda_kprof_shutdown(int in_signal)
{
	if (in_signal)
		return;
	if (drv_state == 1 && __atomic_load_n(&pending, __ATOMIC_RELAXED)) {
		busy = 1;
		poll_pending(1);
		busy = 0;
	}
	pt_gpu_drain(
		    &kp_pending,
		    "CUDA kernel profiles had not been read back at exit; they are missing");
}

static void cuda_kprof_fork_child(void)
{
	/* CUDA cannot be used in the child; nothing of the parent's is ours. */
	pt_spin_reset(&setup_lock);
	pt_spin_reset(&ignore_lock);
	pt_spin_reset(&funcs_lock);
	pt_spin_reset(&pool_lock);
	pt_spin_reset(&pending_lock);
	memset(funcs, 0, sizeof funcs);
	pool = NULL;
	pending = NULL;
	pending_tail = &pending;
	memset(ignore_set, 0, sizeof ignore_set);
	ignore_used = 0;
	atomic_store(&kp_pending, 0);
	memset(&launch, 0, sizeof launch);
	busy = 0;
}

PT_SUBSYSTEM(cuda_kernels_part) = {
    .name = "cuda-kernels",
    .order = PT_ORDER_GPU_API,
    .fork_child = cuda_kprof_fork_child,
    .shutdown = cuda_kprof_shutdown,
};
