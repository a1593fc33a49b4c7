/* SPDX-License-Identifier: MIT */
/* ptsym tests: FUNC_DEF tables, and address lookups in this very test
 * binary through its real module map (dl_iterate_phdr), libdwfl and the
 * C++ demangler. */
#define _GNU_SOURCE
#include <CUnit/Basic.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt_symbols.h"
#include "pt_test_writer.h"

void *pt_test_cxx_addr(void);

static const unsigned marker_line = __LINE__; __attribute__((noinline)) int pt_test_marker(int x)
{
	return x * 3 + 1;
}

/* Feeds every record of a memory log to the symtab. */
static void feed_log(pt_symtab *st, ptw *w)
{
	pt_log *log = pt_log_open(PT_LOG_FD_NONE, 0);
	pt_log_feed(log, w->buf, w->len);
	pt_log_feed(log, NULL, 0);
	pt_event ev;
	while (pt_log_read(log, &ev) == 0)
		pt_symtab_add(st, &ev);
	CU_ASSERT_EQUAL(ev.state, PT_LOG_EOF);
	pt_log_close(log);
}

static void add_func_def(ptw *w, uint32_t id, unsigned line, uint64_t base, const char *name,
			 const char *file, uint64_t *t)
{
	pt_rec_func_def fd = {id, line, base};
	ptw_rec_strs(w, PT_REC_FUNC_DEF, 0, ++*t, &fd, sizeof fd, name, file);
}

static void test_func_defs(void)
{
	ptw w;
	uint64_t t = 10;
	ptw_begin(&w, PT_FILE_PROCESS, 1, 0, t, 0, 1, 0);
	ptw_time(&w, t);
	add_func_def(&w, 1, 12, 0, "main", "main.c", &t);
	add_func_def(&w, 2, 30, 0, "_ZN5outer5inner3fooERKSt6vectorIiSaIiEE", "lib.cpp", &t);
	add_func_def(&w, 0x123456, 0, 0, "nofile", "", &t);
	pt_rec_gpu_kernel_def kd = {4, 0};
	ptw_rec_strs(&w, PT_REC_GPU_KERNEL_DEF, PT_GPU_API_CUDA, ++t, &kd, sizeof kd, "_Z6vecaddPfS_i", NULL);
	pt_rec_gpu_func_def gf = {9, 0};
	ptw_rec_strs(&w, PT_REC_GPU_FUNC_DEF, PT_GPU_API_CUDA, ++t, &gf, sizeof gf, "cudaMemcpy", NULL);
	pt_symtab *st = pt_symtab_new();
	feed_log(st, &w);
	pt_sym s;
	CU_ASSERT_EQUAL_FATAL(pt_symtab_func(st, 1, &s), 0);
	CU_ASSERT_STRING_EQUAL(s.name, "main");
	CU_ASSERT_STRING_EQUAL(s.file, "main.c");
	CU_ASSERT_EQUAL(s.line, 12);
	CU_ASSERT_EQUAL_FATAL(pt_symtab_func(st, 2, &s), 0);
	CU_ASSERT_STRING_EQUAL(s.name, "outer::inner::foo(std::vector<int, std::allocator<int> > const&)");
	CU_ASSERT_EQUAL_FATAL(pt_symtab_func(st, 0x123456, &s), 0);
	CU_ASSERT_STRING_EQUAL(s.name, "nofile");
	CU_ASSERT_PTR_NULL(s.file);
	CU_ASSERT_EQUAL(pt_symtab_func(st, 3, &s), -1);
	CU_ASSERT_EQUAL(pt_symtab_func(st, 0, &s), -1);
	CU_ASSERT_EQUAL_FATAL(pt_symtab_gpu_kernel(st, 4, &s), 0);
	CU_ASSERT_STRING_EQUAL(s.name, "vecadd(float*, float*, int)");
	CU_ASSERT_EQUAL_FATAL(pt_symtab_gpu_func(st, 9, &s), 0);
	CU_ASSERT_STRING_EQUAL(s.name, "cudaMemcpy");
	CU_ASSERT_EQUAL(pt_symtab_gpu_func(st, 4, &s), -1);
	pt_symtab_free(st);
	ptw_free(&w);
	char *d = pt_demangle("_Z3fooi");
	CU_ASSERT_STRING_EQUAL(d, "foo(int)");
	free(d);
	CU_ASSERT_PTR_NULL(pt_demangle("main"));
}

/* The main program's module map, as the runtime records it. */
typedef struct self_module {
	uint64_t base, lo, hi;
	uint8_t build_id[64];
	uint32_t build_id_len;
	char path[4096];
} self_module;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	self_module *m = data;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0; /* the main program comes first with an empty name */
	m->base = info->dlpi_addr;
	m->lo = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD) {
			uint64_t lo = info->dlpi_addr + ph->p_vaddr;
			if (lo < m->lo)
				m->lo = lo;
			if (lo + ph->p_memsz > m->hi)
				m->hi = lo + ph->p_memsz;
		}
		if (ph->p_type == PT_NOTE) {
			const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
			const uint8_t *end = p + ph->p_memsz;
			while (p + sizeof(ElfW(Nhdr)) <= end) {
				const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
				const uint8_t *name = p + sizeof *n;
				const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
				if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
				    memcmp(name, "GNU", 4) == 0 && n->n_descsz <= sizeof m->build_id) {
					memcpy(m->build_id, desc, n->n_descsz);
					m->build_id_len = n->n_descsz;
				}
				p = desc + ((n->n_descsz + 3) & ~3u);
			}
		}
	}
	return 1;
}

static void add_module_map(ptw *w, uint64_t *t, const self_module *m, const char *path,
			   int corrupt_build_id)
{
	size_t plen = strlen(path) + 1;
	uint8_t *buf = calloc(1, sizeof(pt_rec_module_map) + m->build_id_len + plen);
	pt_rec_module_map mm = {m->base, m->lo, m->hi, m->build_id_len, PT_MODULE_MAIN};
	memcpy(buf, &mm, sizeof mm);
	memcpy(buf + sizeof mm, m->build_id, m->build_id_len);
	if (corrupt_build_id && m->build_id_len)
		buf[sizeof mm] ^= 0xff;
	memcpy(buf + sizeof mm + m->build_id_len, path, plen);
	ptw_rec(w, PT_REC_MODULE_MAP, 0, ++*t, buf, sizeof mm + m->build_id_len + plen);
	free(buf);
}

static pt_symtab *self_symtab(int corrupt_build_id, const char *path_override)
{
	self_module m = {0};
	dl_iterate_phdr(find_self, &m);
	CU_ASSERT(m.hi > m.lo);
	ssize_t n = readlink("/proc/self/exe", m.path, sizeof m.path - 1);
	CU_ASSERT_FATAL(n > 0);
	ptw w;
	uint64_t t = 10;
	ptw_begin(&w, PT_FILE_PROCESS, (uint32_t)getpid(), 0, t, 0, 1, 0);
	ptw_time(&w, t);
	add_module_map(&w, &t, &m, path_override ? path_override : m.path, corrupt_build_id);
	pt_symtab *st = pt_symtab_new();
	feed_log(st, &w);
	ptw_free(&w);
	return st;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void test_pc_lookup_in_own_binary(void)
{
	pt_symtab *st = self_symtab(0, NULL);
	pt_sym s;
	uint64_t pc = (uint64_t)(uintptr_t)&pt_test_marker;
	CU_ASSERT_EQUAL_FATAL(pt_symtab_pc(st, pc, &s), 0);
	CU_ASSERT_STRING_EQUAL(s.name, "pt_test_marker");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s.file);
	CU_ASSERT(ends_with(s.file, "test_symbols.c"));
	CU_ASSERT_EQUAL(s.line, marker_line);
	CU_ASSERT_PTR_NOT_NULL(s.module);
	/* An address inside the function names it too. */
	pt_sym s2;
	CU_ASSERT_EQUAL(pt_symtab_pc(st, pc + 2, &s2), 0);
	CU_ASSERT_STRING_EQUAL(s2.name, "pt_test_marker");
	/* Cached: the same strings come back. */
	CU_ASSERT_EQUAL(pt_symtab_pc(st, pc, &s2), 0);
	CU_ASSERT_PTR_EQUAL(s2.name, s.name);
	/* The statement at pc itself (call sites, samples): inside the body. */
	const char *lf = NULL;
	unsigned ll = 0;
	CU_ASSERT_EQUAL_FATAL(pt_symtab_pc_line(st, pc, &lf, &ll), 0);
	CU_ASSERT(ends_with(lf, "test_symbols.c"));
	CU_ASSERT(ll >= marker_line && ll <= marker_line + 2);
	CU_ASSERT_EQUAL(pt_symtab_pc_line(st, 0x10, &lf, &ll), -1);
	/* C++: demangled. */
	CU_ASSERT_EQUAL_FATAL(pt_symtab_pc(st, (uint64_t)(uintptr_t)pt_test_cxx_addr(), &s), 0);
	CU_ASSERT_STRING_EQUAL(s.name, "ns::twice(int)");
	CU_ASSERT(ends_with(s.file, "symbols_cxx.cpp"));
	/* Outside every module. */
	CU_ASSERT_EQUAL(pt_symtab_pc(st, 0x10, &s), -1);
	char *warn = pt_symtab_take_warnings(st);
	CU_ASSERT_PTR_NULL(warn);
	free(warn);
	CU_ASSERT_EQUAL(pt_test_marker(1), 4);
	pt_symtab_free(st);
}

static void test_build_id_mismatch_and_missing_file(void)
{
	pt_symtab *st = self_symtab(1, NULL);
	pt_sym s;
	uint64_t pc = (uint64_t)(uintptr_t)&pt_test_marker;
	CU_ASSERT_EQUAL(pt_symtab_pc(st, pc, &s), 0); /* still resolved, with a warning */
	CU_ASSERT_EQUAL(pt_symtab_pc(st, pc + 1, &s), 0);
	char *warn = pt_symtab_take_warnings(st);
	CU_ASSERT_PTR_NOT_NULL_FATAL(warn);
	CU_ASSERT_PTR_NOT_NULL(strstr(warn, "build id"));
	/* Once: a single line. */
	CU_ASSERT_EQUAL(strchr(warn, '\n'), warn + strlen(warn) - 1);
	free(warn);
	pt_symtab_free(st);

	st = self_symtab(0, "/nonexistent/prog");
	CU_ASSERT_EQUAL(pt_symtab_pc(st, pc, &s), -1);
	CU_ASSERT_EQUAL(pt_symtab_pc(st, pc + 1, &s), -1);
	warn = pt_symtab_take_warnings(st);
	CU_ASSERT_PTR_NOT_NULL_FATAL(warn);
	CU_ASSERT_PTR_NOT_NULL(strstr(warn, "/nonexistent/prog"));
	CU_ASSERT_EQUAL(strchr(warn, '\n'), warn + strlen(warn) - 1);
	free(warn);
	pt_symtab_free(st);
}

static pt_symtab *shared_st;
static void *lookup_worker(void *arg)
{
	uintptr_t bad = 0;
	uint64_t pcs[2] = {(uint64_t)(uintptr_t)&pt_test_marker,
			   (uint64_t)(uintptr_t)pt_test_cxx_addr()};
	for (int i = 0; i < 2000; i++) {
		pt_sym s;
		int k = (i + (int)(uintptr_t)arg) % 2;
		if (pt_symtab_pc(shared_st, pcs[k] + (uint64_t)(i % 3), &s) != 0 ||
		    strcmp(s.name, k ? "ns::twice(int)" : "pt_test_marker") != 0)
			bad++;
	}
	return (void *)bad;
}

static void test_concurrent_lookups(void)
{
	shared_st = self_symtab(0, NULL);
	pthread_t th[4];
	for (uintptr_t i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, lookup_worker, (void *)i);
	for (int i = 0; i < 4; i++) {
		void *bad;
		pthread_join(th[i], &bad);
		CU_ASSERT_PTR_NULL(bad);
	}
	pt_symtab_free(shared_st);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("symbols", NULL, NULL);
	CU_add_test(s, "FUNC_DEF and GPU names, demangled", test_func_defs);
	CU_add_test(s, "addresses in this binary via libdw", test_pc_lookup_in_own_binary);
	CU_add_test(s, "build id mismatch and missing file warn once",
		    test_build_id_mismatch_and_missing_file);
	CU_add_test(s, "concurrent lookups", test_concurrent_lookups);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
