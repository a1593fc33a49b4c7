/* SPDX-License-Identifier: MIT */
/* The dynamic memory tables of the HTML report (tools/report/report.h,
 * pf_html): three tables that mem_report.js fills from the profile's JSON
 * (memory_processes, memory_threads). */
#include "plot.h"
#include "report.h"

extern const char pl_asset_mem_report_js[];

static void markup(FILE *f)
{
	pl_html_table(f, "mem-processes", "Dynamic memory by process",
	              "Per process: allocations, frees, bytes allocated, the peak of live heap "
	              "bytes (every thread's calls in time order), when it was reached, and what "
	              "was still live at the end.");
	pl_html_table(f, "mem-sites", "Allocation sites behind the peak",
	              "The blocks live at each process's peak (and at its end), by the function "
	              "that called the allocator.");
	pl_html_table(f, "mem-threads", "Dynamic memory by thread",
	              "Per thread: its calls, the bytes it allocated, and the peak of the live "
	              "bytes of the blocks it allocated.");
}

const pf_html mem_html = {
    .id = "profile",
    .anchor = "mem-processes",
    .nav = "Memory",
    .markup = markup,
    .script = pl_asset_mem_report_js,
};
