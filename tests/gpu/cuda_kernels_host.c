/* SPDX-License-Identifier: MIT */
/* Runs the kernels of cuda_kernels.cu on a real GPU (check_cuda_kernels_gpu.py):
 * the PTX clang made of them with instrument.so is loaded through the
 * driver API, which this program reaches with dlopen (it links nothing of
 * CUDA). branchy runs twice on 4096 threads in blocks of 256 (in[i] =
 * i % 7), axpy once on 3000 elements in blocks of 128. Prints the
 * checksums and what it launched. Exit status 77 when there is no usable
 * CUDA driver or GPU.
 * Usage: cuda_kernels_host KERNELS.ptx */
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define NA 3000

static struct {
	CUresult (*init)(unsigned);
	CUresult (*device_get)(CUdevice *, int);
	CUresult (*primary_ctx_retain)(CUcontext *, CUdevice);
	CUresult (*ctx_set_current)(CUcontext);
	CUresult (*module_load_data)(CUmodule *, const void *);
	CUresult (*module_get_function)(CUfunction *, CUmodule, const char *);
	CUresult (*mem_alloc)(CUdeviceptr *, size_t);
	CUresult (*memcpy_htod)(CUdeviceptr, const void *, size_t);
	CUresult (*memcpy_dtoh)(void *, CUdeviceptr, size_t);
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
	                   unsigned, CUstream, void **, void **);
	CUresult (*synchronize)(void);
} cu;

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		CUresult r_ = (x);                                                                 \
		if (r_ != CUDA_SUCCESS) {                                                          \
			fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, r_);           \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

static uint64_t checksum(const void *v, size_t n)
{
	const uint32_t *w = v;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ w[i]) * 1099511628211ull;
	return h;
}

int main(int argc, char **argv)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	if (!lib || argc < 2) {
		fprintf(stderr, "no CUDA driver (%s)\n",
		        lib ? "usage: cuda_kernels_host KERNELS.ptx" : dlerror());
		return lib ? 2 : 77;
	}
#define LOAD(f, s) cu.f = (__typeof__(cu.f))dlsym(lib, #s)
	LOAD(init, cuInit);
	LOAD(device_get, cuDeviceGet);
	LOAD(primary_ctx_retain, cuDevicePrimaryCtxRetain);
	LOAD(ctx_set_current, cuCtxSetCurrent);
	LOAD(module_load_data, cuModuleLoadData);
	LOAD(module_get_function, cuModuleGetFunction);
	LOAD(mem_alloc, cuMemAlloc_v2);
	LOAD(memcpy_htod, cuMemcpyHtoD_v2);
	LOAD(memcpy_dtoh, cuMemcpyDtoH_v2);
	LOAD(launch, cuLaunchKernel);
	LOAD(synchronize, cuCtxSynchronize);
#undef LOAD
	CUdevice dev;
	CUcontext ctx;
	if (!cu.init || cu.init(0) != CUDA_SUCCESS || cu.device_get(&dev, 0) != CUDA_SUCCESS) {
		fprintf(stderr, "no usable GPU\n");
		return 77;
	}
	CHECK(cu.primary_ctx_retain(&ctx, dev));
	CHECK(cu.ctx_set_current(ctx));
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return 2;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	rewind(f);
	char *ptx = calloc(1, (size_t)len + 1);
	if (!ptx || fread(ptx, 1, (size_t)len, f) != (size_t)len)
		return 2;
	fclose(f);
	CUmodule mod;
	CUfunction branchy, axpy;
	CHECK(cu.module_load_data(&mod, ptx));
	CHECK(cu.module_get_function(&branchy, mod, "branchy"));
	CHECK(cu.module_get_function(&axpy, mod, "axpy"));

	int *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
	for (int i = 0; i < N; i++)
		in[i] = i % 7;
	CUdeviceptr din, dout;
	CHECK(cu.mem_alloc(&din, N * sizeof *in));
	CHECK(cu.mem_alloc(&dout, N * sizeof *out));
	CHECK(cu.memcpy_htod(din, in, N * sizeof *in));
	void *args[] = {&dout, &din};
	for (int r = 0; r < 2; r++) {
		CHECK(cu.launch(branchy, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
		CHECK(cu.synchronize());
		CHECK(cu.memcpy_dtoh(out, dout, N * sizeof *out));
		printf("sum_branchy %llu\n", (unsigned long long)checksum(out, N));
	}
	float *x = malloc(NA * sizeof *x), *y = malloc(NA * sizeof *y);
	for (int i = 0; i < NA; i++)
		x[i] = (float)i, y[i] = 1.0f;
	CUdeviceptr dx, dy;
	CHECK(cu.mem_alloc(&dx, NA * sizeof *x));
	CHECK(cu.mem_alloc(&dy, NA * sizeof *y));
	CHECK(cu.memcpy_htod(dx, x, NA * sizeof *x));
	CHECK(cu.memcpy_htod(dy, y, NA * sizeof *y));
	float a = 2.0f;
	int n = NA;
	void *aargs[] = {&a, &dx, &dy, &n};
	CHECK(cu.launch(axpy, (NA + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, aargs, NULL));
	CHECK(cu.synchronize());
	CHECK(cu.memcpy_dtoh(y, dy, NA * sizeof *y));
	printf("sum_axpy %llu\n", (unsigned long long)checksum(y, NA));
	printf("N %d\nNA %d\nblock %d\nablock %d\nreps 2\n", N, NA, 256, 128);
	return 0;
}
