/* SPDX-License-Identifier: MIT */
/* Event types and value names of the manual API: the .pcf must label type
 * "phase" (a plain event) and scope "step" with its value 5 "five", as the
 * program named them (the runtime writes the names to the process log). */
#include <paratrace.h>
#include <unistd.h>

int main(void)
{
	for (int i = 0; i < 3; i++) {
		PT_EVENT("phase", i + 1);
		PT_SCOPE_UPDATE("step", 5, "five");
		usleep(100);
		PT_SCOPE_UPDATE("step", 0);
	}
	return 0;
}
