// SPDX-License-Identifier: MIT
// CUDA kernels for the device-instrumentation test (check_cuda_device.py),
// compiled by clang for the GPU side only (--cuda-device-only -nocudainc
// -nocudalib: this machine's CUDA 13 headers are newer than clang 14 can
// read, and no GPU is needed to check the code), so the few CUDA names used
// are declared here. The same kernels run on a GPU through
// cuda_kernels_host.c when one is present.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

__device__ static inline int tid(void)
{
	return __nvvm_read_ptx_sreg_tid_x() +
	       __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x();
}

__device__ int helper(int x)
{
	if (x > 3)
		return x * 2; // BIG
	return x;             // SMALL
}

extern "C" __global__ void branchy(int *out, const int *in)
{
	int i = tid(); // ENTRY
	int acc = 0;
	if (i & 1)
		acc += in[i]; // ODD
	for (int k = 0; k < i % 8; k++) {
		acc += helper(in[k]); // BODY
	}
	out[i] = acc;
}

extern "C" __global__ void axpy(float a, const float *x, float *y, int n)
{
	int i = tid();
	if (i < n)
		y[i] = a * x[i] + y[i]; // AXPY
}

__device__ int factorial(int n)
{
	return n <= 1 ? 1 : n * factorial(n - 1); // FACT
}

extern "C" __global__ void recursive(int *out)
{
	out[tid()] = factorial(out[tid()] & 7); // REC
}
