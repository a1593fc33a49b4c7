/* SPDX-License-Identifier: MIT */
#include "selflog.h"
#include "app.h"

int stat_sum(const int *v, int n)
{
	sl_enter("stat_sum");
	int s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	sl_exit("stat_sum");
	return s;
}

TF static int bigger(int a, int b)
{
	sl_enter("bigger");
	sl_exit("bigger");
	return a > b ? a : b;
}

int stat_max(const int *v, int n)
{
	sl_enter("stat_max");
	int m = v[0];
	for (int i = 1; i < n; i++)
		m = bigger(m, v[i]);
	sl_exit("stat_max");
	return m;
}
