/* SPDX-License-Identifier: MIT */
/* Kernel profiling shared by the OpenCL and CUDA parts (runtime/gpu/kprof.c): the
 * table instrument.so embeds in device code (include/paratrace/gpu_abi.h),
 * the GPU_PROF_DEF / GPU_PROF records, and running the compiler for
 * OpenCL programs built from source. Hidden inside libtrace.so. */
#ifndef PT_GPU_KPROF_H
#define PT_GPU_KPROF_H

#include "gpu_internal.h"

#include <paratrace/gpu_abi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pt_kprof_kernel {
	char mode; /* 'e' entries, 'b' blocks */
	uint32_t nblocks;
	int32_t file;
	uint32_t line;
	char *name; /* the kernel as the program names it */
	char *twin; /* OpenCL: the instrumented twin; CUDA: NULL */
	pt_gpu_prof_block *blocks;
} pt_kprof_kernel;

typedef struct pt_kprof_table {
	uint32_t nkernels, nfiles;
	pt_kprof_kernel *kernels;
	char **files; /* by F index; NULL where the table has none */
} pt_kprof_table;

/* Parses a table (text, len bytes, need not be NUL-terminated). 0, or -1
 * with *why naming what is wrong (and *t empty). */
PT_HIDDEN int pt_kprof_parse(const char *text, size_t len, pt_kprof_table *t, const char **why);
PT_HIDDEN void pt_kprof_table_free(pt_kprof_table *t);

/* The kernel of `name` in mode m ('e', 'b'), or NULL. */
PT_HIDDEN const pt_kprof_kernel *pt_kprof_find(const pt_kprof_table *t, const char *name, char m);

/* Writes k's GPU_PROF_DEF to the process log (its kernel name gets its
 * GPU_KERNEL_DEF first). Returns the new profile id (> 0), 0 when out of
 * memory. clock: the kernel records work-group times. */
PT_HIDDEN uint32_t pt_kprof_define(unsigned api, const pt_kprof_table *t, const pt_kprof_kernel *k,
                                   int clock);

/* Words of the profile buffer of a kernel with nblocks counters. */
static inline size_t pt_kprof_words(uint32_t nblocks)
{
	return PT_GPU_PROF_HEADER_WORDS + (size_t)nblocks;
}

/* Folds copies of a profile buffer (each pt_kprof_words(nblocks) words, one
 * after the other: CUDA's PT_GPU_CUDA_COPIES) into the first: counts add
 * up, maxima (and the inverted minima) keep the largest. */
PT_HIDDEN void pt_kprof_fold(uint64_t *words, uint32_t nblocks, unsigned copies);

/* A launch's profile buffer (read back: pt_kprof_words(nblocks) words) as
 * one GPU_PROF record on stream s, at ticks (clamped to the log's last). */
PT_HIDDEN void pt_kprof_emit(pt_gpu_stream *s, unsigned api, uint64_t ticks, uint64_t correlation,
                             uint32_t prof, uint32_t nblocks, int clock, const uint64_t *words);

/* Runs argv (argv[0] a path) with the environment minus LD_PRELOAD, its
 * stdout and stderr into the file log_path, and waits for it. The program
 * sees no child: no SIGCHLD, nothing its wait() could reap (the compiler is
 * the child of a helper that shares our memory, never execs and exits with
 * exit signal 0). Returns the exit status (127: could not exec, 128 + n:
 * killed by signal n), or -1 (cannot run: errno). */
PT_HIDDEN int pt_kprof_run(char *const argv[], const char *log_path);

#endif /* PT_GPU_KPROF_H */
