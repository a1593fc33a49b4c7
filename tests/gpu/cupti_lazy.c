/* SPDX-License-Identifier: MIT */
/* Lazy CUPTI: prints whether libcupti is mapped before and after the
 * program dlopens a "libcuda.so.1" (argv[1]), as "before N" / "after N".
 * Under libtrace.so with GPU tracing on, CUPTI must appear only after. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int cupti_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int found = 0;
	while (f && fgets(line, sizeof line, f))
		found |= strstr(line, "libcupti") != NULL;
	if (f)
		fclose(f);
	return found;
}

static void *work(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	printf("before %d\n", cupti_mapped());
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	printf("after %d\n", cupti_mapped());
	/* host activity after the failed attach must still be traced */
	pthread_t t;
	pthread_create(&t, NULL, work, NULL);
	pthread_join(t, NULL);
	return 0;
}
