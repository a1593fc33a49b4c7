/* SPDX-License-Identifier: MIT */
/* signals.c's side of the runtime's own signal, for tests that do not link
 * signals.c (a member of its own in the fake core's library, so a test
 * that links signals.c gets the real one). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fake_core.h"

#include <signal.h>
#include <string.h>

/* signals.c's side of the sampling signal: installed for real, and the
 * deliveries that are not the runtime's are counted instead of forwarded. */
int pt_signal_adopt(int sig, void (*h)(int, siginfo_t *, void *))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = h;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

void pt_signal_forward(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	fake_forwarded++;
}
