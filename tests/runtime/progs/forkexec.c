/* SPDX-License-Identifier: MIT */
/* fork, then exec of this program in the child: three process images, one
 * run. Exit status 10 + the exec'd child's status (4). */
#include <paratrace.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child")) {
		PT_EVENT("exec-child", 1);
		return 4;
	}
	PT_EVENT("parent", 1);
	pid_t p = fork();
	if (p == 0) {
		PT_EVENT("forked", 1);
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(127);
	}
	int st = 0;
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? 10 + WEXITSTATUS(st) : 1;
}
