/* SPDX-License-Identifier: MIT */
/* paratrace record: runs a program under this installation's libtrace.so
 * into a trace directory named after it, then analyzes the trace. */
#define _GNU_SOURCE
#include "commands.h"
#include "record.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The options that set a runtime variable, one row each: the option, its
 * argument (NULL: none), the variable, the value it takes without an
 * argument, the help. */
static const struct setting {
	const char *opt, *arg, *var, *value, *help;
} settings[] = {
    {"counters", "LIST", "PARATRACE_COUNTERS", NULL,
     "counters to read, comma-separated (cycles,page-faults)"},
    {"counters-at", "WHERE", "PARATRACE_COUNTERS_AT", NULL,
     "functions, sync, threads, all (default sync,threads)"},
    {"callstack", "DEPTH", "PARATRACE_CALLSTACK", NULL,
     "call stacks at lock contention, waits, thread creation"},
    {"sampling", "PERIOD", "PARATRACE_SAMPLING", NULL,
     "a CPU-time sample of each thread every 1ms, 500us..."},
    {"gpu", NULL, "PARATRACE_GPU", "1", "trace CUDA and OpenCL (the default)"},
    {"no-gpu", NULL, "PARATRACE_GPU", "0", "do not trace CUDA and OpenCL"},
    {"gpu-kernels", "MODE", "PARATRACE_GPU_KERNELS", NULL,
     "inside instrumented GPU kernels: entries or blocks"},
    {"no-mpi", NULL, "PARATRACE_MPI", "0", "pass MPI calls on untraced"},
    {"no-openmp", NULL, "PARATRACE_OPENMP", "0", "do not record OpenMP constructs"},
    {"buffer-size", "SIZE", "PARATRACE_BUFFER_SIZE", NULL,
     "bytes of a thread's log mapped at a time (default 4M)"},
    {"max-size", "SIZE", "PARATRACE_MAX_SIZE", NULL,
     "largest log file, beyond it counted as lost (no limit)"},
    {"clock", "CLOCK", "PARATRACE_CLOCK", NULL, "auto, tsc or monotonic (default auto)"},
};
#define NSETTINGS (sizeof settings / sizeof settings[0])

void pt_cmd_record_help(FILE *out)
{
	fputs("usage: paratrace record [options] [--] PROGRAM [ARGS...]\n"
	      "Runs PROGRAM (looked up in PATH) with ARGS under this paratrace's libtrace.so,\n"
	      "then prints where the trace is and a short profile (as 'paratrace analyze').\n"
	      "The program keeps its terminal, streams and environment; SIGINT, SIGTERM, SIGHUP\n"
	      "and SIGQUIT sent to paratrace are passed on to it. Exit status: the program's\n"
	      "(128+N when signal N ended it; 127 when it cannot be found, 126 when it cannot\n"
	      "be run), or the analysis's when the program succeeded and the analysis did not.\n"
	      "  -o, --output DIR     the trace directory, refused when it holds a trace\n"
	      "                       (default: PROGRAM.paratrace in the current directory,\n"
	      "                       PROGRAM's base name past env, time, timeout, nice; when\n"
	      "                       it exists, the first free of PROGRAM.paratrace.1, .2...)\n"
	      "  --no-analyze         only record; say how to analyze\n"
	      "  --report             print the full profile ('paratrace report') instead\n"
	      "  --html               write DIR.html ('paratrace report --html') instead\n"
	      "  -q, --quiet          no progress bar and no summary line in the analysis\n"
	      "What is recorded (each sets the runtime variable in parentheses, README):\n",
	      out);
	for (size_t i = 0; i < NSETTINGS; i++) {
		char left[64];
		snprintf(left, sizeof left, "--%s%s%s", settings[i].opt, settings[i].arg ? " " : "",
		         settings[i].arg ? settings[i].arg : "");
		fprintf(out, "  %-20s %s\n  %-20s (%s)\n", left, settings[i].help, "",
		        settings[i].var);
	}
	fputs("Under an MPI launcher (mpirun -np N paratrace record ./app) every rank writes\n"
	      "into one directory, PROGRAM.paratrace-mpi-JOB (or -o DIR); the analysis is left\n"
	      "to a command that rank 0 prints, run once every rank is done.\n",
	      out);
}

/* The libtrace.so of this paratrace: its installation's (BINDIR/
 * PT_LIBTRACE_REL) or, in a build tree, bin/../lib's. 0, or -1 with the
 * paths looked at in `tried`. */
static int find_libtrace(char *out, size_t len, char *tried, size_t tlen)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	snprintf(tried, tlen, "?");
	if (n <= 0)
		return -1;
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = 0;
	static const char *const rel[] = {PT_LIBTRACE_REL, "../lib/libtrace.so"};
	size_t used = 0;
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		if (i && !strcmp(rel[i], rel[0]))
			continue;
		char path[PATH_MAX + 64];
		snprintf(path, sizeof path, "%s/%s", exe, rel[i]);
		if (access(path, R_OK) == 0 && realpath(path, out) && strlen(out) < len)
			return 0;
		if (used < tlen)
			used += (size_t)snprintf(tried + used, tlen - used, "%s%s", i ? ", " : "",
			                         path);
	}
	return -1;
}

/* LD_PRELOAD=libtrace.so in front of what was there (the loader's list is
 * separated by spaces or colons); absolute, so that children that change
 * directory load it too. */
static int set_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	size_t n = strlen(lib);
	for (const char *p = old; p && (p = strstr(p, lib)); p += n)
		if ((p == old || p[-1] == ':' || p[-1] == ' ') &&
		    (!p[n] || p[n] == ':' || p[n] == ' '))
			return 0; /* there already: loaded once */
	char *v;
	if (asprintf(&v, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "") < 0)
		return -1;
	int rc = setenv("LD_PRELOAD", v, 1);
	free(v);
	return rc;
}

/* A path made absolute (A B C: their concatenation), so that the program
 * and its children find it whatever directory they move to; 0, or -1 after
 * a message. */
static int in_cwd(const char *a, const char *b, const char *c, char *out, size_t len)
{
	char cwd[PATH_MAX];
	if (a[0] == '/')
		cwd[0] = 0;
	else if (!getcwd(cwd, sizeof cwd)) {
		pt_cli_error("record: cannot tell the current directory: %s", strerror(errno));
		return -1;
	}
	int n =
	    snprintf(out, len, "%s%s%s%s%s", cwd, cwd[0] && strcmp(cwd, "/") ? "/" : "", a, b, c);
	if (n < 0 || (size_t)n >= len) {
		pt_cli_error("record: the path of the trace directory is too long");
		return -1;
	}
	return 0;
}

typedef struct record_opts {
	const char *dir;
	int no_analyze, report, html, quiet;
} record_opts;

enum { OPT_NO_ANALYZE = 1000, OPT_REPORT, OPT_HTML, OPT_SETTING = 2000 };

/* optind of the program, -1 for --help, or -2 after a usage error (said). */
static int parse(int argc, char **argv, record_opts *r)
{
	struct option opts[NSETTINGS + 8];
	size_t n = 0;
	opts[n++] = (struct option){"output", required_argument, 0, 'o'};
	opts[n++] = (struct option){"quiet", no_argument, 0, 'q'};
	opts[n++] = (struct option){"help", no_argument, 0, 'h'};
	opts[n++] = (struct option){"no-analyze", no_argument, 0, OPT_NO_ANALYZE};
	opts[n++] = (struct option){"report", no_argument, 0, OPT_REPORT};
	opts[n++] = (struct option){"html", no_argument, 0, OPT_HTML};
	for (size_t i = 0; i < NSETTINGS; i++)
		opts[n++] = (struct option){settings[i].opt,
		                            settings[i].arg ? required_argument : no_argument, 0,
		                            OPT_SETTING + (int)i};
	opts[n] = (struct option){0, 0, 0, 0};
	optind = 1;
	int o;
	/* '+': the first word that is not an option is the program; what
	 * follows it is its own */
	while ((o = getopt_long(argc, argv, "+o:qh", opts, NULL)) != -1) {
		switch (o) {
		case 'o':
			r->dir = optarg;
			break;
		case 'q':
			r->quiet = 1;
			break;
		case 'h':
			return -1;
		case OPT_NO_ANALYZE:
			r->no_analyze = 1;
			break;
		case OPT_REPORT:
			r->report = 1;
			break;
		case OPT_HTML:
			r->html = 1;
			break;
		default:
			if (o < OPT_SETTING || o >= OPT_SETTING + (int)NSETTINGS)
				return -2;
			const struct setting *s = &settings[o - OPT_SETTING];
			if (s->arg && !*optarg) {
				pt_cli_error("record: --%s wants %s", s->opt, s->arg);
				return -2;
			}
			if (setenv(s->var, s->arg ? optarg : s->value, 1) != 0) {
				pt_cli_error("record: out of memory");
				return -2;
			}
		}
	}
	if (r->report + r->html + r->no_analyze > 1) {
		pt_cli_error("record: one of --report, --html and --no-analyze");
		return -2;
	}
	if (optind >= argc) {
		pt_cli_error("record: expected the program to run (see 'paratrace help record')");
		return -2;
	}
	return optind;
}

/* The analysis the options chose, in this process, as its command runs it.
 * Its options come before the directory: getopt keeps the '+' (no
 * permuting) of record's parse for later ones in the process. */
static int analyze(const record_opts *r, const char *dir)
{
	char *args[8];
	int n = 0;
	args[n++] = r->report || r->html ? "report" : "analyze";
	if (r->html)
		args[n++] = "--html";
	if (r->quiet)
		args[n++] = "-q";
	args[n++] = "--";
	args[n++] = (char *)dir;
	args[n] = NULL;
	return r->report || r->html ? pt_cmd_report(n, args) : pt_cmd_analyze(n, args);
}

int pt_cmd_record(int argc, char **argv)
{
	record_opts r;
	memset(&r, 0, sizeof r);
	int first = parse(argc, argv, &r);
	if (first == -1) {
		pt_cmd_record_help(stdout);
		return 0;
	}
	if (first < 0)
		return 2;
	record_untraced_self(argc, argv);
	char **prog = argv + first;
	char lib[PATH_MAX], tried[2 * PATH_MAX + 256];
	if (find_libtrace(lib, sizeof lib, tried, sizeof tried) != 0) {
		pt_cli_error("record: cannot find the libtrace.so of this paratrace (%s): install "
		             "paratrace, or build the target trace",
		             tried);
		return 2;
	}
	char job[64], dir[PATH_MAX + 64];
	int rank = record_mpi_rank(job, sizeof job);
	const char *name = record_program_name(prog);
	int made = 0;
	if (r.dir) {
		/* the ranks of a job share it: each makes its own process folder */
		if (!*r.dir || in_cwd(r.dir, "", "", dir, sizeof dir) != 0)
			return 2;
		/* a second run there would be one of its own beside the first,
		 * which every command then asks to choose from (--run) */
		if (rank < 0 && record_holds_trace(dir)) {
			pt_cli_error(
			    "record: -o %s holds a trace already: name another directory, or "
			    "remove it",
			    r.dir);
			return 2;
		}
	} else if (rank >= 0) {
		/* every rank names it alike, without talking to the others */
		if (in_cwd(name, ".paratrace-mpi-", job, dir, sizeof dir) != 0)
			return 2;
	} else {
		if (record_make_dir(name, dir, sizeof dir) != 0)
			return 2;
		made = 1;
	}
	/* a run of its own, even when paratrace itself runs under a traced
	 * program */
	unsetenv("PARATRACE_RUN");
	if (setenv("PARATRACE_DIR", dir, 1) != 0 || set_preload(lib) != 0) {
		pt_cli_error("record: out of memory");
		return 2;
	}
	int ran;
	int status = record_run_child(prog, name, &ran);
	if (!ran) {
		if (made)
			rmdir(dir);
		return status;
	}
	if (made && rmdir(dir) == 0) {
		/* nothing written: libtrace.so said why on stderr */
		pt_cli_error("record: %s wrote no trace", name);
		return status ? status : 1;
	}
	if (rank > 0)
		return status;
	fprintf(stderr, "%s: trace of %s in %s\n", pt_cli_progname, name, dir);
	if (rank == 0 || r.no_analyze) {
		const char *size = getenv("OMPI_COMM_WORLD_SIZE");
		if (!size)
			size = getenv("PMI_SIZE");
		if (rank == 0)
			fprintf(stderr,
			        "%s: an MPI job: once every rank has ended, analyze it with\n"
			        "  paratrace analyze %s\n"
			        "or, with several analyzer processes,\n"
			        "  mpirun -np %s paratrace analyze %s\n",
			        pt_cli_progname, dir, size && *size ? size : "N", dir);
		else
			fprintf(stderr, "%s: analyze it with: paratrace analyze %s\n",
			        pt_cli_progname, dir);
		return status;
	}
	fflush(stdout);
	int rc = analyze(&r, dir);
	return status ? status : rc;
}
