/* SPDX-License-Identifier: MIT */
#include "selflog.h"
#include "app.h"

#include <stdio.h>

int main(void)
{
	sl_init();
	sl_enter("main");
	const char *input = "3 1 4 1 5 9 2 6";
	int values[16];
	int n = parse_numbers(input, values, 16);
	printf("n=%d sum=%d max=%d\n", n, stat_sum(values, n), stat_max(values, n));
	sl_exit("main");
	return 0;
}
