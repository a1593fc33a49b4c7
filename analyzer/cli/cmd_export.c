/* SPDX-License-Identifier: MIT */
/* paratrace export: the trace as a timeline in another tool's format. */
#include "analysis.h"
#include "commands.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pt_cmd_export_help(FILE *out)
{
	fputs("usage: paratrace export --format chrome|perfetto [options] TRACE_DIR\n"
	      "Writes the trace as a timeline for ui.perfetto.dev: functions, waits, thread creation.\n"
	      "  -f, --format FORMAT  chrome: Chrome trace-event JSON (also chrome://tracing);\n"
	      "                       perfetto: Perfetto's protobuf format, ~4x smaller and faster\n"
	      "  -o, --output FILE    output file (default: TRACE_DIR.json or TRACE_DIR.pftrace)\n",
	      out);
	cli_select_help(out);
	cli_common_help(out);
}

int pt_cmd_export(int argc, char **argv)
{
	cli c;
	memset(&c, 0, sizeof c);
	c.cmd = "export";
	int rc = cli_parse(&c, argc, argv);
	if (rc < 0) {
		pt_cmd_export_help(stdout);
		return 0;
	}
	if (rc)
		return rc;
	int perfetto = c.format && !strcmp(c.format, "perfetto");
	if (!c.format) {
		pt_cli_error("export: --format chrome or --format perfetto is required");
		return 2;
	}
	if (strcmp(c.format, "chrome") && !perfetto) {
		pt_cli_error("export: unknown format '%s' (chrome or perfetto)", c.format);
		return 2;
	}
	char *name = NULL;
	if (!c.output)
		c.output = name = cli_default_name(c.dir, perfetto ? ".pftrace" : ".json");
	cli_add_builtin(&c, perfetto ? pt_tool_perfetto() : pt_tool_chrome(), NULL);
	rc = cli_run(&c);
	pt_select_free(&c.sel);
	free(name);
	return rc;
}
