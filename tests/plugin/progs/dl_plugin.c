/* SPDX-License-Identifier: MIT */
/* Loaded with dlopen after start: its functions get ids of their own. */
#include "selflog.h"

int shared_work(int x);

TF static int plugin_helper(int x)
{
	sl_enter("plugin_helper");
	sl_exit("plugin_helper");
	return x + 5;
}

int plugin_entry(int x)
{
	sl_enter("plugin_entry");
	int r = shared_work(plugin_helper(x));
	sl_exit("plugin_entry");
	return r;
}
