/* SPDX-License-Identifier: MIT */
/* paratrace analyze: the Paraver trace and a short profile. */
#define _GNU_SOURCE
#include "analysis.h"
#include "commands.h"
#include "tools.h"
#include "report.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void pt_cmd_analyze_help(FILE *out)
{
	fputs("usage: paratrace analyze [options] [TRACE_DIR]\n"
	      "Writes a Paraver trace (NAME.prv, NAME.pcf, NAME.row) and prints a short profile.\n"
	      "  -o, --output NAME    base name of the Paraver files (default: TRACE_DIR)\n"
	      "  --budget SIZE        largest .prv to write (default 160MB, which Paraver loads\n"
	      "                       in under 30 s): the shortest calls are left out to fit;\n"
	      "                       then it names the functions that made the most events\n"
	      "                       and writes NAME.filter, a filter file for the plugin\n"
	      "                       that leaves them out\n"
	      "  --full               everything, whatever its size\n"
	      "  --gz, --no-gz        always, never write NAME.prv.gz (Paraver reads it);\n"
	      "                       default: when the .prv is over 1 GB\n"
	      "  --no-profile         do not print the profile summary\n"
	      "  --waits              also the wait states, who caused them and the critical\n"
	      "                       path as events 69000000-69000010 (wait_states.cfg)\n",
	      out);
	cli_select_help(out);
	cli_common_help(out);
}

/* Where the Paraver views are: installed beside the executable
 * (BINDIR/PT_CFGS_REL), or in the source tree of a build. NULL if neither
 * has them. */
static char *pt_cli_cfgs_dir(void)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			snprintf(path, sizeof path, "%s/%s/functions.cfg", exe, PT_CFGS_REL);
			if (access(path, R_OK) == 0) {
				path[strlen(path) - strlen("/functions.cfg")] = 0;
				return realpath(path, NULL);
			}
		}
	}
	snprintf(path, sizeof path, "%s/functions.cfg", PT_CFGS_SOURCE);
	return access(path, R_OK) == 0 ? strdup(PT_CFGS_SOURCE) : NULL;
}

int pt_cmd_analyze(int argc, char **argv)
{
	cli c;
	memset(&c, 0, sizeof c);
	c.cmd = "analyze";
	int rc = cli_parse(&c, argc, argv);
	if (rc < 0) {
		pt_cmd_analyze_help(stdout);
		return 0;
	}
	if (rc)
		return rc;
	int failed;
	c.dist = pt_cli_dist_open(&argc, &argv, &failed);
	if (failed)
		return 1;
	char *name = NULL;
	if (!c.output)
		c.output = name = cli_default_name(c.dir, "");
	if (c.dist && c.sel_opt) {
		pt_cli_error("%s: under mpirun, analyze writes the whole trace; run one process to "
			     "select what is written",
			     c.sel_opt);
		c.dist->close(c.dist);
		pt_select_free(&c.sel);
		free(name);
		return 2;
	}
	char *cost_opts = NULL;
	char *cfgs = pt_cli_cfgs_dir();
	/* under mpirun: the whole trace (the budget would need every process's
	 * accounts), as --full writes it (docs/MPI.md) */
	if (asprintf(&c.pv_opts, "%s%s%s,budget=%llu%s%s", c.gz ? "gz" : "",
		     c.no_gz ? "" : ",gzauto", c.waits ? ",waits" : "",
		     c.dist ? 0ull : (unsigned long long)c.budget, cfgs ? ",cfgs=" : "",
		     cfgs ? cfgs : "") < 0) {
		free(cfgs);
		free(name);
		pt_cli_error("out of memory");
		return 1;
	}
	free(cfgs);
	cli_add_builtin(&c, pt_tool_paraver(), c.pv_opts);
	if (c.dist) {
		/* under mpirun: the Paraver files only (docs/MPI.md) */
		if (c.dist->rank == 0 && !c.quiet && (!c.no_profile || c.interval_ns || c.nloaded))
			fprintf(stderr, "%s: under mpirun, analyze writes the Paraver files only: run "
					"'paratrace report' for the profile\n",
				pt_cli_progname);
		c.nloaded = 0;
	} else {
		/* the profile; with a budget, inside the cost tool, which also says,
		 * when the budget left calls out, which functions made the events
		 * and writes a filter file that leaves them out at compile time */
		if (!c.no_profile && c.budget &&
		    asprintf(&cost_opts, "budget,filter=%s.filter", c.output) < 0)
			cost_opts = NULL;
		if (cost_opts)
			cli_add_builtin(&c, pt_tool_cost(), cost_opts);
		else if (!c.no_profile)
			cli_add_builtin(&c, pt_tool_profile(), "short");
		pt_report_sections(PF_IN_ANALYZE, cli_add_section, &c);
		if (c.interval_ns)
			cli_add_builtin(&c, pt_tool_interval(), NULL);
	}
	rc = cli_run(&c);
	if (c.dist)
		c.dist->close(c.dist);
	free(c.pv_opts);
	free(cost_opts);
	pt_select_free(&c.sel);
	free(name);
	return rc;
}
