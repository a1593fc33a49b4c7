/* SPDX-License-Identifier: MIT */
/* The MPI section of the HTML report (tools/report/report.h, pf_html): a
 * line of totals and two tables, which mpi_report.js fills from the MPI
 * tool's JSON. */
#include "plot.h"
#include "report.h"

extern const char pl_asset_mpi_report_js[];

static void markup(FILE *f)
{
	fputs("<section id=\"s-mpi\">\n<h2>MPI</h2>\n<p class=\"facts\" id=\"mpi-summary\"></p>\n"
	      "</section>\n",
	      f);
	pl_html_table(f, "mpi-ranks", "MPI time by rank",
	              "Per rank: its threads' time, the time in MPI calls and its share, the calls, "
	              "the point-to-point messages and bytes it sent and received, the bytes of its "
	              "collectives, and the late-sender wait: time its receives waited for a send "
	              "that began after the receiving call did.");
	pl_html_table(f, "mpi-calls", "MPI calls",
	              "Per MPI call: how many, their time, the least and most time one rank spent "
	              "in it, and the bytes they moved.");
}

const pf_html mpi_html = {
	.id = "mpi",
	.nav = "MPI",
	.markup = markup,
	.script = pl_asset_mpi_report_js,
};
