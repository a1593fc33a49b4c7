/* SPDX-License-Identifier: MIT */
/* Included with -isystem by filters.c: a "system header" function. */
static inline int sys_helper(int x)
{
	return x ^ 0x5a;
}
