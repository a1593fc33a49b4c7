/* SPDX-License-Identifier: MIT */
/* Checks the workloads' own "expect" lines: hooks that count every entry
 * and exit and print the totals at exit. Used by the smoke test only, so
 * a workload whose formula drifts from what it really calls is caught. */
#include <stdio.h>

static unsigned long enters, exits;

__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
	__atomic_fetch_add(&enters, 1, __ATOMIC_RELAXED);
}

__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
	__atomic_fetch_add(&exits, 1, __ATOMIC_RELAXED);
}

__attribute__((no_instrument_function, destructor)) static void report(void)
{
	/* main has returned (its exit hook ran) before destructors run. */
	printf("counted enter %lu exit %lu\n", enters, exits);
}
