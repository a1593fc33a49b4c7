/* SPDX-License-Identifier: MIT */
/* A small library for the dlopen tests. Built three times:
 *   libptdl_loop.so     loaded and unloaded in a loop (dl.c)
 *   libptdl_origin.so   with DT_RUNPATH=$ORIGIN (or DT_RPATH with -DRPATH_BUILD in
 *                       libptdl_origin_rpath.so): dlopens its sibling by bare name,
 *                       which only its own search path can find
 *   libptdl_sibling.so  that sibling (same folder, nowhere else on any path) */
#include <dlfcn.h>
#include <stdio.h>

int ptdl_value(void)
{
	return 42;
}

/* Opens the sibling by bare name, and again through $ORIGIN in the name:
 * both must resolve against this library's folder. Returns the sibling's
 * value via each handle summed, or -1. */
int ptdl_load_sibling(void)
{
	void *h1 = dlopen("libptdl_sibling.so", RTLD_NOW);
	if (!h1) {
		fprintf(stderr, "bare name: %s\n", dlerror());
		return -1;
	}
	void *h2 = dlopen("$ORIGIN/libptdl_sibling.so", RTLD_NOW);
	if (!h2) {
		fprintf(stderr, "$ORIGIN name: %s\n", dlerror());
		return -1;
	}
	int (*f1)(void) = (int (*)(void))dlsym(h1, "ptdl_value");
	int (*f2)(void) = (int (*)(void))dlsym(h2, "ptdl_value");
	int r = f1 && f2 ? f1() + f2() : -1;
	dlclose(h2);
	dlclose(h1);
	return r;
}
