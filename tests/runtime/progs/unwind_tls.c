/* SPDX-License-Identifier: MIT */
/* Run with sampling on: libunwind, which the runtime loads at init, must
 * have its thread-local block in every traced thread before a sample can
 * need it (a first use inside the signal handler would allocate it with
 * malloc there). Prints "tls main N" and "tls thread N": 1 when the
 * calling thread has the block, 0 when not, -1 when libunwind is not
 * loaded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static int has_block(void)
{
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return -1;
	void *p = NULL;
	int r = dlinfo(h, RTLD_DI_TLS_DATA, &p);
	dlclose(h);
	return r == 0 && p != NULL;
}

static void *run(void *arg)
{
	(void)arg;
	printf("tls thread %d\n", has_block());
	return NULL;
}

int main(void)
{
	printf("tls main %d\n", has_block());
	fflush(stdout);
	pthread_t t;
	if (pthread_create(&t, NULL, run, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	return 0;
}
