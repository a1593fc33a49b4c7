/* SPDX-License-Identifier: MIT */
/* OpenCL program for the kernel-profiling test (check_ocl_kernels.py): it
 * builds its kernels from source at run time, as most OpenCL programs do,
 * and launches kernels whose per-block counts follow from the work sizes
 * and the data:
 *   branchy  odd work-items take a branch; a loop runs (id % 8) times and
 *            calls a helper that branches on the data;
 *   grid2d   a 2-D range where items with (x + y) % 3 == 0 take a branch;
 *   reduce   a tree reduction in __local memory (the application's own
 *            __local argument and barriers), a loop of log2(group) steps;
 *   copy     straight-line;
 *   triangle a loop whose trip count is the work-item's id.
 * It checks that what it sees of its kernels is what it built (name,
 * argument count, program, argument indices), prints checksums of every
 * result and what it launched, one "key value" per line (the checker finds
 * the marker comments, // NAME, in the sources the trace keeps).
 *   ocl_kernels [REPS]                build the kernels from source
 *   ocl_kernels --binary F [REPS]     load SPIR bitcode F (e.g. compiled
 *                                     offline by clang with instrument.so)
 *   ocl_kernels --link [REPS]         separate compilation: the helper and
 *                                     the kernels compiled apart
 *                                     (clCompileProgram; the kernels
 *                                     include a header given as a program),
 *                                     the helper made a library, both
 *                                     linked (clLinkProgram); then a
 *                                     compile and a link that fail, their
 *                                     errors and logs printed
 *   ocl_kernels --source              print the kernels' source */
#include "ocl_host.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two strings (the runtime must join them as the implementation does). */
static const char *src_helper = "int helper(int x)\n"
                                "{\n"
                                "	if (x > 3)\n"
                                "		return x * 2; // BIG\n"
                                "	return x; // SMALL\n"
                                "}\n";
static const char *src_kernels =
    "__kernel void branchy(__global int *out, __global const int *in)\n"
    "{\n"
    "	int i = get_global_id(0); // ENTRY\n"
    "	int acc = 0;\n"
    "	if (i & 1)\n"
    "		acc += in[i]; // ODD\n"
    "	for (int k = 0; k < i % 8; k++)\n"
    "	{\n"
    "		acc += helper(in[k]); // BODY\n"
    "	}\n"
    "	out[i] = acc;\n"
    "}\n"
    "\n"
    "__kernel void grid2d(__global int *out, int width)\n"
    "{\n"
    "	int x = get_global_id(0), y = get_global_id(1);\n"
    "	int v = x * y;\n"
    "	if ((x + y) % 3 == 0)\n"
    "		v = -v; // THIRD\n"
    "	out[y * width + x] = v;\n"
    "}\n"
    "\n"
    "__kernel void reduce(__global int *out, __global const int *in, __local int *tmp)\n"
    "{\n"
    "	int l = get_local_id(0), n = get_local_size(0);\n"
    "	tmp[l] = in[get_global_id(0)];\n"
    "	barrier(CLK_LOCAL_MEM_FENCE);\n"
    "	for (int s = n / 2; s > 0; s /= 2) {\n"
    "		if (l < s)\n"
    "			tmp[l] += tmp[l + s]; // FOLD\n"
    "		barrier(CLK_LOCAL_MEM_FENCE); // STEP\n"
    "	}\n"
    "	if (l == 0)\n"
    "		out[get_group_id(0)] = tmp[0]; // GROUP\n"
    "}\n"
    "\n"
    "__kernel void copy(__global int *out, __global const int *in)\n"
    "{\n"
    "	out[get_global_id(0)] = in[get_global_id(0)] * 3; // COPY\n"
    "}\n"
    "\n"
    "__kernel void triangle(__global int *out, __global const int *in)\n"
    "{\n"
    "	int i = get_global_id(0), acc = 0;\n"
    "	for (int k = 0; k < i; k++)\n"
    "	{\n"
    "		acc += in[k]; // TRI\n"
    "	}\n"
    "	out[i] = acc;\n"
    "}\n";

static uint64_t checksum(const int *v, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint32_t)v[i]) * 1099511628211ull;
	return h;
}

/* "sum_<what> <err>" for p's build on dev, then its build log, one
 * "log_<what> <line>" per line (PoCL names a temporary file in it). */
static void print_log(const char *what, cl_int err, cl_program p, cl_device_id dev)
{
	size_t len = 0;
	char *log = NULL;
	if (clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) == CL_SUCCESS &&
	    len && (log = malloc(len)))
		CHECK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL));
	printf("sum_%s %d\n", what, err);
	for (char *l = log, *e; l && *l; l = e + (*e != 0)) {
		e = strchr(l, '\n');
		if (!e)
			e = l + strlen(l);
		printf("log_%s %.*s\n", what, (int)(e - l), l);
	}
	free(log);
}

/* The kernels through clCompileProgram and clLinkProgram (see the top). */
static cl_program link_program(cl_context ctx, cl_device_id dev)
{
	static const char *header = "int helper(int x);\n";
	static const char *include = "#include \"kp/helper.h\"\n";
	const char *hname = "kp/helper.h";
	cl_int err;
	cl_program h = clCreateProgramWithSource(ctx, 1, &src_helper, NULL, &err);
	CHECK(err);
	CHECK(clCompileProgram(h, 1, &dev, "-DUNUSED=1", 0, NULL, NULL, NULL, NULL));
	cl_program hdr = clCreateProgramWithSource(ctx, 1, &header, NULL, &err);
	CHECK(err);
	const char *srcs[2] = {include, src_kernels};
	cl_program k = clCreateProgramWithSource(ctx, 2, srcs, NULL, &err);
	CHECK(err);
	CHECK(clCompileProgram(k, 1, &dev, NULL, 1, &hdr, &hname, NULL, NULL));
	cl_program lib = clLinkProgram(ctx, 1, &dev, "-create-library", 1, &h, NULL, NULL, &err);
	CHECK(err);
	/* inputs released before the link's kernels are made */
	CHECK(clReleaseProgram(h));
	CHECK(clReleaseProgram(hdr));
	cl_program in[2] = {k, lib};
	cl_program p = clLinkProgram(ctx, 1, &dev, NULL, 2, in, NULL, NULL, &err);
	CHECK(err);
	CHECK(clReleaseProgram(k));
	CHECK(clReleaseProgram(lib));
	char names[256] = "";
	CHECK(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL));
	printf("sum_names %s\n", names);

	/* a compile that fails, and a link with a function nobody defines */
	static const char *bad = "__kernel void bad(__global int *o) { o[0] = nonsense; }\n";
	cl_program b = clCreateProgramWithSource(ctx, 1, &bad, NULL, &err);
	CHECK(err);
	err = clCompileProgram(b, 1, &dev, NULL, 0, NULL, NULL, NULL, NULL);
	print_log("badcompile", err, b, dev);
	CHECK(clReleaseProgram(b));
	static const char *undef = "int missing(int);\n"
	                           "__kernel void undef(__global int *o) { o[0] = missing(1); }\n";
	b = clCreateProgramWithSource(ctx, 1, &undef, NULL, &err);
	CHECK(err);
	CHECK(clCompileProgram(b, 1, &dev, NULL, 0, NULL, NULL, NULL, NULL));
	cl_program l = clLinkProgram(ctx, 1, &dev, NULL, 1, &b, NULL, NULL, &err);
	printf("sum_badlink %d %s\n", err, l ? "program" : "null");
	if (l)
		CHECK(clReleaseProgram(l));
	CHECK(clReleaseProgram(b));
	return p;
}

static cl_kernel kernel(cl_program p, const char *name, cl_uint nargs)
{
	cl_int err;
	cl_kernel k = clCreateKernel(p, name, &err);
	CHECK(err);
	/* What the application sees of its kernel must be what it built. */
	char got[64] = "";
	cl_uint n = 0;
	cl_program prog = NULL;
	size_t len = 0;
	CHECK(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof got, got, &len));
	CHECK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof n, &n, NULL));
	CHECK(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof prog, &prog, NULL));
	int bad_index = 0;
	cl_mem none = NULL;
	cl_int e = clSetKernelArg(k, nargs, sizeof none, &none);
	bad_index = e == CL_INVALID_ARG_INDEX;
	if (strcmp(got, name) || len != strlen(name) + 1 || n != nargs || prog != p || !bad_index) {
		fprintf(stderr,
		        "kernel %s seen as '%s' (len %zu), %u args, program %s, arg %u: %d\n", name,
		        got, len, n, prog == p ? "same" : "other", nargs, e);
		exit(3);
	}
	return k;
}

int main(int argc, char **argv)
{
	const char *binary = NULL;
	int a = 1, link = 0;
	if (argc > 1 && !strcmp(argv[1], "--source")) {
		printf("%s%s", src_helper, src_kernels);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--binary")) {
		binary = argv[2];
		a = 3;
	}
	if (argc > 1 && !strcmp(argv[1], "--link")) {
		link = 1;
		a = 2;
	}
	int reps = argc > a ? atoi(argv[a]) : 2;
	cl_device_id dev;
	cl_int err;
	cl_context ctx = ocl_first_device(&dev);
	cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
	CHECK(err);
	cl_program p;
	if (binary) {
		size_t len = 0;
		const unsigned char *bc = ocl_read_file(binary, &len);
		if (!bc) {
			fprintf(stderr, "cannot read %s\n", binary);
			return 2;
		}
		p = clCreateProgramWithBinary(ctx, 1, &dev, &len, &bc, NULL, &err);
		CHECK(err);
		CHECK(clBuildProgram(p, 1, &dev, "-x spir -spir-std=1.2", NULL, NULL));
		free((void *)bc);
	} else if (link) {
		p = link_program(ctx, dev);
	} else {
		const char *srcs[2] = {src_helper, src_kernels};
		p = clCreateProgramWithSource(ctx, 2, srcs, NULL, &err);
		CHECK(err);
		CHECK(clBuildProgram(p, 1, &dev, "-DUNUSED=1", NULL, NULL));
	}
	cl_kernel kb = kernel(p, "branchy", 2), k2 = kernel(p, "grid2d", 2),
	          kr = kernel(p, "reduce", 3), kc = kernel(p, "copy", 2),
	          kt = kernel(p, "triangle", 2);

	enum { N = 4096, W = 48, H = 32, LB = 64, LR = 128, NT = 512, LT = 64 };
	int *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
	for (int i = 0; i < N; i++)
		in[i] = i % 7;
	cl_mem bin =
	    clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *in, in, &err);
	CHECK(err);
	cl_mem bout = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof *out, NULL, &err);
	CHECK(err);
	CHECK(clSetKernelArg(kb, 0, sizeof bout, &bout));
	CHECK(clSetKernelArg(kb, 1, sizeof bin, &bin));
	CHECK(clSetKernelArg(kc, 0, sizeof bout, &bout));
	CHECK(clSetKernelArg(kc, 1, sizeof bin, &bin));
	CHECK(clSetKernelArg(kt, 0, sizeof bout, &bout));
	CHECK(clSetKernelArg(kt, 1, sizeof bin, &bin));
	int width = W;
	CHECK(clSetKernelArg(k2, 0, sizeof bout, &bout));
	CHECK(clSetKernelArg(k2, 1, sizeof width, &width));
	CHECK(clSetKernelArg(kr, 0, sizeof bout, &bout));
	CHECK(clSetKernelArg(kr, 1, sizeof bin, &bin));
	CHECK(clSetKernelArg(kr, 2, LR * sizeof(int), NULL));

	size_t n = N, lb = LB, lr = LR, g2[2] = {W, H}, l2[2] = {16, 4}, nt = NT, lt = LT;
	for (int r = 0; r < reps; r++) {
		/* branchy: the group size given, then left to the implementation */
		CHECK(clEnqueueNDRangeKernel(q, kb, 1, NULL, &n, &lb, 0, NULL, NULL));
		CHECK(
		    clEnqueueReadBuffer(q, bout, CL_TRUE, 0, N * sizeof *out, out, 0, NULL, NULL));
		printf("sum_branchy %llu\n", (unsigned long long)checksum(out, N));
		CHECK(clEnqueueNDRangeKernel(q, kb, 1, NULL, &n, NULL, 0, NULL, NULL));
		CHECK(clEnqueueNDRangeKernel(q, k2, 2, NULL, g2, l2, 0, NULL, NULL));
		CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, W * H * sizeof *out, out, 0, NULL,
		                          NULL));
		printf("sum_grid2d %llu\n", (unsigned long long)checksum(out, W * H));
		cl_event ev;
		CHECK(clEnqueueNDRangeKernel(q, kr, 1, NULL, &n, &lr, 0, NULL, &ev));
		CHECK(clWaitForEvents(1, &ev));
		CHECK(clReleaseEvent(ev));
		CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, N / LR * sizeof *out, out, 0, NULL,
		                          NULL));
		printf("sum_reduce %llu\n", (unsigned long long)checksum(out, N / LR));
		CHECK(clEnqueueNDRangeKernel(q, kc, 1, NULL, &n, &lb, 0, NULL, NULL));
		CHECK(
		    clEnqueueReadBuffer(q, bout, CL_TRUE, 0, N * sizeof *out, out, 0, NULL, NULL));
		printf("sum_copy %llu\n", (unsigned long long)checksum(out, N));
		CHECK(clEnqueueNDRangeKernel(q, kt, 1, NULL, &nt, &lt, 0, NULL, NULL));
		CHECK(
		    clEnqueueReadBuffer(q, bout, CL_TRUE, 0, NT * sizeof *out, out, 0, NULL, NULL));
		printf("sum_triangle %llu\n", (unsigned long long)checksum(out, NT));
	}
	CHECK(clFinish(q));
	printf("reps %d\nN %d\nW %d\nH %d\nLB %d\nLR %d\nL2 %zu %zu\nNT %d\nLT %d\n", reps, N, W, H,
	       LB, LR, l2[0], l2[1], NT, LT);
	clReleaseKernel(kb);
	clReleaseKernel(k2);
	clReleaseKernel(kr);
	clReleaseKernel(kc);
	clReleaseKernel(kt);
	clReleaseProgram(p);
	clReleaseMemObject(bin);
	clReleaseMemObject(bout);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	free(in);
	free(out);
	return 0;
}
