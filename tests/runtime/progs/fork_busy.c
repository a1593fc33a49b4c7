/* SPDX-License-Identifier: MIT */
/* A busy log on both sides of a fork: the parent writes N events (enough
 * windows that the prefault helper is working), forks, and the child writes
 * N events of its own. Each process's log must hold its N events in order. */
#include <paratrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300000;
	for (long i = 0; i < n; i++)
		PT_EVENT("seq", i);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		for (long i = 0; i < n; i++)
			PT_EVENT("seq", i);
		return 0;
	}
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 1;
	return 0;
}
