/* SPDX-License-Identifier: MIT */
/* paratrace diff A B: two runs side by side, per function, lock and thread
 * (analyzer/tools/diff/pt_diff.h). A side is a trace directory, whose
 * profile is made here (the profile tool's JSON, in memory), or a file
 * holding a `report --json` saved earlier. */
#define _GNU_SOURCE
#include "commands.h"
#include "pt_diff.h"
#include "pt_framework.h"
#include "tools.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void pt_cmd_diff_help(FILE *out)
{
	fputs("usage: paratrace diff [options] A B\n"
	      "Compares two runs per function, lock and thread: calls, times, B - A and B/A,\n"
	      "each table by the biggest change first (functions: exclusive time; locks: wait;\n"
	      "threads: lifetime). A and B: trace directories, or files saved with\n"
	      "'paratrace report --json > FILE'. Functions are matched by name and file, locks\n"
	      "by kind and object, threads by program and name (not by pid or tid).\n"
	      "  --csv | --json       machine-readable output instead of tables\n"
	      "  --top N              rows per table (default 25; 0 = all; tables only)\n"
	      "  -j, --jobs N         workers reading a trace (default: all online CPUs)\n"
	      "Exit status: 0 success, 1 damaged data (warned), 2 usage error or a side that\n"
	      "is neither a trace nor a profile.\n",
	      out);
}

typedef struct diff_side {
	pt_diff_side s;
	pt_json *json;
	char *text;
	size_t len;
} diff_side;

static void warn_cb(void *arg, const char *msg)
{
	(void)arg;
	pt_cli_say("warning", msg, 0);
}

/* The profile of a trace directory, as `report --json` prints it. */
static int profile_of_trace(diff_side *d, unsigned jobs, int *data_errors)
{
	char err[2048];
	FILE *mem = open_memstream(&d->text, &d->len);
	if (!mem) {
		pt_cli_error("out of memory");
		return 1;
	}
	pt_fw_tool tool = {pt_tool_profile(), "json", NULL};
	pt_fw_options o = {
	    .dir = d->s.label, .jobs = jobs, .quiet = 1, .out = mem, .warn = warn_cb};
	pt_fw_stats st;
	memset(&st, 0, sizeof st);
	int rc = pt_fw_run(&o, &tool, 1, &st, err, sizeof err);
	if (fclose(mem) && !rc) {
		pt_cli_error("out of memory");
		return 1;
	}
	if (rc) {
		pt_cli_error("%s", err);
		return rc == PT_FW_BAD_INPUT ? 2 : 1;
	}
	*data_errors += st.data_errors != 0;
	return 0;
}

static int read_file(diff_side *d)
{
	FILE *f = fopen(d->s.label, "r");
	FILE *mem = f ? open_memstream(&d->text, &d->len) : NULL;
	if (!f || !mem) {
		pt_cli_error("%s: %s", d->s.label, strerror(errno));
		if (f)
			fclose(f);
		return 2;
	}
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		fwrite(buf, 1, n, mem);
	int bad = ferror(f);
	fclose(f);
	if (fclose(mem) || bad) {
		pt_cli_error("%s: cannot read it", d->s.label);
		return 2;
	}
	return 0;
}

static int load_side(diff_side *d, unsigned jobs, int *data_errors)
{
	struct stat st;
	if (stat(d->s.label, &st)) {
		pt_cli_error("%s: %s", d->s.label, strerror(errno));
		return 2;
	}
	int rc = S_ISDIR(st.st_mode) ? profile_of_trace(d, jobs, data_errors) : read_file(d);
	if (rc)
		return rc;
	char err[256];
	d->json = pt_json_parse(d->text, d->len, err, sizeof err);
	if (!d->json) {
		pt_cli_error("%s: not a profile ('paratrace report --json' writes one): %s",
		             d->s.label, err);
		return 2;
	}
	d->s.profile = d->json;
	return 0;
}

int pt_cmd_diff(int argc, char **argv)
{
	enum { OPT_CSV = 1000, OPT_JSON, OPT_TOP };
	static const struct option opts[] = {
	    {"csv", no_argument, 0, OPT_CSV},       {"json", no_argument, 0, OPT_JSON},
	    {"top", required_argument, 0, OPT_TOP}, {"jobs", required_argument, 0, 'j'},
	    {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
	int format = PT_DIFF_TEXT, o;
	unsigned top = 25, jobs = 0;
	char *end;
	optind = 1;
	while ((o = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
		switch (o) {
		case OPT_CSV:
			format = PT_DIFF_CSV;
			break;
		case OPT_JSON:
			format = PT_DIFF_JSON;
			break;
		case OPT_TOP:
		case 'j': {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || end == optarg || optarg[0] == '-' || v > 1000000 ||
			    (o == 'j' && (v == 0 || v > 4096))) {
				pt_cli_error("diff: --%s wants a number, not '%s'",
				             o == 'j' ? "jobs" : "top", optarg);
				return 2;
			}
			*(o == 'j' ? &jobs : &top) = (unsigned)v;
			break;
		}
		case 'h':
			pt_cmd_diff_help(stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (argc - optind != 2) {
		pt_cli_error("diff: expected two runs, A and B (see 'paratrace help diff')");
		return 2;
	}
	diff_side d[2];
	memset(d, 0, sizeof d);
	int rc = 0, data_errors = 0;
	for (int k = 0; k < 2 && !rc; k++) {
		d[k].s.label = argv[optind + k];
		rc = load_side(&d[k], jobs, &data_errors);
	}
	char err[512];
	if (!rc && pt_diff_print(&d[0].s, &d[1].s, format, top, stdout, err, sizeof err)) {
		pt_cli_error("diff: %s", err);
		rc = 2;
	}
	for (int k = 0; k < 2; k++) {
		pt_json_free(d[k].json);
		free(d[k].text);
	}
	return rc ? rc : data_errors ? 1 : 0;
}
