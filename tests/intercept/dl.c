/* SPDX-License-Identifier: MIT */
/* dlopen/dlclose.
 *   dl loop N LIB: N dlopen/dlclose rounds of LIB (full path): N MODULE_MAP
 *     records naming it, and as many MODULE_UNMAP records.
 *   dl origin LIB: dlopen LIB (full path), call its ptdl_load_sibling, which
 *     dlopens a sibling that only LIB's own RUNPATH/RPATH ($ORIGIN) can
 *     find: the lookup must behave as without the preload. Also checks that
 *     a failing dlopen leaves dlerror() set. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	if (strcmp(argv[1], "loop") == 0) {
		int n = atoi(argv[2]);
		const char *lib = argv[3];
		for (int i = 0; i < n; i++) {
			void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
			if (!h) {
				fprintf(stderr, "%s\n", dlerror());
				return 1;
			}
			int (*f)(void) = (int (*)(void))dlsym(h, "ptdl_value");
			if (!f || f() != 42 || dlclose(h) != 0)
				return 1;
		}
		const char *base = strrchr(lib, '/');
		printf("expect count MODULE_MAP == %d name=%s\n", n, lib);
		printf("expect count MODULE_UNMAP >= %d\n", n);
		(void)base;
		printf("expect status 0\n");
		return 0;
	}
	const char *lib = argv[2];
	void *h = dlopen(lib, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	int (*load)(void) = (int (*)(void))dlsym(h, "ptdl_load_sibling");
	if (!load || load() != 84)
		return 1;
	if (dlopen("libptdl_does_not_exist.so", RTLD_NOW) != NULL || dlerror() == NULL)
		return 1;
	printf("expect count MODULE_MAP >= 1 name=%s\n", lib);
	printf("expect count MODULE_MAP >= 1 name=\n");
	printf("expect status 0\n");
	return 0;
}
