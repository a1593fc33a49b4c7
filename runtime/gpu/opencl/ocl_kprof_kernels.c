/* SPDX-License-Identifier: MIT */
/* OpenCL kernel profiling: the instrumented twins handed out for the
 * application's kernels, their hidden profile buffers and arguments. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "ocl_kprof_int.h"

static const kp_twin *twin_of(const kp_program *kp, const char *name)
{
	if (!kp || kp->state != KP_INSTRUMENTED || !name)
		return NULL;
	for (uint32_t i = 0; i < kp->ntwins; i++)
		if (!strcmp(kp->twins[i].name, name))
			return &kp->twins[i];
	return NULL;
}

const uint64_t kp_zeros[PT_GPU_PROF_HEADER_WORDS + PT_GPU_MAX_BLOCKS];

size_t kp_prof_bytes(const kp_twin *tw)
{
	return pt_kprof_words(tw->nblocks) * sizeof(uint64_t);
}

/* Between launches (and for launches that do not come through
 * clEnqueueNDRangeKernel here) the twin writes into a buffer of its own
 * and counts no blocks (0 scratch items). */
void kp_set_default_args(kp_kernel *e)
{
	REAL(clSetKernelArg);
	cl_uint idx = e->user_args;
	real_clSetKernelArg(e->k, idx, sizeof e->dummy, &e->dummy);
	if (e->twin->nblocks) {
		cl_uint zero = 0;
		real_clSetKernelArg(e->k, idx + 1, sizeof(cl_uint), NULL);
		real_clSetKernelArg(e->k, idx + 2, sizeof zero, &zero);
	}
}

/* Makes the twin of kp's kernel `tw`; NULL if that fails. */
static cl_kernel make_twin_kernel(kp_program *kp, const kp_twin *tw)
{
	REAL(clCreateKernel);
	REAL(clGetKernelInfo);
	REAL(clCreateBuffer);
	REAL(clReleaseKernel);
	cl_int e = CL_SUCCESS;
	cl_kernel k = real_clCreateKernel(kp->ours, tw->twin, &e);
	kp_kernel *ke = k ? calloc(1, sizeof *ke) : NULL;
	cl_uint nargs = 0;
	if (ke &&
	    real_clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL) == CL_SUCCESS &&
	    real_clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof ke->ctx, &ke->ctx, NULL) ==
	        CL_SUCCESS &&
	    nargs >= (tw->nblocks ? 3u : 1u)) {
		ke->k = k;
		ke->twin = tw;
		ke->user = kp->user;
		ke->user_args = nargs - (tw->nblocks ? 3 : 1);
		ke->dummy =
		    real_clCreateBuffer(ke->ctx, CL_MEM_READ_WRITE, kp_prof_bytes(tw), NULL, &e);
		if (ke->dummy) {
			kp_set_default_args(ke);
			pt_spin_lock(&kp_lock);
			ke->next = kp_kernels;
			kp_kernels = ke;
			pt_spin_unlock(&kp_lock);
			atomic_store(&kp_any_kernels, 1);
			return k;
		}
	}
	free(ke);
	if (k)
		real_clReleaseKernel(k);
	return NULL;
}

PT_EXPORT cl_kernel clCreateKernel(cl_program program, const char *name, cl_int *errcode_ret)
{
	REAL(clCreateKernel);
	if (!real_clCreateKernel) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_PROGRAM;
		return NULL;
	}
	kp_program *kp = kp_mode() ? kp_program_find(program) : NULL;
	const kp_twin *tw = twin_of(kp, name);
	if (!tw)
		return real_clCreateKernel(program, name, errcode_ret);
	int saved = errno;
	pt_thread *t = pt_enter();
	cl_kernel k = make_twin_kernel(kp, tw);
	if (t)
		pt_leave(t);
	errno = saved;
	if (!k)
		return real_clCreateKernel(program, name, errcode_ret);
	if (errcode_ret)
		*errcode_ret = CL_SUCCESS;
	return k;
}

PT_EXPORT cl_int clCreateKernelsInProgram(cl_program program, cl_uint num, cl_kernel *out,
                                          cl_uint *num_ret)
{
	REAL(clCreateKernelsInProgram);
	REAL(clGetKernelInfo);
	REAL(clReleaseKernel);
	if (!real_clCreateKernelsInProgram)
		return CL_INVALID_PROGRAM;
	cl_int err = real_clCreateKernelsInProgram(program, num, out, num_ret);
	kp_program *kp = err == CL_SUCCESS && out && kp_mode() ? kp_program_find(program) : NULL;
	if (!kp || kp->state != KP_INSTRUMENTED)
		return err;
	cl_uint n = num;
	if (num_ret && *num_ret < n)
		n = *num_ret;
	int saved = errno;
	pt_thread *t = pt_enter();
	for (cl_uint i = 0; i < n; i++) {
		char name[256];
		const kp_twin *tw = NULL;
		if (real_clGetKernelInfo(out[i], CL_KERNEL_FUNCTION_NAME, sizeof name, name,
		                         NULL) == CL_SUCCESS)
			tw = twin_of(kp, name);
		cl_kernel k = tw ? make_twin_kernel(kp, tw) : NULL;
		if (k) {
			real_clReleaseKernel(out[i]);
			out[i] = k;
		}
	}
	if (t)
		pt_leave(t);
	errno = saved;
	return err;
}

PT_EXPORT cl_int clGetKernelInfo(cl_kernel kernel, cl_kernel_info param, size_t size, void *value,
                                 size_t *size_ret)
{
	REAL(clGetKernelInfo);
	if (!real_clGetKernelInfo)
		return CL_INVALID_KERNEL;
	kp_kernel *e = kp_kernel_find(kernel);
	if (e) {
		switch (param) {
		case CL_KERNEL_FUNCTION_NAME:
			return pt_ocl_info_answer(e->twin->name, strlen(e->twin->name) + 1, size,
			                          value, size_ret);
		case CL_KERNEL_NUM_ARGS:
			return pt_ocl_info_answer(&e->user_args, sizeof e->user_args, size, value,
			                          size_ret);
		case CL_KERNEL_PROGRAM:
			return pt_ocl_info_answer(&e->user, sizeof e->user, size, value, size_ret);
		default:
			break;
		}
	}
	return real_clGetKernelInfo(kernel, param, size, value, size_ret);
}

PT_EXPORT cl_int clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void *value)
{
	REAL(clSetKernelArg);
	if (!real_clSetKernelArg)
		return CL_INVALID_KERNEL;
	kp_kernel *e = kp_kernel_find(kernel);
	if (e && index >= e->user_args)
		return CL_INVALID_ARG_INDEX;
	return real_clSetKernelArg(kernel, index, size, value);
}

PT_EXPORT cl_int clGetKernelArgInfo(cl_kernel kernel, cl_uint index, cl_kernel_arg_info param,
                                    size_t size, void *value, size_t *size_ret)
{
	REAL(clGetKernelArgInfo);
	if (!real_clGetKernelArgInfo)
		return CL_INVALID_KERNEL;
	kp_kernel *e = kp_kernel_find(kernel);
	if (e && index >= e->user_args)
		return CL_INVALID_ARG_INDEX;
	return real_clGetKernelArgInfo(kernel, index, param, size, value, size_ret);
}

PT_EXPORT cl_int clReleaseKernel(cl_kernel kernel)
{
	REAL(clReleaseKernel);
	REAL(clReleaseMemObject);
	if (!real_clReleaseKernel)
		return CL_INVALID_KERNEL;
	kp_kernel *e = kp_kernel_find(kernel);
	cl_uint refs = 0;
	REAL(clGetKernelInfo);
	if (e &&
	    real_clGetKernelInfo(kernel, CL_KERNEL_REFERENCE_COUNT, sizeof refs, &refs, NULL) ==
	        CL_SUCCESS &&
	    refs == 1) {
		pt_spin_lock(&kp_lock);
		for (kp_kernel **pp = &kp_kernels; *pp; pp = &(*pp)->next)
			if (*pp == e) {
				*pp = e->next;
				break;
			}
		pt_spin_unlock(&kp_lock);
	} else {
		e = NULL;
	}
	cl_int err = real_clReleaseKernel(kernel);
	if (e) {
		int saved = errno;
		pt_thread *t = pt_enter();
		real_clReleaseMemObject(e->dummy);
		if (t)
			pt_leave(t);
		errno = saved;
		free(e);
	}
	return err;
}

PT_EXPORT cl_int clReleaseProgram(cl_program program)
{
	REAL(clReleaseProgram);
	REAL(clGetProgramInfo);
	if (!real_clReleaseProgram)
		return CL_INVALID_PROGRAM;
	kp_program *kp = kp_programs ? kp_program_find(program) : NULL;
	cl_uint refs = 0;
	if (kp &&
	    real_clGetProgramInfo(program, CL_PROGRAM_REFERENCE_COUNT, sizeof refs, &refs, NULL) ==
	        CL_SUCCESS &&
	    refs == 1) {
		/* Kernels made from our build hold references of their own. */
		pt_spin_lock(&kp_lock);
		cl_program ours = kp->ours != kp->user ? kp->ours : NULL;
		kp->ours = NULL;
		kp->state = KP_DEAD;
		free(kp->source);
		kp->source = NULL;
		kp_unit *compiled = kp->compiled, *units = kp->units;
		uint32_t nunits = kp->nunits;
		kp->compiled = kp->units = NULL;
		kp->nunits = 0;
		pt_spin_unlock(&kp_lock);
		kp_unit_free(compiled);
		free(compiled);
		for (uint32_t i = 0; i < nunits; i++)
			kp_unit_free(&units[i]);
		free(units);
		if (ours) {
			int saved = errno;
			pt_thread *t = pt_enter();
			real_clReleaseProgram(ours);
			if (t)
				pt_leave(t);
			errno = saved;
		}
	}
	return real_clReleaseProgram(program);
}
