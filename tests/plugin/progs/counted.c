/* SPDX-License-Identifier: MIT */
/* Two traced functions, compiled for other targets than the machine's
 * (counted.py): no #include, as there is no C library for them here. */
__attribute__((noinline)) int counted_leaf(int x)
{
	return x * 3 + 1;
}

int counted_caller(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += counted_leaf(i);
	return s;
}
