/* SPDX-License-Identifier: MIT */
/* paratrace analyze / report / export: option parsing and printing around
 * the framework (analyzer/framework) and the built-in tools. */
#define _GNU_SOURCE
#include "commands.h"
#include "pt_dist.h"
#include "pt_framework.h"
#include "pt_select.h"
#include "report.h"
#include "tools.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	const char *prv_opt; /* the first of --budget, --full, --no-gz given */
	uint64_t budget;     /* analyze: bytes of .prv (0: --full) */
	int no_gz;
	char *pv_opts;
} cli;

#define DEFAULT_BUDGET 160000000ull

static void warn_cb(void *arg, const char *msg)
{
	cli *c = arg;
	if (c->progress_shown) {
		fputs("\r\033[K", stderr);
		c->progress_shown = 0;
	}
	fprintf(stderr, "%s: warning: %s\n", pt_cli_progname, msg);
}

/* A byte count with a unit that suits `scale` (the total). */
static const char *fmt_size(double v, double scale, char *buf, size_t len)
{
	static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
	int u = 0;
	while (u < 4 && scale >= 1000) {
		scale /= 1000;
		v /= 1000;
		u++;
	}
	snprintf(buf, len, u && v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

/* Drawn once a step has taken PROGRESS_AFTER seconds: shorter ones print
 * nothing but their end (erased at once). */
#define PROGRESS_AFTER 2.0

static void progress_cb(void *arg, const char *what, uint64_t done, uint64_t total,
			double elapsed)
{
	cli *c = arg;
	if (elapsed < PROGRESS_AFTER && done < total)
		return;
	double frac = total ? (double)done / (double)total : 1.0;
	if (frac > 1)
		frac = 1;
	double rate = elapsed > 0 ? (double)done / elapsed : 0;
	double left = rate > 0 ? (double)(total - (done < total ? done : total)) / rate : 0;
	char bar[31], a[24], b[24], r[24];
	int fill = (int)(frac * 30);
	for (int i = 0; i < 30; i++)
		bar[i] = i < fill ? '#' : ' ';
	bar[30] = 0;
	fprintf(stderr, "\r%.40s [%s] %3d%%  %s of %s  %s/s  %.0fs left \033[K", what, bar,
		(int)(frac * 100), fmt_size((double)done, (double)total, a, sizeof a),
		fmt_size((double)total, (double)total, b, sizeof b), fmt_size(rate, rate, r, sizeof r),
		left);
	c->progress_shown = 1;
	if (done >= total) {
		fputs("\r\033[K", stderr);
		c->progress_shown = 0;
	}
	fflush(stderr);
}

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

static void common_help(FILE *out)
{
	fputs("  -j, --jobs N         workers (default: all online CPUs)\n"
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

static void select_help(FILE *out)
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

void pt_cmd_analyze_help(FILE *out)
{
	fputs("usage: paratrace analyze [options] TRACE_DIR\n"
	      "Writes a Paraver trace (NAME.prv, NAME.pcf, NAME.row) and prints a short profile.\n"
	      "  -o, --output NAME    base name of the Paraver files (default: TRACE_DIR)\n"
	      "  --budget SIZE        largest .prv to write (default 160MB, which Paraver loads\n"
	      "                       in under 30 s): the shortest calls are left out to fit\n"
	      "  --full               everything, whatever its size\n"
	      "  --gz, --no-gz        always, never write NAME.prv.gz (Paraver reads it);\n"
	      "                       default: when the .prv is over 1 GB\n"
	      "  --no-profile         do not print the profile summary\n",
	      out);
	select_help(out);
	common_help(out);
}

void pt_cmd_report_help(FILE *out)
{
	fputs("usage: paratrace report [options] TRACE_DIR\n"
	      "Prints the profile: functions, locks and threads.\n"
	      "  --csv | --json       machine-readable output instead of tables\n"
	      "  --top N              rows per table (default 25; 0 = all)\n"
	      "  --html               one self-contained HTML file instead: sortable tables, the\n"
	      "                       timeline and the flame graph of 'plot' (no network needed)\n"
	      "  -o, --output FILE    with --html: the file (default: TRACE_DIR.html)\n",
	      out);
	common_help(out);
}

void pt_cmd_export_help(FILE *out)
{
	fputs("usage: paratrace export --format chrome|perfetto [options] TRACE_DIR\n"
	      "Writes the trace as a timeline for ui.perfetto.dev: functions, waits, thread creation.\n"
	      "  -f, --format FORMAT  chrome: Chrome trace-event JSON (also chrome://tracing);\n"
	      "                       perfetto: Perfetto's protobuf format, ~4x smaller and faster\n"
	      "  -o, --output FILE    output file (default: TRACE_DIR.json or TRACE_DIR.pftrace)\n",
	      out);
	select_help(out);
	common_help(out);
}

void pt_cmd_plot_help(FILE *out)
{
	fputs("usage: paratrace plot [options] TRACE_DIR\n"
	      "Draws the run without a GUI, as SVG: a timeline (one row per thread and GPU stream,\n"
	      "coloured by function, waits and lost data marked) and a flame graph of inclusive time.\n"
	      "  -o, --output FILE    the SVG (default: TRACE_DIR.svg)\n"
	      "  --png                also FILE.png (FILE without .svg), drawn by rsvg-convert\n",
	      out);
	common_help(out);
}

enum { OPT_GZ = 1000, OPT_INTERVAL, OPT_TOOL, OPT_CSV, OPT_JSON, OPT_TOP, OPT_NO_PROFILE,
       OPT_HTML, OPT_PNG, OPT_RUN, OPT_BUDGET, OPT_FULL, OPT_NO_GZ, OPT_MIN_DURATION,
       OPT_INCLUDE, OPT_EXCLUDE, OPT_FROM, OPT_TO, OPT_THREADS, OPT_PROCESSES };

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
		{"no-gz", no_argument, 0, OPT_NO_GZ},
		{"min-duration", required_argument, 0, OPT_MIN_DURATION},
		{"include", required_argument, 0, OPT_INCLUDE},
		{"exclude", required_argument, 0, OPT_EXCLUDE},
		{"from", required_argument, 0, OPT_FROM}, {"to", required_argument, 0, OPT_TO},
		{"threads", required_argument, 0, OPT_THREADS},
		{"processes", required_argument, 0, OPT_PROCESSES},
		{0, 0, 0, 0}};
	int o, idx;
	uint64_t v;
	optind = 1;
	c->budget = DEFAULT_BUDGET;
	while ((o = getopt_long(argc, argv, "o:j:qf:h", opts, &idx)) != -1) {
		if ((o == OPT_BUDGET || o == OPT_FULL || o == OPT_NO_GZ) && !c->prv_opt)
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
	int sel_ok = !strcmp(c->cmd, "analyze") || !strcmp(c->cmd, "export");
	if ((c->sel_opt && !sel_ok) || (c->prv_opt && strcmp(c->cmd, "analyze"))) {
		pt_cli_error("%s: --%s is an option of %s", c->cmd,
			     c->sel_opt && !sel_ok ? c->sel_opt : c->prv_opt,
			     c->sel_opt && !sel_ok ? "analyze and export" : "analyze");
		return 2;
	}
	if (c->no_gz && c->gz) {
		pt_cli_error("%s: --gz or --no-gz, not both", c->cmd);
		return 2;
	}
	if (optind != argc - 1) {
		pt_cli_error("%s: expected one trace directory (see 'paratrace help %s')", c->cmd,
			     c->cmd);
		return 2;
	}
	c->dir = argv[optind];
	return 0;
}

static int parse(cli *c, int argc, char **argv)
{
	int rc = parse_args(c, argc, argv);
	if (rc)
		pt_select_free(&c->sel);
	return rc;
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

/* "dir/" -> "dir": the default output name sits beside the trace directory */
static char *default_name(const char *dir, const char *ext)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	char *s = malloc(n + strlen(ext) + 1);
	if (s) {
		memcpy(s, dir, n);
		strcpy(s + n, ext);
	}
	return s;
}

static int run(cli *c)
{
	char err[2048];
	for (size_t i = 0; i < c->nloaded; i++) {
		if (pt_fw_load_tool(c->loaded[i], &c->tools[c->ntools], err, sizeof err)) {
			pt_cli_error("%s", err);
			return 2;
		}
		c->ntools++;
	}
	/* several processes: the first prints, each warns of what it read */
	int first = !c->dist || c->dist->rank == 0;
	pt_fw_options o = {
		.dir = c->dir,
		.output = c->output,
		.jobs = c->jobs,
		.interval_ns = c->interval_ns,
		.quiet = c->quiet,
		.out = first ? stdout : NULL,
		.warn = warn_cb,
		.progress = first && !c->quiet && isatty(2) ? progress_cb : NULL,
		.arg = c,
		.run = c->run,
		.dist = c->dist,
		.select = c->sel_opt ? &c->sel : NULL,
	};
	pt_fw_stats st;
	memset(&st, 0, sizeof st);
	int rc = pt_fw_run(&o, c->tools, c->ntools, &st, err, sizeof err);
	for (size_t i = 0; i < c->ntools; i++)
		pt_fw_unload_tool(&c->tools[i]);
	if (c->progress_shown)
		fputs("\r\033[K", stderr);
	if (rc) {
		pt_cli_error("%s", err);
		return rc == PT_FW_BAD_INPUT ? 2 : 1;
	}
	if (!c->quiet && first && !strcmp(c->cmd, "analyze")) {
		if (st.processes_analyzing > 1)
			fprintf(stderr,
				"%s: %llu events from %zu logs of %zu processes in %.2f s (%u analyzer "
				"processes of %u workers)\n",
				pt_cli_progname, (unsigned long long)st.events, st.shards, st.processes,
				st.seconds_total, st.processes_analyzing, st.workers);
		else
			fprintf(stderr,
				"%s: %llu events from %zu logs of %zu processes in %.2f s (%u workers)\n",
				pt_cli_progname, (unsigned long long)st.events, st.shards, st.processes,
				st.seconds_total, st.workers);
	}
	return st.data_errors ? 1 : 0;
}

static void add_builtin(cli *c, const pt_tool *t, const char *options)
{
	c->tools[c->ntools].tool = t;
	c->tools[c->ntools].options = options;
	c->tools[c->ntools].dl = NULL;
	c->ntools++;
}

/* A family's section of the report (report.h), with the report's options
 * (analyze's summary: none). */
static void add_section(void *arg, const pf_section *s)
{
	cli *c = arg;
	add_builtin(c, s->tool(), strcmp(c->cmd, "analyze") ? c->optbuf : NULL);
}

int pt_cmd_analyze(int argc, char **argv)
{
	cli c;
	memset(&c, 0, sizeof c);
	c.cmd = "analyze";
	int rc = parse(&c, argc, argv);
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
		c.output = name = default_name(c.dir, "");
	if (c.dist && c.sel_opt) {
		pt_cli_error("%s: under mpirun, analyze writes the whole trace; run one process to "
			     "select what is written",
			     c.sel_opt);
		c.dist->close(c.dist);
		pt_select_free(&c.sel);
		free(name);
		return 2;
	}
	char *cfgs = pt_cli_cfgs_dir();
	/* under mpirun: the whole trace (the budget would need every process's
	 * accounts), as --full writes it (docs/MPI.md) */
	if (asprintf(&c.pv_opts, "%s%s,budget=%llu%s%s", c.gz ? "gz" : "", c.no_gz ? "" : ",gzauto",
		     c.dist ? 0ull : (unsigned long long)c.budget, cfgs ? ",cfgs=" : "",
		     cfgs ? cfgs : "") < 0) {
		free(cfgs);
		free(name);
		pt_cli_error("out of memory");
		return 1;
	}
	free(cfgs);
	add_builtin(&c, pt_tool_paraver(), c.pv_opts);
	if (c.dist) {
		/* under mpirun: the Paraver files only (docs/MPI.md) */
		if (c.dist->rank == 0 && !c.quiet && (!c.no_profile || c.interval_ns || c.nloaded))
			fprintf(stderr, "%s: under mpirun, analyze writes the Paraver files only: run "
					"'paratrace report' for the profile\n",
				pt_cli_progname);
		c.nloaded = 0;
	} else {
		if (!c.no_profile)
			add_builtin(&c, pt_tool_profile(), "short");
		pt_report_sections(PF_IN_ANALYZE, add_section, &c);
		if (c.interval_ns)
			add_builtin(&c, pt_tool_interval(), NULL);
	}
	rc = run(&c);
	if (c.dist)
		c.dist->close(c.dist);
	free(c.pv_opts);
	pt_select_free(&c.sel);
	free(name);
	return rc;
}

int pt_cmd_report(int argc, char **argv)
{
	cli c;
	memset(&c, 0, sizeof c);
	c.cmd = "report";
	c.top = 25;
	int rc = parse(&c, argc, argv);
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
			c.output = name = default_name(c.dir, ".html");
		add_builtin(&c, pt_tool_plot(), "html");
		rc = run(&c);
		free(name);
		return rc;
	}
	if (strcmp(fmt, "text") && strcmp(fmt, "csv") && strcmp(fmt, "json")) {
		pt_cli_error("report: unknown format '%s' (text, csv, json or html)", fmt);
		return 2;
	}
	snprintf(c.optbuf, sizeof c.optbuf, "%s,top=%u", fmt, c.top);
	add_builtin(&c, pt_tool_profile(), c.optbuf);
	/* the families' sections, which appear when the trace has their
	 * records; the JSON's are members of the profile's object (the profile
	 * tool runs them) */
	if (strcmp(fmt, "json"))
		pt_report_sections(strcmp(fmt, "text") ? PF_IN_CSV : PF_IN_TEXT, add_section, &c);
	if (c.interval_ns)
		add_builtin(&c, pt_tool_interval(), strcmp(fmt, "text") ? "csv" : NULL);
	c.quiet = 1; /* the report itself is the output: no progress, no summary line */
	return run(&c);
}

int pt_cmd_export(int argc, char **argv)
{
	cli c;
	memset(&c, 0, sizeof c);
	c.cmd = "export";
	int rc = parse(&c, argc, argv);
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
		c.output = name = default_name(c.dir, perfetto ? ".pftrace" : ".json");
	add_builtin(&c, perfetto ? pt_tool_perfetto() : pt_tool_chrome(), NULL);
	rc = run(&c);
	pt_select_free(&c.sel);
	free(name);
	return rc;
}

int pt_cmd_plot(int argc, char **argv)
{
	cli c;
	memset(&c, 0, sizeof c);
	c.cmd = "plot";
	int rc = parse(&c, argc, argv);
	if (rc < 0) {
		pt_cmd_plot_help(stdout);
		return 0;
	}
	if (rc)
		return rc;
	char *name = NULL;
	if (!c.output)
		c.output = name = default_name(c.dir, ".svg");
	add_builtin(&c, pt_tool_plot(), c.png ? "png" : NULL);
	rc = run(&c);
	free(name);
	return rc;
}
