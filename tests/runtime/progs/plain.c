/* SPDX-License-Identifier: MIT */
/* An uninstrumented program: prints and exits with its own status. */
#include <stdio.h>

int main(void)
{
	printf("plain output\n");
	return 42;
}
