/* SPDX-License-Identifier: MIT */
/* pt_trace_scan: finds the logs of a trace directory and reads their headers.
 *
 * Layout (format.h): <trace>/p<pid>[.<gen>]/{process.ptl,t<tid>[.<k>].ptl,g*.ptl}.
 * Also accepted: a single .ptl file, or one process folder given directly.
 */
#define _GNU_SOURCE
#include <paratrace/log.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt_log_internal.h"

/* What the scan keeps beyond the public pt_trace (which is always this
 * struct's first member: the library allocates every pt_trace). */
typedef struct trace_ext {
	pt_trace pub;
	uint64_t *proc_run; /* [nprocesses]: run id of each process */
	char (*proc_program)[sizeof(((pt_file_header *)0)->program) + 1];
	char *sibling_log; /* single-file scan: the process.ptl beside it */
} trace_ext;

static trace_ext *ext_of(const pt_trace *t)
{
	return (trace_ext *)(void *)(uintptr_t)t;
}

typedef struct scan {
	pt_trace *t;
	size_t cap_files, cap_procs;
	char *warn;
	size_t warn_len;
	int oom;
	int damaged;    /* files skipped because their header is bad */
	size_t empty;   /* files skipped because they hold nothing yet */
	int read_errno; /* the first error reading a file or folder (EACCES...) */
} scan;

int pt_warn_vappend(char **text, size_t *len, const char *fmt, va_list ap)
{
	char line[1024];
	int n = vsnprintf(line, sizeof line, fmt, ap);
	if (n < 0)
		return 0;
	if ((size_t)n >= sizeof line)
		n = sizeof line - 1;
	char *w = realloc(*text, *len + (size_t)n + 2);
	if (!w)
		return -1;
	memcpy(w + *len, line, (size_t)n);
	w[*len + (size_t)n] = '\n';
	w[*len + (size_t)n + 1] = '\0';
	*text = w;
	*len += (size_t)n + 1;
	return 0;
}

static void warnf(scan *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(scan *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (pt_warn_vappend(&s->warn, &s->warn_len, fmt, ap))
		s->oom = 1;
	va_end(ap);
}

/* Digit runs compare as numbers, so t9.ptl sorts before t10.ptl. */
static int natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t la = 0, lb = 0;
			while (isdigit((unsigned char)a[la]))
				la++;
			while (isdigit((unsigned char)b[lb]))
				lb++;
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = strncmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static int file_rank(const char *name)
{
	if (strcmp(name, "process.ptl") == 0)
		return 0;
	if (name[0] == 't')
		return 1;
	if (name[0] == 'g')
		return 2;
	return 3;
}

static int cmp_log_names(const void *pa, const void *pb)
{
	const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
	int ra = file_rank(a), rb = file_rank(b);
	if (ra != rb)
		return ra - rb;
	return natcmp(a, b);
}

static int cmp_names(const void *pa, const void *pb)
{
	return natcmp(*(const char *const *)pa, *(const char *const *)pb);
}

static int has_suffix(const char *s, const char *suf)
{
	size_t ls = strlen(s), lf = strlen(suf);
	return ls > lf && strcmp(s + ls - lf, suf) == 0;
}

static char *join(const char *dir, const char *name)
{
	char *p;
	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	return p;
}

/* Names in dir that pass `want`, sorted with cmp. *err: 0, or the error
 * that kept dir from being read (EACCES...). */
static char **list_dir(const char *dir, int (*want)(const char *dir, const char *name),
		       int (*cmp)(const void *, const void *), size_t *count, int *err)
{
	DIR *d = opendir(dir);
	*count = 0;
	*err = d ? 0 : errno;
	if (!d)
		return NULL;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!want(dir, de->d_name))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **nn = realloc(names, cap * sizeof *names);
			if (!nn)
				break;
			names = nn;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp);
	*count = n;
	return names;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int is_log_file(const char *dir, const char *name)
{
	if (name[0] == '.' || !has_suffix(name, ".ptl"))
		return 0;
	char *p = join(dir, name);
	struct stat st;
	int ok = p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return ok;
}

static int is_process_dir(const char *dir, const char *name)
{
	if (name[0] != 'p' || !isdigit((unsigned char)name[1]))
		return 0;
	char *p = join(dir, name);
	struct stat st;
	int ok = p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
	free(p);
	return ok;
}

/* Reads a file's header, opening it only if it is a regular file and
 * without blocking (a FIFO where a log should be would block the open).
 * Returns the bytes read, or -1 with errno set; st gets its size. */
static ssize_t read_header(const char *path, pt_file_header *h, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = -1;
	if (fstat(fd, st) < 0)
		goto out;
	if (!S_ISREG(st->st_mode)) {
		errno = EINVAL;
		goto out;
	}
	n = pread(fd, h, sizeof *h, 0);
out:;
	int e = errno;
	close(fd);
	errno = e;
	return n;
}

/* Reads and checks one header; appends the file to the trace. */
static int add_file(scan *s, const char *path, int process)
{
	pt_file_header h;
	struct stat st;
	ssize_t n = read_header(path, &h, &st);
	if (n < 0) {
		if (!s->read_errno)
			s->read_errno = errno;
		warnf(s, "%s: %s", path, errno == EINVAL ? "not a regular file" : strerror(errno));
		return -1;
	}
	char why[256];
	const unsigned char *b = (const unsigned char *)&h;
	ssize_t z = 0;
	while (z < n && !b[z])
		z++;
	if (z == n) { /* empty, or zeros: created, never written */
		s->empty++;
		return -1;
	}
	if (pt_log_check_header(&h, (size_t)n, why, sizeof why) < 0) {
		s->damaged = 1;
		warnf(s, "%s: %s", path, why);
		return -1;
	}
	pt_trace *t = s->t;
	if (t->nfiles == s->cap_files) {
		size_t cap = s->cap_files ? s->cap_files * 2 : 16;
		pt_trace_file *nf = realloc(t->files, cap * sizeof *nf);
		if (!nf) {
			s->oom = 1;
			return -1;
		}
		t->files = nf;
		s->cap_files = cap;
	}
	pt_trace_file *f = &t->files[t->nfiles];
	memset(f, 0, sizeof *f);
	f->path = strdup(path);
	if (!f->path) {
		s->oom = 1;
		return -1;
	}
	f->kind = h.file_kind;
	f->pid = h.pid;
	f->tid = h.tid;
	f->size = (uint64_t)st.st_size;
	f->process = process;
	t->total_bytes += f->size;
	t->nfiles++;
	return 0;
}

static pt_trace_process *new_process(scan *s, const char *dir)
{
	pt_trace *t = s->t;
	if (t->nprocesses == s->cap_procs) {
		size_t cap = s->cap_procs ? s->cap_procs * 2 : 8;
		pt_trace_process *np = realloc(t->processes, cap * sizeof *np);
		if (!np) {
			s->oom = 1;
			return NULL;
		}
		t->processes = np;
		trace_ext *x = ext_of(t);
		uint64_t *nr = realloc(x->proc_run, cap * sizeof *nr);
		if (nr)
			x->proc_run = nr;
		void *npg = nr ? realloc(x->proc_program, cap * sizeof *x->proc_program) : NULL;
		if (!npg) {
			s->oom = 1;
			return NULL;
		}
		x->proc_program = npg;
		s->cap_procs = cap;
	}
	pt_trace_process *p = &t->processes[t->nprocesses];
	memset(p, 0, sizeof *p);
	p->dir = strdup(dir);
	if (!p->dir) {
		s->oom = 1;
		return NULL;
	}
	p->process_log = -1;
	p->first_file = (int)t->nfiles;
	t->nprocesses++;
	return p;
}

/* Fills pid/ppid/process_log from the headers of the files just added;
 * drops a process none of whose files was usable. */
static void end_process(scan *s)
{
	pt_trace *t = s->t;
	int idx = (int)t->nprocesses - 1;
	pt_trace_process *p = &t->processes[idx];
	p->nfiles = (int)t->nfiles - p->first_file;
	if (p->nfiles == 0) {
		free(p->dir);
		t->nprocesses--;
		return;
	}
	for (int i = p->first_file; i < p->first_file + p->nfiles; i++) {
		if (t->files[i].kind == PT_FILE_PROCESS && p->process_log < 0)
			p->process_log = i;
	}
	int ref = p->process_log >= 0 ? p->process_log : p->first_file;
	p->pid = t->files[ref].pid;
	/* ppid, run and program are only in headers: re-read the reference
	 * file's. */
	trace_ext *x = ext_of(t);
	pt_file_header h;
	struct stat st;
	memset(&h, 0, sizeof h);
	if (read_header(t->files[ref].path, &h, &st) == (ssize_t)sizeof h)
		p->ppid = h.ppid;
	x->proc_run[idx] = h.run_id;
	snprintf(x->proc_program[idx], sizeof x->proc_program[idx], "%.*s", (int)sizeof h.program,
		 h.program);
}

static void scan_process_dir(scan *s, const char *dir)
{
	size_t n;
	int err;
	char **names = list_dir(dir, is_log_file, cmp_log_names, &n, &err);
	if (err) {
		if (!s->read_errno)
			s->read_errno = err;
		warnf(s, "%s: %s", dir, strerror(err));
	}
	if (!n) {
		free_names(names, n);
		return;
	}
	if (!new_process(s, dir)) {
		free_names(names, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char *path = join(dir, names[i]);
		if (!path) {
			s->oom = 1;
			break;
		}
		add_file(s, path, (int)s->t->nprocesses - 1);
		free(path);
	}
	end_process(s);
	free_names(names, n);
}

/* A thread or GPU log given alone: the process.ptl beside it, if it is the
 * process log of the same process of the same run. */
static char *sibling_process_log(const char *path, const pt_trace_file *f)
{
	const char *slash = strrchr(path, '/');
	char *p = NULL;
	if (asprintf(&p, "%.*sprocess.ptl", slash ? (int)(slash + 1 - path) : 0, path) < 0)
		return NULL;
	pt_file_header h, own;
	struct stat st;
	char why[256];
	if (read_header(p, &h, &st) == (ssize_t)sizeof h &&
	    pt_log_check_header(&h, sizeof h, why, sizeof why) == 0 &&
	    h.file_kind == PT_FILE_PROCESS && h.pid == f->pid &&
	    read_header(path, &own, &st) == (ssize_t)sizeof own && own.run_id == h.run_id)
		return p;
	free(p);
	return NULL;
}

/* The scan's error for a trace with no usable log, errno set as log.h says. */
static void no_logs(const scan *s, const char *path, size_t nlogs, size_t nprocdirs, char *err,
		    size_t errlen)
{
	if (s->empty && !s->damaged && !s->read_errno) {
		snprintf(err, errlen,
		         "%s: every log is empty (the program was killed before it wrote any)",
		         path);
		errno = ENODATA;
	} else if (s->warn && (s->damaged || s->read_errno)) {
		snprintf(err, errlen, "no usable logs in %s: %.*s", path, (int)strcspn(s->warn, "\n"),
			 s->warn);
		errno = s->damaged ? EBADMSG : s->read_errno;
	} else if (nlogs == 0 && nprocdirs == 0) {
		snprintf(err, errlen,
			 "%s: no paratrace logs here (expected p<pid>/ folders holding .ptl files)",
			 path);
		errno = ENODATA;
	} else {
		snprintf(err, errlen, "%s: process folders hold no .ptl files", path);
		errno = ENODATA;
	}
}

pt_trace *pt_trace_scan(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	scan s = {0};
	trace_ext *x = calloc(1, sizeof *x);
	s.t = x ? &x->pub : NULL;
	if (!s.t || !(s.t->dir = strdup(path))) {
		free(x);
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	size_t nlogs = 0, nprocdirs = 0;
	int dir_err = 0;
	if (S_ISREG(st.st_mode)) {
		char *dir = strdup(path);
		char *slash = dir ? strrchr(dir, '/') : NULL;
		if (slash)
			*slash = '\0';
		if (new_process(&s, dir && slash ? dir : ".")) {
			if (add_file(&s, path, 0) == 0 && s.t->files[0].kind != PT_FILE_PROCESS)
				x->sibling_log = sibling_process_log(path, &s.t->files[0]);
			end_process(&s);
		}
		free(dir);
		nlogs = 1;
	} else if (S_ISDIR(st.st_mode)) {
		/* A process folder given directly has its .ptl files at top level. */
		char **logs = list_dir(path, is_log_file, cmp_log_names, &nlogs, &dir_err);
		free_names(logs, nlogs);
		if (nlogs)
			scan_process_dir(&s, path);
		char **procs =
		    dir_err ? NULL : list_dir(path, is_process_dir, cmp_names, &nprocdirs, &dir_err);
		for (size_t i = 0; i < nprocdirs && !s.oom; i++) {
			char *p = join(path, procs[i]);
			if (!p) {
				s.oom = 1;
				break;
			}
			scan_process_dir(&s, p);
			free(p);
		}
		free_names(procs, nprocdirs);
	} else {
		snprintf(err, errlen, "%s: not a trace directory or a .ptl file", path);
		pt_trace_free(s.t);
		errno = EINVAL;
		return NULL;
	}
	s.t->warnings = s.warn;
	s.t->empty_logs = s.empty;
	if (s.oom || dir_err) {
		snprintf(err, errlen, "%s: %s", path, strerror(s.oom ? ENOMEM : dir_err));
		pt_trace_free(s.t);
		errno = s.oom ? ENOMEM : dir_err;
		return NULL;
	}
	if (s.t->nfiles == 0) {
		no_logs(&s, path, nlogs, nprocdirs, err, errlen);
		int e = errno;
		pt_trace_free(s.t);
		errno = e;
		return NULL;
	}
	return s.t;
}

const char *pt_trace_process_log(const pt_trace *t, size_t process)
{
	if (!t || process >= t->nprocesses)
		return NULL;
	const pt_trace_process *p = &t->processes[process];
	if (p->process_log >= 0)
		return t->files[p->process_log].path;
	return t->nprocesses == 1 ? ext_of(t)->sibling_log : NULL;
}

uint64_t pt_trace_run_id(const pt_trace *t, size_t process)
{
	return t && process < t->nprocesses ? ext_of(t)->proc_run[process] : 0;
}

/* Whether `id` (hex digits, "0x" allowed) begins the run id in hex. */
static int run_matches(uint64_t run, const char *id)
{
	char hex[17];
	snprintf(hex, sizeof hex, "%" PRIx64, run);
	if (id[0] == '0' && (id[1] == 'x' || id[1] == 'X'))
		id += 2;
	size_t n = strlen(id);
	return n > 0 && n <= 16 && strncasecmp(hex, id, n) == 0;
}

/* One line per run: id, program, process folders. */
static void describe_runs(const pt_trace *t, char *buf, size_t len)
{
	const trace_ext *x = ext_of(t);
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < t->nprocesses; i++) {
		size_t first;
		for (first = 0; x->proc_run[first] != x->proc_run[i]; first++)
			;
		if (first != i)
			continue; /* listed with its run's first process */
		int n = snprintf(buf + used, len - used, "\n  run %" PRIx64 "  %s:", x->proc_run[i],
				 x->proc_program[i][0] ? x->proc_program[i] : "?");
		used += n > 0 && (size_t)n < len - used ? (size_t)n : 0;
		size_t shown = 0, total = 0;
		for (size_t j = i; j < t->nprocesses; j++) {
			if (x->proc_run[j] != x->proc_run[i])
				continue;
			total++;
			if (++shown > 6)
				continue;
			const char *base = strrchr(t->processes[j].dir, '/');
			n = snprintf(buf + used, len - used, " %s", base ? base + 1 : t->processes[j].dir);
			used += n > 0 && (size_t)n < len - used ? (size_t)n : 0;
		}
		if (total > 6) {
			n = snprintf(buf + used, len - used, " ... (%zu folders)", total);
			used += n > 0 && (size_t)n < len - used ? (size_t)n : 0;
		}
	}
}

/* Keeps the processes of one run (and their files). */
static void keep_run(pt_trace *t, uint64_t run)
{
	trace_ext *x = ext_of(t);
	size_t np = 0, nf = 0;
	t->total_bytes = 0;
	for (size_t i = 0; i < t->nprocesses; i++) {
		pt_trace_process p = t->processes[i];
		int keep = x->proc_run[i] == run;
		for (int f = p.first_file; f < p.first_file + p.nfiles; f++) {
			if (!keep) {
				free(t->files[f].path);
				continue;
			}
			t->files[nf] = t->files[f];
			t->files[nf].process = (int)np;
			t->total_bytes += t->files[nf].size;
			nf++;
		}
		if (!keep) {
			free(p.dir);
			continue;
		}
		if (p.process_log >= 0)
			p.process_log += (int)nf - p.nfiles - p.first_file;
		p.first_file = (int)nf - p.nfiles;
		t->processes[np] = p;
		x->proc_run[np] = x->proc_run[i];
		memcpy(x->proc_program[np], x->proc_program[i], sizeof x->proc_program[np]);
		np++;
	}
	t->nprocesses = np;
	t->nfiles = nf;
}

int pt_trace_pick_run(pt_trace *t, const char *id, char *err, size_t errlen)
{
	const trace_ext *x = ext_of(t);
	size_t nruns = 0, nmatch = 0;
	uint64_t match = 0;
	for (size_t i = 0; i < t->nprocesses; i++) {
		size_t first;
		for (first = 0; x->proc_run[first] != x->proc_run[i]; first++)
			;
		if (first != i)
			continue;
		nruns++;
		if (id && run_matches(x->proc_run[i], id)) {
			nmatch++;
			match = x->proc_run[i];
		}
	}
	if ((!id && nruns <= 1) || (id && nmatch == 1)) {
		if (id && nruns > 1)
			keep_run(t, match);
		return 0;
	}
	char runs[1024];
	describe_runs(t, runs, sizeof runs);
	if (!id)
		snprintf(err, errlen,
			 "%s holds %zu unrelated runs (programs started separately with one trace "
			 "directory); pick one with --run ID:%s",
			 t->dir, nruns, runs);
	else
		snprintf(err, errlen, "%s: %s run '%s'; its runs:%s", t->dir,
			 nmatch ? "more than one" : "no", id, runs);
	errno = EINVAL;
	return -1;
}

void pt_trace_free(pt_trace *trace)
{
	if (!trace)
		return;
	for (size_t i = 0; i < trace->nfiles; i++)
		free(trace->files[i].path);
	for (size_t i = 0; i < trace->nprocesses; i++)
		free(trace->processes[i].dir);
	free(trace->files);
	free(trace->processes);
	free(trace->warnings);
	free(trace->dir);
	trace_ext *x = ext_of(trace);
	free(x->proc_run);
	free(x->proc_program);
	free(x->sibling_log);
	free(x);
}
