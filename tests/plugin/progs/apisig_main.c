/* SPDX-License-Identifier: MIT */
/* The manual API's first use of a function site, from a signal handler
 * that interrupts the same first use in the main flow: the main loop
 * calls paratrace_func_begin/end on fresh descriptors (each one's first
 * use defines it, under the API's lock), and a SIGALRM handler every
 * 200 us does the same on its own fresh descriptors. The program must
 * end (a handler that waits for the lock its own thread holds never
 * does) and report how many sites each side used.
 * Usage: apisig_main SITES */
#define PARATRACE_ENABLED 1
#include <paratrace.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define MAX_HANDLER 100000

static paratrace_func_desc *mains, *handlers;
static volatile sig_atomic_t nhandler;

static void on_alarm(int sig)
{
	(void)sig;
	if (nhandler >= MAX_HANDLER)
		return;
	paratrace_func_desc *d = &handlers[nhandler++];
	paratrace_func_begin(d);
	paratrace_func_end(d);
}

int main(int argc, char **argv)
{
	int sites = argc > 1 ? atoi(argv[1]) : 20000;
	if (!paratrace_func_begin) {
		printf("not preloaded\n");
		return 2;
	}
	mains = calloc((size_t)sites, sizeof *mains);
	handlers = calloc(MAX_HANDLER, sizeof *handlers);
	if (!mains || !handlers)
		return 2;
	for (int i = 0; i < sites; i++)
		mains[i] = (paratrace_func_desc){"main_site", __FILE__, (uint32_t)i, 0};
	for (int i = 0; i < MAX_HANDLER; i++)
		handlers[i] = (paratrace_func_desc){"handler_site", __FILE__, (uint32_t)i, 0};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 200}, {0, 200}};
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < sites; i++) {
		paratrace_func_begin(&mains[i]);
		paratrace_func_end(&mains[i]);
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("main %d handler %d\n", sites, (int)nhandler);
	return 0;
}
