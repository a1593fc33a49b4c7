/* SPDX-License-Identifier: MIT */
/* Built with -finstrument-functions: the dump must name these functions. */
#include <stdio.h>

__attribute__((noinline)) int pt_test_alpha(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int pt_test_beta(int x)
{
	return pt_test_alpha(x) + pt_test_alpha(x + 1);
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s += pt_test_beta(i);
	printf("%d\n", s);
	return 5;
}
