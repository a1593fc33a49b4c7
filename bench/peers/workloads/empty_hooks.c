/* SPDX-License-Identifier: MIT */
/* The call floor: -finstrument-functions hooks that do nothing, linked into
 * the executable (a direct call, no PLT), compiled without instrumentation. */
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}
