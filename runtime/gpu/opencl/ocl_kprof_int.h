/* SPDX-License-Identifier: MIT */
/* OpenCL kernel profiling, shared by its files: the bookkeeping of programs
 * and kernels (ocl_kprof.c), the instrumented rebuild (ocl_kprof_build.c),
 * the twin kernels and their profile buffers (ocl_kprof_kernels.c) and the
 * per-launch read-back (ocl_kprof_launch.c). */
#ifndef PT_GPU_OCL_KPROF_INT_H
#define PT_GPU_OCL_KPROF_INT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "ocl_kprof.h"

#include "kprof.h"
#include "pt_fd.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define REAL(fn)                                                                                   \
	static __typeof__(fn) *real_##fn;                                                          \
	if (pt_unlikely(!real_##fn))                                                               \
		real_##fn = (__typeof__(fn) *)pt_real(#fn);

#ifndef PT_GPU_CLANG_DEFAULT
#define PT_GPU_CLANG_DEFAULT "clang"
#endif

typedef struct kp_twin {
	char *name;       /* the application's name for the kernel */
	char *twin;       /* the instrumented kernel's name */
	uint32_t prof;    /* GPU_PROF_DEF id */
	uint32_t nblocks; /* 0: work-group counts only */
} kp_twin;

/* One compilation unit: a source as clCompileProgram compiled it (or as
 * clBuildProgram builds it), with its options and embedded headers. */
typedef struct kp_header {
	char *name; /* include name */
	char *text;
	size_t len;
} kp_header;

typedef struct kp_unit {
	char *source;
	size_t len;
	char *options;
	kp_header *headers;
	uint32_t nheaders;
} kp_unit;

/* KP_LIBRARY: made by clLinkProgram -create-library, holds the units it
 * joined (copies: the inputs may be released before the final link). */
enum { KP_SOURCE, KP_BINARY, KP_INSTRUMENTED, KP_FAILED, KP_DEAD, KP_LIBRARY };

typedef struct kp_program {
	cl_program user; /* the application's handle */
	cl_program ours; /* instrumented build (KP_INSTRUMENTED); user itself for a binary
	                    compiled with instrument.so */
	int state;
	char *source;
	size_t len;
	kp_unit *compiled; /* after clCompileProgram of the source */
	kp_unit *units;    /* KP_LIBRARY */
	uint32_t nunits;
	const char *why; /* a library whose units are not all known: why */
	kp_twin *twins;
	uint32_t ntwins;
	struct kp_program *next;
} kp_program;

typedef struct kp_kernel {
	cl_kernel k; /* a twin, as handed to the application */
	const kp_twin *twin;
	cl_program user; /* the application's program */
	cl_context ctx;
	cl_uint user_args; /* arguments the application sees */
	cl_mem dummy;      /* profile argument between launches */
	struct kp_kernel *next;
} kp_kernel;

/* Programs and kernels are few and long-lived; lists under one lock. A
 * program entry is never freed (kernels point into its twins and may
 * outlive it); a kernel entry goes when the application releases it. */
extern PT_HIDDEN pt_spin kp_lock;
extern PT_HIDDEN kp_program *kp_programs;
extern PT_HIDDEN kp_kernel *kp_kernels;
extern PT_HIDDEN _Atomic int kp_any_kernels;
extern PT_HIDDEN _Atomic long kp_pending;
extern PT_HIDDEN _Atomic uint32_t kp_program_seq;
extern PT_HIDDEN const uint64_t kp_zeros[PT_GPU_PROF_HEADER_WORDS + PT_GPU_MAX_BLOCKS];

PT_HIDDEN int kp_mode(void);
PT_HIDDEN kp_program *kp_program_find(cl_program p);
PT_HIDDEN kp_kernel *kp_kernel_find(cl_kernel k);
PT_HIDDEN void kp_warn_once(const char *fmt, const char *a, const char *b);
PT_HIDDEN void *kp_compile(const kp_unit *units, uint32_t nunits, const char *extra, int bits64,
                           const char *mode, size_t *bclen, const char **why, char *src, char *log,
                           size_t pathlen, uint32_t *seq);
PT_HIDDEN int kp_read_table(cl_context ctx, cl_device_id dev, cl_program prog, pt_kprof_table *t,
                            const char **why);
PT_HIDDEN int kp_make_twins(kp_program *kp, const pt_kprof_table *t, int mode);
PT_HIDDEN void kp_instrument_program(kp_program *kp, cl_uint ndev, const cl_device_id *devs,
                                     const kp_unit *units, uint32_t nunits,
                                     const char *link_options, int mode);
PT_HIDDEN void kp_unit_free(kp_unit *u);
PT_HIDDEN size_t kp_prof_bytes(const kp_twin *tw);
PT_HIDDEN void kp_set_default_args(kp_kernel *e);

#endif /* PT_GPU_OCL_KPROF_INT_H */
