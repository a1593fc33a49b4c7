/* SPDX-License-Identifier: MIT */
/* `paratrace dump` end to end on trace directories made with the test
 * encoder: line format, name resolution (FUNC_DEF and libdw), --raw,
 * --kind, errors naming file and offset, truncation notes, exit status. */
#define _GNU_SOURCE
#include <CUnit/Basic.h>
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <link.h>
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

static char dir[64];

__attribute__((noinline)) int dump_marker(int x)
{
	return x + 1;
}

static void save(const char *rel, const uint8_t *data, size_t len)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	FILE *f = fopen(p, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT(fwrite(data, 1, len, f) == len);
	fclose(f);
}

/* Trace layout:
 *   p4711/process.ptl  PROCESS_INFO, MODULE_MAP (this test binary), FUNC_DEF id 3
 *   p4711/t4712.ptl    FUNC_ENTER/EXIT id 3, FUNC_ENTER_PC dump_marker, a lock
 *   p4711/t4713.ptl    killed writer: last record cut
 *   p4800/t4800.ptl    damaged record in the middle */
static const uint64_t T0 = 1000000; /* ticks; mult 1 shift 0: 1 tick = 1 ns */
static const uint64_t MONO0 = 7000000000ull;

static void make_trace(void)
{
	strcpy(dir, "/tmp/pt_dump_test_XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	char p[128];
	snprintf(p, sizeof p, "%s/p4711", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/p4800", dir);
	mkdir(p, 0700);

	ptw w;
	uint64_t t = T0;
	ptw_begin(&w, PT_FILE_PROCESS, 4711, 0, t, MONO0, 1, 0);
	ptw_time(&w, t);
	pt_rec_process_info pi = {2, 0, 0};
	char pinfo[sizeof pi + 32];
	memcpy(pinfo, &pi, sizeof pi);
	memcpy(pinfo + sizeof pi, "/bin/app\0app\0two words", 23);
	ptw_rec(&w, PT_REC_PROCESS_INFO, 0, ++t, pinfo, sizeof pi + 23);
	uint64_t m[3] = {0, 0, 0};
	dl_iterate_phdr(main_module, m);
	char exe[4096] = {0};
	CU_ASSERT_FATAL(readlink("/proc/self/exe", exe, sizeof exe - 1) > 0);
	size_t plen = strlen(exe) + 1;
	uint8_t *mm = calloc(1, sizeof(pt_rec_module_map) + plen);
	pt_rec_module_map map = {m[0], m[1], m[2], 0, PT_MODULE_MAIN};
	memcpy(mm, &map, sizeof map);
	memcpy(mm + sizeof map, exe, plen);
	ptw_rec(&w, PT_REC_MODULE_MAP, 0, ++t, mm, sizeof map + plen);
	free(mm);
	pt_rec_func_def fd = {3, 12, m[0]};
	ptw_rec_strs(&w, PT_REC_FUNC_DEF, 0, ++t, &fd, sizeof fd, "_Z3fooi", "main.c");
	ptw_close(&w, ++t);
	save("p4711/process.ptl", w.buf, w.len);
	ptw_free(&w);

	t = T0 + 500;
	ptw_begin(&w, PT_FILE_THREAD, 4711, 4712, t, MONO0 + 500, 1, 0);
	ptw_time(&w, t);
	ptw_func(&w, PT_REC_FUNC_ENTER, 3, t += 10);
	pt_rec_pc pc = {(uint64_t)(uintptr_t)&dump_marker};
	ptw_rec(&w, PT_REC_FUNC_ENTER_PC, 0, t += 10, &pc, sizeof pc);
	ptw_rec(&w, PT_REC_FUNC_EXIT_PC, 0, t += 10, &pc, sizeof pc);
	uint64_t lock_obj = 0x1234; /* the short form: result 0 implied */
	ptw_rec(&w, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, t += 10, &lock_obj, sizeof lock_obj);
	ptw_func(&w, PT_REC_FUNC_EXIT, 3, t += 10);
	ptw_close(&w, t += 1);
	save("p4711/t4712.ptl", w.buf, w.len);
	/* Same records, cut inside the CLOSE record. */
	w.hdr.tid = 4713;
	memcpy(w.buf, &w.hdr, sizeof w.hdr);
	save("p4711/t4713.ptl", w.buf, w.len - 5);
	ptw_free(&w);

	ptw_sample_thread_log(&w, 0);
	w.hdr.pid = 4800;
	w.hdr.tid = 4800;
	memcpy(w.buf, &w.hdr, sizeof w.hdr);
	((pt_rec_head *)(w.buf + w.recs[3].offset))->kind = 0; /* damage */
	save("p4800/t4800.ptl", w.buf, w.len);
	ptw_free(&w);
}

static run paratrace(const char *args)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "'%s' %s", PARATRACE_BIN, args);
	return run_in(dir, cmd);
}

static int count_lines(const char *s, const char *needle)
{
	int n = 0;
	for (const char *l = s; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		if (!needle || memmem(l, len, needle, strlen(needle)))
			n++;
		l += len + (e ? 1 : 0);
	}
	return n;
}

static void test_dump_trace(void)
{
	char args[256];
	snprintf(args, sizeof args, "dump %s", dir);
	run r = paratrace(args);
	CU_ASSERT_EQUAL(r.status, 1); /* p4800's log is damaged */
	/* Every line: time pid tid KIND ... */
	for (const char *l = r.out; *l;) {
		long long t;
		unsigned pid, tid;
		char kind[40];
		CU_ASSERT_EQUAL(sscanf(l, "%lld %u %u %39s", &t, &pid, &tid, kind), 4);
		l = strchr(l, '\n');
		if (!l)
			break;
		l++;
	}
	/* Process log: tid 0, times from the earliest open. */
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "0 4711 0 TIME ticks=1000000\n"));
	CU_ASSERT_PTR_NOT_NULL(
		strstr(r.out, "1 4711 0 PROCESS_INFO argc=2 flags=0 exe=/bin/app name=app two words\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "3 4711 0 FUNC_DEF id=3 line=12 base=0x"));
	/* FUNC_DEF names, demangled. */
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "510 4711 4712 FUNC_ENTER id=3 at=main.c:12 name=foo(int)\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "550 4711 4712 FUNC_EXIT id=3 at=main.c:12 name=foo(int)\n"));
	/* Addresses through the module map and libdw. */
	char want[128];
	snprintf(want, sizeof want, "520 4711 4712 FUNC_ENTER_PC pc=0x%" PRIx64 " at=",
		 (uint64_t)(uintptr_t)&dump_marker);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
	CU_ASSERT_EQUAL(count_lines(r.out, "FUNC_ENTER_PC"), 2); /* 4712 and 4713 */
	CU_ASSERT_EQUAL(count_lines(r.out, "test_dump.c:"), 4);
	CU_ASSERT_EQUAL(count_lines(r.out, " name=dump_marker"), 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "540 4711 4712 LOCK_ACQUIRED obj=0x1234 type=mutex result=0\n"));
	/* Per-file line counts: 5 + 7 + 6 (+ 3 records before the damage). */
	CU_ASSERT_EQUAL(count_lines(r.out, " 4711 0 "), 5);
	CU_ASSERT_EQUAL(count_lines(r.out, " 4711 4712 "), 7);
	CU_ASSERT_EQUAL(count_lines(r.out, " 4711 4713 "), 6);
	CU_ASSERT_EQUAL(count_lines(r.out, " 4800 4800 "), 3);
	/* stderr: the damage with file and offset; the cut log as a note. */
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "p4800/t4800.ptl: offset "));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "kind 0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "note: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "t4713.ptl"));
	CU_ASSERT_EQUAL(count_lines(r.err, NULL), 2);
	run_free(&r);
}

static void test_dump_options(void)
{
	char args[256];
	snprintf(args, sizeof args, "dump --raw %s/p4711", dir);
	run r = paratrace(args);
	CU_ASSERT_EQUAL(r.status, 0); /* the cut log is a note, not an error */
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "510 4711 4712 FUNC_ENTER id=3\n"));
	CU_ASSERT_EQUAL(count_lines(r.out, "dump_marker"), 0);
	CU_ASSERT_EQUAL(count_lines(r.err, "note: "), 1);
	run_free(&r);

	snprintf(args, sizeof args, "dump --kind func_enter,LOCK_ACQUIRED,%d %s/p4711", PT_REC_CLOSE,
		 dir);
	r = paratrace(args);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_EQUAL(count_lines(r.out, NULL), 2 + 2 + 2);
	CU_ASSERT_EQUAL(count_lines(r.out, " FUNC_ENTER "), 2);
	CU_ASSERT_EQUAL(count_lines(r.out, " CLOSE "), 2);
	run_free(&r);

	/* A thread log alone still gets names from its process log. */
	snprintf(args, sizeof args, "dump %s/p4711/t4712.ptl", dir);
	r = paratrace(args);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, " FUNC_ENTER id=3 at=main.c:12 name=foo(int)\n"));
	CU_ASSERT_EQUAL(count_lines(r.out, NULL), 7);
	run_free(&r);

	r = paratrace("dump --kind NOSUCHKIND /tmp");
	CU_ASSERT_EQUAL(r.status, 2);
	run_free(&r);
	r = paratrace("dump");
	CU_ASSERT_EQUAL(r.status, 2);
	run_free(&r);
	r = paratrace("frobnicate");
	CU_ASSERT_EQUAL(r.status, 2);
	run_free(&r);
	r = paratrace("dump /nonexistent/trace"); /* no trace to read: bad input */
	CU_ASSERT_EQUAL(r.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "/nonexistent/trace"));
	run_free(&r);
	r = paratrace("--help");
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "dump"));
	run_free(&r);
	r = paratrace("help dump");
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "<time_ns> <pid> <tid> <KIND>"));
	run_free(&r);
	r = paratrace("dump --help");
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--raw"));
	run_free(&r);
}

/* --follow: a log still being written (zero tail, no CLOSE) is read as
 * it grows; a log that appears later is picked up; dump ends when all are
 * closed. */
static void test_dump_follow(void)
{
	char fdir[256], p[300];
	snprintf(fdir, sizeof fdir, "%s/follow", dir);
	mkdir(fdir, 0700);
	snprintf(p, sizeof p, "%s/p77", fdir);
	mkdir(p, 0700);
	ptw w;
	uint64_t t = 100;
	ptw_begin(&w, PT_FILE_THREAD, 77, 78, t, 0, 1, 0);
	ptw_time(&w, t);
	ptw_func(&w, PT_REC_FUNC_ENTER, 5, t += 10);
	size_t live = w.len;
	ptw_func(&w, PT_REC_FUNC_EXIT, 5, t += 10);
	ptw_close(&w, t += 1);
	snprintf(p, sizeof p, "%s/p77/t78.ptl", fdir);
	FILE *f = fopen(p, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(w.buf, 1, live, f);
	static const uint8_t zeros[4096];
	fwrite(zeros, 1, sizeof zeros, f);
	fclose(f);

	char out[300];
	snprintf(out, sizeof out, "%s/follow.out", dir);
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen(out, "w", stdout))
			_exit(99);
		execl(PARATRACE_BIN, "paratrace", "dump", "--follow", "--raw", fdir, (char *)NULL);
		_exit(98);
	}
	usleep(500 * 1000);
	int status;
	CU_ASSERT_EQUAL(waitpid(pid, &status, WNOHANG), 0); /* still following */
	/* A second thread log appears, whole, while the first is still open
	 * (renamed into place so the follower never sees half of it), and only
	 * then does the first writer go on and close: once every log it knows
	 * is closed, the follower may end, so the order matters. */
	ptw w2;
	t = 200;
	ptw_begin(&w2, PT_FILE_THREAD, 77, 79, t, 100, 1, 0);
	ptw_time(&w2, t);
	ptw_func(&w2, PT_REC_FUNC_ENTER, 6, t += 1);
	ptw_close(&w2, t += 1);
	char tmp[300];
	snprintf(tmp, sizeof tmp, "%s/p77/t79.tmp", fdir);
	f = fopen(tmp, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(w2.buf, 1, w2.len, f);
	fclose(f);
	char p79[300];
	snprintf(p79, sizeof p79, "%s/p77/t79.ptl", fdir);
	CU_ASSERT_EQUAL(rename(tmp, p79), 0);
	ptw_free(&w2);
	usleep(300 * 1000);
	int fd = open(p, O_WRONLY);
	CU_ASSERT(pwrite(fd, w.buf + live, w.len - live, (off_t)live) == (ssize_t)(w.len - live));
	close(fd);
	ptw_free(&w);
	int waited = 0;
	while (waitpid(pid, &status, WNOHANG) == 0 && waited < 100) {
		usleep(100 * 1000);
		waited++;
	}
	if (waited == 100) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		CU_FAIL("dump --follow did not end after every log was closed");
		return;
	}
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	char *text = slurp(out);
	CU_ASSERT_EQUAL(count_lines(text, " 77 78 "), 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "20 77 78 FUNC_EXIT id=5\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "21 77 78 CLOSE "));
	CU_ASSERT_EQUAL(count_lines(text, " 77 79 "), 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "101 77 79 FUNC_ENTER id=6\n"));
	free(text);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("dump", NULL, NULL);
	CU_add_test(s, "make trace", make_trace);
	CU_add_test(s, "dump a trace directory", test_dump_trace);
	CU_add_test(s, "options, single files, usage errors", test_dump_options);
	CU_add_test(s, "--follow a growing trace", test_dump_follow);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (dir[0] && system(cmd) != 0)
		failed++;
	return (failed || dump_marker(1) != 2) ? 1 : 0;
}
