/* SPDX-License-Identifier: MIT */
/* setjmp/longjmp: deep() recurses to depth 10 and longjmps back into
 * jumper(), twice. The frames it skips never report their exit; the pass
 * reports the landing in jumper (FUNC_LANDED) where setjmp returns again,
 * so a reader that closes the frames above jumper there has the right
 * stack again, and the analyzer counts jumper() once (no new call). */
#include "selflog.h"

#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;

TF static void deep(int d)
{
	sl_enter("deep");
	if (d == 10)
		longjmp(env, d);
	deep(d + 1);
	sl_exit("deep");
}

TF static int jumper(int rounds)
{
	sl_enter("jumper");
	volatile int landed = 0;
	if (setjmp(env) != 0) {
		landed++;
		/* What the trace shows at the landing, in the reader's terms. */
		for (int i = 0; i < 10; i++)
			sl_exit("deep");
		sl_landed("jumper");
	}
	if (landed < rounds)
		deep(1);
	sl_exit("jumper");
	return landed;
}

int main(int argc, char **argv)
{
	(void)argv;
	sl_init();
	sl_enter("main");
	int n = jumper(1 + argc);
	sl_expect(n, 0);
	printf("landed %d\n", n);
	sl_exit("main");
	return 0;
}
