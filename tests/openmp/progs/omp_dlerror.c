/* SPDX-License-Identifier: MIT */
/* dlerror() says what the program's own dl calls did (tests/openmp/
 * check_case.py, case dlerror): libtrace.so looks for the OpenMP runtime's
 * symbols (which runtime runs the program, who has OMPT) and must leave no
 * error of its own behind, before main (seen after the first region: no dl
 * call clears it in between), at the first region, at the first lock, or
 * after a dlopen. The output must be the same traced. libomp leaves errors
 * of its own at its start, which the first dlerror() takes. */
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>

static void say(const char *when)
{
	const char *e = dlerror();
	printf("%s: %s\n", when, e ? e : "no error");
}

int main(void)
{
	dlerror();
	long sum = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
	sum += 1;
	say("after a region");
	omp_lock_t lock;
	omp_init_lock(&lock);
	omp_set_lock(&lock);
	omp_unset_lock(&lock);
	omp_destroy_lock(&lock);
	say("after a lock");
	void *h = dlopen("libm.so.6", RTLD_NOW);
	say("after dlopen");
	if (h)
		dlclose(h);
	printf("sum=%ld\n", sum);
	return 0;
}
