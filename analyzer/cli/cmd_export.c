/* SPDX-License-Identifier: MIT */
/* paratrace export: the trace as a timeline in another tool's format. */
#include "analysis.h"
#include "commands.h"
#include "ot.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The formats: --format's values, the tool writing each, its default file
 * name (TRACE_DIR + ext) and its line of the help. The usage line, the
 * help and the refusals are all made from this table. */
typedef struct export_format {
	const char *name;
	const pt_tool *(*tool)(void);
	const char *ext;
	const char *help;
} export_format;

static const export_format formats[] = {
    {"chrome", pt_tool_chrome, ".json", "Chrome trace-event JSON (also chrome://tracing);"},
    {"perfetto", pt_tool_perfetto, ".pftrace",
     "Perfetto's protobuf format, ~4x smaller and faster"},
#ifdef PT_WITH_OTF2
    {"otf2", pt_tool_otf2, "-otf2",
     "an OTF2 archive in the folder FILE (Vampir, Scalasca, otf2-print)"},
#else
    /* named, so that asking for it says why it is missing */
    {"otf2", NULL, "-otf2", "an OTF2 archive (not in this build: no OTF2 library)"},
#endif
};
#define NFORMATS (sizeof formats / sizeof formats[0])

/* The formats' names (or default file names: ext) one after another:
 * "chrome|perfetto", "--format chrome or --format perfetto". */
static const char *format_list(char *buf, size_t len, const char *prefix, int ext, const char *sep,
                               const char *last)
{
	size_t n = 0;
	buf[0] = 0;
	for (size_t i = 0; i < NFORMATS && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s%s",
		                      i == 0             ? ""
		                      : i + 1 < NFORMATS ? sep
		                                         : last,
		                      prefix, ext ? formats[i].ext : formats[i].name);
	return buf;
}

void pt_cmd_export_help(FILE *out)
{
	char list[256];
	fprintf(out,
	        "usage: paratrace export --format %s [options] [TRACE_DIR]\n"
	        "Writes the trace as a timeline for ui.perfetto.dev (functions, waits, thread "
	        "creation),\nor as an OTF2 archive for Vampir, Scalasca and Score-P's tools.\n",
	        format_list(list, sizeof list, "", 0, "|", "|"));
	for (size_t i = 0; i < NFORMATS; i++)
		fprintf(out, "  %-21s%s: %s\n", i == 0 ? "-f, --format FORMAT" : "",
		        formats[i].name, formats[i].help);
	fprintf(out, "  -o, --output FILE    output file (default: %s)\n",
	        format_list(list, sizeof list, "TRACE_DIR", 1, ", ", " or "));
	cli_select_help(out);
	cli_common_help(out);
}

/* What --format names; NULL after saying what is wrong. */
static const export_format *find_format(const char *name)
{
	char list[256];
	for (size_t i = 0; name && i < NFORMATS; i++)
		if (!strcmp(name, formats[i].name))
			return &formats[i];
	if (!name)
		pt_cli_error("export: %s is required",
		             format_list(list, sizeof list, "--format ", 0, ", ", " or "));
	else
		pt_cli_error("export: unknown format '%s' (%s)", name,
		             format_list(list, sizeof list, "", 0, ", ", " or "));
	return NULL;
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
	const export_format *fmt = find_format(c.format);
	if (!fmt)
		return 2;
	if (!fmt->tool) {
		pt_cli_error("export: this paratrace was built without the OTF2 library "
		             "(PT_WITH_OTF2=OFF): install libopen-trace-format2-dev and rebuild");
		return 2;
	}
	/* an archive is the whole run: its readers select for themselves */
	if (!strcmp(fmt->name, "otf2") && c.sel_opt) {
		pt_cli_error("export: --format otf2 writes the whole trace; %s is for the other "
		             "formats and analyze",
		             c.sel_opt);
		return 2;
	}
	/* under mpirun the archive is written by every process, each its
	 * share of the locations (docs/ANALYZER.md, "OTF2 archive"); the
	 * other formats are one file written whole: by the first process
	 * alone, the others having nothing to do */
	if (!strcmp(fmt->name, "otf2")) {
		int failed;
		c.dist = pt_cli_dist_open(&argc, &argv, &failed);
		if (failed)
			return 1;
	} else if (pt_cli_launch_rank() != 0) {
		pt_select_free(&c.sel);
		return 0;
	}
	char *name = NULL;
	if (!c.output)
		c.output = name = cli_default_name(c.dir, fmt->ext);
	cli_add_builtin(&c, fmt->tool(), NULL);
	rc = cli_run(&c);
	if (c.dist)
		c.dist->close(c.dist);
	pt_select_free(&c.sel);
	free(name);
	return rc;
}
