/* SPDX-License-Identifier: MIT */
/* paratrace record's child: the program run as a shell would run it (PATH
 * lookup, its own arguments, terminal, streams and environment), the
 * signals someone sends paratrace passed on to it, and its end turned into
 * an exit status. */
#define _GNU_SOURCE
#include "commands.h"
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t child_pid;

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NFORWARDED (sizeof forwarded / sizeof forwarded[0])

/* A signal from the terminal (Ctrl-C, Ctrl-\, a hangup) already reached
 * the child, which is in the same foreground process group: only one sent
 * by a process (kill, timeout, a batch system) to paratrace is passed on,
 * so that the program sees each signal once. */
static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si && si->si_code > 0)
		return;
	int saved = errno;
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
	errno = saved;
}

int record_run_child(char **argv, const char *name, int *ran)
{
	*ran = 0;
	struct sigaction sa, old[NFORWARDED];
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	/* the exec's error comes back through a pipe that the exec closes */
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		pt_cli_error("record: cannot make a pipe: %s", strerror(errno));
		return 1;
	}
	/* held until the child's pid is known: none is lost in between */
	sigset_t block, mask;
	sigemptyset(&block);
	for (size_t i = 0; i < NFORWARDED; i++) {
		sigaddset(&block, forwarded[i]);
		sigaction(forwarded[i], &sa, &old[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &mask);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		/* the dispositions and mask paratrace found, not its handler */
		for (size_t i = 0; i < NFORWARDED; i++)
			sigaction(forwarded[i], &old[i], NULL);
		sigprocmask(SIG_SETMASK, &mask, NULL);
		close(fds[0]);
		execvp(argv[0], argv);
		int e = errno;
		(void)!write(fds[1], &e, sizeof e);
		_exit(127);
	}
	int e = errno;
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		for (size_t i = 0; i < NFORWARDED; i++)
			sigaction(forwarded[i], &old[i], NULL);
		sigprocmask(SIG_SETMASK, &mask, NULL);
		pt_cli_error("record: cannot start %s: %s", name, strerror(e));
		return 1;
	}
	child_pid = pid;
	sigprocmask(SIG_SETMASK, &mask, NULL);
	int exec_errno = 0;
	ssize_t n;
	while ((n = read(fds[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
		;
	close(fds[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	for (size_t i = 0; i < NFORWARDED; i++)
		sigaction(forwarded[i], &old[i], NULL);
	if (n == (ssize_t)sizeof exec_errno) {
		/* as a shell says it: 127 not found, 126 found but not runnable */
		pt_cli_error("record: cannot run %s: %s", argv[0], strerror(exec_errno));
		return exec_errno == ENOENT || exec_errno == ENOTDIR ? 127 : 126;
	}
	*ran = 1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
