/* SPDX-License-Identifier: MIT */
/* A program that never touches a GPU: run under libtrace.so, it checks from
 * inside that tracing did not map libcupti, libcuda or the OpenCL loader
 * into it (the GPU parts must load nothing until the program itself loads
 * a GPU library). Exit 0 = clean, 1 = a GPU library is mapped. Run without
 * the preload it must pass too; with "--expect-preload" it also checks
 * that libtrace.so is really there, so the test cannot pass vacuously. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void *work(void *arg)
{
	volatile long *n = arg;
	for (int i = 0; i < 100000; i++)
		(*n)++;
	return NULL;
}

int main(int argc, char **argv)
{
	long n = 0;
	pthread_t t;
	pthread_create(&t, NULL, work, &n);
	pthread_join(t, NULL);
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return 2;
	char line[4096];
	int bad = 0, preload = 0;
	static const char *const gpu_libs[] = {"libcupti", "libcuda.so", "libOpenCL", "libpocl", "libnvidia"};
	while (fgets(line, sizeof line, f)) {
		if (strstr(line, "libtrace.so"))
			preload = 1;
		for (size_t i = 0; i < sizeof gpu_libs / sizeof *gpu_libs; i++)
			if (strstr(line, gpu_libs[i])) {
				fprintf(stderr, "mapped: %s", line);
				bad = 1;
			}
	}
	fclose(f);
	if (argc > 1 && !strcmp(argv[1], "--expect-preload") && !preload) {
		fprintf(stderr, "libtrace.so is not loaded\n");
		return 2;
	}
	printf("work %ld, gpu libraries mapped: %s\n", n, bad ? "yes" : "no");
	return bad;
}
