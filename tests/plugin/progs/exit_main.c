/* SPDX-License-Identifier: MIT */
/* exit() from depth 10: no frame reports its exit; the trace must still
 * hold every entry, and the reader closes the open frames at the end of
 * the thread. */
#include "selflog.h"

#include <stdio.h>
#include <stdlib.h>

TF static void down(int d)
{
	sl_enter("down");
	if (d == 10) {
		/* The reader closes these at the end of the thread. */
		for (int i = 0; i < 10; i++)
			sl_exit("down");
		sl_exit("main");
		sl_expect(0, 11);
		exit(3);
	}
	down(d + 1);
	sl_exit("down");
}

int main(void)
{
	sl_init();
	sl_enter("main");
	down(1);
	sl_exit("main");
	return 0;
}
