/* SPDX-License-Identifier: MIT */
/* Host-side set-up shared by the OpenCL test and benchmark programs
 * (tests/gpu, bench/gpu): a failed call ends the program with status 2,
 * naming it; the first device of the first platform with its context; a
 * file read whole (SPIR bitcode compiled offline). */
#ifndef PT_TESTS_OCL_HOST_H
#define PT_TESTS_OCL_HOST_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		cl_int e_ = (x);                                                                   \
		if (e_ != CL_SUCCESS) {                                                            \
			fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, e_);           \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

static inline cl_context ocl_first_device(cl_device_id *dev)
{
	cl_platform_id plat;
	cl_int err;
	CHECK(clGetPlatformIDs(1, &plat, NULL));
	CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, dev, NULL));
	cl_context ctx = clCreateContext(NULL, 1, dev, NULL, NULL, &err);
	CHECK(err);
	return ctx;
}

/* The file's bytes (malloc'ed, *len of them), or NULL. */
static inline void *ocl_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	void *b = malloc(*len);
	if (b && fread(b, 1, *len, f) != *len) {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

#endif
