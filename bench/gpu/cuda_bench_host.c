/* SPDX-License-Identifier: MIT */
/* Kernel-profiling cost on a CUDA GPU (bench/gpu/cuda_bench.py): loads the
 * PTX of cuda_kernels_bench.cu (clang, with or without instrument.so)
 * through the driver API and launches triad over N floats and branchy over
 * N threads, in blocks of 256, REPS times each after one warm-up launch.
 * Prints the median time per launch in microseconds, as the stream sees it
 * (CUDA events recorded before and after the launch call, so whatever the
 * tracer adds to the stream around the kernel is counted), and checksums.
 *   cuda_bench_host KERNELS.ptx [REPS [N]] */
#include "cu_driver.h"
#include <stdint.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

static float median_us(CUfunction k, unsigned grid, void **args, int reps)
{
	CUevent start, stop;
	CHECK(cu.event_create(&start, 0));
	CHECK(cu.event_create(&stop, 0));
	float *t = malloc(reps * sizeof *t);
	for (int r = 0; r <= reps; r++) {
		CHECK(cu.event_record(start, NULL));
		CHECK(cu.launch(k, grid, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
		CHECK(cu.event_record(stop, NULL));
		CHECK(cu.event_synchronize(stop));
		float ms;
		CHECK(cu.event_elapsed(&ms, start, stop));
		if (r)
			t[r - 1] = ms * 1000.0f;
	}
	qsort(t, reps, sizeof *t, cmp);
	float m = t[reps / 2];
	free(t);
	return m;
}

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
	if (argc < 2) {
		fprintf(stderr, "usage: cuda_bench_host KERNELS.ptx [REPS [N]]\n");
		return 2;
	}
	int reps = argc > 2 ? atoi(argv[2]) : 50;
	size_t n = argc > 3 ? (size_t)atol(argv[3]) : (size_t)1 << 24;
	n = (n + 255) / 256 * 256;
	CUmodule mod;
	int rc = cu_open(argv[1], &mod);
	if (rc)
		return rc;
	CUfunction triad, branchy;
	CHECK(cu.module_get_function(&triad, mod, "triad"));
	CHECK(cu.module_get_function(&branchy, mod, "branchy"));

	float *h = malloc(n * sizeof *h);
	for (size_t i = 0; i < n; i++)
		h[i] = (float)(i % 1000);
	CUdeviceptr a, b, c, out, in;
	CHECK(cu.mem_alloc(&a, n * sizeof(float)));
	CHECK(cu.mem_alloc(&b, n * sizeof(float)));
	CHECK(cu.mem_alloc(&c, n * sizeof(float)));
	CHECK(cu.mem_alloc(&out, n * sizeof(int)));
	CHECK(cu.mem_alloc(&in, 1024 * sizeof(int)));
	CHECK(cu.memcpy_htod(b, h, n * sizeof(float)));
	CHECK(cu.memcpy_htod(c, h, n * sizeof(float)));
	int data[1024];
	for (int i = 0; i < 1024; i++)
		data[i] = (i * 7919) % 101;
	CHECK(cu.memcpy_htod(in, data, sizeof data));
	float s = 3.0f;
	void *targs[] = {&a, &b, &c, &s};
	void *bargs[] = {&out, &in};
	unsigned grid = (unsigned)(n / 256);
	printf("triad %.2f\n", median_us(triad, grid, targs, reps));
	printf("branchy %.2f\n", median_us(branchy, grid, bargs, reps));
	CHECK(cu.memcpy_dtoh(h, a, n * sizeof(float)));
	printf("sum_triad %llu\n", (unsigned long long)checksum(h, n));
	CHECK(cu.memcpy_dtoh(h, out, n * sizeof(int)));
	printf("sum_branchy %llu\n", (unsigned long long)checksum(h, n));
	return 0;
}
