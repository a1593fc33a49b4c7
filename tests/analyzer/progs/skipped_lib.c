/* SPDX-License-Identifier: MIT */
/* Built without instrument.so: a longjmp that lands where there are no
 * hooks (skipped.c). */
#include <setjmp.h>

static jmp_buf lenv;

__attribute__((noinline)) int lib_catch(void (*fn)(void))
{
	if (setjmp(lenv) != 0)
		return 1;
	fn();
	return 0;
}

__attribute__((noinline)) void lib_throw(void)
{
	longjmp(lenv, 1);
}
