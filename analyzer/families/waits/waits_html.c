/* SPDX-License-Identifier: MIT */
/* The wait-state section of the HTML report (tools/report/report.h,
 * pf_html): three tables, which waits_report.js fills from the section
 * tool's JSON (ws_report.c). */
#include "plot.h"
#include "report.h"

extern const char pl_asset_waits_report_js[];

static void markup(FILE *f)
{
	fputs("<section id=\"s-waits\">\n<h2>Wait states</h2>\n"
	      "<p class=\"facts\" id=\"waits-summary\"></p>\n</section>\n",
	      f);
	pl_html_table(f, "wait-states", "Who made whom wait",
	              "Per pattern, waiting thread and call path: the waits, their time, and the "
	              "thread (rank.thread) and function that made it wait most.");
	pl_html_table(f, "wait-causes", "What made others wait",
	              "Per thread and function: how long it made others wait (its delay cost).");
	pl_html_table(f, "critical-path", "Critical path",
	              "Per function and rank: its time on the critical path of the run, and its "
	              "share of the path.");
}

const pf_html waits_html = {
    .id = "waits",
    .nav = "Waits",
    .markup = markup,
    .script = pl_asset_waits_report_js,
};
