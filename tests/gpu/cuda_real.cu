// SPDX-License-Identifier: MIT
// A CUDA runtime program as users write it (nvcc, <<<>>> launches, static
// cudart), traced from outside through CUPTI on a real GPU
// (check_cuda_real_gpu.py). On two streams of its own and the default
// stream it copies, launches, sets memory, and replays a captured graph;
// then prints what it did, so the checker compares the trace with the
// program's own counts. Exit status 77 when there is no usable GPU.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define N (1 << 20)
#define ROUNDS 3
#define GRAPH_REPLAYS 2

__global__ void scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= a;
}

__global__ void add(float *y, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] += x[i];
}

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                 \
			        cudaGetErrorString(e_));                                           \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

static uint64_t checksum(const float *v, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint64_t)(int64_t)v[i]) * 1099511628211ull;
	return h;
}

int main()
{
	int count = 0;
	if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
		fprintf(stderr, "no usable GPU\n");
		return 77;
	}
	const size_t bytes = N * sizeof(float);
	const int threads = 256, blocks = (N + threads - 1) / threads;
	float *host[2], *dx[2], *dy[2];
	cudaStream_t stream[2];
	int launches_scale = 0, launches_add = 0, memcpy_htod = 0, memcpy_dtoh = 0,
	    memcpy_dtod = 0, memsets = 0;
	for (int s = 0; s < 2; s++) {
		CHECK(cudaStreamCreate(&stream[s]));
		CHECK(cudaMallocHost(&host[s], bytes));
		CHECK(cudaMalloc(&dx[s], bytes));
		CHECK(cudaMalloc(&dy[s], bytes));
		for (int i = 0; i < N; i++)
			host[s][i] = (float)(i % 1000 + s);
	}
	for (int r = 0; r < ROUNDS; r++) {
		for (int s = 0; s < 2; s++) {
			CHECK(cudaMemcpyAsync(dx[s], host[s], bytes, cudaMemcpyHostToDevice, stream[s]));
			memcpy_htod++;
			CHECK(cudaMemsetAsync(dy[s], 0, bytes, stream[s]));
			memsets++;
			scale<<<blocks, threads, 0, stream[s]>>>(dx[s], 2.0f, N);
			launches_scale++;
			add<<<blocks, threads, 0, stream[s]>>>(dy[s], dx[s], N);
			launches_add++;
			CHECK(cudaMemcpyAsync(host[s], dy[s], bytes, cudaMemcpyDeviceToHost, stream[s]));
			memcpy_dtoh++;
		}
		CHECK(cudaDeviceSynchronize());
	}
	// The default stream: a blocking device-to-device copy and a launch.
	CHECK(cudaMemcpy(dx[1], dx[0], bytes, cudaMemcpyDeviceToDevice));
	memcpy_dtod++;
	scale<<<blocks, threads>>>(dx[1], 0.5f, N);
	launches_scale++;
	CHECK(cudaDeviceSynchronize());

	// A graph of two kernels captured on stream 0, replayed.
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	CHECK(cudaStreamBeginCapture(stream[0], cudaStreamCaptureModeGlobal));
	scale<<<blocks, threads, 0, stream[0]>>>(dx[0], 1.5f, N);
	add<<<blocks, threads, 0, stream[0]>>>(dy[0], dx[0], N);
	CHECK(cudaStreamEndCapture(stream[0], &graph));
	CHECK(cudaGraphInstantiate(&exec, graph, 0));
	for (int g = 0; g < GRAPH_REPLAYS; g++)
		CHECK(cudaGraphLaunch(exec, stream[0]));
	CHECK(cudaStreamSynchronize(stream[0]));
	CHECK(cudaMemcpy(host[0], dy[0], bytes, cudaMemcpyDeviceToHost));
	memcpy_dtoh++;

	printf("sum0 %llu\nsum1 %llu\n", (unsigned long long)checksum(host[0], N),
	       (unsigned long long)checksum(host[1], N));
	printf("rounds %d\n", ROUNDS);
	printf("launch scale %d\nlaunch add %d\ngraph_launches %d\ngraph_kernels %d\n",
	       launches_scale, launches_add, GRAPH_REPLAYS, 2 * GRAPH_REPLAYS);
	printf("memcpy HtoD %d\nmemcpy DtoH %d\nmemcpy DtoD %d\nmemset %d\nbytes %zu\n", memcpy_htod,
	       memcpy_dtoh, memcpy_dtod, memsets, bytes);
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(graph));
	for (int s = 0; s < 2; s++) {
		CHECK(cudaFree(dx[s]));
		CHECK(cudaFree(dy[s]));
		CHECK(cudaFreeHost(host[s]));
		CHECK(cudaStreamDestroy(stream[s]));
	}
	return 0;
}
