/* SPDX-License-Identifier: MIT */
/* paratrace plot: the timeline and a flame graph as SVG (and PNG). */
#include "analysis.h"
#include "commands.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>

void pt_cmd_plot_help(FILE *out)
{
	fputs("usage: paratrace plot [options] [TRACE_DIR]\n"
	      "Draws the run without a GUI, as SVG: a timeline (one row per thread and GPU stream,\n"
	      "coloured by function, waits and lost data marked) and a flame graph of inclusive time.\n"
	      "  -o, --output FILE    the SVG (default: TRACE_DIR.svg)\n"
	      "  --png                also FILE.png (FILE without .svg), drawn by rsvg-convert\n",
	      out);
	cli_common_help(out);
}

int pt_cmd_plot(int argc, char **argv)
{
	cli c;
	memset(&c, 0, sizeof c);
	c.cmd = "plot";
	int rc = cli_parse(&c, argc, argv);
	if (rc < 0) {
		pt_cmd_plot_help(stdout);
		return 0;
	}
	if (rc)
		return rc;
	char *name = NULL;
	if (!c.output)
		c.output = name = cli_default_name(c.dir, ".svg");
	cli_add_builtin(&c, pt_tool_plot(), c.png ? "png" : NULL);
	rc = cli_run(&c);
	free(name);
	return rc;
}
