/* SPDX-License-Identifier: MIT */
#include "selflog.h"

TF static int helper(int x)
{
	sl_enter("helper@" __FILE__);
	sl_exit("helper@" __FILE__);
	return x + 1;
}

int one(int x)
{
	sl_enter("one");
	int r = helper(x) + helper(x + 1);
	sl_exit("one");
	return r;
}
