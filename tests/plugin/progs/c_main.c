/* SPDX-License-Identifier: MIT */
/* C: recursion, calls through function pointers, and static functions with
 * the same name in two files (c_one.c, c_two.c). */
#include "selflog.h"

#include <stdio.h>

int one(int x);
int two(int x);

TF static int fib(int n)
{
	sl_enter("fib");
	int r = n < 2 ? n : fib(n - 1) + fib(n - 2);
	sl_exit("fib");
	return r;
}

TF static int inc(int x)
{
	sl_enter("inc");
	sl_exit("inc");
	return x + 1;
}

TF static int dbl(int x)
{
	sl_enter("dbl");
	sl_exit("dbl");
	return 2 * x;
}

/* Two returns: both must report the exit. */
TF static int clamp(int x)
{
	sl_enter("clamp");
	if (x > 100) {
		sl_exit("clamp");
		return 100;
	}
	sl_exit("clamp");
	return x;
}

int main(int argc, char **argv)
{
	(void)argv;
	sl_init();
	sl_enter("main");
	int s = fib(5 + (argc > 7));
	/* volatile: keep the calls indirect at -O2 */
	int (*volatile ops[2])(int) = {inc, dbl};
	for (int i = 0; i < 5; i++)
		s += ops[i % 2](i);
	s += one(s) + two(s);
	s = clamp(s) + clamp(argc);
	printf("result %d\n", s);
	sl_exit("main");
	return 0;
}
