/* SPDX-License-Identifier: MIT */
/* The file I/O tables of the HTML report (tools/report/report.h, pf_html):
 * two tables that io_report.js fills from the profile's JSON (io_files,
 * io_threads). */
#include "plot.h"
#include "report.h"

extern const char pl_asset_io_report_js[];

static void markup(FILE *f)
{
	pl_html_table(
	    f, "io-files", "File I/O by file",
	    "Per file (by name, over every process): the I/O calls on it, the bytes they "
	    "read and wrote, the time inside them, and the bytes per second of that time.");
	pl_html_table(f, "io-threads", "File I/O by thread",
	              "Per thread: its I/O calls, bytes read and written, time in the calls.");
}

const pf_html io_html = {
    .id = "profile",
    .anchor = "io-files",
    .nav = "File I/O",
    .markup = markup,
    .script = pl_asset_io_report_js,
};
