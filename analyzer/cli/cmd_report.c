/* SPDX-License-Identifier: MIT */
/* paratrace report: the profile, as tables, CSV, JSON or one HTML page. */
#include "analysis.h"
#include "commands.h"
#include "tools.h"
#include "report.h"

#include <stdio.h>
#include <string.h>

void pt_cmd_report_help(FILE *out)
{
	fputs("usage: paratrace report [options] [TRACE_DIR]\n"
	      "Prints the profile: functions, locks and threads.\n"
	      "  --csv | --json       machine-readable output instead of tables\n"
	      "  --top N              rows per table (default 25; 0 = all)\n"
	      "  --wide               names whole: the name column as wide as the widest name\n"
	      "                       (else names are shortened to fit the terminal)\n"
	      "  --html               one self-contained HTML file instead: sortable tables, the\n"
	      "                       timeline and the flame graph of 'plot' (no network needed)\n"
	      "  -o, --output FILE    with --html: the file (default: TRACE_DIR.html)\n",
	      out);
	cli_common_help(out);
}

int pt_cmd_report(int argc, char **argv)
{
	cli c;
	memset(&c, 0, sizeof c);
	c.cmd = "report";
	c.top = 25;
	int rc = cli_parse(&c, argc, argv);
	if (rc < 0) {
		pt_cmd_report_help(stdout);
		return 0;
	}
	if (rc)
		return rc;
	const char *fmt = c.format ? c.format : "text";
	if (!strcmp(fmt, "html")) {
		/* a file, not stdout: progress on a terminal, as for plot */
		char *name = NULL;
		if (!c.output)
			c.output = name = cli_default_name(c.dir, ".html");
		cli_add_builtin(&c, pt_tool_plot(), "html");
		rc = cli_run(&c);
		free(name);
		return rc;
	}
	if (strcmp(fmt, "text") && strcmp(fmt, "csv") && strcmp(fmt, "json")) {
		pt_cli_error("report: unknown format '%s' (text, csv, json or html)", fmt);
		return 2;
	}
	/* the sections get these options too; --wide is the profile's own */
	snprintf(c.optbuf, sizeof c.optbuf, "%s,top=%u", fmt, c.top);
	char profile_opts[sizeof c.optbuf + 8];
	snprintf(profile_opts, sizeof profile_opts, "%s%s", c.optbuf, c.wide ? ",wide" : "");
	cli_add_builtin(&c, pt_tool_profile(), profile_opts);
	/* the families' sections, which appear when the trace has their
	 * records; the JSON's are members of the profile's object (the profile
	 * tool runs them) */
	if (strcmp(fmt, "json"))
		pt_report_sections(strcmp(fmt, "text") ? PF_IN_CSV : PF_IN_TEXT, cli_add_section, &c);
	if (c.interval_ns)
		cli_add_builtin(&c, pt_tool_interval(),
		                !strcmp(fmt, "text")   ? NULL
		                : !strcmp(fmt, "json") ? "json"
		                                       : "csv");
	c.quiet = 1; /* the report itself is the output: no progress, no summary line */
	return cli_run(&c);
}
