/* SPDX-License-Identifier: MIT */
/* paratrace dump: every event as one text line (for people and for tests).
 *
 * Line format (documented in the help text and docs/FORMAT.md; other tests
 * parse it, so change it only together with them):
 *   <time_ns since the trace's earliest open> <pid> <tid> <KIND> [key=value ...] [name=<rest>]
 * Values never contain spaces (those are written \x20); only the final
 * name= field runs to the end of the line. Process logs have tid 0.
 * Files are dumped one after the other: per process, its process log first
 * (which also feeds the symbol table), then its thread and GPU logs.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <paratrace/log.h>

#include "commands.h"
#include "dump_format.h"
#include "pt_symbols.h"

typedef struct dump_opts {
	int raw;
	int follow;
	const char *run; /* --run: the run to dump, of a trace holding several */
	uint8_t want[256]; /* kinds to print; all when !filter */
	int filter;
} dump_opts;

typedef struct open_file {
	const pt_trace_file *tf;
	char *path;
	pt_log *log;
	uint32_t pid, tid;
	int done;
	int process_log;
	pt_symtab *st; /* its process's table (shared, not owned) */
} open_file;

void pt_cmd_dump_help(FILE *out)
{
	fprintf(out,
		"usage: paratrace dump [--raw] [--kind K[,K...]] [--follow] [--run ID]\n"
		"                      <trace-dir | file.ptl>\n"
		"\n"
		"Prints every event of a trace as one line:\n"
		"  <time_ns> <pid> <tid> <KIND> [key=value ...] [name=<rest of line>]\n"
		"time_ns: nanoseconds since the earliest file open of the trace (all files\n"
		"share one clock). tid is 0 for a process log. Values never contain spaces\n"
		"(control characters, bytes that are not UTF-8, spaces and backslashes are\n"
		"written \\xNN); only the final name= field runs to the end of the line\n"
		"(escaped the same, but for spaces). Examples:\n"
		"  1234 4711 4712 FUNC_ENTER id=3 at=main.c:12 name=foo(int)\n"
		"  1301 4711 4712 FUNC_ENTER_PC pc=0x5581a2c01139 at=demo.c:7 name=work\n"
		"  1400 4711 4712 LOCK_ACQUIRED obj=0x7ffd1c2a39c0 type=mutex result=0\n"
		"Per process, the process log is dumped first (module maps, function tables),\n"
		"then each thread log and GPU log, each in file order (non-decreasing time).\n"
		"Every kind and its fields are listed in docs/FORMAT.md.\n"
		"\n"
		"options:\n"
		"  --raw         no name resolution (ids and addresses only)\n"
		"  --kind K,...  print only these kinds (names as printed, e.g. FUNC_ENTER,\n"
		"                case-insensitive, or numbers)\n"
		"  --follow      follow logs still being written: keep reading as they grow\n"
		"                and as new logs appear, until no writer can add to any of\n"
		"                them (each closed for good, exec'd or died; Ctrl-C ends)\n"
		"  --run ID      the run to dump when the trace directory holds several\n"
		"                (programs started separately with one PARATRACE_DIR; without\n"
		"                --run such a trace is refused with the list of its runs)\n"
		"  -h, --help    this text\n"
		"\n"
		"Damaged data is reported on stderr with file and offset, and dumping goes on\n"
		"with the other files. A log cut short (writer killed) gets a one-line note.\n"
		"Exit status: 0 all files read cleanly, 1 some file had errors or was skipped,\n"
		"2 usage error or no trace to read (missing, unreadable, several runs).\n");
}

/* ---- files ----------------------------------------------------------------- */

static void print_warnings(const char *w)
{
	while (w && *w) {
		size_t n = strcspn(w, "\n");
		char *line = strndup(w, n);
		pt_cli_say("warning", line ? line : "out of memory", 0);
		free(line);
		w += n;
		if (*w)
			w++;
	}
}

static void flush_symtab_warnings(pt_symtab *st)
{
	if (!st)
		return;
	char *w = pt_symtab_take_warnings(st);
	print_warnings(w);
	free(w);
}

/* Reads what is available of one file. Returns 1 when the file is finished
 * (EOF or ERROR), 0 when it waits for more data (FOLLOW). *errors is set
 * on ERROR. */
static int drain(FILE *out, open_file *f, const dump_opts *o, uint64_t base_ns, int print,
		 int *errors)
{
	pt_event ev;
	pt_symtab *names = o->raw ? NULL : f->st;
	while (pt_log_read(f->log, &ev) == 0) {
		if (f->process_log && f->st)
			pt_symtab_add(f->st, &ev);
		if (print && (!o->filter || o->want[ev.kind & 0xff]))
			pt_dump_event(out, &ev, f->pid, f->tid, pt_log_header(f->log), base_ns, names);
	}
	flush_symtab_warnings(names);
	switch (ev.state) {
	case PT_LOG_REQUIRE_DATA:
		return 0;
	case PT_LOG_ERROR:
		fflush(out);
		pt_cli_error("%s: offset %" PRIu64 ": %s", f->path, ev.offset, ev.error);
		*errors = 1;
		return 1;
	case PT_LOG_EOF:
		if (print && (ev.truncated_bytes || !ev.complete)) {
			fflush(out);
			char *note = NULL;
			int n =
			    ev.truncated_bytes
			        ? asprintf(&note,
			                   "%s: log cut short at offset %" PRIu64 " (%" PRIu64
			                   " bytes of an incomplete last record dropped)",
			                   f->path, ev.offset, ev.truncated_bytes)
			        : asprintf(&note,
			                   "%s: log has no CLOSE record (writer killed or still "
			                   "running)",
			                   f->path);
			pt_cli_say("note", n < 0 ? "out of memory" : note, 0);
			free(note);
		}
		return 1;
	default:
		return 1;
	}
}

static int open_one(open_file *f, const char *path, unsigned flags, int *errors)
{
	char err[512];
	f->path = strdup(path);
	f->log = pt_log_open_path(path, flags, err, sizeof err);
	if (!f->log || !f->path) {
		pt_cli_error("%s", f->log ? "out of memory" : err);
		*errors = 1;
		f->done = 1;
		return -1;
	}
	return 0;
}

static void close_one(open_file *f)
{
	pt_log_close(f->log);
	free(f->path);
	f->log = NULL;
	f->path = NULL;
}

/* Earliest header open time of all files: the dump's time origin. */
static uint64_t earliest_open(const pt_trace *t)
{
	uint64_t best = UINT64_MAX;
	for (size_t i = 0; i < t->nfiles; i++) {
		FILE *fp = fopen(t->files[i].path, "rb");
		if (!fp)
			continue;
		pt_file_header h;
		if (fread(&h, sizeof h, 1, fp) == 1 && h.open.mono_ns < best)
			best = h.open.mono_ns;
		fclose(fp);
	}
	return best == UINT64_MAX ? 0 : best;
}

/* The names of a process log read on its own: for a thread log given
 * alone, from the process.ptl beside it. */
static pt_symtab *symtab_of(const char *process_log)
{
	pt_log *log = pt_log_open_path(process_log, 0, NULL, 0);
	if (!log)
		return NULL;
	pt_symtab *st = pt_symtab_new();
	pt_event ev;
	while (st && pt_log_read(log, &ev) == 0)
		pt_symtab_add(st, &ev);
	pt_log_close(log);
	return st;
}

static int dump_once(FILE *out, const pt_trace *t, const dump_opts *o)
{
	int errors = 0;
	uint64_t base = earliest_open(t);
	for (size_t p = 0; p < t->nprocesses; p++) {
		const pt_trace_process *pr = &t->processes[p];
		const char *beside = pr->process_log < 0 ? pt_trace_process_log(t, p) : NULL;
		pt_symtab *st = beside && !o->raw ? symtab_of(beside) : pt_symtab_new();
		for (int i = pr->first_file; i < pr->first_file + pr->nfiles; i++) {
			const pt_trace_file *tf = &t->files[i];
			open_file f = {.tf = tf, .pid = tf->pid, .st = st};
			f.process_log = tf->kind == PT_FILE_PROCESS;
			f.tid = f.process_log ? 0 : tf->tid;
			if (open_one(&f, tf->path, 0, &errors) == 0)
				drain(out, &f, o, base, 1, &errors);
			close_one(&f);
		}
		pt_symtab_free(st);
	}
	return errors;
}

/* --follow: every log seen so far, and one symbol table per process. */
typedef struct follow {
	open_file *files;
	size_t nfiles;
	pt_symtab **tabs;
	uint32_t *tab_pids;
	size_t ntabs;
} follow;

/* The symbol table of process pid (made at its first log); NULL on ENOMEM. */
static pt_symtab *follow_symtab(follow *fl, uint32_t pid)
{
	for (size_t k = 0; k < fl->ntabs; k++)
		if (fl->tab_pids[k] == pid)
			return fl->tabs[k];
	pt_symtab **nt = realloc(fl->tabs, (fl->ntabs + 1) * sizeof *nt);
	if (nt)
		fl->tabs = nt;
	uint32_t *np = nt ? realloc(fl->tab_pids, (fl->ntabs + 1) * sizeof *np) : NULL;
	if (!np)
		return NULL;
	fl->tab_pids = np;
	fl->tabs[fl->ntabs] = pt_symtab_new();
	fl->tab_pids[fl->ntabs] = pid;
	return fl->tabs[fl->ntabs++];
}

/* Opens the logs of the scan t not seen before. */
static void follow_open_new(follow *fl, const pt_trace *t, int *errors)
{
	for (size_t i = 0; i < t->nfiles; i++) {
		const pt_trace_file *tf = &t->files[i];
		size_t j;
		for (j = 0; j < fl->nfiles; j++)
			if (strcmp(fl->files[j].path ? fl->files[j].path : "", tf->path) == 0)
				break;
		if (j < fl->nfiles)
			continue;
		open_file *nf = realloc(fl->files, (fl->nfiles + 1) * sizeof *nf);
		if (!nf)
			break;
		fl->files = nf;
		open_file *f = &fl->files[fl->nfiles++];
		memset(f, 0, sizeof *f);
		f->pid = tf->pid;
		f->process_log = tf->kind == PT_FILE_PROCESS;
		f->tid = f->process_log ? 0 : tf->tid;
		f->st = follow_symtab(fl, tf->pid);
		open_one(f, tf->path, PT_LOG_FOLLOW, errors); /* on failure: done, not retried */
	}
}

/* Prints what every open log has now. Returns how many are still open. */
static int follow_drain(follow *fl, FILE *out, const dump_opts *o, uint64_t base, int *errors)
{
	int open_left = 0;
	/* Process logs first so names are known before thread events. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t j = 0; j < fl->nfiles; j++) {
			open_file *f = &fl->files[j];
			if (f->done || f->process_log != !pass)
				continue;
			f->done = drain(out, f, o, base, 1, errors);
			if (f->done) {
				pt_log_close(f->log);
				f->log = NULL;
			} else {
				open_left++;
			}
		}
	}
	fflush(out);
	return open_left;
}

/* --follow: round-robin over every log, rescanning for new ones, until all
 * are finished. Lines of different files interleave as data arrives. */
static int dump_follow(FILE *out, const char *arg, pt_trace *t, const dump_opts *o)
{
	int errors = 0;
	uint64_t base = earliest_open(t);
	follow fl = {0};
	char run[24];
	snprintf(run, sizeof run, "%" PRIx64, pt_trace_run_id(t, 0));
	for (;;) {
		follow_open_new(&fl, t, &errors);
		if (!follow_drain(&fl, out, o, base, &errors))
			break;
		usleep(200 * 1000);
		char err[512];
		pt_trace *nt = pt_trace_scan(arg, err, sizeof err);
		/* logs of another run started meanwhile are not this trace's */
		if (nt && pt_trace_pick_run(nt, run, err, sizeof err) == 0) {
			pt_trace_free(t);
			t = nt;
		} else {
			pt_trace_free(nt);
		}
	}
	for (size_t j = 0; j < fl.nfiles; j++)
		close_one(&fl.files[j]);
	free(fl.files);
	for (size_t k = 0; k < fl.ntabs; k++)
		pt_symtab_free(fl.tabs[k]);
	free(fl.tabs);
	free(fl.tab_pids);
	pt_trace_free(t);
	return errors;
}

static int parse_kinds(dump_opts *o, const char *list)
{
	char *copy = strdup(list);
	if (!copy)
		return -1;
	o->filter = 1;
	int rc = 0;
	for (char *save = NULL, *k = strtok_r(copy, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long n = strtoul(k, &end, 0);
		if (isdigit((unsigned char)*k) && *end == '\0' && n > 0 && n < 256) {
			o->want[n] = 1;
			continue;
		}
		unsigned kind;
		for (kind = 1; kind < 256; kind++)
			if (strcmp(pt_rec_kind_name(kind), "UNKNOWN") != 0 &&
			    strcasecmp(pt_rec_kind_name(kind), k) == 0)
				break;
		if (kind == 256) {
			pt_cli_error("dump: unknown kind '%s' (see 'paratrace help dump')", k);
			rc = -1;
			break;
		}
		o->want[kind] = 1;
	}
	free(copy);
	return rc;
}

int pt_cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"raw", no_argument, NULL, 'r'},
		{"kind", required_argument, NULL, 'k'},
		{"follow", no_argument, NULL, 'f'},
		{"run", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	dump_opts o = {0};
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, "+rk:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			o.raw = 1;
			break;
		case 'k':
			if (parse_kinds(&o, optarg) < 0)
				return 2;
			break;
		case 'f':
			o.follow = 1;
			break;
		case 'R':
			o.run = optarg;
			break;
		case 'h':
			pt_cmd_dump_help(stdout);
			return 0;
		default:
			pt_cmd_dump_help(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		pt_cli_error("dump: expected one trace directory or .ptl file");
		pt_cmd_dump_help(stderr);
		return 2;
	}
	const char *arg = argv[optind];
	char err[1024];
	pt_trace *t = pt_trace_scan(arg, err, sizeof err);
	if (!t) {
		pt_cli_error("%s", err);
		return pt_cli_scan_status(errno);
	}
	if (pt_trace_pick_run(t, o.run, err, sizeof err) < 0) {
		pt_cli_error("%s", err);
		pt_trace_free(t);
		return 2;
	}
	print_warnings(t->warnings);
	int errors = t->warnings != NULL;
	if (t->empty_logs) {
		char line[160];
		snprintf(
		    line, sizeof line,
		    "%zu empty log%s (no header yet): the program is still running or was killed",
		    t->empty_logs, t->empty_logs == 1 ? "" : "s");
		pt_cli_say("warning", line, 0);
	}
	static char outbuf[1 << 16];
	setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	if (o.follow) {
		errors |= dump_follow(stdout, arg, t, &o);
	} else {
		errors |= dump_once(stdout, t, &o);
		pt_trace_free(t);
	}
	if (fflush(stdout) != 0) {
		pt_cli_error("writing output failed");
		return 1;
	}
	return errors ? 1 : 0;
}
