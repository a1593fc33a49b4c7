/* SPDX-License-Identifier: MIT */
/* A thread's function table growing under the feet of its own hooks: the
 * main flow calls paratrace_func_begin/end on a few sites in a hot loop
 * (soon throttled: their counts kept without records), while a SIGPROF
 * handler every 100 us of CPU defines SPAN fresh sites, so that nearly
 * each of its runs takes the table past its size. A main-flow hook that
 * found its entry just before the handler ran must still reach it, and
 * add its call to the same count. Prints its own counts for the test to
 * compare with the trace's.
 * Usage: apigrow_main CALLS */
#define PARATRACE_ENABLED 1
#include <paratrace.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define HOT 4
#define SPAN 128 /* a table page of entries: a new one each run */
#define MAX_HANDLER (4000 * SPAN)

static paratrace_func_desc hot[HOT];
static paratrace_func_desc *handlers;
static volatile sig_atomic_t nhandler;

static void on_prof(int sig)
{
	(void)sig;
	if (nhandler + SPAN > MAX_HANDLER)
		return;
	for (int i = 0; i < SPAN; i++) {
		paratrace_func_desc *d = &handlers[nhandler++];
		paratrace_func_begin(d);
		paratrace_func_end(d);
	}
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 2000000;
	if (!paratrace_func_begin) {
		printf("not preloaded\n");
		return 2;
	}
	handlers = calloc(MAX_HANDLER, sizeof *handlers);
	if (!handlers)
		return 2;
	for (int i = 0; i < HOT; i++)
		hot[i] = (paratrace_func_desc){"hot_site", __FILE__, (uint32_t)i, 0};
	for (int i = 0; i < MAX_HANDLER; i++)
		handlers[i] = (paratrace_func_desc){"grow_site", __FILE__, (uint32_t)i, 0};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	struct itimerval it = {{0, 100}, {0, 100}};
	setitimer(ITIMER_PROF, &it, NULL);
	for (long i = 0; i < calls; i++) {
		paratrace_func_begin(&hot[i % HOT]);
		paratrace_func_begin(&hot[(i + 1) % HOT]); /* nested: v1 depths */
		paratrace_func_end(&hot[(i + 1) % HOT]);
		paratrace_func_end(&hot[i % HOT]);
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_PROF, &off, NULL);
	printf("hot %ld handler %d\n", 2 * calls, (int)nhandler);
	return 0;
}
