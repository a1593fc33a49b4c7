/* SPDX-License-Identifier: MIT */
/* The options of the analysis commands. */
#include "analysis.h"
#include "commands.h"
#include "record.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		return -1;
	*v = x;
	return 0;
}

void cli_common_help(FILE *out)
{
	fputs("  TRACE_DIR            the trace; without it, the newest trace directory in the\n"
	      "                       current directory (named on stderr), as 'paratrace record'\n"
	      "                       leaves them\n"
	      "  -j, --jobs N         workers (default: all online CPUs)\n"
	      "  --interval-us N      interval snapshots every N microseconds (tools that support\n"
	      "                       them print a time series)\n"
	      "  --tool FILE.so[:OPT] also run a tool loaded from a shared object, in the same pass\n"
	      "                       (may be repeated; see include/paratrace/tool.h)\n"
	      "  --run ID             the run to read when the trace directory holds several\n"
	      "                       (programs started separately with one PARATRACE_DIR;\n"
	      "                       without --run such a trace is refused with its runs)\n"
	      "  -q, --quiet          no progress bar and no summary\n"
	      "Exit status: 0 success, 1 damaged data (warned with file and offset), 2 usage\n"
	      "error or no trace to read (missing, unreadable, no logs, several runs).\n",
	      out);
}

void cli_select_help(FILE *out)
{
	fputs("Selecting what is written (calls left out are summarised, as a count and a time,\n"
	      "in the call around them; the profile always counts everything):\n"
	      "  --min-duration T     leave out calls shorter than T (500ns, 2.5us, 1ms)\n"
	      "  --include REGEX      only calls of functions whose name matches (POSIX ERE)\n"
	      "  --exclude REGEX      leave out calls of functions whose name matches\n"
	      "  --from T, --to T     a time window: T since the start of the run (1.5ms) or a\n"
	      "                       share of it (25%); in the .prv, --from is time 0\n"
	      "  --threads LIST       rows of these tids (4711,4713-4715) or row numbers (r1-4)\n"
	      "  --processes LIST     rows of these pids\n"
	      "Other options:\n",
	      out);
}

void cli_report_select_help(FILE *out)
{
	fputs("Selecting what is profiled (the report says what was left out):\n"
	      "  --include REGEX      only functions whose name matches (POSIX ERE)\n"
	      "  --exclude REGEX      not the functions whose name matches\n"
	      "  --from T, --to T     a time window: T since the start of the run (1.5ms) or a\n"
	      "                       share of it (25%); calls, waits and lifetimes count the\n"
	      "                       part of them inside it\n"
	      "  --threads LIST       threads of these tids (4711,4713-4715) or rows (r1-4)\n"
	      "  --processes LIST     threads of these pids\n",
	      out);
}

enum { OPT_GZ = 1000, OPT_INTERVAL, OPT_TOOL, OPT_CSV, OPT_JSON, OPT_TOP, OPT_NO_PROFILE, OPT_WAITS,
       OPT_HTML, OPT_PNG, OPT_RUN, OPT_BUDGET, OPT_FULL, OPT_NO_GZ, OPT_MIN_DURATION,
       OPT_INCLUDE, OPT_EXCLUDE, OPT_FROM, OPT_TO, OPT_THREADS, OPT_PROCESSES, OPT_WIDE,
       OPT_TREE, OPT_CALLERS, OPT_CALLEES, OPT_THRESHOLD, OPT_COST };

/* "160MB", "1.5G", "500k", "2GiB", bytes without a unit. */
static int parse_size(const char *s, uint64_t *v)
{
	char *e;
	errno = 0;
	double x = strtod(s, &e);
	if (errno || e == s || !(x > 0))
		return -1;
	for (const char *p = s; p < e; p++) /* no sign, exponent or hex */
		if (!(*p >= '0' && *p <= '9') && *p != '.')
			return -1;
	static const struct {
		const char *u;
		double m;
	} units[] = {{"", 1},      {"B", 1},          {"k", 1e3},        {"kB", 1e3},
		     {"K", 1e3},   {"KB", 1e3},       {"M", 1e6},        {"MB", 1e6},
		     {"G", 1e9},   {"GB", 1e9},       {"KiB", 1024.0},   {"MiB", 1048576.0},
		     {"GiB", 1073741824.0}};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(e, units[i].u)) {
			if (x * units[i].m > 1e18 || x * units[i].m < 1)
				return -1;
			*v = (uint64_t)(x * units[i].m);
			return 0;
		}
	return -1;
}

/* A selection option (analyze, export): 0, or 2 after a message. */
static int select_option(cli *c, int o, const char *name, const char *arg)
{
	char err[512];
	int rc = 0;
	if (!c->sel_opt)
		c->sel_opt = name;
	if (o == OPT_MIN_DURATION && !c->min_opt)
		c->min_opt = name;
	switch (o) {
	case OPT_MIN_DURATION:
		rc = pt_select_parse_duration(arg, &c->sel.min_ns, err, sizeof err);
		break;
	case OPT_INCLUDE:
	case OPT_EXCLUDE:
		rc = pt_select_set_regex(&c->sel, o == OPT_EXCLUDE, arg, err, sizeof err);
		break;
	case OPT_FROM:
	case OPT_TO:
		rc = pt_select_set_time(&c->sel, o == OPT_TO, arg, err, sizeof err);
		break;
	default:
		rc = pt_select_add_list(&c->sel, o == OPT_PROCESSES, arg, err, sizeof err);
	}
	if (rc) {
		pt_cli_error("%s: --%s: %s", c->cmd, name, err);
		return 2;
	}
	return 0;
}

/* report's views (--tree, --callers, --callees, --threshold, --cost): 0,
 * or 2 after a message. */
static int view_option(cli *c, int o, const char *name, const char *arg)
{
	if (!c->view_opt || o != OPT_THRESHOLD)
		c->view_opt = name;
	switch (o) {
	case OPT_TREE: c->tree = 1; break;
	case OPT_CALLERS:
	case OPT_CALLEES:
		if (c->func) {
			pt_cli_error("%s: one of --callers and --callees, once", c->cmd);
			return 2;
		}
		c->func = arg;
		c->func_callers = o == OPT_CALLERS;
		break;
	case OPT_THRESHOLD: {
		char *e;
		double v = strtod(arg, &e);
		if (e == arg || (*e && strcmp(e, "%")) || !(v >= 0 && v <= 100)) {
			pt_cli_error("%s: --threshold wants a share of the time (0.5%%, 2), not '%s'",
				     c->cmd, arg);
			return 2;
		}
		c->threshold = v / 100;
		c->has_threshold = 1;
		break;
	}
	default: c->cost = 1;
	}
	return 0;
}

static int parse_args(cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'}, {"jobs", required_argument, 0, 'j'},
		{"quiet", no_argument, 0, 'q'},         {"format", required_argument, 0, 'f'},
		{"gz", no_argument, 0, OPT_GZ},         {"interval-us", required_argument, 0, OPT_INTERVAL},
		{"tool", required_argument, 0, OPT_TOOL}, {"csv", no_argument, 0, OPT_CSV},
		{"json", no_argument, 0, OPT_JSON},     {"top", required_argument, 0, OPT_TOP},
		{"no-profile", no_argument, 0, OPT_NO_PROFILE}, {"help", no_argument, 0, 'h'},
		{"run", required_argument, 0, OPT_RUN},
		{"html", no_argument, 0, OPT_HTML},     {"png", no_argument, 0, OPT_PNG},
		{"budget", required_argument, 0, OPT_BUDGET}, {"full", no_argument, 0, OPT_FULL},
		{"no-gz", no_argument, 0, OPT_NO_GZ},   {"waits", no_argument, 0, OPT_WAITS},
		{"min-duration", required_argument, 0, OPT_MIN_DURATION},
		{"include", required_argument, 0, OPT_INCLUDE},
		{"exclude", required_argument, 0, OPT_EXCLUDE},
		{"from", required_argument, 0, OPT_FROM}, {"to", required_argument, 0, OPT_TO},
		{"threads", required_argument, 0, OPT_THREADS},
		{"processes", required_argument, 0, OPT_PROCESSES},
		{"wide", no_argument, 0, OPT_WIDE},
		{"tree", no_argument, 0, OPT_TREE},
		{"callers", required_argument, 0, OPT_CALLERS},
		{"callees", required_argument, 0, OPT_CALLEES},
		{"threshold", required_argument, 0, OPT_THRESHOLD},
		{"cost", no_argument, 0, OPT_COST},
		{0, 0, 0, 0}};
	int o, idx;
	uint64_t v;
	optind = 1;
	c->budget = DEFAULT_BUDGET;
	while ((o = getopt_long(argc, argv, "o:j:qf:h", opts, &idx)) != -1) {
		if ((o == OPT_BUDGET || o == OPT_FULL || o == OPT_NO_GZ || o == OPT_WAITS) &&
		    !c->prv_opt)
			c->prv_opt = opts[idx].name;
		switch (o) {
		case 'o': c->output = optarg; break;
		case 'j':
			if (parse_u64(optarg, &v) || v == 0 || v > 4096) {
				pt_cli_error("%s: -j wants a number of workers, not '%s'", c->cmd, optarg);
				return 2;
			}
			c->jobs = (unsigned)v;
			break;
		case 'q': c->quiet = 1; break;
		case 'f': c->format = optarg; break;
		case OPT_GZ: c->gz = 1; break;
		case OPT_INTERVAL:
			if (parse_u64(optarg, &v) || v == 0 || v > UINT64_MAX / 1000) {
				pt_cli_error("%s: --interval-us wants a positive number, not '%s'",
					     c->cmd, optarg);
				return 2;
			}
			c->interval_ns = v * 1000;
			break;
		case OPT_TOOL:
			if (c->nloaded == MAX_TOOLS - 4) {
				pt_cli_error("%s: too many --tool", c->cmd);
				return 2;
			}
			c->loaded[c->nloaded++] = optarg;
			break;
		case OPT_CSV: c->format = "csv"; break;
		case OPT_JSON: c->format = "json"; break;
		case OPT_TOP:
			if (parse_u64(optarg, &v) || v > 1000000) {
				pt_cli_error("%s: --top wants a number, not '%s'", c->cmd, optarg);
				return 2;
			}
			c->top = (unsigned)v;
			break;
		case OPT_NO_PROFILE: c->no_profile = 1; break;
		case OPT_WIDE: c->wide = 1; break;
		case OPT_TREE:
		case OPT_CALLERS:
		case OPT_CALLEES:
		case OPT_THRESHOLD:
		case OPT_COST:
			if (view_option(c, o, opts[idx].name, optarg))
				return 2;
			break;
		case OPT_RUN: c->run = optarg; break;
		case OPT_HTML: c->format = "html"; break;
		case OPT_PNG: c->png = 1; break;
		case OPT_BUDGET:
			if (parse_size(optarg, &c->budget)) {
				pt_cli_error("%s: --budget wants a size (160MB, 1.5GB), not '%s'", c->cmd,
					     optarg);
				return 2;
			}
			break;
		case OPT_FULL: c->budget = 0; break;
		case OPT_NO_GZ: c->no_gz = 1; break;
		case OPT_WAITS: c->waits = 1; break;
		case OPT_MIN_DURATION:
		case OPT_INCLUDE:
		case OPT_EXCLUDE:
		case OPT_FROM:
		case OPT_TO:
		case OPT_THREADS:
		case OPT_PROCESSES:
			if (select_option(c, o, opts[idx].name, optarg))
				return 2;
			break;
		case 'h':
			return -1;
		default:
			return 2;
		}
	}
	/* report: rows, a window and functions, not a duration (a profile
	 * counts every call it holds) */
	int sel_ok = !strcmp(c->cmd, "analyze") || !strcmp(c->cmd, "export");
	int rep_ok = !strcmp(c->cmd, "report") && !c->min_opt;
	if ((c->sel_opt && !sel_ok && !rep_ok) || (c->prv_opt && strcmp(c->cmd, "analyze"))) {
		int sel = c->sel_opt && !sel_ok && !rep_ok;
		pt_cli_error("%s: --%s is an option of %s", c->cmd,
			     sel ? (c->min_opt ? c->min_opt : c->sel_opt) : c->prv_opt,
			     sel ? "analyze and export" : "analyze");
		return 2;
	}
	if ((c->wide || c->view_opt) && strcmp(c->cmd, "report")) {
		pt_cli_error("%s: --%s is an option of report", c->cmd,
			     c->view_opt ? c->view_opt : "wide");
		return 2;
	}
	if (c->no_gz && c->gz) {
		pt_cli_error("%s: --gz or --no-gz, not both", c->cmd);
		return 2;
	}
	if (optind == argc) {
		/* the trace just recorded, as perf and uftrace read theirs */
		static char newest[PATH_MAX];
		if (record_newest_trace(newest, sizeof newest) != 0) {
			pt_cli_error("%s: no trace directory given, and none in the current directory "
				     "(see 'paratrace help %s')",
				     c->cmd, c->cmd);
			return 2;
		}
		fprintf(stderr, "%s: %s: reading %s, the newest trace here\n", pt_cli_progname,
			c->cmd, newest);
		c->dir = newest;
		return 0;
	}
	if (optind != argc - 1) {
		pt_cli_error("%s: expected one trace directory (see 'paratrace help %s')", c->cmd,
			     c->cmd);
		return 2;
	}
	c->dir = argv[optind];
	return 0;
}

int cli_parse(cli *c, int argc, char **argv)
{
	int rc = parse_args(c, argc, argv);
	if (rc)
		pt_select_free(&c->sel);
	return rc;
}
