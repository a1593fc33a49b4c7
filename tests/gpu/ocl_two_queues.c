/* SPDX-License-Identifier: MIT */
/* OpenCL workload for the GPU end-to-end test (runs on PoCL): two kernels
 * enqueued N times each on two in-order queues, half of the launches with
 * an event the program keeps, half without; buffer write/fill/copy/read/
 * map/unmap; clFinish and clWaitForEvents. It checks its own results and
 * that tracing left the queue properties it asked for unchanged, then
 * prints what it did (one "key value" per line) for the checker.
 * Usage: ocl_two_queues [N [threads]]: with "threads", q2's launches come
 * from a second host thread while the main thread launches on q1. */
#include "ocl_host.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *src =
	"__kernel void add_one(__global int *a) { size_t i = get_global_id(0); a[i] += 1; }\n"
	"__kernel void twice(__global int *b) { size_t i = get_global_id(0); b[i] *= 2; }\n";

#define LEN 1024

/* The `twice` launches on q2: interleaved with q1's by the main thread, or
 * all from a second thread ("threads" mode), alternating local sizes. */
struct q2_args {
	cl_command_queue q;
	cl_kernel k;
	int n;
	size_t global, local;
};

static void q2_enqueue(struct q2_args *a, int i)
{
	CHECK(clEnqueueNDRangeKernel(a->q, a->k, 1, NULL, &a->global, i % 2 ? &a->local : NULL, 0, NULL,
				     NULL));
}

static void *q2_loop(void *arg)
{
	struct q2_args *a = arg;
	for (int i = 0; i < a->n; i++)
		q2_enqueue(a, i);
	return NULL;
}

/* What the program did, for check_ocl.py. */
static void report(int n, int with_event)
{
	printf("launches_add_one %d\nlaunches_twice %d\nwith_event %d\n", n, n, with_event);
	printf("writes 1\nfills 1\ncopies 1\nreads 1\nmaps 1\nunmaps 1\n");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	int threads = argc > 2 && !strcmp(argv[2], "threads");
	/* crash: end with SIGSEGV while the context, queues and the
	 * implementation's threads are alive (the runtime's fatal-signal path
	 * with OpenCL in use). */
	int crash = argc > 2 && !strcmp(argv[2], "crash");
	cl_device_id dev;
	cl_int err;
	cl_context ctx = ocl_first_device(&dev);

	/* q1: the 1.2 call without profiling; q2: the 2.0 call with a property
	 * list that does not mention CL_QUEUE_PROPERTIES. */
	cl_command_queue q1 = clCreateCommandQueue(ctx, dev, 0, &err);
	CHECK(err);
	cl_queue_properties only_list[] = {0};
	cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx, dev, only_list, &err);
	CHECK(err);
	cl_command_queue_properties p1 = 123, p2 = 123;
	CHECK(clGetCommandQueueInfo(q1, CL_QUEUE_PROPERTIES, sizeof p1, &p1, NULL));
	CHECK(clGetCommandQueueInfo(q2, CL_QUEUE_PROPERTIES, sizeof p2, &p2, NULL));
	if (p1 != 0 || p2 != 0) {
		fprintf(stderr, "queue properties changed: %#lx %#lx\n", (unsigned long)p1,
			(unsigned long)p2);
		return 3;
	}
	size_t arr_size = 99;
	CHECK(clGetCommandQueueInfo(q2, CL_QUEUE_PROPERTIES_ARRAY, 0, NULL, &arr_size));
	if (arr_size != sizeof(cl_queue_properties)) {
		fprintf(stderr, "queue property list changed: %zu bytes\n", arr_size);
		return 3;
	}

	cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	CHECK(err);
	CHECK(clBuildProgram(prog, 1, &dev, NULL, NULL, NULL));
	cl_kernel ka = clCreateKernel(prog, "add_one", &err);
	CHECK(err);
	cl_kernel kb = clCreateKernel(prog, "twice", &err);
	CHECK(err);

	int host[LEN];
	for (int i = 0; i < LEN; i++)
		host[i] = i;
	cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof host, NULL, &err);
	CHECK(err);
	cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof host, NULL, &err);
	CHECK(err);
	CHECK(clEnqueueWriteBuffer(q1, a, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
	int one = 1;
	CHECK(clEnqueueFillBuffer(q2, b, &one, sizeof one, 0, sizeof host, 0, NULL, NULL));
	CHECK(clFinish(q2));
	CHECK(clSetKernelArg(ka, 0, sizeof a, &a));
	CHECK(clSetKernelArg(kb, 0, sizeof b, &b));

	size_t global = LEN, local = 64;
	int with_event = 0;
	pthread_t other;
	struct q2_args q2a = {q2, kb, n, global, local};
	if (threads && pthread_create(&other, NULL, q2_loop, &q2a) != 0)
		return 2;
	for (int i = 0; i < n; i++) {
		if (i % 2 == 0) {
			cl_event ev;
			CHECK(clEnqueueNDRangeKernel(q1, ka, 1, NULL, &global, &local, 0, NULL, &ev));
			if (!threads)
				q2_enqueue(&q2a, i);
			/* the program did not ask for profiling: it must not get it */
			CHECK(clWaitForEvents(1, &ev));
			cl_ulong t;
			if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t, &t, NULL) !=
			    CL_PROFILING_INFO_NOT_AVAILABLE) {
				fprintf(stderr, "profiling info visible to the program\n");
				return 3;
			}
			CHECK(clReleaseEvent(ev));
			with_event++;
		} else {
			CHECK(clEnqueueNDRangeKernel(q1, ka, 1, NULL, &global, NULL, 0, NULL, NULL));
			if (!threads)
				q2_enqueue(&q2a, i);
		}
	}
	if (threads)
		pthread_join(other, NULL);
	CHECK(clFinish(q1));
	CHECK(clFinish(q2));
	/* b := a (copy), then read a back, and map b */
	cl_event rd;
	CHECK(clEnqueueCopyBuffer(q2, a, b, 0, 0, sizeof host, 0, NULL, NULL));
	CHECK(clFinish(q2));
	CHECK(clEnqueueReadBuffer(q1, a, CL_FALSE, 0, sizeof host, host, 0, NULL, &rd));
	CHECK(clWaitForEvents(1, &rd));
	CHECK(clReleaseEvent(rd));
	int *m = clEnqueueMapBuffer(q2, b, CL_TRUE, CL_MAP_READ, 0, sizeof host, 0, NULL, NULL, &err);
	CHECK(err);
	for (int i = 0; i < LEN; i++)
		if (host[i] != i + n || m[i] != i + n) {
			fprintf(stderr, "wrong result at %d: %d %d (want %d)\n", i, host[i], m[i], i + n);
			return 4;
		}
	CHECK(clEnqueueUnmapMemObject(q2, b, m, 0, NULL, NULL));
	CHECK(clFinish(q2));
	if (crash) {
		report(n, with_event);
		fflush(stdout);
		*(volatile int *)(uintptr_t)argc = 0; /* address 1, 2 or 3: SIGSEGV */
	}

	clReleaseMemObject(a);
	clReleaseMemObject(b);
	clReleaseKernel(ka);
	clReleaseKernel(kb);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q1);
	clReleaseCommandQueue(q2);
	clReleaseContext(ctx);
	/* Tracing OpenCL must not have pulled in CUDA's profiler. */
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[4096];
	while (maps && fgets(line, sizeof line, maps))
		if (strstr(line, "libcupti") || strstr(line, "libcuda.so")) {
			fprintf(stderr, "mapped: %s", line);
			return 5;
		}
	if (maps)
		fclose(maps);
	report(n, with_event);
	return 0;
}
