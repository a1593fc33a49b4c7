/* SPDX-License-Identifier: MIT */
/* Kernel-profiling cost on an OpenCL device (bench/gpu/run.sh): a
 * memory-bound kernel (triad over 4M floats) and a branchy one (a loop of
 * id % 64 iterations with a data-dependent branch), built from source at
 * run time like most OpenCL programs, each launched REPS times with
 * work-groups of 256. Prints the median device time per launch (event
 * profiling; the first launch, which includes the device's kernel compile,
 * is left out) and a checksum of the results.
 *   kernels_bench [REPS]            build from source
 *   kernels_bench --binary F [REPS] load SPIR bitcode F (clang, no plugin)
 *   kernels_bench --source          print the kernels' source */
#include "ocl_host.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *src = "__kernel void triad(__global float *a, __global const float *b, __global "
                         "const float *c, float s)\n"
                         "{\n"
                         "	size_t i = get_global_id(0);\n"
                         "	a[i] = b[i] + s * c[i];\n"
                         "}\n"
                         "\n"
                         "__kernel void branchy(__global int *out, __global const int *in)\n"
                         "{\n"
                         "	int i = get_global_id(0);\n"
                         "	int acc = 0;\n"
                         "	for (int k = 0; k < i % 64; k++) {\n"
                         "		int v = in[(i + k) & 1023];\n"
                         "		if (v & 1)\n"
                         "			acc += v * 3;\n"
                         "		else\n"
                         "			acc -= v;\n"
                         "	}\n"
                         "	out[i] = acc;\n"
                         "}\n";

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double run(cl_command_queue q, cl_kernel k, size_t n, int reps)
{
	size_t local = 256;
	double *t = malloc(reps * sizeof *t);
	for (int r = 0; r <= reps; r++) {
		cl_event ev;
		CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, &local, 0, NULL, &ev));
		CHECK(clWaitForEvents(1, &ev));
		cl_ulong s, e;
		CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL));
		CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL));
		CHECK(clReleaseEvent(ev));
		if (r)
			t[r - 1] = (double)(e - s) / 1e3;
	}
	qsort(t, reps, sizeof *t, cmp);
	double m = reps % 2 ? t[reps / 2] : (t[reps / 2 - 1] + t[reps / 2]) / 2;
	free(t);
	return m;
}

int main(int argc, char **argv)
{
	const char *binary = NULL;
	int a = 1;
	if (argc > 1 && !strcmp(argv[1], "--source")) {
		fputs(src, stdout);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--binary")) {
		binary = argv[2];
		a = 3;
	}
	int reps = argc > a ? atoi(argv[a]) : 10;
	cl_device_id dev;
	cl_int err;
	cl_context ctx = ocl_first_device(&dev);
	cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
	CHECK(err);
	cl_program p;
	if (binary) {
		size_t len = 0;
		unsigned char *bc = ocl_read_file(binary, &len);
		if (!bc)
			return 2;
		p = clCreateProgramWithBinary(ctx, 1, &dev, &len, (const unsigned char **)&bc, NULL,
		                              &err);
		CHECK(err);
		CHECK(clBuildProgram(p, 1, &dev, "-x spir -spir-std=1.2", NULL, NULL));
		free(bc);
	} else {
		p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
		CHECK(err);
		CHECK(clBuildProgram(p, 1, &dev, "", NULL, NULL));
	}
	enum { N = 4 << 20, NB = 1 << 20 };
	float *h = malloc(N * sizeof *h);
	for (int i = 0; i < N; i++)
		h[i] = (float)(i % 100);
	cl_mem fa = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof *h, NULL, &err);
	CHECK(err);
	cl_mem fb =
	    clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *h, h, &err);
	CHECK(err);
	cl_mem fc =
	    clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *h, h, &err);
	CHECK(err);
	int *hi = malloc(NB * sizeof *hi);
	for (int i = 0; i < NB; i++)
		hi[i] = i * 7 % 13;
	cl_mem bin =
	    clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, NB * sizeof *hi, hi, &err);
	CHECK(err);
	cl_mem bout = clCreateBuffer(ctx, CL_MEM_READ_WRITE, NB * sizeof *hi, NULL, &err);
	CHECK(err);
	cl_kernel kt = clCreateKernel(p, "triad", &err);
	CHECK(err);
	cl_kernel kb = clCreateKernel(p, "branchy", &err);
	CHECK(err);
	float s = 2.5f;
	CHECK(clSetKernelArg(kt, 0, sizeof fa, &fa));
	CHECK(clSetKernelArg(kt, 1, sizeof fb, &fb));
	CHECK(clSetKernelArg(kt, 2, sizeof fc, &fc));
	CHECK(clSetKernelArg(kt, 3, sizeof s, &s));
	CHECK(clSetKernelArg(kb, 0, sizeof bout, &bout));
	CHECK(clSetKernelArg(kb, 1, sizeof bin, &bin));
	printf("triad_us %.1f\n", run(q, kt, N, reps));
	printf("branchy_us %.1f\n", run(q, kb, NB, reps));
	CHECK(clEnqueueReadBuffer(q, fa, CL_TRUE, 0, N * sizeof *h, h, 0, NULL, NULL));
	CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, NB * sizeof *hi, hi, 0, NULL, NULL));
	uint64_t sum = 0;
	for (int i = 0; i < N; i++)
		sum += (uint64_t)h[i];
	for (int i = 0; i < NB; i++)
		sum += (uint64_t)(int64_t)hi[i];
	printf("checksum %llu\n", (unsigned long long)sum);
	return 0;
}
