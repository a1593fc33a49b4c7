/* SPDX-License-Identifier: MIT */
/* OpenCL kernel profiling per launch (opencl.c's clEnqueueNDRangeKernel):
 * a zeroed profile buffer before it, its read-back after, whose completion
 * writes the GPU_PROF record. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "ocl_kprof_int.h"

/* ---- launches (from opencl.c) ------------------------------------------------ */

struct pt_ocl_kprof_launch {
	kp_kernel *e;
	uint32_t prof, nblocks;
	cl_mem buf;
	uint64_t *host;
	pt_gpu_stream *stream;
	uint64_t correlation;
};

const char *pt_ocl_kprof_name(cl_kernel kernel)
{
	kp_kernel *e = kp_kernel_find(kernel);
	return e ? e->twin->name : NULL;
}

pt_ocl_kprof_launch *pt_ocl_kprof_begin(cl_kernel kernel, cl_command_queue queue, cl_uint work_dim,
                                        const size_t *local_size)
{
	REAL(clCreateBuffer);
	REAL(clSetKernelArg);
	REAL(clGetCommandQueueInfo);
	REAL(clGetDeviceInfo);
	REAL(clGetKernelWorkGroupInfo);
	REAL(clReleaseMemObject);
	kp_kernel *e = kp_kernel_find(kernel);
	if (!e)
		return NULL;
	const kp_twin *tw = e->twin;
	pt_ocl_kprof_launch *l = calloc(1, sizeof *l);
	size_t bytes = kp_prof_bytes(tw);
	if (l)
		l->host = malloc(bytes);
	cl_int err = CL_SUCCESS;
	if (l && l->host)
		l->buf = real_clCreateBuffer(e->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
		                             bytes, (void *)kp_zeros, &err);
	if (!l || !l->host || !l->buf ||
	    real_clSetKernelArg(kernel, e->user_args, sizeof l->buf, &l->buf) != CL_SUCCESS) {
		if (l && l->buf)
			real_clReleaseMemObject(l->buf);
		if (l)
			free(l->host);
		free(l);
		return NULL;
	}
	l->e = e;
	l->prof = tw->prof;
	l->nblocks = tw->nblocks;
	if (tw->nblocks) {
		/* One 32-bit count per block and work-item of a group, in local
		 * memory; as many work-items as fit beside what the kernel
		 * uses itself (the group size when the application gives it,
		 * else the kernel's largest). */
		cl_device_id dev = NULL;
		size_t items = 1, max_wg = 0;
		cl_ulong dev_local = 0, used = 0;
		real_clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
		real_clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof dev_local, &dev_local,
		                     NULL);
		real_clSetKernelArg(kernel, e->user_args + 1, sizeof(cl_uint), NULL);
		real_clGetKernelWorkGroupInfo(kernel, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof used,
		                              &used, NULL);
		if (local_size)
			for (cl_uint d = 0; d < work_dim; d++)
				items *= local_size[d];
		else if (real_clGetKernelWorkGroupInfo(kernel, dev, CL_KERNEL_WORK_GROUP_SIZE,
		                                       sizeof max_wg, &max_wg, NULL) == CL_SUCCESS)
			items = max_wg;
		size_t per_item = (size_t)tw->nblocks * sizeof(cl_uint);
		size_t room =
		    dev_local > used + 64 ? (size_t)(dev_local - used - 64) / per_item : 0;
		if (items > room)
			items = room;
		if (items > UINT32_MAX / 2)
			items = UINT32_MAX / 2;
		cl_uint n = (cl_uint)items;
		real_clSetKernelArg(kernel, e->user_args + 1,
		                    items ? items * per_item : sizeof(cl_uint), NULL);
		real_clSetKernelArg(kernel, e->user_args + 2, sizeof n, &n);
	}
	return l;
}

static void CL_CALLBACK read_done(cl_event ev, cl_int status, void *data)
{
	REAL(clReleaseMemObject);
	REAL(clReleaseEvent);
	pt_ocl_kprof_launch *l = data;
	pt_thread *self = pt_enter();
	if (status == CL_COMPLETE && l->stream)
		pt_kprof_emit(l->stream, PT_GPU_API_OPENCL, pt_now(), l->correlation, l->prof,
		              l->nblocks, 0, l->host);
	real_clReleaseMemObject(l->buf);
	real_clReleaseEvent(ev);
	free(l->host);
	free(l);
	atomic_fetch_sub(&kp_pending, 1);
	if (self)
		pt_leave(self);
}

void pt_ocl_kprof_end(pt_ocl_kprof_launch *l, cl_int err, cl_command_queue queue, cl_event ev,
                      pt_gpu_stream *stream, uint64_t correlation)
{
	REAL(clEnqueueReadBuffer);
	REAL(clSetEventCallback);
	REAL(clReleaseMemObject);
	REAL(clReleaseEvent);
	kp_set_default_args(l->e);
	l->e = NULL; /* the application may release the kernel before the read completes */
	l->stream = stream;
	l->correlation = correlation;
	cl_event rev = NULL;
	if (err == CL_SUCCESS && ev &&
	    real_clEnqueueReadBuffer(queue, l->buf, CL_FALSE, 0,
	                             pt_kprof_words(l->nblocks) * sizeof(uint64_t), l->host, 1, &ev,
	                             &rev) == CL_SUCCESS) {
		atomic_fetch_add(&kp_pending, 1);
		if (real_clSetEventCallback(rev, CL_COMPLETE, read_done, l) == CL_SUCCESS)
			return;
		atomic_fetch_sub(&kp_pending, 1);
		/* No callback: this profile is lost; the read still writes
		 * into l->host, so wait for it before freeing. */
		REAL(clWaitForEvents);
		real_clWaitForEvents(1, &rev);
		real_clReleaseEvent(rev);
	}
	real_clReleaseMemObject(l->buf);
	free(l->host);
	free(l);
}
