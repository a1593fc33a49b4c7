/* SPDX-License-Identifier: MIT */
/* Stands in for libcuda.so.1 in the lazy-CUPTI test: a library of that name
 * being mapped is what makes libtrace.so attach CUPTI. It has no driver
 * behind it, so CUPTI cannot subscribe: the test expects one warning and
 * host tracing going on. */
int cuDriverGetVersion(int *version)
{
	*version = 0;
	return 100; /* CUDA_ERROR_NO_DEVICE */
}
