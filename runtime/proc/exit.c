/* SPDX-License-Identifier: MIT */
/* Process end: exit, _exit, _Exit, quick_exit, abort.
 *
 * exit() (and return from main) close the logs in the runtime's on_exit
 * handler (core.c), which runs after the program's atexit handlers and
 * static destructors have run and been traced; the wrapper only notes the
 * status for the EXIT record.
 * _exit, _Exit and quick_exit run no destructor (quick_exit's
 * at_quick_exit handlers aside), so the logs are closed here, just before.
 * abort() raises SIGABRT: the signal handler (signals.c) closes the logs
 * once it is clear the program's own SIGABRT handler, if any, did not
 * recover; the wrapper marks the process end as an abort. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

PT_REAL_DECL(exit);
PT_REAL_DECL(_exit);
PT_REAL_DECL(_Exit);
PT_REAL_DECL(quick_exit);
PT_REAL_DECL(abort);

/* _exit and abort are async-signal-safe: resolved at load time. */
__attribute__((constructor(102))) static void exit_resolve(void)
{
	(void)PT_REAL(_exit);
	(void)PT_REAL(_Exit);
	(void)PT_REAL(abort);
}

PT_EXPORT void exit(int status)
{
	void (*real)(int) __attribute__((noreturn)) = PT_REAL(exit);
	if (pt_tracing() && pt_own_process())
		pt_exit_status(PT_EXIT_NORMAL, status);
	real(status);
}

PT_EXPORT void _exit(int status)
{
	void (*real)(int) __attribute__((noreturn)) = PT_REAL(_exit);
	if (pt_own_process())
		pt_shutdown(PT_EXIT__EXIT, status);
	real(status);
}

PT_EXPORT void _Exit(int status)
{
	void (*real)(int) __attribute__((noreturn)) = PT_REAL(_Exit);
	if (pt_own_process())
		pt_shutdown(PT_EXIT__EXIT, status);
	real(status);
}

PT_EXPORT void quick_exit(int status)
{
	void (*real)(int) __attribute__((noreturn)) = PT_REAL(quick_exit);
	if (pt_own_process())
		pt_shutdown(PT_EXIT_QUICK, status);
	real(status);
}

PT_EXPORT void abort(void)
{
	void (*real)(void) __attribute__((noreturn)) = PT_REAL(abort);
	__atomic_store_n(&pt_abort_called, 1, __ATOMIC_RELAXED);
	pt_publish_fence();
	real();
}

PT_SUBSYSTEM(exit_part) = {
	.name = "exit",
	.order = PT_ORDER_INTERPOSE,
};
