/* SPDX-License-Identifier: MIT */
/* Durations and byte counts as the tables of every tool print them (tools.h). */
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

/* "4.0 MiB", "512 B": binary units, one decimal */
void pt_fmt_bytes(char *buf, size_t n, double bytes)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	unsigned u = 0;
	while (bytes >= 1024 && u < 4)
		bytes /= 1024, u++;
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}
