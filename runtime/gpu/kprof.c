/* SPDX-License-Identifier: MIT */
/* Kernel profiling, the part the GPU APIs share (runtime/gpu/kprof.h): the device
 * table's parser, the GPU_PROF_DEF / GPU_PROF records, and running the
 * compiler without disturbing the traced program. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clone, __WALL */
#endif
#include "kprof.h"
#include "pt_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* glibc's clone() under its other name: `clone` inside libtrace.so is the
 * runtime's own wrapper (runtime/proc/fork.c). */
extern int __clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);

/* ---- the table ------------------------------------------------------------ */

#define MAX_FILES 65536

void pt_kprof_table_free(pt_kprof_table *t)
{
	for (uint32_t i = 0; i < t->nkernels; i++) {
		free(t->kernels[i].name);
		free(t->kernels[i].twin);
		free(t->kernels[i].blocks);
	}
	for (uint32_t i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->kernels);
	free(t->files);
	memset(t, 0, sizeof *t);
}

static int parse_line(pt_kprof_table *t, char *line, uint32_t *block, const char **why)
{
	pt_kprof_kernel *k = t->nkernels ? &t->kernels[t->nkernels - 1] : NULL;
	if (line[0] == 'F' && line[1] == ' ') {
		char *rest;
		unsigned long i = strtoul(line + 2, &rest, 10);
		if (rest == line + 2 || *rest != ' ' || !rest[1] || i >= MAX_FILES)
			return *why = "bad F line", -1;
		if (i >= t->nfiles) {
			char **f = realloc(t->files, (i + 1) * sizeof *f);
			if (!f)
				return *why = "out of memory", -1;
			memset(f + t->nfiles, 0, (i + 1 - t->nfiles) * sizeof *f);
			t->files = f;
			t->nfiles = (uint32_t)i + 1;
		}
		free(t->files[i]);
		if (!(t->files[i] = strdup(rest + 1)))
			return *why = "out of memory", -1;
		return 0;
	}
	if (line[0] == 'K' && line[1] == ' ') {
		if (k && *block < k->nblocks)
			return *why = "fewer B lines than the K line says", -1;
		char mode, *name = NULL, *twin = NULL;
		unsigned nblocks, kline;
		int file;
		if (sscanf(line, "K %c %u %d %u %ms %ms", &mode, &nblocks, &file, &kline, &name,
		           &twin) != 6 ||
		    (mode != 'e' && mode != 'b') || nblocks > PT_GPU_MAX_BLOCKS || file < -1 ||
		    file >= MAX_FILES || (mode == 'e' && nblocks)) {
			free(name);
			free(twin);
			return *why = "bad K line", -1;
		}
		pt_kprof_kernel *ks = realloc(t->kernels, (t->nkernels + 1) * sizeof *ks);
		pt_gpu_prof_block *blocks = nblocks ? calloc(nblocks, sizeof *blocks) : NULL;
		if (!ks || (nblocks && !blocks)) {
			if (ks)
				t->kernels = ks;
			free(blocks);
			free(name);
			free(twin);
			return *why = "out of memory", -1;
		}
		t->kernels = ks;
		k = &ks[t->nkernels++];
		k->mode = mode;
		k->nblocks = nblocks;
		k->file = file;
		k->line = kline;
		k->name = name;
		k->blocks = blocks;
		if (!strcmp(twin, "-")) {
			free(twin);
			twin = NULL;
		}
		k->twin = twin;
		*block = 0;
		return 0;
	}
	if (line[0] == 'B' && line[1] == ' ') {
		unsigned instr, bline;
		int file;
		if (!k || *block >= k->nblocks)
			return *why = "B line without its K", -1;
		if (sscanf(line, "B %u %d %u", &instr, &file, &bline) != 3 || file < -1 ||
		    file >= MAX_FILES)
			return *why = "bad B line", -1;
		k->blocks[*block] = (pt_gpu_prof_block){instr, file, file < 0 ? 0 : bline};
		(*block)++;
		return 0;
	}
	if (!line[0])
		return 0;
	return *why = "unknown line", -1;
}

int pt_kprof_parse(const char *text, size_t len, pt_kprof_table *t, const char **why)
{
	memset(t, 0, sizeof *t);
	*why = NULL;
	char *buf = malloc(len + 1);
	if (!buf)
		return *why = "out of memory", -1;
	memcpy(buf, text, len);
	buf[len] = 0;
	char *save = NULL, *line = strtok_r(buf, "\n", &save);
	unsigned version;
	int rc = 0;
	if (!line || sscanf(line, "T %u", &version) != 1 || (version != 1 && version != PT_GPU_TABLE_VERSION)) {
		*why = "not a paratrace GPU table of a version this runtime reads";
		rc = -1;
	}
	uint32_t block = 0;
	while (rc == 0 && (line = strtok_r(NULL, "\n", &save)))
		rc = parse_line(t, line, &block, why);
	if (rc == 0 && t->nkernels && block < t->kernels[t->nkernels - 1].nblocks) {
		*why = "fewer B lines than the K line says";
		rc = -1;
	}
	for (uint32_t i = 0; rc == 0 && i < t->nkernels; i++) {
		const pt_kprof_kernel *k = &t->kernels[i];
		int bad = k->file >= (int32_t)t->nfiles || (k->file >= 0 && !t->files[k->file]);
		for (uint32_t b = 0; b < k->nblocks; b++)
			bad |= k->blocks[b].file >= (int32_t)t->nfiles ||
			       (k->blocks[b].file >= 0 && !t->files[k->blocks[b].file]);
		if (bad) {
			*why = "file index without its F line";
			rc = -1;
		}
	}
	free(buf);
	if (rc)
		pt_kprof_table_free(t);
	return rc;
}

const pt_kprof_kernel *pt_kprof_find(const pt_kprof_table *t, const char *name, char m)
{
	for (uint32_t i = 0; i < t->nkernels; i++)
		if (t->kernels[i].mode == m && !strcmp(t->kernels[i].name, name))
			return &t->kernels[i];
	return NULL;
}

/* ---- records -------------------------------------------------------------- */

static _Atomic uint32_t prof_seq;

/* Renumbering of a table's file indices for one record: map[f] = new
 * index + 1 (0: not used yet). */
typedef struct file_map {
	int32_t *map;
	uint32_t n;
	size_t len; /* bytes of the names, NULs included */
} file_map;

static int32_t file_use(file_map *fm, const pt_kprof_table *t, int32_t f)
{
	if (f < 0)
		return -1;
	if (!fm->map[f]) {
		fm->map[f] = (int32_t)++fm->n;
		fm->len += strlen(t->files[f]) + 1;
	}
	return fm->map[f] - 1;
}

uint32_t pt_kprof_define(unsigned api, const pt_kprof_table *t, const pt_kprof_kernel *k, int clock)
{
	/* The record names only the files this kernel uses, renumbered. */
	int32_t *map = calloc(t->nfiles ? t->nfiles : 1, sizeof *map);
	pt_gpu_prof_block *rows = calloc(k->nblocks ? k->nblocks : 1, sizeof *rows);
	if (!map || !rows) {
		free(map);
		free(rows);
		return 0;
	}
	file_map fm = {map, 0, 0};
	pt_rec_gpu_prof_def d = {.kernel = pt_gpu_kernel_id(api, k->name),
	                         .nblocks = k->nblocks,
	                         .flags = (k->mode == 'b' ? PT_GPU_PROF_F_BLOCKS : 0) |
	                                  (clock ? PT_GPU_PROF_F_CLOCK : 0),
	                         .line = k->line};
	d.file = file_use(&fm, t, k->file);
	for (uint32_t i = 0; i < k->nblocks; i++) {
		rows[i] = k->blocks[i];
		rows[i].file = file_use(&fm, t, k->blocks[i].file);
	}
	uint32_t nfiles = fm.n;
	size_t names_len = fm.len;
	d.nfiles = nfiles;
	size_t rows_len = (size_t)k->nblocks * sizeof *rows;
	char *tail = malloc(rows_len + names_len + 1);
	if (!tail) {
		free(map);
		free(rows);
		return 0;
	}
	memcpy(tail, rows, rows_len);
	char *p = tail + rows_len;
	for (uint32_t n = 1; n <= nfiles; n++)
		for (uint32_t f = 0; f < t->nfiles; f++)
			if (map[f] == (int32_t)n) {
				size_t l = strlen(t->files[f]) + 1;
				memcpy(p, t->files[f], l);
				p += l;
			}
	d.prof = atomic_fetch_add(&prof_seq, 1) + 1;
	pt_process_emit(PT_REC_GPU_PROF_DEF, api, &d, sizeof d, tail, (size_t)(p - tail));
	free(tail);
	free(map);
	free(rows);
	return d.prof;
}

void pt_kprof_fold(uint64_t *w, uint32_t nblocks, unsigned copies)
{
	size_t stride = pt_kprof_words(nblocks);
	for (unsigned c = 1; c < copies; c++) {
		const uint64_t *x = w + c * stride;
		for (size_t i = 0; i < stride; i++) {
			int keep_max = i == PT_GPU_PROF_START_MIN_INV || i == PT_GPU_PROF_END_MAX ||
				       i == PT_GPU_PROF_DUR_MAX || i == PT_GPU_PROF_DUR_MIN_INV;
			if (keep_max)
				w[i] = x[i] > w[i] ? x[i] : w[i];
			else
				w[i] += x[i];
		}
	}
}

void pt_kprof_emit(pt_gpu_stream *s, unsigned api, uint64_t ticks, uint64_t correlation,
                   uint32_t prof, uint32_t nblocks, int clock, const uint64_t *w)
{
	/* Blocks no group counted (scratch too small for every group) are
	 * reported as not counted rather than as zeros. */
	if (w[PT_GPU_PROF_WG_UNCOUNTED] >= w[PT_GPU_PROF_WG_EXITS])
		nblocks = 0;
	size_t len = sizeof(pt_rec_gpu_prof) + (size_t)nblocks * sizeof(uint64_t);
	pt_rec_gpu_prof *r = calloc(1, len);
	if (!r)
		return;
	r->correlation = correlation;
	r->prof = prof;
	r->nblocks = nblocks;
	r->wg_entries = w[PT_GPU_PROF_WG_ENTRIES];
	r->wg_exits = w[PT_GPU_PROF_WG_EXITS];
	r->work_items = w[PT_GPU_PROF_WORK_ITEMS];
	r->wg_uncounted = w[PT_GPU_PROF_WG_UNCOUNTED];
	if (clock && w[PT_GPU_PROF_WG_EXITS]) {
		r->start_ns = ~w[PT_GPU_PROF_START_MIN_INV];
		r->end_ns = w[PT_GPU_PROF_END_MAX];
		r->dur_sum_ns = w[PT_GPU_PROF_DUR_SUM];
		r->dur_min_ns = ~w[PT_GPU_PROF_DUR_MIN_INV];
		r->dur_max_ns = w[PT_GPU_PROF_DUR_MAX];
	}
	memcpy(r + 1, w + PT_GPU_PROF_HEADER_WORDS, (size_t)nblocks * sizeof(uint64_t));
	pt_gpu_stream_emit(s, ticks, PT_REC_GPU_PROF, r, len);
	(void)api; /* the stream's api is the record's arg */
	free(r);
}

/* ---- running the compiler --------------------------------------------------- */

/* The kernel's struct sigaction (rt_sigaction takes this, not libc's). */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

struct child {
	char *const *argv;
	char *const *envp;
	int logfd;
	uint64_t mask; /* the parent's signal mask, restored before exec */
	char *stack2;  /* the compiler's stack until it execs */
	size_t stack2_size;
	int status; /* the compiler's wait status, -1: not run */
};

/* The compiler: its output to the log, then exec. */
static int compiler_main(void *arg)
{
	struct child *c = arg;
	long null = pt_sys3(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY);
	if (null >= 0)
		pt_sys3(SYS_dup3, (int)null, 0, 0);
	if (c->logfd >= 0) {
		pt_sys3(SYS_dup3, c->logfd, 1, 0);
		pt_sys3(SYS_dup3, c->logfd, 2, 0);
	}
	pt_sys3(SYS_execve, c->argv[0], c->argv, c->envp);
	pt_sys1(SYS_exit, 127);
	return 127;
}

/* Runs on the parent's memory (CLONE_VM), raw system calls only, and never
 * execs, so that its exit signal stays 0 (an exec resets it to SIGCHLD):
 * the compiler is its child, not the program's. Every signal goes back to
 * its default action before the mask is restored, so that no handler of
 * the program runs here or in the compiler. */
static int middle_main(void *arg)
{
	struct child *c = arg;
	struct ksigaction dfl = {0};
	for (int sig = 1; sig < 65; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			pt_sys4(SYS_rt_sigaction, sig, &dfl, NULL, sizeof dfl.mask);
	pt_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &c->mask, NULL, sizeof c->mask);
	pid_t pid =
	    __clone(compiler_main, c->stack2 + c->stack2_size, CLONE_VM | CLONE_VFORK | SIGCHLD, c);
	if (pid < 0)
		pt_sys1(SYS_exit, 0);
	int st = 0;
	long r;
	while ((r = pt_sys4(SYS_wait4, pid, &st, __WALL, NULL)) == -EINTR)
		;
	if (r == pid)
		c->status = st;
	pt_sys1(SYS_exit, 0);
	return 0;
}

extern char **environ;

int pt_kprof_run(char *const argv[], const char *log_path)
{
	size_t n = 0;
	for (char **e = environ; e && *e; e++)
		n++;
	char **envp = calloc(n + 1, sizeof *envp);
	size_t stack_size = 256 << 10;
	char *stacks = mmap(NULL, 2 * stack_size, PROT_READ | PROT_WRITE,
	                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (!envp || stacks == MAP_FAILED) {
		free(envp);
		if (stacks != MAP_FAILED)
			munmap(stacks, 2 * stack_size);
		errno = ENOMEM;
		return -1;
	}
	size_t m = 0;
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) != 0)
			envp[m++] = *e;
	struct child c = {argv, envp, -1, 0, stacks + stack_size, stack_size, -1};
	c.logfd = (int)pt_sys4(SYS_openat, AT_FDCWD, log_path,
	                       O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	uint64_t all = ~0ull;
	pt_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &all, &c.mask, sizeof all);
	/* Exit signal 0 and no exec: no SIGCHLD for the program, and only
	 * __WALL waits (ours) see this child. CLONE_VFORK: we resume when it
	 * has exited, i.e. when the compiler has. */
	pid_t pid = __clone(middle_main, stacks + stack_size, CLONE_VM | CLONE_VFORK, &c);
	int err = errno;
	pt_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &c.mask, NULL, sizeof c.mask);
	if (pid > 0)
		while (pt_sys4(SYS_wait4, pid, NULL, __WALL, NULL) == -EINTR)
			;
	if (c.logfd >= 0)
		pt_sys1(SYS_close, c.logfd);
	munmap(stacks, 2 * stack_size);
	free(envp);
	if (pid < 0 || c.status < 0) {
		errno = pid < 0 ? err : ECHILD;
		return -1;
	}
	if (WIFEXITED(c.status))
		return WEXITSTATUS(c.status);
	return 128 + (WIFSIGNALED(c.status) ? WTERMSIG(c.status) : 0);
}
