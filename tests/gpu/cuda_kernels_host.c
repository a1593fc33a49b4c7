/* SPDX-License-Identifier: MIT */
/* Runs the kernels of cuda_kernels.cu on a real GPU (check_cuda_kernels_gpu.py):
 * the PTX clang made of them with instrument.so is loaded through the
 * driver API, which this program reaches with dlopen (it links nothing of
 * CUDA). branchy runs twice on 4096 threads in blocks of 256 (in[i] =
 * i % 7), axpy once on 3000 elements in blocks of 128. Prints the
 * checksums and what it launched. Exit status 77 when there is no usable
 * CUDA driver or GPU.
 * With "concurrent": instead, branchy three times on each of two streams
 * of its own, over 4096 and 2048 threads, the launches made in turn
 * without waiting (one kernel, two streams at once).
 * Usage: cuda_kernels_host KERNELS.ptx [concurrent] */
#include "cu_driver.h"
#include <stdint.h>
#include <string.h>

#define N 4096
#define NA 3000

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: cuda_kernels_host KERNELS.ptx\n");
		return 2;
	}
	CUmodule mod;
	int rc = cu_open(argv[1], &mod);
	if (rc)
		return rc;
	CUfunction branchy, axpy;
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
	if (argc > 2 && !strcmp(argv[2], "concurrent")) {
		CUstream s[2];
		CUdeviceptr dout2;
		CHECK(cu.mem_alloc(&dout2, N * sizeof *out));
		void *args2[] = {&dout2, &din};
		for (int i = 0; i < 2; i++)
			CHECK(cu.stream_create(&s[i], CU_STREAM_NON_BLOCKING));
		for (int r = 0; r < 3; r++) {
			CHECK(cu.launch(branchy, N / 256, 1, 1, 256, 1, 1, 0, s[0], args, NULL));
			CHECK(cu.launch(branchy, N / 512, 1, 1, 256, 1, 1, 0, s[1], args2, NULL));
		}
		CHECK(cu.synchronize());
		CHECK(cu.memcpy_dtoh(out, dout, N * sizeof *out));
		printf("sum_a %llu\n", (unsigned long long)cu_checksum(out, N));
		CHECK(cu.memcpy_dtoh(out, dout2, N / 2 * sizeof *out));
		printf("sum_b %llu\n", (unsigned long long)cu_checksum(out, N / 2));
		return 0;
	}
	for (int r = 0; r < 2; r++) {
		CHECK(cu.launch(branchy, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
		CHECK(cu.synchronize());
		CHECK(cu.memcpy_dtoh(out, dout, N * sizeof *out));
		printf("sum_branchy %llu\n", (unsigned long long)cu_checksum(out, N));
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
	printf("sum_axpy %llu\n", (unsigned long long)cu_checksum(y, NA));
	printf("N %d\nNA %d\nblock %d\nablock %d\nreps 2\n", N, NA, 256, 128);
	return 0;
}
