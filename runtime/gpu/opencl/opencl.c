/* SPDX-License-Identifier: MIT */
/* OpenCL tracing by interposition (LD_PRELOAD): the program's PLT binds to
 * these definitions and we call the ICD loader's through pt_real (dlsym
 * RTLD_NEXT), so libtrace.so never links or loads libOpenCL itself.
 *
 * Host side: GPU_API_BEGIN/END around each wrapped call, GPU_LAUNCH for
 * kernels. Device side: every command gets an event (ours when the program
 * passed NULL, released by us) with a CL_COMPLETE callback that reads the
 * profiling times on the OpenCL implementation's thread and writes a
 * GPU_KERNEL / GPU_MEMCPY / GPU_MEMSET record to the queue's GPU log.
 * Profiling is forced on every queue; the program's queries of the queue
 * (and of its events' profiling info) still answer what it asked for. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include "gpu_internal.h"
#include "ocl_kprof.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Real entry points, looked up once. A NULL real function means the program
 * called an OpenCL symbol without an OpenCL library loaded, which cannot
 * happen through the PLT; we then fail the call like a missing ICD would. */
#define REAL(fn)                                                            \
	static __typeof__(fn) *real_##fn;                                   \
	if (pt_unlikely(!real_##fn))                                        \
		real_##fn = (__typeof__(fn) *)pt_real(#fn);

/* Function ids of the GPU_FUNC_DEF table (Paraver 64000000 values). */
enum ocl_func {
	F_CREATE_QUEUE = 1,
	F_CREATE_QUEUE_PROPS,
	F_NDRANGE,
	F_READ,
	F_WRITE,
	F_COPY,
	F_FILL,
	F_MAP,
	F_UNMAP,
	F_FINISH,
	F_WAIT,
	F_COUNT
};
static const char *const func_names[F_COUNT] = {
	[F_CREATE_QUEUE] = "clCreateCommandQueue",
	[F_CREATE_QUEUE_PROPS] = "clCreateCommandQueueWithProperties",
	[F_NDRANGE] = "clEnqueueNDRangeKernel",
	[F_READ] = "clEnqueueReadBuffer",
	[F_WRITE] = "clEnqueueWriteBuffer",
	[F_COPY] = "clEnqueueCopyBuffer",
	[F_FILL] = "clEnqueueFillBuffer",
	[F_MAP] = "clEnqueueMapBuffer",
	[F_UNMAP] = "clEnqueueUnmapMemObject",
	[F_FINISH] = "clFinish",
	[F_WAIT] = "clWaitForEvents",
};
static _Atomic unsigned char func_defined[F_COUNT];

/* ---- devices and queues ------------------------------------------------- */

typedef struct ocl_device {
	cl_device_id id;
	uint32_t index;
	uint32_t flags; /* PT_GPU_STREAM_DEVICE_* */
	pt_gpu_clock clock;
	/* Does the device stamp commands with CLOCK_MONOTONIC_RAW (PoCL does)?
	 * 0 not known yet, 1 yes (every QUEUED so far fell between two raw
	 * clock reads around its enqueue), -1 no. With 1, the host can bracket
	 * the device clock itself, tightly, whenever it likes. */
	_Atomic int raw_clock;
	char name[128];
	struct ocl_device *next;
} ocl_device;

typedef struct ocl_queue {
	cl_command_queue q;
	ocl_device *dev;
	pt_gpu_stream *stream;
	uint64_t id; /* header.gpu_stream */
	int user_profiling;       /* the program asked for CL_QUEUE_PROFILING_ENABLE */
	int user_array_given;     /* created WithProperties with a non-NULL list */
	size_t user_array_bytes;
	cl_queue_properties *user_array; /* the program's list, for CL_QUEUE_PROPERTIES_ARRAY */
	int in_order;
	/* In-order queues: the previous command's end, on the device clock and
	 * converted (see on_complete). */
	pt_spin order_lock;
	uint64_t last_dev_end, last_end;
	struct ocl_queue *next;
} ocl_queue;

/* Queues and devices are few; a list under a lock is enough. Entries live
 * until exit because completion callbacks may still point at them after
 * the program released the queue. */
static pt_spin tables_lock;
static ocl_device *devices;
static uint32_t ndevices;
static ocl_queue *queues;
static uint64_t nqueues;

/* Commands whose completion callback has not run yet (shutdown waits). */
static _Atomic long pending_ops;

static ocl_device *device_get(cl_device_id id)
{
	REAL(clGetDeviceInfo);
	ocl_device *d;
	pt_spin_lock(&tables_lock);
	for (d = devices; d; d = d->next)
		if (d->id == id)
			break;
	if (!d && (d = calloc(1, sizeof *d))) {
		d->id = id;
		d->index = ndevices++;
		cl_device_type type = 0;
		if (real_clGetDeviceInfo) {
			if (real_clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof d->name - 1, d->name, NULL) !=
			    CL_SUCCESS)
				d->name[0] = 0;
			real_clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof type, &type, NULL);
		}
		d->flags = (type & CL_DEVICE_TYPE_CPU ? PT_GPU_STREAM_DEVICE_CPU : 0) |
			   (type & CL_DEVICE_TYPE_GPU ? PT_GPU_STREAM_DEVICE_GPU : 0) |
			   (type & CL_DEVICE_TYPE_ACCELERATOR ? PT_GPU_STREAM_DEVICE_ACCEL : 0);
		d->next = devices;
		devices = d;
	}
	pt_spin_unlock(&tables_lock);
	return d;
}

static ocl_queue *queue_find(cl_command_queue q)
{
	pt_spin_lock(&tables_lock);
	ocl_queue *e;
	for (e = queues; e; e = e->next)
		if (e->q == q)
			break;
	pt_spin_unlock(&tables_lock);
	return e;
}

/* Registers a queue we just created (or replaces a stale entry whose handle
 * the implementation reused). */
static ocl_queue *queue_add(cl_command_queue q, cl_device_id dev_id, cl_command_queue_properties props,
			    int user_profiling, const cl_queue_properties *user_array)
{
	ocl_device *dev = device_get(dev_id);
	ocl_queue *e = calloc(1, sizeof *e);
	if (!dev || !e) {
		free(e);
		return NULL;
	}
	e->q = q;
	e->dev = dev;
	e->user_profiling = user_profiling;
	if (user_array) {
		size_t n = 0;
		while (user_array[n])
			n += 2;
		e->user_array_given = 1;
		e->user_array_bytes = (n + 1) * sizeof *user_array;
		e->user_array = malloc(e->user_array_bytes);
		if (e->user_array)
			memcpy(e->user_array, user_array, e->user_array_bytes);
		else
			e->user_array_given = 0;
	}
	uint32_t flags = dev->flags;
	e->in_order = !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
	if (e->in_order)
		flags |= PT_GPU_STREAM_IN_ORDER;
	pt_spin_lock(&tables_lock);
	e->id = ++nqueues;
	pt_spin_unlock(&tables_lock);
	/* Complete before another thread can find it. */
	e->stream = pt_gpu_stream_get(PT_GPU_API_OPENCL, dev->index, e->id, flags, dev->name);
	pt_spin_lock(&tables_lock);
	/* A newer entry with the same handle shadows the stale one. */
	e->next = queues;
	queues = e;
	pt_spin_unlock(&tables_lock);
	return e;
}

/* A queue we did not create (made before tracing began, or through a
 * dlsym'ed entry point): usable for device times only if the program
 * enabled profiling itself. */
static ocl_queue *queue_lookup(cl_command_queue q)
{
	ocl_queue *e = queue_find(q);
	if (e || !q)
		return e;
	REAL(clGetCommandQueueInfo);
	cl_device_id dev;
	cl_command_queue_properties props = 0;
	if (!real_clGetCommandQueueInfo ||
	    real_clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) != CL_SUCCESS ||
	    real_clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL) != CL_SUCCESS ||
	    !(props & CL_QUEUE_PROFILING_ENABLE))
		return NULL;
	return queue_add(q, dev, props, 1, NULL);
}

/* ---- host records ------------------------------------------------------- */

typedef struct host_call {
	pt_rec_gpu_api api;
	pt_thread *t;   /* while inside the runtime's region */
	int errno_in;   /* the program's errno at the call, given back to the real call */
} host_call;

static int gpu_enabled(void)
{
	const pt_config *c = pt_config_get();
	return c && c->gpu;
}

/* Stream id of a queue we already know, for GPU_API_BEGIN (0 if unknown). */
static uint64_t stream_hint(cl_command_queue q)
{
	ocl_queue *e = gpu_enabled() ? queue_find(q) : NULL;
	return e ? e->id : 0;
}

/* Starts a traced call and stays inside the runtime's region, so what our
 * own bookkeeping makes the OpenCL implementation do (info queries, event
 * callbacks) is not recorded as the program's. Returns 0 when this call is
 * not traced (tracing off, GPU tracing off, or we are inside the runtime). */
static int call_begin(host_call *h, enum ocl_func f, uint16_t call, uint16_t flags, uint64_t stream,
		      uint64_t bytes)
{
	int errno_in = errno;
	if (!gpu_enabled())
		return 0;
	pt_thread *t = pt_enter();
	if (!t)
		return 0;
	if (!atomic_load_explicit(&func_defined[f], memory_order_relaxed)) {
		pt_gpu_func_define(PT_GPU_API_OPENCL, f, func_names[f]);
		atomic_store_explicit(&func_defined[f], 1, memory_order_relaxed);
	}
	memset(h, 0, sizeof *h);
	h->t = t;
	h->errno_in = errno_in;
	h->api.func = f;
	h->api.call = call;
	h->api.flags = flags;
	h->api.correlation = pt_gpu_next_correlation();
	h->api.stream = stream;
	h->api.bytes = bytes;
	pt_emit(t, PT_REC_GPU_API_BEGIN, PT_GPU_API_OPENCL, &h->api, sizeof h->api);
	return 1;
}

/* Leaves the region for the real call: what the implementation does on this
 * thread meanwhile (locks, blocking) belongs to the program. Returns the
 * time just before the real call. */
static uint64_t call_go(host_call *h)
{
	pt_leave(h->t);
	h->t = NULL;
	uint64_t t = pt_now();
	errno = h->errno_in; /* our bookkeeping before the call leaves no trace */
	return t;
}

/* Back inside the region after the real call (t may be NULL when the
 * runtime is shutting down: then nothing more is written). */
static void call_after(host_call *h)
{
	h->t = pt_enter();
}

static void call_end(host_call *h, cl_int result, const pt_rec_gpu_launch *launch)
{
	pt_thread *t = h->t;
	if (!t)
		return;
	if (launch)
		pt_emit(t, PT_REC_GPU_LAUNCH, PT_GPU_API_OPENCL, launch, sizeof *launch);
	h->api.result = result;
	pt_emit(t, PT_REC_GPU_API_END, PT_GPU_API_OPENCL, &h->api, sizeof h->api);
	pt_leave(t);
}

/* ---- device records ----------------------------------------------------- */

typedef struct pending {
	ocl_queue *q;
	uint64_t t0, t1;     /* host bracket of the enqueue call (QUEUED is inside) */
	uint64_t raw0, raw1; /* CLOCK_MONOTONIC_RAW just inside that bracket */
	unsigned kind;   /* PT_REC_GPU_KERNEL / MEMCPY / MEMSET */
	union {
		pt_rec_gpu_kernel k;
		pt_rec_gpu_copy c;
	} rec;
} pending;

static void CL_CALLBACK on_complete(cl_event ev, cl_int status, void *data)
{
	REAL(clGetEventProfilingInfo);
	REAL(clReleaseEvent);
	pending *p = data;
	/* Inside the runtime's region (when this thread can have one): the
	 * locks the OpenCL implementation takes for our queries below are ours,
	 * not the program's, and must not be recorded. NULL when the callback
	 * runs inside our own enqueue (already in the region) or at shutdown;
	 * the work is done either way. */
	pt_thread *self = pt_enter();
	cl_ulong queued = 0, start = 0, end = 0;
	if (status == CL_COMPLETE && real_clGetEventProfilingInfo &&
	    real_clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_QUEUED, sizeof queued, &queued, NULL) ==
		    CL_SUCCESS &&
	    real_clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) ==
		    CL_SUCCESS &&
	    real_clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) ==
		    CL_SUCCESS) {
		ocl_device *dev = p->q->dev;
		pt_gpu_clock *clk = &dev->clock;
		int raw = atomic_load(&dev->raw_clock);
		if (raw >= 0 && !(p->raw0 <= queued && queued <= p->raw1)) {
			/* not the raw clock: forget the brackets that assumed it */
			if (atomic_exchange(&dev->raw_clock, -1) == 1)
				pt_gpu_clock_reset(clk);
			pt_debug(1, "OpenCL device %u: profiling clock is not CLOCK_MONOTONIC_RAW",
				 dev->index);
			raw = -1;
		} else if (raw == 0) {
			atomic_store(&dev->raw_clock, 1);
			raw = 1;
		}
		if (raw == 1) {
			uint64_t a = pt_now();
			uint64_t r = raw_ns();
			uint64_t b = pt_now();
			pt_gpu_clock_bracket(clk, a, b, r);
		}
		pt_gpu_clock_bracket(clk, p->t0, p->t1, queued);
		ocl_queue *oq = p->q;
		/* Converted under the queue's lock so that its commands are
		 * placed in completion order with one offset estimate each. */
		pt_spin_lock(&oq->order_lock);
		uint64_t q = pt_gpu_clock_to_ticks(clk, queued);
		uint64_t s = pt_gpu_clock_to_ticks(clk, start);
		uint64_t e = pt_gpu_clock_to_ticks(clk, end);
		/* QUEUED was stamped inside the enqueue call, so it lies in
		 * [t0, t1] whatever the offset estimate says; shift this command
		 * by the violation rather than show it before its enqueue. */
		int64_t adj = 0;
		if (q < p->t0)
			adj = (int64_t)(p->t0 - q);
		else if (q > p->t1)
			adj = -(int64_t)(q - p->t1);
		s += (uint64_t)adj;
		e += (uint64_t)adj;
		if (e < s)
			e = s;
		/* The offset estimate improves as narrower brackets arrive; a
		 * change between two back-to-back commands of an in-order queue
		 * must not make them overlap when the device clock says they
		 * did not: move this one after the previous one. */
		if (oq->in_order && oq->last_dev_end && start >= oq->last_dev_end && s < oq->last_end) {
			uint64_t d = oq->last_end - s;
			s += d;
			e += d;
			pt_debug(2, "OpenCL queue %llu: command moved %llu ticks after the previous one",
				 (unsigned long long)oq->id, (unsigned long long)d);
		}
		if (oq->in_order && end >= oq->last_dev_end) {
			oq->last_dev_end = end;
			oq->last_end = e;
		}
		if (p->kind == PT_REC_GPU_KERNEL) {
			p->rec.k.start = s;
			p->rec.k.end = e;
			pt_gpu_stream_emit(p->q->stream, s, p->kind, &p->rec.k, sizeof p->rec.k);
		} else {
			p->rec.c.start = s;
			p->rec.c.end = e;
			pt_gpu_stream_emit(p->q->stream, s, p->kind, &p->rec.c, sizeof p->rec.c);
		}
		pt_spin_unlock(&oq->order_lock);
	}
	if (real_clReleaseEvent)
		real_clReleaseEvent(ev);
	free(p);
	atomic_fetch_sub(&pending_ops, 1);
	if (self)
		pt_leave(self);
}

/* Before the real enqueue: the event slot to pass (ours if the program
 * gave NULL) and the record to complete. */
typedef struct enqueue_ctx {
	ocl_queue *q;
	pending *p;
	cl_event own;
	cl_event *slot;
} enqueue_ctx;

static void enqueue_prepare(enqueue_ctx *x, cl_command_queue queue, cl_event *user_event)
{
	x->q = queue_lookup(queue);
	x->p = x->q ? calloc(1, sizeof *x->p) : NULL;
	x->own = NULL;
	x->slot = user_event;
	if (x->p && !user_event)
		x->slot = &x->own;
}

/* After the real enqueue: hands the event to the completion callback. Our
 * reference is released by the callback; the program's own reference (if it
 * asked for the event) is untouched. */
static void enqueue_finish(enqueue_ctx *x, cl_int err, uint64_t t0, uint64_t t1, uint64_t raw0, uint64_t raw1,
			   uint64_t corr)
{
	REAL(clRetainEvent);
	REAL(clSetEventCallback);
	REAL(clReleaseEvent);
	pending *p = x->p;
	if (!p)
		return;
	if (err != CL_SUCCESS || !*x->slot || !real_clSetEventCallback) {
		free(p);
		return;
	}
	cl_event ev = *x->slot;
	p->q = x->q;
	p->t0 = t0;
	p->t1 = t1;
	p->raw0 = raw0;
	p->raw1 = raw1;
	if (p->kind == PT_REC_GPU_KERNEL)
		p->rec.k.correlation = corr;
	else
		p->rec.c.correlation = corr;
	if (x->slot != &x->own)
		real_clRetainEvent(ev);
	atomic_fetch_add(&pending_ops, 1);
	if (real_clSetEventCallback(ev, CL_COMPLETE, on_complete, p) != CL_SUCCESS) {
		atomic_fetch_sub(&pending_ops, 1);
		real_clReleaseEvent(ev);
		free(p);
	}
}

static uint32_t clamp32(size_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* ---- queue creation ----------------------------------------------------- */

PT_EXPORT cl_command_queue clCreateCommandQueue(cl_context context, cl_device_id device,
						cl_command_queue_properties properties,
						cl_int *errcode_ret)
{
	REAL(clCreateCommandQueue);
	if (!real_clCreateCommandQueue) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_PLATFORM;
		return NULL;
	}
	host_call h;
	if (!call_begin(&h, F_CREATE_QUEUE, PT_GPU_CALL_STREAM_CREATE, 0, 0, 0))
		return real_clCreateCommandQueue(context, device, properties, errcode_ret);
	cl_int err = CL_SUCCESS;
	call_go(&h);
	cl_command_queue q = real_clCreateCommandQueue(context, device,
						       properties | CL_QUEUE_PROFILING_ENABLE, &err);
	if (!q && err != CL_SUCCESS && !(properties & CL_QUEUE_PROFILING_ENABLE)) {
		/* A device that cannot profile still gets the queue it asked for. */
		q = real_clCreateCommandQueue(context, device, properties, &err);
	}
	int saved = errno;
	call_after(&h);
	if (errcode_ret)
		*errcode_ret = err;
	if (q) {
		cl_command_queue_properties got = properties;
		REAL(clGetCommandQueueInfo);
		real_clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof got, &got, NULL);
		ocl_queue *e = (got & CL_QUEUE_PROFILING_ENABLE)
				       ? queue_add(q, device, properties,
						   !!(properties & CL_QUEUE_PROFILING_ENABLE), NULL)
				       : NULL;
		if (e)
			h.api.stream = e->id;
	}
	call_end(&h, err, NULL);
	errno = saved;
	return q;
}

PT_EXPORT cl_command_queue clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
							      const cl_queue_properties *properties,
							      cl_int *errcode_ret)
{
	REAL(clCreateCommandQueueWithProperties);
	if (!real_clCreateCommandQueueWithProperties) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_PLATFORM;
		return NULL;
	}
	host_call h;
	if (!call_begin(&h, F_CREATE_QUEUE_PROPS, PT_GPU_CALL_STREAM_CREATE, 0, 0, 0))
		return real_clCreateCommandQueueWithProperties(context, device, properties, errcode_ret);

	/* Copy the list, OR-ing profiling into CL_QUEUE_PROPERTIES or adding it. */
	size_t n = 0;
	if (properties)
		while (properties[n])
			n += 2;
	cl_queue_properties stackbuf[32];
	cl_queue_properties *mine = n + 3 <= 32 ? stackbuf : malloc((n + 3) * sizeof *mine);
	cl_command_queue_properties user_props = 0;
	cl_int err = CL_SUCCESS;
	cl_command_queue q = NULL;
	if (mine) {
		int found = 0;
		for (size_t i = 0; i < n; i += 2) {
			mine[i] = properties[i];
			mine[i + 1] = properties[i + 1];
			if (properties[i] == CL_QUEUE_PROPERTIES) {
				user_props = properties[i + 1];
				mine[i + 1] |= CL_QUEUE_PROFILING_ENABLE;
				found = 1;
			}
		}
		size_t m = n;
		if (!found) {
			mine[m++] = CL_QUEUE_PROPERTIES;
			mine[m++] = CL_QUEUE_PROFILING_ENABLE;
		}
		mine[m] = 0;
		call_go(&h);
		q = real_clCreateCommandQueueWithProperties(context, device, mine, &err);
		if (mine != stackbuf)
			free(mine);
	} else {
		call_go(&h);
	}
	if (!q && !(user_props & CL_QUEUE_PROFILING_ENABLE))
		q = real_clCreateCommandQueueWithProperties(context, device, properties, &err);
	int saved = errno;
	call_after(&h);
	if (errcode_ret)
		*errcode_ret = err;
	if (q) {
		cl_command_queue_properties got = 0;
		REAL(clGetCommandQueueInfo);
		real_clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof got, &got, NULL);
		ocl_queue *e = (got & CL_QUEUE_PROFILING_ENABLE)
				       ? queue_add(q, device, user_props,
						   !!(user_props & CL_QUEUE_PROFILING_ENABLE), properties)
				       : NULL;
		if (e)
			h.api.stream = e->id;
	}
	call_end(&h, err, NULL);
	errno = saved;
	return q;
}

PT_EXPORT cl_int clGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info param, size_t size,
				       void *value, size_t *size_ret)
{
	REAL(clGetCommandQueueInfo);
	if (!real_clGetCommandQueueInfo)
		return CL_INVALID_COMMAND_QUEUE;
	cl_int err = real_clGetCommandQueueInfo(q, param, size, value, size_ret);
	if (err != CL_SUCCESS)
		return err;
	if (param != CL_QUEUE_PROPERTIES && param != CL_QUEUE_PROPERTIES_ARRAY)
		return err;
	ocl_queue *e = queue_find(q);
	if (!e)
		return err;
	if (param == CL_QUEUE_PROPERTIES) {
		if (value && size >= sizeof(cl_command_queue_properties) && !e->user_profiling)
			*(cl_command_queue_properties *)value &= ~(cl_command_queue_properties)CL_QUEUE_PROFILING_ENABLE;
		return err;
	}
	/* The list the program passed, not the one we built. */
	if (e->user_array_given)
		return pt_ocl_info_answer(e->user_array, e->user_array_bytes, size, value, size_ret);
	return pt_ocl_info_answer(NULL, 0, size, value, size_ret);
}

/* A program that did not enable profiling must keep getting
 * CL_PROFILING_INFO_NOT_AVAILABLE for its events. */
PT_EXPORT cl_int clGetEventProfilingInfo(cl_event event, cl_profiling_info param, size_t size, void *value,
					 size_t *size_ret)
{
	REAL(clGetEventProfilingInfo);
	REAL(clGetEventInfo);
	if (!real_clGetEventProfilingInfo)
		return CL_INVALID_EVENT;
	cl_command_queue q = NULL;
	if (real_clGetEventInfo &&
	    real_clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL) == CL_SUCCESS && q) {
		ocl_queue *e = queue_find(q);
		if (e && !e->user_profiling)
			return CL_PROFILING_INFO_NOT_AVAILABLE;
	}
	return real_clGetEventProfilingInfo(event, param, size, value, size_ret);
}

/* ---- commands ----------------------------------------------------------- */

PT_EXPORT cl_int clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
					const size_t *global_offset, const size_t *global_size,
					const size_t *local_size, cl_uint nwait, const cl_event *wait,
					cl_event *event)
{
	REAL(clEnqueueNDRangeKernel);
	REAL(clGetKernelInfo);
	if (!real_clEnqueueNDRangeKernel)
		return CL_INVALID_COMMAND_QUEUE;
	host_call h;
	if (!call_begin(&h, F_NDRANGE, PT_GPU_CALL_LAUNCH, 0, stream_hint(queue), 0))
		return real_clEnqueueNDRangeKernel(queue, kernel, work_dim, global_offset, global_size,
						   local_size, nwait, wait, event);

	/* Name first, outside the enqueue's bracket. An instrumented twin is
	 * named after the kernel the program asked for. */
	char stackname[256], *name = stackname;
	size_t nlen = 0;
	const char *twin_of = pt_ocl_kprof_name(kernel);
	if (twin_of)
		snprintf(stackname, sizeof stackname, "%s", twin_of);
	else if (!real_clGetKernelInfo ||
	    real_clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof stackname, stackname, &nlen) !=
		    CL_SUCCESS) {
		name = NULL;
		if (real_clGetKernelInfo &&
		    real_clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, 0, NULL, &nlen) == CL_SUCCESS &&
		    nlen && (name = malloc(nlen)) &&
		    real_clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, nlen, name, NULL) != CL_SUCCESS) {
			free(name);
			name = NULL;
		}
	}
	pt_rec_gpu_launch l = {.correlation = h.api.correlation, .work_dim = work_dim};
	l.kernel = pt_gpu_kernel_id(PT_GPU_API_OPENCL, name);
	if (name != stackname)
		free(name);
	for (cl_uint i = 0; i < work_dim && i < 3; i++) {
		l.grid[i] = global_size ? clamp32(global_size[i]) : 0;
		l.block[i] = local_size ? clamp32(local_size[i]) : 0;
	}

	enqueue_ctx x;
	enqueue_prepare(&x, queue, event);
	if (x.p) {
		x.p->kind = PT_REC_GPU_KERNEL;
		x.p->rec.k.kernel = l.kernel;
		memcpy(x.p->rec.k.grid, l.grid, sizeof l.grid);
		memcpy(x.p->rec.k.block, l.block, sizeof l.block);
		l.stream = h.api.stream = x.q->id;
		l.device = x.q->dev->index;
	}
	/* Kernel profiling needs the launch's event for its read-back. */
	pt_ocl_kprof_launch *kl = pt_ocl_kprof_begin(kernel, queue, work_dim, local_size);
	cl_event kev = NULL;
	cl_event *slot = kl && !x.slot ? &kev : x.slot;
	uint64_t t0 = call_go(&h);
	uint64_t raw0 = raw_ns();
	cl_int err = real_clEnqueueNDRangeKernel(queue, kernel, work_dim, global_offset, global_size,
						 local_size, nwait, wait, slot);
	uint64_t raw1 = raw_ns();
	uint64_t t1 = pt_now();
	int saved = errno;
	call_after(&h);
	/* Before enqueue_finish: its callback may release our event. */
	if (kl)
		pt_ocl_kprof_end(kl, err, queue, slot && err == CL_SUCCESS ? *slot : NULL,
				 x.q ? x.q->stream : NULL, h.api.correlation);
	if (kev) {
		REAL(clReleaseEvent);
		real_clReleaseEvent(kev);
	}
	enqueue_finish(&x, err, t0, t1, raw0, raw1, h.api.correlation);
	call_end(&h, err, err == CL_SUCCESS ? &l : NULL);
	errno = saved;
	return err;
}

/* Shared shape of the buffer commands: trace, give the command an event,
 * and describe the device record. `run` performs the real call with the
 * event slot it is given. */
typedef struct copy_desc {
	enum ocl_func f;
	uint16_t call, flags;
	unsigned kind; /* PT_REC_GPU_MEMCPY / MEMSET */
	uint32_t direction, copy_flags;
	uint64_t bytes;
} copy_desc;

#define COPY_BEGIN(d, queue, event)                                                  \
	host_call h;                                                                 \
	int traced = call_begin(&h, (d).f, (d).call, (d).flags, stream_hint(queue), (d).bytes); \
	enqueue_ctx x = {0};                                                         \
	cl_event *slot = event;                                                      \
	if (traced) {                                                                \
		enqueue_prepare(&x, queue, event);                                   \
		slot = x.slot;                                                       \
		if (x.p) {                                                           \
			x.p->kind = (d).kind;                                        \
			x.p->rec.c.bytes = (d).bytes;                                \
			x.p->rec.c.direction = (d).direction;                        \
			x.p->rec.c.flags = (d).copy_flags;                           \
			h.api.stream = x.q->id;                                      \
		}                                                                    \
	}                                                                            \
	uint64_t t0 = traced ? call_go(&h) : 0;                                      \
	uint64_t raw0 = traced ? raw_ns() : 0;

#define COPY_END(err)                                                                \
	if (traced) {                                                                \
		uint64_t raw1 = raw_ns();                                            \
		uint64_t t1 = pt_now();                                              \
		int saved = errno;                                                   \
		call_after(&h);                                                      \
		enqueue_finish(&x, err, t0, t1, raw0, raw1, h.api.correlation);      \
		call_end(&h, err, NULL);                                             \
		errno = saved;                                                       \
	}

PT_EXPORT cl_int clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
				     size_t size, void *ptr, cl_uint nwait, const cl_event *wait,
				     cl_event *event)
{
	REAL(clEnqueueReadBuffer);
	if (!real_clEnqueueReadBuffer)
		return CL_INVALID_COMMAND_QUEUE;
	copy_desc d = {F_READ, blocking ? PT_GPU_CALL_MEMCPY : PT_GPU_CALL_MEMCPY_ASYNC,
		       blocking ? PT_GPU_CALL_F_TRANSFER : 0, PT_REC_GPU_MEMCPY, PT_GPU_COPY_DTOH, 0, size};
	COPY_BEGIN(d, queue, event)
	cl_int err = real_clEnqueueReadBuffer(queue, buffer, blocking, offset, size, ptr, nwait, wait, slot);
	COPY_END(err)
	return err;
}

PT_EXPORT cl_int clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
				      size_t size, const void *ptr, cl_uint nwait, const cl_event *wait,
				      cl_event *event)
{
	REAL(clEnqueueWriteBuffer);
	if (!real_clEnqueueWriteBuffer)
		return CL_INVALID_COMMAND_QUEUE;
	copy_desc d = {F_WRITE, blocking ? PT_GPU_CALL_MEMCPY : PT_GPU_CALL_MEMCPY_ASYNC,
		       blocking ? PT_GPU_CALL_F_TRANSFER : 0, PT_REC_GPU_MEMCPY, PT_GPU_COPY_HTOD, 0, size};
	COPY_BEGIN(d, queue, event)
	cl_int err = real_clEnqueueWriteBuffer(queue, buffer, blocking, offset, size, ptr, nwait, wait, slot);
	COPY_END(err)
	return err;
}

PT_EXPORT cl_int clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset,
				     size_t dst_offset, size_t size, cl_uint nwait, const cl_event *wait,
				     cl_event *event)
{
	REAL(clEnqueueCopyBuffer);
	if (!real_clEnqueueCopyBuffer)
		return CL_INVALID_COMMAND_QUEUE;
	copy_desc d = {F_COPY, PT_GPU_CALL_MEMCPY_ASYNC, 0, PT_REC_GPU_MEMCPY, PT_GPU_COPY_DTOD, 0, size};
	COPY_BEGIN(d, queue, event)
	cl_int err = real_clEnqueueCopyBuffer(queue, src, dst, src_offset, dst_offset, size, nwait, wait, slot);
	COPY_END(err)
	return err;
}

PT_EXPORT cl_int clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void *pattern,
				     size_t pattern_size, size_t offset, size_t size, cl_uint nwait,
				     const cl_event *wait, cl_event *event)
{
	REAL(clEnqueueFillBuffer);
	if (!real_clEnqueueFillBuffer)
		return CL_INVALID_COMMAND_QUEUE;
	copy_desc d = {F_FILL, PT_GPU_CALL_MEMSET, 0, PT_REC_GPU_MEMSET, PT_GPU_COPY_MEMSET, 0, size};
	COPY_BEGIN(d, queue, event)
	cl_int err = real_clEnqueueFillBuffer(queue, buffer, pattern, pattern_size, offset, size, nwait, wait,
					      slot);
	COPY_END(err)
	return err;
}

PT_EXPORT void *clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, cl_map_flags flags,
				   size_t offset, size_t size, cl_uint nwait, const cl_event *wait,
				   cl_event *event, cl_int *errcode_ret)
{
	REAL(clEnqueueMapBuffer);
	if (!real_clEnqueueMapBuffer) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_COMMAND_QUEUE;
		return NULL;
	}
	copy_desc d = {F_MAP, PT_GPU_CALL_MAP, blocking ? PT_GPU_CALL_F_TRANSFER : 0, PT_REC_GPU_MEMCPY,
		       PT_GPU_COPY_DTOH, PT_GPU_COPY_F_MAP, size};
	COPY_BEGIN(d, queue, event)
	cl_int err = CL_SUCCESS;
	void *p = real_clEnqueueMapBuffer(queue, buffer, blocking, flags, offset, size, nwait, wait, slot, &err);
	if (errcode_ret)
		*errcode_ret = err;
	COPY_END(err)
	return p;
}

PT_EXPORT cl_int clEnqueueUnmapMemObject(cl_command_queue queue, cl_mem mem, void *mapped, cl_uint nwait,
					 const cl_event *wait, cl_event *event)
{
	REAL(clEnqueueUnmapMemObject);
	if (!real_clEnqueueUnmapMemObject)
		return CL_INVALID_COMMAND_QUEUE;
	/* The mapped size is not an argument; 0 = unknown. */
	copy_desc d = {F_UNMAP, PT_GPU_CALL_MAP, 0, PT_REC_GPU_MEMCPY, PT_GPU_COPY_HTOD, PT_GPU_COPY_F_MAP, 0};
	COPY_BEGIN(d, queue, event)
	cl_int err = real_clEnqueueUnmapMemObject(queue, mem, mapped, nwait, wait, slot);
	COPY_END(err)
	return err;
}

/* ---- synchronisation ---------------------------------------------------- */

PT_EXPORT cl_int clFinish(cl_command_queue queue)
{
	REAL(clFinish);
	if (!real_clFinish)
		return CL_INVALID_COMMAND_QUEUE;
	host_call h;
	if (!call_begin(&h, F_FINISH, PT_GPU_CALL_STREAM_SYNC, PT_GPU_CALL_F_SYNC, stream_hint(queue), 0))
		return real_clFinish(queue);
	call_go(&h);
	cl_int err = real_clFinish(queue);
	int saved = errno;
	call_after(&h);
	call_end(&h, err, NULL);
	errno = saved;
	return err;
}

PT_EXPORT cl_int clWaitForEvents(cl_uint n, const cl_event *list)
{
	REAL(clWaitForEvents);
	if (!real_clWaitForEvents)
		return CL_INVALID_EVENT;
	host_call h;
	if (!call_begin(&h, F_WAIT, PT_GPU_CALL_EVENT_SYNC, PT_GPU_CALL_F_SYNC, 0, 0))
		return real_clWaitForEvents(n, list);
	call_go(&h);
	cl_int err = real_clWaitForEvents(n, list);
	int saved = errno;
	call_after(&h);
	call_end(&h, err, NULL);
	errno = saved;
	return err;
}

/* ---- lifecycle ---------------------------------------------------------- */

/* Not from a fatal signal's handler: nothing may wait there, and the
 * callbacks may need locks the crashed thread holds. */
static void opencl_shutdown(int in_signal)
{
	if (in_signal)
		return;
	/* Each pending command still holds one event reference of ours: say
	 * so rather than lose its device record silently. */
	pt_gpu_drain(&pending_ops, "OpenCL commands had not completed at exit; their device times are missing");
}

static void opencl_fork_child(void)
{
	/* The child has no OpenCL runtime threads; queues stay usable only in
	 * the parent. Forget the tables (their memory is the parent's copy). */
	pt_spin_reset(&tables_lock);
	devices = NULL;
	queues = NULL;
	ndevices = 0;
	nqueues = 0;
	atomic_store(&pending_ops, 0);
}

PT_SUBSYSTEM(opencl_part) = {
	.name = "opencl",
	.order = PT_ORDER_GPU_API,
	.fork_child = opencl_fork_child,
	.shutdown = opencl_shutdown,
};
