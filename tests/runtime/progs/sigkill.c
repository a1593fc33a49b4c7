/* SPDX-License-Identifier: MIT */
/* Writes N events, says so on stdout, then waits to be killed with SIGKILL:
 * what was written must be in the trace. */
#include <paratrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	for (long i = 0; i < n; i++)
		PT_EVENT("seq", i);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
