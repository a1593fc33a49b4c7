/* SPDX-License-Identifier: MIT */
/* Signal handlers built with the plugin, interrupting hot loops of
 * instrumented calls (a good part of the time inside a hook). Modes:
 *   return N   SIGPROF every ~50 us of CPU; the handler calls in_handler()
 *              and returns. N iterations of the loop (7 leaf, 1 other).
 *   jump N     the same, but the handler leaves by siglongjmp back into
 *              the loop, every time.
 * Then, in both modes, the timer off, tail() is called 100000 times: its
 * calls are all in the trace only if the runtime still traces the thread.
 * Prints what the trace must hold: "expect <function> <calls>" for the
 * functions whose calls are exact, "handled <n>" (handler runs) and
 * "jumps <n>". */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t handled, jumping;
static sigjmp_buf again;
static volatile long sink;

__attribute__((noinline)) void in_handler(int x)
{
	sink += x;
}

void on_prof(int sig)
{
	(void)sig;
	handled++;
	in_handler(1);
	if (jumping)
		siglongjmp(again, 1);
}

__attribute__((noinline)) int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int other(int x)
{
	return x ^ 5;
}

__attribute__((noinline)) void tail(long i)
{
	sink += i;
}

static void timer(long us)
{
	struct itimerval it = {{0, us}, {0, us}};
	setitimer(ITIMER_PROF, &it, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "return") && strcmp(argv[1], "jump"))) {
		fprintf(stderr, "usage: %s return|jump N\n", argv[0]);
		return 2;
	}
	long n = atol(argv[2]);
	jumping = !strcmp(argv[1], "jump");
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	volatile long i = 0, jumps = 0;
	long leaves = 0, others = 0;
	/* A landing is counted before the next SIGPROF can come: sigsetjmp(.., 0)
	 * leaves the handler's mask (SIGPROF blocked) in place after a jump, and
	 * the signal is unblocked only once jumps is up to date. With the mask
	 * restored by the jump, a signal between the landing and jumps++ made
	 * two handler runs for one counted jump. */
	sigset_t prof;
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	if (sigsetjmp(again, 0))
		jumps++;
	sigprocmask(SIG_UNBLOCK, &prof, NULL);
	timer(50);
	for (; i < n; i++) {
		if (i & 7)
			sink += leaf((int)i);
		else
			sink += other((int)i);
	}
	timer(0);
	if (!jumping) {
		/* every iteration ran to its end */
		leaves = n - (n + 7) / 8;
		others = (n + 7) / 8;
		printf("expect leaf %ld\nexpect other %ld\n", leaves, others);
	}
	for (long k = 0; k < 100000; k++)
		tail(k);
	printf("expect tail 100000\nhandled %d\njumps %ld\n", (int)handled, (long)jumps);
	return 0;
}
