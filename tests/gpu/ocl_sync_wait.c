/* SPDX-License-Identifier: MIT */
/* A host clFinish that waits for a kernel of known length (runs on PoCL's
 * CPU device), for the wait-state test (check_ocl_sync_wait.py): `spin`
 * runs one work-item through a loop sized to take about MS milliseconds
 * (measured on a first, shorter launch), and the program calls clFinish
 * right after enqueueing it. It prints "spin_iterations N" and the host's
 * own measure "finish_ms X" for the checker.
 * Usage: ocl_sync_wait [MS] (default 150). */
#include "ocl_host.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *src =
    "__kernel void spin(__global uint *out, uint n) {\n"
    "  uint x = (uint)get_global_id(0) + 1u;\n"
    "  for (uint i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; }\n"
    "  out[get_global_id(0)] = x;\n"
    "}\n";

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* One launch of spin(n) and the clFinish that waits for it: its time. */
static double spin(cl_command_queue q, cl_kernel k, cl_uint n)
{
	size_t one = 1;
	CHECK(clSetKernelArg(k, 1, sizeof n, &n));
	CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL));
	double t0 = now_ms();
	CHECK(clFinish(q));
	return now_ms() - t0;
}

int main(int argc, char **argv)
{
	double want_ms = argc > 1 ? atof(argv[1]) : 150;
	cl_device_id dev;
	cl_context ctx = ocl_first_device(&dev);
	cl_int err;
	cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
	CHECK(err);
	cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	CHECK(err);
	CHECK(clBuildProgram(prog, 1, &dev, "", NULL, NULL));
	cl_kernel k = clCreateKernel(prog, "spin", &err);
	CHECK(err);
	cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(cl_uint), NULL, &err);
	CHECK(err);
	CHECK(clSetKernelArg(k, 0, sizeof out, &out));
	/* the loop's speed, on a launch of at least 30 ms (after a first one,
	 * which may include compiling it) */
	cl_uint n = 1u << 18;
	spin(q, k, 1);
	double ms = spin(q, k, n);
	while (ms < 30 && n < (1u << 30)) {
		n *= 2;
		ms = spin(q, k, n);
	}
	double scaled = (double)n * want_ms / (ms > 0.01 ? ms : 0.01);
	n = scaled > 4e9 ? 4000000000u : (cl_uint)scaled;
	double finish = spin(q, k, n);
	printf("spin_iterations %u\nfinish_ms %.3f\n", n, finish);
	clReleaseMemObject(out);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	return 0;
}
