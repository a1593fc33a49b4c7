/* SPDX-License-Identifier: MIT */
/* paratrace device-code ABI: what instrument.so puts into GPU kernels that
 * clang compiles (OpenCL C for spir/spir64, CUDA for nvptx/nvptx64) and what
 * libtrace.so expects of them. Described in docs/ABI.md ("Device code"); the
 * pass emits exactly this, the runtime (gpu/kprof*.c) reads it.
 *
 * Each instrumented kernel K writes, per launch, into a profile buffer of
 * 64-bit words the runtime provides and zeroes:
 *   [PT_GPU_PROF_*]                header (work-groups, work-items, times)
 *   [PT_GPU_PROF_HEADER_WORDS + b]  executions of basic block b of K
 *
 * OpenCL: K itself is left alone; the pass adds twin kernels with extra
 * trailing arguments, which the runtime substitutes for K when the program
 * asks for K (clCreateKernel):
 *   PT_GPU_TWIN_ENTRIES K(args..., __global ulong *prof)
 *   PT_GPU_TWIN_BLOCKS K(args..., __global ulong *prof, __local uint *scratch,
 *                        uint scratch_items)
 * scratch holds one 32-bit count per (block, work-item of the group):
 * scratch_items work-items' worth (a group larger than that has its blocks
 * not counted and adds 1 to PT_GPU_PROF_WG_UNCOUNTED). A program built
 * without paratrace never names the twins, so it runs unchanged.
 * The kernel PT_GPU_INFO_KERNEL(__global uchar *out, __global ulong *len,
 * ulong cap) copies the module's table (below) to out (at most cap bytes,
 * one byte per work-item) and its length to *len.
 *
 * CUDA: the buffer holds PT_GPU_CUDA_COPIES copies of that layout, one
 * after the other; a work-group adds to copy (%smid % PT_GPU_CUDA_COPIES), so
 * that groups on different multiprocessors do not queue on the same words,
 * and the runtime folds the copies into one (pt_kprof_fold).
 * CUDA: K keeps its signature; its entry loads the 64-bit device global
 * PT_GPU_SLOT_PREFIX K (K's mangled name): 0 runs K's original code, else
 * the slot is the buffer's device address ORed with PT_GPU_SLOT_BLOCKS when
 * block counters are wanted (else work-group counts and times only). The
 * device global PT_GPU_TABLE_PREFIX K (bytes) is K's table.
 *
 * The table is text, one record per line (fields separated by one space):
 *   T <version>                         first line: PT_GPU_TABLE_VERSION
 *   F <index> <path>                    a source file (path: rest of line)
 *   K <mode> <nblocks> <file> <line> <kernel> <twin>
 *                                       mode: e (entries) or b (blocks);
 *                                       twin: OpenCL twin name, CUDA "-"
 *   B <instructions> <file> <line>      block 0, 1, ... of the K above
 * <file> is an F index, or -1 when unknown (then <line> is 0). */
#ifndef PARATRACE_GPU_ABI_H
#define PARATRACE_GPU_ABI_H

#define PT_GPU_TABLE_VERSION 2

enum pt_gpu_prof_word {
	PT_GPU_PROF_WG_ENTRIES = 0,   /* work-groups that started (CUDA: at entry) */
	PT_GPU_PROF_WG_EXITS = 1,     /* work-groups that finished */
	PT_GPU_PROF_WORK_ITEMS = 2,   /* work-items of the groups that finished */
	PT_GPU_PROF_WG_UNCOUNTED = 3, /* groups whose blocks were not counted */
	/* CUDA (%globaltimer ns, measured by the group's first thread from its
	 * entry to the end of its exit barrier). Minima are stored inverted
	 * (~value) so that a zeroed buffer and atomic max give them. */
	PT_GPU_PROF_START_MIN_INV = 4, /* ~ earliest group start */
	PT_GPU_PROF_END_MAX = 5,       /* latest group end */
	PT_GPU_PROF_DUR_SUM = 6,       /* sum of group durations */
	PT_GPU_PROF_DUR_MAX = 7,
	PT_GPU_PROF_DUR_MIN_INV = 8,   /* ~ shortest group duration */
	PT_GPU_PROF_HEADER_WORDS = 16, /* words 9..15 reserved (0) */
};

/* Copies of a CUDA kernel's profile buffer (see above). */
#define PT_GPU_CUDA_COPIES 32

/* Most blocks a kernel gets counters for; a larger kernel gets entries only. */
#define PT_GPU_MAX_BLOCKS 4096

#define PT_GPU_SLOT_BLOCKS 0x1ull
#define PT_GPU_SLOT_ADDR_MASK (~0xfull)

#define PT_GPU_TWIN_ENTRIES "__paratrace_e_"
#define PT_GPU_TWIN_BLOCKS "__paratrace_b_"
#define PT_GPU_INFO_KERNEL "__paratrace_gpu_info"
#define PT_GPU_SLOT_PREFIX "__paratrace_prof_"
#define PT_GPU_TABLE_PREFIX "__paratrace_tab_"

#endif /* PARATRACE_GPU_ABI_H */
