/* SPDX-License-Identifier: MIT */
/* Input of tests/plugin/filters.py: one function per filter rule. */
#include <sysinc.h>

int alpha(int x)
{
	return x + 1;
}

int beta(int x)
{
	return x * 2;
}

/* Small but with a loop: min-size never drops it. */
int looper(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += i;
	return s;
}

/* Loop-free and bigger than any small threshold. */
int bulky(int a, int b)
{
	int r = a;
	r = r * 3 + b;
	r = r ^ (b << 2);
	r = r * 7 - a;
	r = r ^ (a >> 1);
	r = r * 11 + b;
	r = r ^ (b << 3);
	r = r * 13 - a;
	return r;
}

__attribute__((no_instrument_function)) int quiet(int x)
{
	return x - 1;
}

__attribute__((always_inline)) static inline int forced(int x)
{
	return x + 3;
}

__attribute__((naked)) void bare(void)
{
	__asm__ volatile("ret");
}

/* Inlined at -O1+ before the late stage: instrumented only with stage=start. */
static int inlinable(int x)
{
	return x + 42;
}

int main(int argc, char **argv)
{
	(void)argv;
	int (*volatile keep)(int) = forced; /* keeps a body for always_inline */
	return keep(argc) + alpha(argc) + beta(argc) + looper(argc) + bulky(argc, 2) + quiet(argc) + forced(argc) +
	       inlinable(argc) + sys_helper(argc);
}
