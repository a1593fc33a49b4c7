/* SPDX-License-Identifier: MIT */
/* The paratrace command line on hostile and unusual inputs, end to end on
 * traces made with the test encoder: outputs never written through a link
 * that was at their path, files named inside a trace never opened in a way
 * that can block, exit statuses (0 success, 1 damaged data, 2 usage or no
 * trace to read), a thread log given alone named through the process.ptl
 * beside it, unrelated runs in one trace directory, and MPI ranks and
 * sizes no process can have. */
#define _GNU_SOURCE
#include <CUnit/Basic.h>
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pt_test_run.h"
#include "pt_test_writer.h"

#ifndef PARATRACE_BIN
#error PARATRACE_BIN must name the paratrace executable
#endif

static char work[64];

__attribute__((noinline)) int cli_marker(int x)
{
	return x * 3 + 1;
}

/* ---- running commands -------------------------------------------------- */

/* Runs `paratrace ARGS` (printf-style) under a time limit, as `user` when
 * not NULL (setpriv: the tests run as root, permissions need another one).
 * Status 124: killed by the time limit. */
static run paratrace_as(const char *user, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static run paratrace_as(const char *user, const char *fmt, ...)
{
	char args[2048], cmd[4096], priv[128] = "";
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	if (user)
		snprintf(priv, sizeof priv, "setpriv --reuid=%s --regid=%s --clear-groups ", user,
		         user);
	snprintf(cmd, sizeof cmd, "%stimeout -k 5 30 '%s' %s", priv, PARATRACE_BIN, args);
	return run_in(work, cmd);
}
#define paratrace(...) paratrace_as(NULL, __VA_ARGS__)

static int count(const char *s, const char *needle)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* ---- traces ------------------------------------------------------------- */

static void path_of(char *out, size_t len, const char *rel)
{
	snprintf(out, len, "%s/%s", work, rel);
}

static void save(const char *rel, const uint8_t *data, size_t len)
{
	char p[512];
	path_of(p, sizeof p, rel);
	FILE *f = fopen(p, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT(fwrite(data, 1, len, f) == len);
	fclose(f);
}

static void mkdirs(const char *rel)
{
	char p[512];
	path_of(p, sizeof p, rel);
	for (char *s = p + strlen(work) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

/* What a process of a synthetic trace is made of. */
typedef struct proc {
	const char *dir; /* relative to work: <trace>/p<pid> */
	uint32_t pid;
	uint64_t run_id;
	const char *program;
	const char *module;        /* MODULE_MAP path, or NULL */
	uint64_t base, lo, hi, pc; /* the module's mapping; pc: FUNC_ENTER_PC address */
} proc;

static void begin(ptw *w, unsigned kind, const proc *p, uint32_t tid, uint64_t t)
{
	ptw_begin(w, kind, p->pid, tid, t, 7000000000ull + t, 1, 0);
	w->hdr.run_id = p->run_id;
	memset(w->hdr.program, 0, sizeof w->hdr.program);
	strcpy(w->hdr.program, p->program);
	memcpy(w->buf, &w->hdr, sizeof w->hdr);
	ptw_time(w, t);
}

/* p<pid>/process.ptl: PROCESS_INFO, MODULE_MAP, FUNC_DEF 3 = foo(int). */
static void write_process_log(const proc *p)
{
	ptw w;
	uint64_t t = 1000;
	begin(&w, PT_FILE_PROCESS, p, 0, t);
	pt_rec_process_info pi = {1, 0, 0};
	char info[sizeof pi + 64];
	memcpy(info, &pi, sizeof pi);
	int n = snprintf(info + sizeof pi, 64, "/bin/%s%c%s", p->program, 0, p->program);
	ptw_rec(&w, PT_REC_PROCESS_INFO, 0, ++t, info, sizeof pi + (size_t)n + 1);
	if (p->module) {
		size_t plen = strlen(p->module) + 1;
		uint8_t mm[sizeof(pt_rec_module_map) + 512];
		pt_rec_module_map map = {p->base, p->lo, p->hi, 0, PT_MODULE_MAIN};
		memcpy(mm, &map, sizeof map);
		memcpy(mm + sizeof map, p->module, plen);
		ptw_rec(&w, PT_REC_MODULE_MAP, 0, ++t, mm, sizeof map + plen);
	}
	pt_rec_func_def fd = {3, 12, p->base};
	ptw_rec_strs(&w, PT_REC_FUNC_DEF, 0, ++t, &fd, sizeof fd, "_Z3fooi", "main.c");
	ptw_close(&w, ++t);
	char rel[256];
	snprintf(rel, sizeof rel, "%s/process.ptl", p->dir);
	save(rel, w.buf, w.len);
	ptw_free(&w);
}

/* p<pid>/t<pid>.ptl: foo(int) called twice, the module's pc entered, a lock. */
static void write_thread_log(const proc *p)
{
	ptw w;
	uint64_t t = 1500;
	begin(&w, PT_FILE_THREAD, p, p->pid, t);
	for (int i = 0; i < 2; i++) {
		ptw_func(&w, PT_REC_FUNC_ENTER, 3, t += 10);
		ptw_func(&w, PT_REC_FUNC_EXIT, 3, t += 100);
	}
	if (p->module) {
		pt_rec_pc pc = {p->pc};
		ptw_rec(&w, PT_REC_FUNC_ENTER_PC, 0, t += 10, &pc, sizeof pc);
		ptw_rec(&w, PT_REC_FUNC_EXIT_PC, 0, t += 10, &pc, sizeof pc);
	}
	pt_rec_lock lk = {0x1234, 0, 0};
	ptw_rec(&w, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, t += 10, &lk.object, sizeof lk.object);
	ptw_rec(&w, PT_REC_LOCK_RELEASED, PT_LOCK_MUTEX, t += 10, &lk.object, sizeof lk.object);
	ptw_close(&w, t += 1);
	char rel[256];
	snprintf(rel, sizeof rel, "%s/t%u.ptl", p->dir, p->pid);
	save(rel, w.buf, w.len);
	ptw_free(&w);
}

static void write_proc(const proc *p)
{
	mkdirs(p->dir);
	write_process_log(p);
	write_thread_log(p);
}

/* A one-process trace at work/<rel>: p4711. */
static void simple_trace(const char *rel)
{
	char dir[256];
	snprintf(dir, sizeof dir, "%s/p4711", rel);
	proc p = {dir, 4711, 0x1234abcd, "testprog", NULL, 0, 0, 0, 0};
	write_proc(&p);
}

static int file_is(const char *path, const char *content)
{
	char *s = slurp(path);
	int same = strcmp(s, content) == 0;
	free(s);
	return same;
}

static int is_regular_not_link(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- tests -------------------------------------------------------------- */

static void test_help(void)
{
	run r = paratrace("--help");
	CU_ASSERT_EQUAL(r.status, 0);
	const char *line = strstr(r.out, "  export");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	const char *eol = strchr(line, '\n');
	const char *pf = strstr(line, "perfetto");
	CU_ASSERT(pf && eol && pf < eol);
	run_free(&r);
	r = paratrace("export --help");
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--format chrome|perfetto"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--run ID"));
	run_free(&r);
	r = paratrace("help dump");
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--run ID"));
	run_free(&r);
}

/* A symbolic link at an output path (to a file of
 * someone else's) is replaced, never written through. */
static void test_outputs_replace_links(void)
{
	simple_trace("links/tr");
	char victim[256], tr[256], link[256];
	path_of(victim, sizeof victim, "links/victim");
	path_of(tr, sizeof tr, "links/tr");
	static const char *const precious = "precious, mode 0600\n";
	struct {
		const char *link; /* relative to links/ */
		const char *args; /* %s: the trace */
	} cases[] = {
	    {"tr.pftrace", "export --format perfetto -q %s"},
	    {"tr.json", "export --format chrome -q %s"},
	    {"out.pftrace", "export --format perfetto -q -o %s/../out.pftrace %s"},
	    {"named.prv", "analyze -q -o %s/../named %s"},
	    {"named.pcf", "analyze -q -o %s/../named %s"},
	    {"named.row", "analyze -q -o %s/../named %s"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		FILE *f = fopen(victim, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fputs(precious, f);
		fclose(f);
		chmod(victim, 0600);
		snprintf(link, sizeof link, "%s/links/%s", work, cases[i].link);
		unlink(link);
		CU_ASSERT_EQUAL_FATAL(symlink(victim, link), 0);
		char args[1024];
		if (strstr(cases[i].args, "-o"))
			snprintf(args, sizeof args, cases[i].args, tr, tr);
		else
			snprintf(args, sizeof args, cases[i].args, tr);
		run r = paratrace("%s", args);
		CU_ASSERT_EQUAL(r.status, 0);
		CU_ASSERT(file_is(victim, precious));
		CU_ASSERT(is_regular_not_link(link));
		if (r.status != 0 || !file_is(victim, precious))
			fprintf(stderr, "\n%s: %s", cases[i].args, r.err);
		run_free(&r);
	}
}

/* dump, analyze and report of a trace finish (the time limit kills them
 * otherwise: status 124). */
static void check_finishes(const char *tr, const char *why)
{
	char out[256];
	path_of(out, sizeof out, "fifo/out");
	run r = paratrace("dump %s", tr);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "FUNC_ENTER_PC"));
	if (why)
		CU_ASSERT_PTR_NOT_NULL(strstr(r.err, why));
	run_free(&r);
	r = paratrace("analyze -q -o %s %s", out, tr);
	CU_ASSERT_EQUAL(r.status, 0);
	run_free(&r);
	r = paratrace("report %s", tr);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "foo(int)"));
	run_free(&r);
}

/* A module path of the trace naming a FIFO, and a FIFO
 * where libdw looks for the module's separate debug file, do not hang. */
static void test_fifo_paths(void)
{
	char fifo[256], tr[256];
	mkdirs("fifo/mods");
	path_of(fifo, sizeof fifo, "fifo/mods/libfifo.so");
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0644), 0);
	proc p = {"fifo/tr/p100", 100,      0x77,     "fifoprog", fifo,
	          0x400000,       0x400000, 0x500000, 0x401000};
	write_proc(&p);
	path_of(tr, sizeof tr, "fifo/tr");
	check_finishes(tr, "not a regular file");

	/* This test binary, without its DWARF but with a debug link to a file
	 * beside it; that file is a FIFO. Names come from its symbol table;
	 * file:line would come from the debug file. */
	char exe[4096] = {0}, copy[256], dbg[256], cmd[2 * 4096 + 3 * 256 + 128];
	CU_ASSERT_FATAL(readlink("/proc/self/exe", exe, sizeof exe - 1) > 0);
	path_of(copy, sizeof copy, "fifo/mods/cli_stripped");
	path_of(dbg, sizeof dbg, "fifo/mods/cli_stripped.debug");
	snprintf(cmd, sizeof cmd,
	         "objcopy --only-keep-debug '%s' '%s' && objcopy --strip-debug "
	         "--add-gnu-debuglink='%s' '%s' '%s'",
	         exe, dbg, dbg, exe, copy);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	unlink(dbg);
	CU_ASSERT_EQUAL_FATAL(mkfifo(dbg, 0644), 0);
	uint64_t m[3] = {0, 0, 0};
	dl_iterate_phdr(main_module, m);
	proc q = {"fifo/tr2/p200",
	          200,
	          0x78,
	          "fifoprog",
	          copy,
	          m[0],
	          m[1],
	          m[2],
	          (uint64_t)(uintptr_t)&cli_marker};
	write_proc(&q);
	path_of(tr, sizeof tr, "fifo/tr2");
	check_finishes(tr, NULL);
	run r = paratrace("dump %s", tr);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "name=cli_marker"));
	run_free(&r);
}

/* Exit statuses: 0 success, 1 damaged data, 2 usage or no trace. */
static void test_exit_status(void)
{
	static const char *const cmds[] = {"dump", "analyze -q -o %s/es/o", "report",
	                                   "export --format chrome -q -o %s/es/o.json"};
	char missing[256], cmd[512];
	path_of(missing, sizeof missing, "es/does-not-exist");
	mkdirs("es");
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		snprintf(cmd, sizeof cmd, cmds[i], work);
		run r = paratrace("%s %s", cmd, missing);
		CU_ASSERT_EQUAL(r.status, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "No such file or directory"));
		run_free(&r);
	}

	/* A log the program never wrote into (empty, or zeros where its header
	 * goes: killed as the file was created): said once, counted among the
	 * logs not closed, no damage; everything else is read. */
	char tr[256];
	static const uint8_t zeros[4096];
	for (int k = 0; k < 2; k++) {
		simple_trace(k ? "es/zeros" : "es/empty");
		save(k ? "es/zeros/p4711/t9.ptl" : "es/empty/p4711/t9.ptl", zeros,
		     k ? sizeof zeros : 0);
		path_of(tr, sizeof tr, k ? "es/zeros" : "es/empty");
		for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
			snprintf(cmd, sizeof cmd, cmds[i], work);
			run r = paratrace("%s %s", cmd, tr);
			CU_ASSERT_EQUAL(r.status, 0);
			CU_ASSERT_PTR_NULL(strstr(r.err, "t9.ptl"));
			CU_ASSERT_PTR_NOT_NULL(
			    strstr(r.err, i ? "(1 of them empty)" : "1 empty log"));
			run_free(&r);
		}
	}
	/* A header cut short: damaged data. */
	simple_trace("es/cut");
	{
		ptw w;
		ptw_begin(&w, PT_FILE_THREAD, 4711, 10, 1, 1, 1, 0);
		save("es/cut/p4711/t10.ptl", w.buf, 100);
		ptw_free(&w);
	}
	path_of(tr, sizeof tr, "es/cut");
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		snprintf(cmd, sizeof cmd, cmds[i], work);
		run r = paratrace("%s %s", cmd, tr);
		CU_ASSERT_EQUAL(r.status, 1);
		CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "t10.ptl: truncated header"));
		run_free(&r);
	}

	/* A trace another user cannot read: the permission error, status 2. */
	simple_trace("es/private");
	char priv[256], procdir[256];
	path_of(priv, sizeof priv, "es/private");
	path_of(procdir, sizeof procdir, "es/private/p4711");
	chmod(work, 0755);
	char es[256];
	path_of(es, sizeof es, "es");
	chmod(es, 0777);
	const char *user = geteuid() == 0 ? "65534" : NULL; /* nobody */
	/* A build inside a private directory (a clone in `mktemp -d`) cannot be
	 * run by nobody at all: the check needs a paratrace that user can run. */
	int reachable = 1;
	if (user) {
		run probe = paratrace_as(user, "--version");
		reachable = probe.status != 126 && probe.status != 127;
		if (!reachable)
			fprintf(stderr, "\ntest_cli: the permission checks left out: user %s cannot "
			                "run %s (its directory is private)\n",
			        user, PARATRACE_BIN);
		run_free(&probe);
	}
	for (int k = 0; k < 3 && reachable; k++) {
		/* the trace folder, a process folder, the logs */
		chmod(priv, k == 0 ? 0700 : 0755);
		chmod(procdir, k == 1 ? 0700 : 0755);
		char logs[600];
		snprintf(logs, sizeof logs, "chmod %s '%s'/*.ptl", k == 2 ? "600" : "644", procdir);
		CU_ASSERT_EQUAL(system(logs), 0);
		for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
			snprintf(cmd, sizeof cmd, cmds[i], work);
			run r = paratrace_as(user, "%s %s", cmd, priv);
			CU_ASSERT_EQUAL(r.status, 2);
			CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "Permission denied"));
			CU_ASSERT_PTR_NULL(strstr(r.err, "no paratrace logs"));
			if (r.status != 2 || !strstr(r.err, "Permission denied"))
				fprintf(stderr, "\n[%d] %s: %d %s", k, cmd, r.status, r.err);
			run_free(&r);
		}
	}
	chmod(priv, 0755);
	chmod(procdir, 0755);
	chmod(work, 0700);
}

/* A thread log given alone is named through the
 * process.ptl beside it, by every command. */
static void test_single_log(void)
{
	simple_trace("single/tr");
	char t[256], out[256];
	path_of(t, sizeof t, "single/tr/p4711/t4711.ptl");
	path_of(out, sizeof out, "single/out");
	run r = paratrace("report %s", t);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "foo(int)"));
	CU_ASSERT_PTR_NULL(strstr(r.out, "no definition"));
	CU_ASSERT_PTR_NULL(strstr(r.err, "no process.ptl"));
	run_free(&r);
	r = paratrace("analyze -q -o %s %s", out, t);
	CU_ASSERT_EQUAL(r.status, 0);
	run_free(&r);
	char pcf[300];
	snprintf(pcf, sizeof pcf, "%s.pcf", out);
	char *s = slurp(pcf);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "foo(int)"));
	free(s);
	r = paratrace("dump %s", t);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "FUNC_ENTER id=3 at=main.c:12 name=foo(int)"));
	run_free(&r);

	/* A process.ptl of another process is not this log's. */
	proc other = {"single/mixed", 4800, 0x1234abcd, "testprog", NULL, 0, 0, 0, 0};
	write_proc(&other);
	char from[256], to[256], cp[600];
	path_of(from, sizeof from, "single/tr/p4711/t4711.ptl");
	path_of(to, sizeof to, "single/mixed/t4711.ptl");
	snprintf(cp, sizeof cp, "cp '%s' '%s'", from, to);
	CU_ASSERT_EQUAL(system(cp), 0);
	r = paratrace("report %s", to);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "no definition"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "no process.ptl"));
	run_free(&r);
}

/* Unrelated runs in one trace directory are refused
 * with their list, and --run picks one; a run's forked child is its. */
static void test_runs(void)
{
	proc a = {"runs/tr/p100", 100, 0xaaaa1111bbbb2222ull, "alpha", NULL, 0, 0, 0, 0};
	proc b = {"runs/tr/p200", 200, 0xcccc3333dddd4444ull, "beta", NULL, 0, 0, 0, 0};
	proc a2 = {"runs/tr/p300", 300, 0xaaaa1111bbbb2222ull, "alpha", NULL, 0, 0, 0, 0};
	write_proc(&a);
	write_proc(&b);
	write_proc(&a2);
	char tr[256], o[256];
	path_of(tr, sizeof tr, "runs/tr");
	path_of(o, sizeof o, "runs/o");
	static const char *const cmds[] = {"dump", "analyze -q -o %s", "report",
	                                   "export --format perfetto -q -o %s.pftrace"};
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		char cmd[512];
		snprintf(cmd, sizeof cmd, cmds[i], o);
		run r = paratrace("%s %s", cmd, tr);
		CU_ASSERT_EQUAL(r.status, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "2 unrelated runs"));
		CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "aaaa1111bbbb2222  alpha: p100 p300"));
		CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "cccc3333dddd4444  beta: p200"));
		CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--run"));
		CU_ASSERT_EQUAL(r.out[0], '\0');
		run_free(&r);
		r = paratrace("%s --run cccc %s", cmd, tr);
		CU_ASSERT_EQUAL(r.status, 0);
		run_free(&r);
		r = paratrace("%s --run 0xffff %s", cmd, tr);
		CU_ASSERT_EQUAL(r.status, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "no run '0xffff'"));
		run_free(&r);
	}
	run r = paratrace("dump --run aaaa %s", tr);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_EQUAL(count(r.out, " 200 "), 0);
	CU_ASSERT(count(r.out, " 100 100 ") > 0 && count(r.out, " 300 300 ") > 0);
	run_free(&r);
	r = paratrace("report --json --run 0xCCCC3333DDDD4444 %s", tr);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "foo(int)"));
	run_free(&r);

	/* one run of two processes: no --run needed */
	char one[256];
	path_of(one, sizeof one, "runs/one");
	proc c = {"runs/one/p100", 100, 0x42, "alpha", NULL, 0, 0, 0, 0};
	proc c2 = {"runs/one/p101", 101, 0x42, "alpha", NULL, 0, 0, 0, 0};
	write_proc(&c);
	write_proc(&c2);
	r = paratrace("report %s", one);
	CU_ASSERT_EQUAL(r.status, 0);
	run_free(&r);
}

/* ---- MPI ranks no process can have ----------------------------------- */

/* A process of a two-rank job: MPI_JOB (when its header's job_rank1
 * says a launcher started it) and MPI_INIT (rank, size; none when rank is
 * negative) in its process log, one MPI_Send to the other rank in its
 * thread log. Returns the offset of MPI_INIT. */
static uint64_t write_mpi_process(const char *dir, uint32_t pid, uint32_t job_rank1, int32_t rank,
                                  uint32_t size)
{
	proc p = {dir, pid, 0x42, "mpiprog", NULL, 0, 0, 0, 0};
	ptw w;
	uint64_t t = 1000;
	begin(&w, PT_FILE_PROCESS, &p, 0, t);
	w.hdr.job_rank1 = job_rank1;
	w.hdr.job_size = job_rank1 ? 2 : 0;
	memcpy(w.buf, &w.hdr, sizeof w.hdr);
	if (job_rank1 && rank >= 0) {
		pt_rec_mpi_job j = {(int32_t)job_rank1 - 1, 2, PT_MPI_LAUNCHER_OPENMPI, 0};
		ptw_rec_strs(&w, PT_REC_MPI_JOB, 0, ++t, &j, sizeof j, "node1", NULL);
	}
	pt_rec_mpi_init i = {rank, size, -1, 0, 0, 0};
	if (rank >= 0)
		ptw_rec_strs(&w, PT_REC_MPI_INIT, 0, ++t, &i, sizeof i, "node1", NULL);
	uint64_t at = w.nrecs ? w.recs[w.nrecs - 1].offset : 0;
	ptw_close(&w, ++t);
	char rel[256];
	snprintf(rel, sizeof rel, "%s/process.ptl", dir);
	mkdirs(dir);
	save(rel, w.buf, w.len);
	ptw_free(&w);
	/* its thread: one MPI_Send to the other rank */
	begin(&w, PT_FILE_THREAD, &p, pid, t = 1500);
	pt_rec_mpi_msg m = {pid == 100 ? 1 : 0, 7, 64, PT_MPI_COMM_WORLD_ID, 0, 0};
	ptw_rec(&w, PT_REC_MPI_CALL, 1, t += 10, NULL, 0);
	ptw_rec(&w, PT_REC_MPI_SEND, 1, t += 10, &m, sizeof m);
	ptw_rec(&w, PT_REC_MPI_CALL_END, 1, t += 10, NULL, 0);
	ptw_close(&w, t += 10);
	snprintf(rel, sizeof rel, "%s/t%u.ptl", dir, pid);
	save(rel, w.buf, w.len);
	ptw_free(&w);
	return at;
}

/* `paratrace CMD -j 2 TRACE` under a small address space and a short
 * time limit (status 124: the time ran out); under ASan, which reserves
 * terabytes of address space, a limit on each allocation instead. */
static run paratrace_small(const char *cmd, const char *trace)
{
	char line[4096];
#ifdef PT_TEST_SANITIZED
	snprintf(line, sizeof line,
	         "ASAN_OPTIONS=max_allocation_size_mb=256:allocator_may_return_null=0 timeout -k 5 "
	         "60 '%s' %s -j 2 '%s'",
	         PARATRACE_BIN, cmd, trace);
#else
	snprintf(line, sizeof line, "ulimit -v 1000000 && timeout -k 5 10 '%s' %s -j 2 '%s'",
	         PARATRACE_BIN, cmd, trace);
#endif
	return run_in(work, line);
}

/* A rank or size in an MPI_INIT record, or a rank in a file header, that
 * no process can have (a rank of 5,000,000 among 2, a job of 2^32 - 1):
 * refused with the file and offset, status 1, the other rank analyzed,
 * in little memory and time (no table or loop sized by the values). */
static void test_mpi_damaged_ranks(void)
{
	static const struct {
		const char *name;
		uint32_t job_rank1; /* of p101's headers */
		int32_t rank;       /* p101's MPI_INIT */
		uint32_t size;
		int launcher;
	} cases[] = {
	    {"rank", 2, 5000000, 2, 1},
	    {"size", 2, 1, 0xffffffffu, 1},
	    {"nolauncher", 0, 5000000, 0xffffffffu, 0},
	    {"zero", 0, 1, 0, 0},
	    {"header", 0x7fffffffu, -1, 0, 1}, /* no MPI record: the header says it */
	};
	static const char *const cmds[] = {"report", "report --json", "analyze -q -o %s-o"};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char tr[256], rel[256], log[512], said[700];
		snprintf(rel, sizeof rel, "mpi/%s/p100", cases[c].name);
		write_mpi_process(rel, 100, cases[c].launcher ? 1 : 0, 0, 2);
		snprintf(rel, sizeof rel, "mpi/%s/p101", cases[c].name);
		uint64_t at =
		    write_mpi_process(rel, 101, cases[c].job_rank1, cases[c].rank, cases[c].size);
		snprintf(rel, sizeof rel, "mpi/%s", cases[c].name);
		path_of(tr, sizeof tr, rel);
		snprintf(log, sizeof log, "%s/p101/process.ptl", tr);
		if (!strcmp(cases[c].name, "header"))
			snprintf(said, sizeof said,
			         "%s: offset 152: damaged file header (rank 2147483646 of 2", log);
		else
			snprintf(said, sizeof said,
			         "%s: offset %llu: damaged MPI_INIT record (rank %d of %u", log,
			         (unsigned long long)at, cases[c].rank, cases[c].size);
		for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
			char cmd[600];
			snprintf(cmd, sizeof cmd, cmds[i], tr);
			run r = paratrace_small(cmd, tr);
			CU_ASSERT_EQUAL(r.status, 1);
			CU_ASSERT_PTR_NOT_NULL(strstr(r.err, said));
			CU_ASSERT_PTR_NULL(strstr(r.err, "out of memory"));
			CU_ASSERT_PTR_NULL(strstr(r.out, "out of memory"));
			if (i == 0) /* rank 0 is still analyzed: 1 rank of 2 */
				CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "MPI: 1 ranks"));
			if (r.status != 1 || !strstr(r.err, said))
				fprintf(stderr, "\n%s: %s: status %d\n%s", cases[c].name, cmd,
				        r.status, r.err);
			run_free(&r);
		}
	}
}

int main(void)
{
	strcpy(work, "/tmp/pt_cli_test_XXXXXX");
	if (!mkdtemp(work))
		return 1;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("paratrace command line", NULL, NULL);
	CU_add_test(s, "help texts", test_help);
	CU_add_test(s, "outputs replace links at their paths", test_outputs_replace_links);
	CU_add_test(s, "FIFOs named in a trace do not block", test_fifo_paths);
	CU_add_test(s, "exit statuses", test_exit_status);
	CU_add_test(s, "a thread log alone gets its names", test_single_log);
	CU_add_test(s, "unrelated runs in one trace directory", test_runs);
	CU_add_test(s, "MPI ranks no process can have", test_mpi_damaged_ranks);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	if (!failed) {
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
		if (system(cmd) != 0)
			return 1;
	}
	return failed ? 1 : 0;
}
