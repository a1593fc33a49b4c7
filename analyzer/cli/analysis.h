/* SPDX-License-Identifier: MIT */
/* What the analysis commands (analyze, report, export, plot) share: their
 * options (analysis_options.c) and the pass that runs their tools
 * (analysis_run.c). */
#ifndef PT_CLI_ANALYSIS_H
#define PT_CLI_ANALYSIS_H

#include "pt_dist.h"
#include "pt_framework.h"
#include "pt_select.h"
#include "report.h"

#include <stdint.h>
#include <stdio.h>

#define MAX_TOOLS 16

typedef struct cli {
	const char *cmd;
	const char *dir;
	const char *output;
	unsigned jobs;
	uint64_t interval_ns;
	int quiet;
	int gz;
	const char *format; /* report: text/csv/json; export: chrome */
	unsigned top;
	int wide; /* report: names whole */
	/* report's views */
	const char *view_opt; /* the first of them given */
	int tree, cost, func_callers, has_threshold;
	const char *func; /* --callers or --callees */
	double threshold; /* a fraction */
	int no_profile;
	const char *run; /* --run */
	int png; /* plot --png */
	pt_dist *dist; /* several analyzer processes (analyze under mpirun) */
	pt_fw_tool tools[MAX_TOOLS];
	size_t ntools;
	const char *loaded[MAX_TOOLS];
	size_t nloaded;
	int progress_shown;
	char optbuf[64];
	/* analyze, export: what is written */
	pt_select sel;
	const char *sel_opt; /* the first selection option given (for refusals) */
	const char *min_opt; /* --min-duration, if given (report refuses it) */
	const char *prv_opt; /* the first of --budget, --full, --no-gz, --waits given */
	uint64_t budget;     /* analyze: bytes of .prv (0: --full) */
	int no_gz;
	int waits; /* analyze --waits: the wait states in the Paraver trace */
	char *pv_opts;
} cli;

#define DEFAULT_BUDGET 160000000ull

/* analysis_options.c */
void cli_common_help(FILE *out);
void cli_select_help(FILE *out);
/* report's: the selection options a profile takes */
void cli_report_select_help(FILE *out);
/* 0, -1 for --help, or the exit status of a usage error (said). */
int cli_parse(cli *c, int argc, char **argv);

/* analysis_run.c */
/* "dir/" -> "dir<ext>" (malloc'ed) */
char *cli_default_name(const char *dir, const char *ext);
void cli_add_builtin(cli *c, const pt_tool *t, const char *options);
/* A family's section of the report (report.h), with the report's options
 * (analyze's summary: none); `arg` is the cli. */
void cli_add_section(void *arg, const pf_section *s);
int cli_run(cli *c);

#endif
