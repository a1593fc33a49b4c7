/* SPDX-License-Identifier: MIT */
/* A program that does not link MPI and loads it the way Python loads
 * mpi4py: dlopen(RTLD_LOCAL) of an extension (dlplug.c) that links
 * libmpi, so the MPI library is outside the global scope where
 * RTLD_DEFAULT looks. argv[1]: the extension; the rest is passed on. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 2;
	}
	int (*run)(int, char **) = (int (*)(int, char **))dlsym(h, "dlplug_run");
	return run ? run(argc - 1, argv + 1) : 2;
}
