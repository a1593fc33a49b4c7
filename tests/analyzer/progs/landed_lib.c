/* SPDX-License-Identifier: MIT */
/* Built without instrument.so: a library function with no hooks that
 * longjmps (landed.c). */
#include <setjmp.h>

__attribute__((noinline)) void lib_jump(jmp_buf env)
{
	longjmp(env, 1);
}
