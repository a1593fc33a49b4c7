/* SPDX-License-Identifier: MIT */
/* Executable + shared library + a dlopen'ed plugin, all instrumented. */
#include "selflog.h"

#include <dlfcn.h>
#include <stdio.h>

int shared_work(int x);

TF static int local(int x)
{
	sl_enter("local");
	sl_exit("local");
	return x + 1;
}

int main(int argc, char **argv)
{
	(void)argv;
	sl_init();
	sl_enter("main");
	int s = shared_work(local(argc));
	void *h = dlopen(PLUGIN_PATH, RTLD_NOW);
	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 2;
	}
	int (*entry)(int) = (int (*)(int))dlsym(h, "plugin_entry");
	if (!entry)
		return 2;
	s += entry(s) + entry(1);
	printf("result %d\n", s);
	sl_exit("main");
	return 0;
}
