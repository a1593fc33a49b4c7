/* SPDX-License-Identifier: MIT */
/* longjmp and siglongjmp. A signal handler that interrupted a hook's fast
 * path (hooks.c, in_hook) and leaves by a long jump never returns into that
 * hook, so its guard would stay set and every later event of the thread
 * would be dropped. Whatever a long jump leaves, no hook is running on the
 * thread afterwards (hooks call nothing that jumps): each wrapper clears
 * the guard and jumps. Nothing is recorded; the jump itself is the real
 * one, so the program's stack, signal mask and return value are exactly
 * what they would be untraced. The pass reports the landing (docs/ABI.md).
 *
 * The real functions are resolved at load time: a signal handler may be the
 * first caller, and dlsym is not async-signal-safe. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <setjmp.h>

/* glibc's fortified longjmp (_FORTIFY_SOURCE); not in its public headers. */
extern void __longjmp_chk(struct __jmp_buf_tag env[1], int val) __attribute__((noreturn));

PT_REAL_DECL(longjmp);
PT_REAL_DECL(_longjmp);
PT_REAL_DECL(siglongjmp);
PT_REAL_DECL(__longjmp_chk);

__attribute__((constructor)) static void resolve_jumps(void)
{
	(void)PT_REAL(longjmp);
	(void)PT_REAL(_longjmp);
	(void)PT_REAL(siglongjmp);
	(void)PT_REAL(__longjmp_chk);
}

#define PT_JUMP_WRAPPER(fn)                                                                        \
	PT_EXPORT void fn(struct __jmp_buf_tag env[1], int val)                                    \
	{                                                                                          \
		pt_hooks_unwound();                                                                \
		PT_REAL(fn)(env, val);                                                             \
	}

PT_JUMP_WRAPPER(longjmp)
PT_JUMP_WRAPPER(_longjmp)
PT_JUMP_WRAPPER(siglongjmp)
PT_JUMP_WRAPPER(__longjmp_chk)

PT_SUBSYSTEM(longjmp_part) = {
	.name = "longjmp",
	.order = PT_ORDER_INTERPOSE,
};
