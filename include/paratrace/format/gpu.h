/* SPDX-License-Identifier: MIT */
/* paratrace log format, records of GPU launches, copies, device times and
 * kernel profiles (PT_REC_RANGE_GPU). This family's rows of the record schema
 * (PT_REC_ROWS_GPU), payload structs, their dump fields and constants.
 * <paratrace/format.h> includes it: include that, not this. */
#ifndef PARATRACE_FORMAT_GPU_H
#define PARATRACE_FORMAT_GPU_H

#ifndef PARATRACE_FORMAT_H
#error "include <paratrace/format.h>, not <paratrace/format/gpu.h>"
#endif

#define PT_REC_ROWS_GPU(X) \
	/* GPU launches, copies and device times (PT_REC_RANGE_GPU); arg = \
	 * enum pt_gpu_api in every one (see "GPU launches" below). */ \
	X(GPU_STREAM_DEF, 0x40, pt_rec_gpu_stream_def, sizeof(pt_rec_gpu_stream_def), 0, "GPU", \
	  "API", "+ device name") \
	X(GPU_FUNC_DEF, 0x41, pt_rec_gpu_func_def, sizeof(pt_rec_gpu_func_def), 0, "process", \
	  "API", "+ API function name") \
	X(GPU_KERNEL_DEF, 0x42, pt_rec_gpu_kernel_def, sizeof(pt_rec_gpu_kernel_def), 0, \
	  "process", "API", "+ kernel name (mangled for CUDA)") \
	X(GPU_API_BEGIN, 0x43, pt_rec_gpu_api, sizeof(pt_rec_gpu_api), 0, "thread", "API", "") \
	X(GPU_API_END, 0x44, pt_rec_gpu_api, sizeof(pt_rec_gpu_api), 0, "thread", "API", "") \
	X(GPU_LAUNCH, 0x45, pt_rec_gpu_launch, sizeof(pt_rec_gpu_launch), 0, "thread", "API", "") \
	X(GPU_KERNEL, 0x46, pt_rec_gpu_kernel, sizeof(pt_rec_gpu_kernel), 0, "GPU", "API", "") \
	X(GPU_MEMCPY, 0x47, pt_rec_gpu_copy, sizeof(pt_rec_gpu_copy), 0, "GPU", "API", "") \
	X(GPU_MEMSET, 0x48, pt_rec_gpu_copy, sizeof(pt_rec_gpu_copy), 0, "GPU", "API", "") \
	/* Inside kernels (device code compiled with instrument.so): a kernel's \
	 * block table, once per program build / module; one profile per \
	 * launch, joined to the launch by correlation. */ \
	X(GPU_PROF_DEF, 0x49, pt_rec_gpu_prof_def, sizeof(pt_rec_gpu_prof_def), 0, "process", \
	  "API", "+ `pt_gpu_prof_block[nblocks]` + nfiles file names") \
	X(GPU_PROF, 0x4a, pt_rec_gpu_prof, sizeof(pt_rec_gpu_prof), 0, "GPU", "API", \
	  "+ `uint64_t count[nblocks]`")

/* GPU launches, copies and device times, inside PT_REC_RANGE_GPU.
 * docs/FORMAT.md "GPU records" describes them. arg = enum pt_gpu_api in every
 * GPU record. Device times (start/end in the payloads) are absolute ticks of
 * the trace clock, already converted from the device's clock by the runtime;
 * the record's own time in a GPU log is its start (clamped so that a file's
 * times never decrease).
 *
 * Where they go:
 *   process log: GPU_FUNC_DEF, GPU_KERNEL_DEF (names, before first use)
 *   host thread log: GPU_API_BEGIN/END around every traced API call, and
 *     GPU_LAUNCH between them for a kernel launch
 *   GPU log (one per CUDA stream / OpenCL queue, file_kind PT_FILE_GPU,
 *     header.gpu_stream = stream id): GPU_STREAM_DEF first, then
 *     GPU_KERNEL / GPU_MEMCPY / GPU_MEMSET as the device reports them;
 *     PT_REC_LOST when the device layer dropped records. */
enum pt_gpu_api {
	PT_GPU_API_CUDA = 1,
	PT_GPU_API_OPENCL = 2,
};

/* What an API call does, whatever the API; analyzers map it to Paraver
 * values and states. CUDA's first values follow Extrae's 63000000 table. */
enum pt_gpu_call {
	PT_GPU_CALL_OTHER = 0,
	PT_GPU_CALL_LAUNCH = 1,        /* kernel launch (any path) */
	PT_GPU_CALL_MEMCPY = 3,        /* copy the host waits for */
	PT_GPU_CALL_DEVICE_SYNC = 4,   /* cudaDeviceSynchronize, cuCtxSynchronize */
	PT_GPU_CALL_STREAM_SYNC = 5,   /* cudaStreamSynchronize, clFinish */
	PT_GPU_CALL_STREAM_CREATE = 6, /* cudaStreamCreate*, clCreateCommandQueue* */
	PT_GPU_CALL_MEMCPY_ASYNC = 7,  /* copy enqueued without waiting */
	PT_GPU_CALL_MALLOC = 11,
	PT_GPU_CALL_FREE = 12,
	PT_GPU_CALL_MEMSET = 13,       /* memset / clEnqueueFillBuffer */
	PT_GPU_CALL_EVENT_SYNC = 14,   /* cudaEventSynchronize, clWaitForEvents */
	PT_GPU_CALL_GRAPH_LAUNCH = 15, /* cudaGraphLaunch / cuGraphLaunch */
	PT_GPU_CALL_MAP = 16,          /* clEnqueueMapBuffer / clEnqueueUnmapMemObject */
};

/* pt_rec_gpu_api.flags: what the calling thread does meanwhile. */
#define PT_GPU_CALL_F_SYNC 0x1     /* waits for the device (Paraver: Synchronization) */
#define PT_GPU_CALL_F_TRANSFER 0x2 /* takes part in a copy (Paraver: Memory transfer) */
#define PT_GPU_API_NAMES "|cuda|opencl"

typedef struct pt_rec_gpu_api {
	uint32_t func;  /* API function id (GPU_FUNC_DEF); CUDA: CUPTI domain << 16 | cbid */
	uint16_t call;  /* enum pt_gpu_call */
	uint16_t flags; /* PT_GPU_CALL_F_* */
	int32_t result; /* API_END: the call's status (cudaError_t, CUresult, cl_int) */
	uint32_t pad;
	uint64_t correlation; /* joins host records to device records (GPU_KERNEL...) */
	uint64_t stream;      /* stream/queue id it targets, 0 = none or default */
	uint64_t bytes;       /* copies, memsets, allocations; 0 otherwise */
} pt_rec_gpu_api;
_Static_assert(sizeof(pt_rec_gpu_api) == 40, "pt_rec_gpu_api layout");
#define PT_FIELDS_GPU_API_BEGIN(T, F, A, S, C) \
	A(ENUMQ, "api", PT_GPU_API_NAMES) F(T, X, "func", func, "") F(T, U, "call", call, "") \
	F(T, FLAGS, "flags", flags, "sync|transfer") PT_FIELDS_GPU_API_TAIL_(T, F)
#define PT_FIELDS_GPU_API_END(T, F, A, S, C) \
	A(ENUMQ, "api", PT_GPU_API_NAMES) F(T, X, "func", func, "") F(T, U, "call", call, "") \
	F(T, FLAGS, "flags", flags, "sync|transfer") F(T, I, "result", result, "") \
	PT_FIELDS_GPU_API_TAIL_(T, F)
#define PT_FIELDS_GPU_API_TAIL_(T, F) \
	F(T, U, "corr", correlation, "") F(T, X, "stream", stream, "") F(T, U, "bytes", bytes, "") \
	F(T, GPU_FUNC, "name", func, "")

typedef struct pt_rec_gpu_launch {
	uint64_t correlation;  /* of the enclosing GPU_API_BEGIN */
	uint64_t correlation2; /* a second id device records may carry (CUDA driver call
				  made by a runtime call), 0 = none */
	uint64_t stream;       /* stream/queue id (header.gpu_stream of its GPU log) */
	uint32_t kernel;       /* GPU_KERNEL_DEF id, 0 = not known on the host */
	uint32_t device;
	uint32_t grid[3];  /* CUDA: blocks per grid; OpenCL: global work size */
	uint32_t block[3]; /* CUDA: threads per block; OpenCL: local work size (0 = chosen by the runtime) */
	uint32_t shared_mem; /* CUDA dynamic shared memory bytes */
	uint32_t work_dim;   /* OpenCL work dimensions; CUDA 3 */
} pt_rec_gpu_launch;
_Static_assert(sizeof(pt_rec_gpu_launch) == 64, "pt_rec_gpu_launch layout");
#define PT_FIELDS_GPU_LAUNCH(T, F, A, S, C) \
	A(ENUMQ, "api", PT_GPU_API_NAMES) F(T, U, "corr", correlation, "") \
	F(T, U, "corr2", correlation2, "") F(T, X, "stream", stream, "") \
	F(T, U, "kernel", kernel, "") F(T, U, "device", device, "") F(T, U32X3, "grid", grid, "") \
	F(T, U32X3, "block", block, "") F(T, U, "shmem", shared_mem, "") \
	F(T, U, "dim", work_dim, "") F(T, GPU_KERNEL, "name", kernel, "")

typedef struct pt_rec_gpu_stream_def {
	uint64_t stream;   /* = header.gpu_stream */
	uint32_t device;   /* device index in this process (CUDA: device ordinal) */
	uint32_t seq;      /* 1-based creation order in the process (OpenCL CQ<seq>) */
	uint32_t flags;    /* PT_GPU_STREAM_* */
	uint32_t pad;
	/* followed by NUL-terminated device name */
} pt_rec_gpu_stream_def;
_Static_assert(sizeof(pt_rec_gpu_stream_def) == 24, "pt_rec_gpu_stream_def layout");
#define PT_GPU_STREAM_IN_ORDER 0x1   /* commands run one after the other */
#define PT_GPU_STREAM_DEVICE_CPU 0x2 /* OpenCL device types */
#define PT_GPU_STREAM_DEVICE_GPU 0x4
#define PT_GPU_STREAM_DEVICE_ACCEL 0x8
#define PT_FIELDS_GPU_STREAM_DEF(T, F, A, S, C) \
	A(ENUMQ, "api", PT_GPU_API_NAMES) F(T, X, "stream", stream, "") \
	F(T, U, "device", device, "") F(T, U, "seq", seq, "") \
	F(T, FLAGS, "flags", flags, "in_order|cpu|gpu|accel") S(sizeof(T), PLAIN)

typedef struct pt_rec_gpu_func_def {
	uint32_t func;
	uint32_t pad;
	/* followed by NUL-terminated function name */
} pt_rec_gpu_func_def;
#define PT_FIELDS_GPU_FUNC_DEF(T, F, A, S, C) \
	A(ENUMQ, "api", PT_GPU_API_NAMES) F(T, U, "func", func, "") S(sizeof(T), DEMANGLED)

typedef struct pt_rec_gpu_kernel_def {
	uint32_t kernel; /* process-unique, > 0 */
	uint32_t pad;
	/* followed by NUL-terminated kernel name */
} pt_rec_gpu_kernel_def;
#define PT_FIELDS_GPU_KERNEL_DEF(T, F, A, S, C) \
	A(ENUMQ, "api", PT_GPU_API_NAMES) F(T, U, "kernel", kernel, "") S(sizeof(T), DEMANGLED)

typedef struct pt_rec_gpu_kernel {
	uint64_t start; /* device execution start, trace-clock ticks */
	uint64_t end;
	uint64_t correlation; /* of the host launch (several kernels of one graph share it) */
	uint32_t kernel;      /* GPU_KERNEL_DEF id */
	uint32_t shared_mem;
	uint32_t grid[3];
	uint32_t block[3];
} pt_rec_gpu_kernel;
_Static_assert(sizeof(pt_rec_gpu_kernel) == 56, "pt_rec_gpu_kernel layout");
#define PT_FIELDS_GPU_KERNEL(T, F, A, S, C) \
	A(ENUMQ, "api", PT_GPU_API_NAMES) F(T, DEVTIME, "start", start, "") \
	F(T, DEVTIME, "end", end, "") F(T, U, "corr", correlation, "") \
	F(T, U, "kernel", kernel, "") \
	F(T, U32X3, "grid", grid, "") F(T, U32X3, "block", block, "") \
	F(T, U, "shmem", shared_mem, "") F(T, GPU_KERNEL, "name", kernel, "")

enum pt_gpu_copy_dir {
	PT_GPU_COPY_OTHER = 0,
	PT_GPU_COPY_HTOD = 1,
	PT_GPU_COPY_DTOH = 2,
	PT_GPU_COPY_DTOD = 3,
	PT_GPU_COPY_HTOH = 4,
	PT_GPU_COPY_PTOP = 5, /* between devices */
	PT_GPU_COPY_MEMSET = 6,
};

typedef struct pt_rec_gpu_copy {
	uint64_t start; /* trace-clock ticks */
	uint64_t end;
	uint64_t correlation;
	uint64_t bytes;
	uint32_t direction; /* enum pt_gpu_copy_dir */
	uint32_t flags;     /* PT_GPU_COPY_F_* */
} pt_rec_gpu_copy;
_Static_assert(sizeof(pt_rec_gpu_copy) == 40, "pt_rec_gpu_copy layout");
#define PT_GPU_COPY_F_MAP 0x1 /* OpenCL map/unmap rather than a copy */
#define PT_FIELDS_GPU_MEMCPY(T, F, A, S, C) \
	A(ENUMQ, "api", PT_GPU_API_NAMES) F(T, DEVTIME, "start", start, "") \
	F(T, DEVTIME, "end", end, "") F(T, U, "corr", correlation, "") F(T, U, "bytes", bytes, "") \
	F(T, ENUM, "dir", direction, "other|htod|dtoh|dtod|htoh|ptop|memset") \
	F(T, FLAGS, "flags", flags, "map")
#define PT_FIELDS_GPU_MEMSET PT_FIELDS_GPU_MEMCPY

/* Kernel profiles: counters instrument.so puts inside kernels
 * (include/paratrace/gpu_abi.h), read back by the runtime after each
 * launch. GPU_PROF_DEF, in the process log before any GPU_PROF that uses
 * it, describes one instrumented kernel of one program build (OpenCL) or
 * module (CUDA): its basic blocks with their static instruction counts and
 * source lines. GPU_PROF, in the GPU log of the launch's stream, holds one
 * launch's counts. */
#define PT_GPU_PROF_F_BLOCKS 0x1 /* the kernel counts its blocks */
#define PT_GPU_PROF_F_CLOCK 0x2  /* work-group times (CUDA %globaltimer) */

typedef struct pt_rec_gpu_prof_def {
	uint32_t prof;    /* process-unique id, > 0 (GPU_PROF.prof) */
	uint32_t kernel;  /* GPU_KERNEL_DEF id of the kernel's name */
	uint32_t nblocks; /* pt_gpu_prof_block rows that follow */
	uint32_t flags;   /* PT_GPU_PROF_F_* */
	uint32_t nfiles;  /* NUL-terminated file names after the rows */
	int32_t file;     /* the kernel's definition: file index (-1: unknown) */
	uint32_t line;
	uint32_t pad;
	/* followed by pt_gpu_prof_block[nblocks], then nfiles names */
} pt_rec_gpu_prof_def;
_Static_assert(sizeof(pt_rec_gpu_prof_def) == 32, "pt_rec_gpu_prof_def layout");

typedef struct pt_gpu_prof_block {
	uint32_t instructions; /* static count (LLVM IR instructions of the block) */
	int32_t file;          /* index into the record's names, -1: unknown */
	uint32_t line;         /* first source line of the block, 0: unknown */
} pt_gpu_prof_block;
_Static_assert(sizeof(pt_gpu_prof_block) == 12, "pt_gpu_prof_block layout");
#define PT_FIELDS_GPU_PROF_DEF(T, F, A, S, C) \
	A(ENUMQ, "api", PT_GPU_API_NAMES) F(T, U, "prof", prof, "") F(T, U, "kernel", kernel, "") \
	F(T, U, "blocks", nblocks, "") F(T, FLAGS, "flags", flags, "blocks|clock") \
	F(T, I, "file", file, "") F(T, U, "line", line, "") \
	C(gpu_prof_blocks, "b<i>=<instructions>@<file>:<line> ... files=<f0>|<f1>...") \
	F(T, GPU_KERNEL, "name", kernel, "")

typedef struct pt_rec_gpu_prof {
	uint64_t correlation;  /* of the launch (GPU_LAUNCH, GPU_KERNEL) */
	uint32_t prof;         /* GPU_PROF_DEF id */
	uint32_t nblocks;      /* counts that follow (0: blocks not counted) */
	uint64_t wg_entries;   /* work-groups (CUDA blocks) that started */
	uint64_t wg_exits;     /* ... and finished */
	uint64_t work_items;   /* work-items (CUDA threads) of the finished groups */
	uint64_t wg_uncounted; /* groups whose blocks were not counted */
	/* PT_GPU_PROF_F_CLOCK: device clock ns (not trace ticks); else 0 */
	uint64_t start_ns;   /* earliest group start */
	uint64_t end_ns;     /* latest group end */
	uint64_t dur_sum_ns; /* sum of group durations */
	uint64_t dur_min_ns;
	uint64_t dur_max_ns;
	/* followed by uint64_t count[nblocks] (executions of each block) */
} pt_rec_gpu_prof;
_Static_assert(sizeof(pt_rec_gpu_prof) == 88, "pt_rec_gpu_prof layout");
#define PT_FIELDS_GPU_PROF(T, F, A, S, C) \
	A(ENUMQ, "api", PT_GPU_API_NAMES) F(T, U, "corr", correlation, "") \
	F(T, U, "prof", prof, "") F(T, U, "groups", wg_exits, "") \
	F(T, U, "started", wg_entries, "") F(T, U, "items", work_items, "") \
	F(T, U, "uncounted", wg_uncounted, "") F(T, U, "start_ns", start_ns, "") \
	F(T, U, "end_ns", end_ns, "") F(T, U, "dur_sum_ns", dur_sum_ns, "") \
	F(T, U, "dur_min_ns", dur_min_ns, "") F(T, U, "dur_max_ns", dur_max_ns, "") \
	F(T, U, "blocks", nblocks, "") C(gpu_prof_counts, "c0= c1= ...")

#endif /* PARATRACE_FORMAT_GPU_H */
