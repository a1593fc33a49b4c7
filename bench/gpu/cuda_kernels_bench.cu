// SPDX-License-Identifier: MIT
// The kernels of the CUDA kernel-profiling benchmark (bench/gpu/cuda_bench.py),
// the same two as the OpenCL one: a memory-bound triad and a branchy loop
// of id % 64 iterations with a data-dependent branch. Compiled by clang for
// the GPU side only, with and without instrument.so, so the few CUDA names
// used are declared here (clang 14 cannot read CUDA 12+ headers).
#define __global__ __attribute__((global))

__attribute__((device)) static inline int tid(void)
{
	return __nvvm_read_ptx_sreg_tid_x() +
	       __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x();
}

extern "C" __global__ void triad(float *a, const float *b, const float *c, float s)
{
	int i = tid();
	a[i] = b[i] + s * c[i];
}

extern "C" __global__ void branchy(int *out, const int *in)
{
	int i = tid();
	int acc = 0;
	for (int k = 0; k < i % 64; k++) {
		int v = in[(i + k) & 1023];
		if (v & 1)
			acc += v * 3;
		else
			acc -= v;
	}
	out[i] = acc;
}
