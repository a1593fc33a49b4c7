/* SPDX-License-Identifier: MIT */
/* Every macro of the manual API once; without libtrace.so it must run the
 * same (weak symbols). */
#include <paratrace.h>
#include <stdio.h>

static int compute(int n)
{
	PT_FUNCTION();
	int s = 0;
	for (int i = 0; i < n; i++) {
		PT_SCOPE("phase", 1);
		s += i;
		PT_SCOPE_UPDATE("phase", 2, "accumulate");
		PT_EVENT("iteration", i);
	}
	return s;
}

int main(void)
{
	PT_THREAD_NAME("main-thread");
	PT_COUNTER("task-clock");
	int s = compute(10);
	printf("%d\n", s);
	return s == 45 ? 9 : 1;
}
