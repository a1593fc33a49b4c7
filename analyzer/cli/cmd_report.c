/* SPDX-License-Identifier: MIT */
/* paratrace report: the profile, as tables, CSV, JSON or one HTML page;
 * or one of its other views: the call tree, a function's callers or
 * callees, the functions that cost the most events. */
#define _GNU_SOURCE
#include "analysis.h"
#include "commands.h"
#include "tools.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
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
	      "  -o, --output FILE    with --html: the file (default: TRACE_DIR.html); with\n"
	      "                       --cost: the filter file (default: none, printed)\n"
	      "Other views (text or --json; the whole run, no selection):\n"
	      "  --tree               the call tree: inclusive and exclusive time and calls\n"
	      "                       per call path, all threads merged\n"
	      "  --callees FUNC       the call tree below FUNC, wherever it was called\n"
	      "  --callers FUNC       FUNC's time by the paths of callers that led to it\n"
	      "                       (FUNC: a name, else a regular expression matching names)\n"
	      "  --threshold PCT      paths under PCT% of the time folded into one line\n"
	      "                       (default 1%)\n"
	      "  --cost               the functions that made the most events: their share of\n"
	      "                       the trace's size and of the time, and a filter file for\n"
	      "                       the compiler plugin that leaves them out\n",
	      out);
	cli_report_select_help(out);
	cli_common_help(out);
}

/* --tree, --callers, --callees, --cost: a tool of its own each. */
static int report_view(cli *c, const char *fmt)
{
	if (strcmp(fmt, "text") && strcmp(fmt, "json")) {
		pt_cli_error("report: --%s prints text or --json", c->view_opt);
		return 2;
	}
	int json = !strcmp(fmt, "json");
	if (c->cost && (c->tree || c->func || c->has_threshold)) {
		pt_cli_error("report: --cost is a view of its own (not with --tree, --callers, "
		             "--callees, --threshold)");
		return 2;
	}
	if (c->tree && c->func) {
		pt_cli_error("report: --tree or --%s, not both", c->func_callers ? "callers" : "callees");
		return 2;
	}
	if (!c->cost && !c->tree && !c->func) {
		pt_cli_error("report: --threshold goes with --tree, --callers or --callees");
		return 2;
	}
	char *opts = NULL;
	int n;
	if (c->cost)
		n = asprintf(&opts, "%s,top=%u%s%s", fmt, c->top, c->output ? ",filter=" : "",
		             c->output ? c->output : "");
	else
		n = asprintf(&opts, "%s,threshold=%g%s%s", json ? "json" : "text",
		             c->has_threshold ? c->threshold : 0.01,
		             !c->func ? "" : c->func_callers ? ",callers=" : ",callees=",
		             c->func ? c->func : "");
	if (n < 0) {
		pt_cli_error("out of memory");
		return 1;
	}
	cli_add_builtin(c, c->cost ? pt_tool_cost() : pt_tool_calltree(), opts);
	c->quiet = 1;
	int rc = cli_run(c);
	free(opts);
	return rc;
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
	if ((c.view_opt || !strcmp(fmt, "html")) && c.sel_opt) {
		pt_cli_error("report: --%s with --%s: the selection options apply to the profile's "
		             "tables; this view shows the whole run",
		             c.sel_opt, c.view_opt ? c.view_opt : "html");
		pt_select_free(&c.sel);
		return 2;
	}
	if (c.view_opt) {
		rc = report_view(&c, fmt);
		pt_select_free(&c.sel);
		return rc;
	}
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
	char profile_opts[sizeof c.optbuf + 16];
	snprintf(profile_opts, sizeof profile_opts, "%s%s%s", c.optbuf, c.wide ? ",wide" : "",
	         c.sel_opt ? ",select" : "");
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
	rc = cli_run(&c);
	pt_select_free(&c.sel);
	return rc;
}
