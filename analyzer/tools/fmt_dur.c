/* SPDX-License-Identifier: MIT */
/* Durations and sizes as the tables of every tool print them (tools.h). */
#include "tools.h"

#include <stdio.h>

/* "1.2ms", "3.45us": three significant digits or so */
void pt_fmt_dur(char *buf, size_t n, uint64_t ns)
{
	if (ns >= 10000000000ull)
		snprintf(buf, n, "%.1fs", (double)ns / 1e9);
	else if (ns >= 1000000000ull)
		snprintf(buf, n, "%.2fs", (double)ns / 1e9);
	else if (ns >= 10000000ull)
		snprintf(buf, n, "%.1fms", (double)ns / 1e6);
	else if (ns >= 1000000ull)
		snprintf(buf, n, "%.2fms", (double)ns / 1e6);
	else if (ns >= 10000ull)
		snprintf(buf, n, "%.1fus", (double)ns / 1e3);
	else if (ns >= 1000ull)
		snprintf(buf, n, "%.2fus", (double)ns / 1e3);
	else
		snprintf(buf, n, "%lluns", (unsigned long long)ns);
}

const char *pt_fmt_bytes(uint64_t bytes, char *buf, size_t n)
{
	static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
	double v = (double)bytes;
	int u = 0;
	while (u < 4 && v >= 1000) {
		v /= 1000;
		u++;
	}
	snprintf(buf, n, u == 0 ? "%.0f %s" : v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v,
	         units[u]);
	return buf;
}
