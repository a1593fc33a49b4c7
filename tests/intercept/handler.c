/* SPDX-License-Identifier: MIT */
/* The program's own handlers still run, and it sees its own dispositions:
 *  - sigaction(SIGSEGV) returns SIG_DFL as the old action at first, then
 *    the program's handler and flags, never the runtime's;
 *  - signal(SIGINT, h) returns the previous handler; SIG_IGN stays ignored
 *    (raise(SIGINT) does nothing);
 *  - a SIGTERM handler installed with SA_RESETHAND runs once and the
 *    disposition reads back as SIG_DFL;
 *  - finally a NULL dereference reaches the program's SIGSEGV handler,
 *    which exits with status 42 through _exit. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t terms;
static int failures;

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "line %d: %s\n", __LINE__, #cond); \
			failures++;                                        \
		}                                                          \
	} while (0)

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGSEGV && si->si_addr == NULL && failures == 0)
		_exit(42);
	_exit(1);
}

static void on_term(int sig)
{
	(void)sig;
	terms++;
}

static void on_int(int sig)
{
	(void)sig;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR1);
	CHECK(sigaction(SIGSEGV, &sa, &old) == 0);
	CHECK(old.sa_handler == SIG_DFL);
	CHECK(sigaction(SIGSEGV, NULL, &old) == 0);
	CHECK(old.sa_sigaction == on_segv);
	CHECK((old.sa_flags & (SA_SIGINFO | SA_NODEFER)) == (SA_SIGINFO | SA_NODEFER));
	CHECK(sigismember(&old.sa_mask, SIGUSR1) == 1);

	CHECK(signal(SIGINT, on_int) == SIG_DFL);
	CHECK(signal(SIGINT, SIG_IGN) == on_int);
	raise(SIGINT); /* ignored */
	CHECK(signal(SIGINT, SIG_DFL) == SIG_IGN);

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sa.sa_flags = SA_RESETHAND;
	CHECK(sigaction(SIGTERM, &sa, NULL) == 0);
	raise(SIGTERM);
	CHECK(terms == 1);
	CHECK(sigaction(SIGTERM, NULL, &old) == 0);
	CHECK(old.sa_handler == SIG_DFL);

	printf("expect status 42\n");
	printf("expect count SIGNAL == 1 signo=%d\n", SIGTERM);
	printf("expect count SIGNAL == 1 signo=%d\n", SIGSEGV);
	printf("expect count SIGNAL == 0 signo=%d\n", SIGINT);
	printf("expect count EXIT == 1 status=42 how=_exit\n");
	if (failures)
		return 1;
	volatile int *p = NULL;
	return *p;
}
