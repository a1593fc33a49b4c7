/* SPDX-License-Identifier: MIT */
/* Blocks (clang -fblocks), which instrument.so names
 * "main [block at blocks_main.c:L]"; lines are marked "@name" for
 * tests/plugin/omp.py.
 *   blocks_main K */
#include <stdio.h>
#include <stdlib.h>

/* A block that is called but never copied needs nothing from
 * libBlocksRuntime except the two classes its literals point at. */
void *_NSConcreteStackBlock[32];
void *_NSConcreteGlobalBlock[32];

static int sink;

__attribute__((noinline)) void block_leaf(int i)
{
	sink += i;
}

__attribute__((noinline)) int apply(int (^f)(int), int v)
{
	return f(v);
}

/* A global block: its function is named after the variable. */
static int (^twice)(int) = ^(int x) { block_leaf(x); return 2 * x; }; // @global

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 3;
	int r = 0;
	for (int i = 0; i < k; i++)
		r += apply(^(int x) { block_leaf(x); return x * k; }, i); // @scaled
	r += apply(^(int x) { block_leaf(x); return x - 1; }, 4); // @plain
	r += apply(twice, 5);
	printf("r %d sink %d\n", r, sink);
	return 0;
}
