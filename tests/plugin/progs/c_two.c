/* SPDX-License-Identifier: MIT */
#include "selflog.h"

TF static int helper(int x)
{
	sl_enter("helper@" __FILE__);
	sl_exit("helper@" __FILE__);
	return x - 1;
}

int two(int x)
{
	sl_enter("two");
	int r = helper(x);
	sl_exit("two");
	return r;
}
