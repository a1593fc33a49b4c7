/* SPDX-License-Identifier: MIT */
/* Unit tests of kernel profiling's shared part (runtime/gpu/kprof.c) and of the
 * CUDA part's bookkeeping, against the fake core: the device table's
 * parser (good and damaged tables), GPU_PROF_DEF and GPU_PROF records as
 * the runtime writes them, running the compiler without disturbing the
 * program (no SIGCHLD, not reapable by its wait, no LD_PRELOAD), the
 * OpenCL build options passed on to clang, and the set of correlation ids
 * of the CUDA part's own calls. */
#define _GNU_SOURCE
#include "fake_core.h"
#include "kprof.h"
#ifdef PT_WITH_CUPTI
#include "cuda_kprof.h"
#endif
#ifdef PT_WITH_OPENCL
#include "ocl_kprof.h"
#endif

#include <CUnit/Basic.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char good[] = "T 1\n"
                           "F 3 /src/k.cl\n"
                           "F 1 /src/helper.h\n"
                           "K e 0 3 7 saxpy __paratrace_e_saxpy\n"
                           "K b 3 3 7 saxpy __paratrace_b_saxpy\n"
                           "B 12 3 9\n"
                           "B 4 1 2\n"
                           "B 7 -1 0\n"
                           "K e 0 -1 0 other -\n";

static void test_parse_good(void)
{
	pt_kprof_table t;
	const char *why = "x";
	CU_ASSERT_EQUAL_FATAL(pt_kprof_parse(good, sizeof good - 1, &t, &why), 0);
	CU_ASSERT_EQUAL(t.nkernels, 3);
	CU_ASSERT_EQUAL(t.nfiles, 4);
	CU_ASSERT_STRING_EQUAL(t.files[3], "/src/k.cl");
	CU_ASSERT_STRING_EQUAL(t.files[1], "/src/helper.h");
	CU_ASSERT_PTR_NULL(t.files[0]);
	const pt_kprof_kernel *b = pt_kprof_find(&t, "saxpy", 'b');
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_STRING_EQUAL(b->twin, "__paratrace_b_saxpy");
	CU_ASSERT_EQUAL(b->nblocks, 3);
	CU_ASSERT_EQUAL(b->line, 7);
	CU_ASSERT(b->blocks[0].instructions == 12 && b->blocks[0].file == 3 &&
	          b->blocks[0].line == 9);
	CU_ASSERT(b->blocks[1].instructions == 4 && b->blocks[1].file == 1 &&
	          b->blocks[1].line == 2);
	CU_ASSERT(b->blocks[2].file == -1 && b->blocks[2].line == 0);
	const pt_kprof_kernel *o = pt_kprof_find(&t, "other", 'e');
	CU_ASSERT(o && o->twin == NULL && o->file == -1);
	CU_ASSERT_PTR_NULL(pt_kprof_find(&t, "other", 'b'));
	/* not NUL-terminated: the length rules */
	char copy[sizeof good + 8];
	memcpy(copy, good, sizeof good - 1);
	memset(copy + sizeof good - 1, 'Z', 8);
	pt_kprof_table t2;
	CU_ASSERT_EQUAL(pt_kprof_parse(copy, sizeof good - 1, &t2, &why), 0);
	CU_ASSERT_EQUAL(t2.nkernels, 3);
	pt_kprof_table_free(&t2);
	pt_kprof_table_free(&t);
	CU_ASSERT_EQUAL(t.nkernels, 0);
}

static void test_parse_damaged(void)
{
	static const char *const bad[] = {
	    "",
	    "T 3\nK e 0 -1 0 k -\n",                           /* a later version */
	    "T 1\nB 1 -1 0\n",                                 /* B before any K */
	    "T 1\nK b 2 -1 0 k -\nB 1 -1 0\n",                 /* one B line missing */
	    "T 1\nK b 1 -1 0 k -\nB 1 -1 0\nB 2 -1 0\n",       /* one too many */
	    "T 1\nK b 1 -1 0 k -\nK e 0 -1 0 j -\nB 1 -1 0\n", /* B lines of k after j */
	    "T 1\nK e 0 5 1 k -\n",                            /* file 5 without its F */
	    "T 1\nK x 0 -1 0 k -\n",                           /* unknown mode */
	    "T 1\nK e 2 -1 0 k -\nB 1 -1 0\nB 1 -1 0\n",       /* entries with blocks */
	    "T 1\nK b 99999 -1 0 k -\n",                       /* more blocks than counted */
	    "T 1\nK e 0 -1 0 k\n",                             /* no twin field */
	    "T 1\nQ what\n",                                   /* unknown line */
	    "T 1\nF x /a\n",                                   /* bad F index */
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		pt_kprof_table t;
		const char *why = NULL;
		int r = pt_kprof_parse(bad[i], strlen(bad[i]), &t, &why);
		CU_ASSERT_EQUAL(r, -1);
		CU_ASSERT_PTR_NOT_NULL(why);
		CU_ASSERT_EQUAL(t.nkernels, 0);
		if (r == 0)
			fprintf(stderr, "accepted: %s\n", bad[i]);
	}
}

static const fake_rec *last_of(unsigned kind)
{
	for (size_t i = fake_nrecs; i-- > 0;)
		if (fake_recs[i].kind == kind)
			return &fake_recs[i];
	return NULL;
}

static void test_define_record(void)
{
	fake_reset();
	pt_kprof_table t;
	const char *why;
	CU_ASSERT_EQUAL_FATAL(pt_kprof_parse(good, sizeof good - 1, &t, &why), 0);
	const pt_kprof_kernel *b = pt_kprof_find(&t, "saxpy", 'b');
	uint32_t id1 = pt_kprof_define(PT_GPU_API_OPENCL, &t, b, 0);
	uint32_t id2 = pt_kprof_define(PT_GPU_API_CUDA, &t, pt_kprof_find(&t, "other", 'e'), 1);
	CU_ASSERT(id1 > 0 && id2 == id1 + 1);
	/* the kernel's name was defined first */
	const fake_rec *kd = last_of(PT_REC_GPU_KERNEL_DEF);
	CU_ASSERT_PTR_NOT_NULL(kd);
	const fake_rec *r = NULL;
	for (size_t i = 0; i < fake_nrecs; i++)
		if (fake_recs[i].kind == PT_REC_GPU_PROF_DEF && !r)
			r = &fake_recs[i];
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->arg, PT_GPU_API_OPENCL);
	const pt_rec_gpu_prof_def *d = (const void *)r->payload;
	CU_ASSERT_EQUAL(d->prof, id1);
	CU_ASSERT_EQUAL(d->nblocks, 3);
	CU_ASSERT_EQUAL(d->flags, PT_GPU_PROF_F_BLOCKS);
	CU_ASSERT_EQUAL(d->line, 7);
	/* files renumbered in order of use: k.cl 0, helper.h 1 */
	CU_ASSERT_EQUAL(d->nfiles, 2);
	CU_ASSERT_EQUAL(d->file, 0);
	const pt_gpu_prof_block *rows = (const void *)(d + 1);
	CU_ASSERT(rows[0].instructions == 12 && rows[0].file == 0 && rows[0].line == 9);
	CU_ASSERT(rows[1].instructions == 4 && rows[1].file == 1 && rows[1].line == 2);
	CU_ASSERT(rows[2].file == -1);
	const char *names = (const char *)(rows + 3);
	CU_ASSERT_STRING_EQUAL(names, "/src/k.cl");
	CU_ASSERT_STRING_EQUAL(names + strlen(names) + 1, "/src/helper.h");
	CU_ASSERT_EQUAL(r->len,
	                sizeof *d + 3 * sizeof *rows + sizeof "/src/k.cl" + sizeof "/src/helper.h");
	const fake_rec *r2 = last_of(PT_REC_GPU_PROF_DEF);
	const pt_rec_gpu_prof_def *d2 = (const void *)r2->payload;
	CU_ASSERT(d2->prof == id2 && d2->nblocks == 0 && d2->nfiles == 0 && d2->file == -1);
	CU_ASSERT_EQUAL(d2->flags, PT_GPU_PROF_F_CLOCK);
	pt_kprof_table_free(&t);
}

static void test_emit_record(void)
{
	pt_parts_fork_child(); /* no stream of an earlier test */
	fake_reset();
	pt_gpu_stream *s = pt_gpu_stream_get(PT_GPU_API_CUDA, 0, 7, 0, "dev");
	CU_ASSERT_FATAL(s && s->file);
	uint64_t w[PT_GPU_PROF_HEADER_WORDS + 2] = {0};
	w[PT_GPU_PROF_WG_ENTRIES] = 4;
	w[PT_GPU_PROF_WG_EXITS] = 4;
	w[PT_GPU_PROF_WORK_ITEMS] = 512;
	w[PT_GPU_PROF_START_MIN_INV] = ~1000ull;
	w[PT_GPU_PROF_END_MAX] = 5000;
	w[PT_GPU_PROF_DUR_SUM] = 10000;
	w[PT_GPU_PROF_DUR_MAX] = 4000;
	w[PT_GPU_PROF_DUR_MIN_INV] = ~1000ull;
	w[PT_GPU_PROF_HEADER_WORDS] = 512;
	w[PT_GPU_PROF_HEADER_WORDS + 1] = 77;
	pt_kprof_emit(s, PT_GPU_API_CUDA, pt_now(), 42, 3, 2, 1, w);
	const fake_rec *r = last_of(PT_REC_GPU_PROF);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	const pt_rec_gpu_prof *p = (const void *)r->payload;
	CU_ASSERT(p->correlation == 42 && p->prof == 3 && p->nblocks == 2);
	CU_ASSERT(p->wg_entries == 4 && p->wg_exits == 4 && p->work_items == 512 &&
	          p->wg_uncounted == 0);
	CU_ASSERT(p->start_ns == 1000 && p->end_ns == 5000 && p->dur_sum_ns == 10000);
	CU_ASSERT(p->dur_min_ns == 1000 && p->dur_max_ns == 4000);
	const uint64_t *c = (const void *)(p + 1);
	CU_ASSERT(c[0] == 512 && c[1] == 77);
	CU_ASSERT_EQUAL(r->len, sizeof *p + 2 * sizeof(uint64_t));
	/* no clock: no times; every group uncounted: no counts */
	w[PT_GPU_PROF_WG_UNCOUNTED] = 4;
	pt_kprof_emit(s, PT_GPU_API_OPENCL, pt_now(), 43, 3, 2, 0, w);
	r = last_of(PT_REC_GPU_PROF);
	p = (const void *)r->payload;
	CU_ASSERT(p->correlation == 43 && p->nblocks == 0 && p->wg_uncounted == 4);
	CU_ASSERT(p->start_ns == 0 && p->dur_sum_ns == 0 && p->dur_min_ns == 0);
	CU_ASSERT_EQUAL(r->len, sizeof *p);
	pt_parts_shutdown(0);
	pt_parts_fork_child();
}

/* CUDA's copies of a buffer (one per group of multiprocessors) fold into
 * one: counts add up, inverted minima and maxima keep the largest. */
static void test_fold_copies(void)
{
	enum { N = 2, W = PT_GPU_PROF_HEADER_WORDS + N };
	uint64_t w[3 * W] = {0};
	for (int c = 0; c < 3; c++) {
		uint64_t *x = w + c * W;
		x[PT_GPU_PROF_WG_ENTRIES] = x[PT_GPU_PROF_WG_EXITS] = (uint64_t)c + 1;
		x[PT_GPU_PROF_WORK_ITEMS] = 256 * ((uint64_t)c + 1);
		x[PT_GPU_PROF_START_MIN_INV] = ~(1000ull - 100 * (uint64_t)c);
		x[PT_GPU_PROF_END_MAX] = 5000 + 7 * (uint64_t)(c == 1);
		x[PT_GPU_PROF_DUR_SUM] = 100;
		x[PT_GPU_PROF_DUR_MAX] = 40 + (uint64_t)c;
		x[PT_GPU_PROF_DUR_MIN_INV] = ~(10ull + (uint64_t)(c != 2));
		x[PT_GPU_PROF_HEADER_WORDS] = 5;
		x[PT_GPU_PROF_HEADER_WORDS + 1] = (uint64_t)c;
	}
	pt_kprof_fold(w, N, 3);
	CU_ASSERT(w[PT_GPU_PROF_WG_ENTRIES] == 6 && w[PT_GPU_PROF_WG_EXITS] == 6);
	CU_ASSERT_EQUAL(w[PT_GPU_PROF_WORK_ITEMS], 1536);
	CU_ASSERT_EQUAL(~w[PT_GPU_PROF_START_MIN_INV], 800);
	CU_ASSERT_EQUAL(w[PT_GPU_PROF_END_MAX], 5007);
	CU_ASSERT_EQUAL(w[PT_GPU_PROF_DUR_SUM], 300);
	CU_ASSERT_EQUAL(w[PT_GPU_PROF_DUR_MAX], 42);
	CU_ASSERT_EQUAL(~w[PT_GPU_PROF_DUR_MIN_INV], 10);
	CU_ASSERT(w[PT_GPU_PROF_HEADER_WORDS] == 15 && w[PT_GPU_PROF_HEADER_WORDS + 1] == 3);
}

static volatile sig_atomic_t sigchld;

static void on_sigchld(int sig)
{
	(void)sig;
	sigchld++;
}

static void test_run_compiler(void)
{
	char log[] = "/tmp/pt-kprof-unit-XXXXXX";
	int fd = mkstemp(log);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	struct sigaction sa = {.sa_handler = on_sigchld}, old;
	sigaction(SIGCHLD, &sa, &old);
	setenv("LD_PRELOAD", "/nonexistent/libnothing.so", 1);
	char *const echo[] = {"/bin/sh", "-c",
	                      "echo out; echo err >&2; test -z \"$LD_PRELOAD\" || exit 9; exit 3",
	                      NULL};
	sigchld = 0;
	CU_ASSERT_EQUAL(pt_kprof_run(echo, log), 3);
	unsetenv("LD_PRELOAD");
	/* the program saw no child: no SIGCHLD, nothing for its wait() */
	CU_ASSERT_EQUAL(sigchld, 0);
	errno = 0;
	CU_ASSERT_EQUAL(waitpid(-1, NULL, WNOHANG), -1);
	CU_ASSERT_EQUAL(errno, ECHILD);
	char buf[64] = "";
	FILE *f = fopen(log, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	CU_ASSERT_STRING_EQUAL(buf, "out\nerr\n");
	/* a program that cannot be run */
	char *const none[] = {"/nonexistent/clang", NULL};
	CU_ASSERT_EQUAL(pt_kprof_run(none, log), 127);
	/* killed by a signal */
	char *const killed[] = {"/bin/sh", "-c", "kill -9 $$", NULL};
	CU_ASSERT_EQUAL(pt_kprof_run(killed, log), 128 + 9);
	sigaction(SIGCHLD, &old, NULL);
	unlink(log);
}

#ifdef PT_WITH_OPENCL
/* Joins what pt_ocl_kprof_options kept, one space between words. */
static const char *kept(const char *options, size_t max, int *has_std)
{
	static char words[512], joined[512];
	const char *argv[64];
	size_t n = pt_ocl_kprof_options(options, words, argv, max, has_std);
	joined[0] = 0;
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(joined, " ");
		strcat(joined, argv[i]);
	}
	return joined;
}

static void test_ocl_options(void)
{
	int std = -1;
	CU_ASSERT_STRING_EQUAL(kept(NULL, 64, &std), "");
	CU_ASSERT_EQUAL(std, 0);
	/* macros and include paths (joined or with their value as the next
	 * word), -cl-* switches, warnings; PoCL's own and -g, -O dropped */
	CU_ASSERT_STRING_EQUAL(kept("-DUNUSED=1 -D  X=2\t-I inc -Idir -g -O3 -cl-fast-relaxed-math "
	                            "-x spir -spir-std=1.2 -w -Werror -cl-mad-enable",
	                            64, &std),
	                       "-DUNUSED=1 -D X=2 -I inc -Idir -cl-fast-relaxed-math -w -Werror "
	                       "-cl-mad-enable");
	CU_ASSERT_EQUAL(std, 0);
	CU_ASSERT_STRING_EQUAL(kept(" -cl-std=CL2.0\n", 64, &std), "-cl-std=CL2.0");
	CU_ASSERT_EQUAL(std, 1);
	/* -I's value that looks like an option is still its value */
	CU_ASSERT_STRING_EQUAL(kept("-I -w -g", 64, &std), "-I -w");
	/* out of room: at most max - 1 words, and never a -D without its value */
	CU_ASSERT_STRING_EQUAL(kept("-DA -DB -DC", 3, &std), "-DA -DB");
	CU_ASSERT_STRING_EQUAL(kept("-DA -D B", 3, &std), "-DA");
	CU_ASSERT_STRING_EQUAL(kept("-DA -D", 64, &std), "-DA");
	CU_ASSERT_STRING_EQUAL(kept("-DA", 0, &std), "");
}
#endif

#ifdef PT_WITH_CUPTI
static void test_cuda_ignore_set(void)
{
	for (uint32_t c = 100; c < 200; c++)
		pt_cuda_kprof_ignore(c);
	CU_ASSERT(pt_cuda_kprof_ignored(150));
	CU_ASSERT(!pt_cuda_kprof_ignored(150)); /* consumed */
	CU_ASSERT(!pt_cuda_kprof_ignored(99));
	CU_ASSERT(!pt_cuda_kprof_ignored(0));
	/* colliding ids (same bucket) stay found after one is consumed */
	pt_cuda_kprof_ignore(65536 + 120);
	CU_ASSERT(pt_cuda_kprof_ignored(120));
	CU_ASSERT(pt_cuda_kprof_ignored(65536 + 120));
	for (uint32_t c = 100; c < 200; c++)
		if (c != 150 && c != 120)
			CU_ASSERT(pt_cuda_kprof_ignored(c));
	CU_ASSERT(!pt_cuda_kprof_ignored(101));
	CU_ASSERT(!pt_cuda_kprof_busy());
}
#endif

int main(void)
{
	fake_auto_thread = 1;
	pt_parts_collect();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("gpu_kprof", NULL, NULL);
	CU_add_test(s, "parse_good", test_parse_good);
	CU_add_test(s, "parse_damaged", test_parse_damaged);
	CU_add_test(s, "define_record", test_define_record);
	CU_add_test(s, "emit_record", test_emit_record);
	CU_add_test(s, "fold_copies", test_fold_copies);
	CU_add_test(s, "run_compiler", test_run_compiler);
#ifdef PT_WITH_OPENCL
	CU_add_test(s, "ocl_options", test_ocl_options);
#endif
#ifdef PT_WITH_CUPTI
	CU_add_test(s, "cuda_ignore_set", test_cuda_ignore_set);
#endif
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
