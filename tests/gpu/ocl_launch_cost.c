/* SPDX-License-Identifier: MIT */
/* Host cost of an OpenCL kernel launch (not a test: run by
 * ocl_launch_cost.sh, which compares untraced / traced with PARATRACE_GPU=0 /
 * traced). Enqueues N small kernels without events, clFinish every 100, and
 * prints the mean time inside clEnqueueNDRangeKernel and the mean wall time
 * per launch including execution. Usage: ocl_launch_cost [N] */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static const char *src = "__kernel void k(__global int *a) { a[get_global_id(0)] += 1; }";

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	cl_platform_id p;
	cl_device_id d;
	cl_int e;
	if (clGetPlatformIDs(1, &p, NULL) || clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL))
		return 2;
	cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
	cl_command_queue q = clCreateCommandQueueWithProperties(c, d, NULL, &e);
	cl_program pr = clCreateProgramWithSource(c, 1, &src, NULL, &e);
	if (clBuildProgram(pr, 1, &d, NULL, NULL, NULL))
		return 2;
	cl_kernel k = clCreateKernel(pr, "k", &e);
	cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE, 4 * 64, NULL, &e);
	clSetKernelArg(k, 0, sizeof b, &b);
	size_t g = 64;
	for (int i = 0; i < 100; i++) /* warm up */
		clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
	clFinish(q);
	double enq = 0, t0 = now_ns();
	for (int i = 0; i < n; i++) {
		double a = now_ns();
		clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
		enq += now_ns() - a;
		if (i % 100 == 99)
			clFinish(q);
	}
	clFinish(q);
	double total = now_ns() - t0;
	printf("enqueue_us %.3f per_launch_us %.3f\n", enq / n / 1e3, total / n / 1e3);
	clReleaseMemObject(b);
	clReleaseKernel(k);
	clReleaseProgram(pr);
	clReleaseCommandQueue(q);
	clReleaseContext(c);
	return 0;
}
