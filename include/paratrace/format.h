/* SPDX-License-Identifier: MIT */
/* paratrace log format: the only contract between the runtime (writer) and the
 * reader. Both include this header; nothing else defines a record layout.
 * Human-readable description: docs/FORMAT.md (keep the two in step).
 *
 * A trace directory holds one folder per process (p<pid>[.<gen>]/), and in it
 *   process.ptl   the process log  (file_kind PT_FILE_PROCESS): process info,
 *                 module map, function tables, fork/exec, exit
 *   t<tid>[.<k>].ptl  one log per thread (file_kind PT_FILE_THREAD)
 *   g<...>.ptl    one log per GPU stream/queue (file_kind PT_FILE_GPU)
 * Every file = a 256-byte pt_file_header followed by records.
 *
 * Records are 8-byte aligned, their size a multiple of 8 (but for the
 * compact and short forms below, which start at any even offset), integers
 * in the writer's native byte order (the header says which; the reader accepts
 * little-endian only and says so otherwise). Each starts with pt_rec_head.
 * Times are ticks of the clock named in the header; each record stores the
 * delta from the previous record's time in the same file (32 bits); a
 * PT_REC_TIME record carries an absolute time whenever a delta would overflow
 * (and as the first record of every file). So a file's times never decrease.
 *
 * A head whose kind byte is 0 marks the end of written data: the runtime
 * writes into a shared mapping of a file that is extended ahead of the data,
 * so the unwritten tail reads as zeros (and survives SIGKILL as such).
 */
#ifndef PARATRACE_FORMAT_H
#define PARATRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PT_FORMAT_MAGIC "PTRCLOG1" /* 8 bytes, no NUL stored */
#define PT_FORMAT_MAGIC_LEN 8
/* A reader refuses a major version it does not know; minor versions only
 * add record kinds (unknown kinds are skipped using their size) and
 * optional trailing payload fields. 1.1: lock records may stop after the
 * object (result 0), and a lock taken without waiting has no REQUEST.
 * 1.2: a LOCK_RELEASED of the object of the file's most recent
 * LOCK_ACQUIRED may be its head alone (8 bytes); readers fill the object in.
 * 2.0: compact 4-byte function and lock records (PT_COMPACT_*), so records
 * start at 4-byte boundaries; a 1.x reader could not find the next record.
 * 3.0: short 2-byte function records (PT_SHORT_*) and 2-byte pads, so
 * records start at 2-byte boundaries.
 * 3.1: the header's job_rank1/job_size (a process of a parallel job) and
 * the MPI records (PT_REC_RANGE_MPI).
 * 3.2: the header's clock_offset_ns and job_world; SIGNAL's tid (a SIGNAL
 * may be in the process log); MPI_ERROR (a call that returned an error);
 * what a blocking MPI call moved (MPI_SEND, MPI_COLL, MPI_RMA, MPI_IO) is
 * written at its end, and only when it succeeded; MPI_UNTRACED (a rank none
 * of whose MPI calls was traced); MPI_JOB's and MPI_INIT's world (a job
 * started by MPI_Comm_spawn), ranks of a spawned job written as job ranks
 * (PT_MPI_JOB_RANK). */
#define PT_FORMAT_VERSION_MAJOR 3
#define PT_FORMAT_VERSION_MINOR 2
/* The oldest major version this reader still reads. */
#define PT_FORMAT_VERSION_MAJOR_MIN 1

#define PT_BYTE_ORDER_LITTLE 1
#define PT_BYTE_ORDER_BIG 2

enum pt_file_kind {
	PT_FILE_THREAD = 1,
	PT_FILE_PROCESS = 2,
	PT_FILE_GPU = 3,
};

enum pt_clock_source {
	PT_CLOCK_MONOTONIC = 1, /* ticks are CLOCK_MONOTONIC nanoseconds */
	PT_CLOCK_TSC = 2,       /* x86 invariant TSC */
	PT_CLOCK_CNTVCT = 3,    /* arm64 virtual counter */
};

/* Three clocks read back to back (ticks in the middle). */
typedef struct pt_clock_pair {
	uint64_t ticks;
	uint64_t mono_ns; /* CLOCK_MONOTONIC */
	uint64_t real_ns; /* CLOCK_REALTIME, for wall-clock dates */
} pt_clock_pair;
_Static_assert(sizeof(pt_clock_pair) == 24, "pt_clock_pair layout");

/* Conversion, done once, in the reader:
 *   ns = ref.mono_ns + (((int128)(ticks - ref.ticks) * tick_mult) >> tick_shift)
 * where ref is the header's `open` pair. With the TSC, the writer measures
 * mult (shift 32) from the run's first clock pair to the file's latest and
 * rewrites the two fields as the file grows and at its close, so all files
 * of a run land on CLOCK_MONOTONIC nanoseconds (to a few tens of ns) while
 * their mults may differ in the last digits. */
typedef struct pt_file_header {
	char magic[PT_FORMAT_MAGIC_LEN];
	uint16_t version_major;
	uint16_t version_minor;
	uint16_t header_size; /* bytes; records start here; multiple of 8 */
	uint8_t byte_order;   /* PT_BYTE_ORDER_* of the writer */
	uint8_t file_kind;    /* enum pt_file_kind */
	uint32_t flags;       /* PT_HDR_* */
	uint32_t pid;
	uint32_t tid;  /* thread logs; 0 otherwise */
	uint32_t ppid; /* parent process */
	uint32_t clock_source; /* enum pt_clock_source */
	uint32_t tick_shift;
	uint64_t tick_mult;
	pt_clock_pair open; /* read when the file was created */
	uint64_t run_id;    /* random, shared by every process of one run */
	uint64_t gpu_stream; /* PT_FILE_GPU: stream/queue id; 0 otherwise */
	char program[64];   /* basename of the executable, NUL-padded */
	/* 3.1: a process started by a parallel job's launcher (mpirun, srun):
	 * its rank + 1 there (0: not one) and the job's number of processes,
	 * as the launcher's environment said at start (the MPI records confirm
	 * them at MPI_Init). 0 in older files. */
	uint32_t job_rank1;
	uint32_t job_size;
	/* 3.2: the writer's CLOCK_MONOTONIC minus the run's (a process in
	 * another time namespace), measured through the TSC at its start and
	 * already taken off `open` and every time in the file: for
	 * information. 0: the same clock (and in older files). */
	int64_t clock_offset_ns;
	/* 3.2: which of the run's jobs: 0 the one the launcher started, k the
	 * k-th it started for MPI_Comm_spawn (its ranks are that job's). */
	uint32_t job_world;
	uint8_t reserved[256 - 172];
} pt_file_header;
_Static_assert(sizeof(pt_file_header) == 256, "pt_file_header layout");
_Static_assert(offsetof(pt_file_header, open) == 48, "pt_file_header layout");
_Static_assert(offsetof(pt_file_header, program) == 88, "pt_file_header layout");
_Static_assert(offsetof(pt_file_header, job_rank1) == 152, "pt_file_header layout");
_Static_assert(offsetof(pt_file_header, clock_offset_ns) == 160, "pt_file_header layout");
_Static_assert(offsetof(pt_file_header, job_world) == 168, "pt_file_header layout");

#define PT_HDR_FLAG_FORKED 0x1 /* process created by fork (pid's logs start at fork) */
#define PT_HDR_FLAG_EXECED 0x2 /* process image started by exec from a traced one */
/* The writer holds an exclusive flock(2) on the file for as long as it may
 * write to it: once the lock is free, the log cannot grow any more (the
 * writer closed it, exec'd, or died). Readers that follow a live log
 * (PT_LOG_FOLLOW) stop there, and not before, CLOSE or not. */
#define PT_HDR_FLAG_WRITER_LOCK 0x4

/* ---------------------------------------------------------------------- */
/* Records                                                                  */

typedef struct pt_rec_head {
	uint8_t kind;   /* enum pt_rec_kind; 0 = end of written data */
	uint8_t arg;    /* kind-specific small field */
	uint16_t size8; /* record size / 8 (>= 1); for FUNC_ENTER/EXIT: id bits 8..23 */
	uint32_t delta; /* ticks since the previous record of this file */
} pt_rec_head;
_Static_assert(sizeof(pt_rec_head) == 8, "pt_rec_head layout");

/* The record schema: every record kind, one row each. The rest follows from
 * it: enum pt_rec_kind, the record sizes the writer uses (PT_REC_SIZE), the
 * payload sizes the reader requires, the kind names (pt_rec_kind_name), the
 * line `paratrace dump` prints for each kind (PT_FIELDS_<NAME>, beside the
 * payload struct) and the table of kinds in docs/FORMAT.md (generated from
 * this; a test fails when the two differ).
 *
 *   X(NAME, value, payload type, min payload, per arg, file, arg, payload note)
 *
 * payload type: the struct after the head (void: none, or only a string or
 * an array). min payload: bytes after the head the reader requires of a
 * record of this kind (a smaller one is damage), plus `per arg` bytes per
 * unit of the head's arg (arrays of arg elements). file, arg, payload note:
 * for the documentation.
 *
 * Adding a kind: a row here, its payload struct and its PT_FIELDS_<NAME>
 * below; then `pt_format_doc --update docs/FORMAT.md` (see FORMAT.md). A kind
 * added in the reserved ranges needs no major version change. */
#define PT_REC_SCHEMA(X) \
	/* Hot path: id = arg | size8 << 8 (24 bits; 0 is never used). */ \
	X(FUNC_ENTER, 1, void, 0, 0, "thread", "id bits 0..7", \
	  "none: 8 bytes (4 compact, 2 short)") \
	X(FUNC_EXIT, 2, void, 0, 0, "thread", "id bits 0..7", \
	  "none: 8 bytes (4 compact, 2 short)") \
	/* -finstrument-functions builds: the function's address. */ \
	X(FUNC_ENTER_PC, 3, pt_rec_pc, sizeof(pt_rec_pc), 0, "thread", "–", "") \
	X(FUNC_EXIT_PC, 4, pt_rec_pc, sizeof(pt_rec_pc), 0, "thread", "–", "") \
	/* Absolute time; delta is 0. First record of every file, and wherever \
	 * a delta would not fit in 32 bits. */ \
	X(TIME, 5, pt_rec_time, sizeof(pt_rec_time), 0, "all", "–", "absolute ticks") \
	/* Threads (thread logs) */ \
	X(THREAD_START, 6, pt_rec_thread_start, sizeof(pt_rec_thread_start), 0, "thread", "–", "") \
	X(THREAD_END, 7, pt_rec_thread_end, sizeof(pt_rec_thread_end), 0, "thread", "–", "") \
	X(THREAD_NAME, 8, void, 0, 0, "thread", "–", "string") \
	X(THREAD_CREATE, 9, pt_rec_thread_create, sizeof(pt_rec_thread_create), 0, \
	  "creator's thread", "–", "") \
	X(THREAD_JOIN_BEGIN, 10, pt_rec_thread_join, sizeof(pt_rec_thread_join), 0, "thread", "–", \
	  "") \
	X(THREAD_JOIN_END, 11, pt_rec_thread_join, sizeof(pt_rec_thread_join), 0, "thread", "–", \
	  "") \
	/* Manual API */ \
	X(USER_EVENT, 12, pt_rec_user_event, sizeof(pt_rec_user_event), 0, "thread", "–", "") \
	X(USER_TYPE, 13, pt_rec_user_type, sizeof(pt_rec_user_type), 0, "process", "–", "+ name") \
	X(USER_VALUE_NAME, 14, pt_rec_user_event, sizeof(pt_rec_user_event), 0, "process", "–", \
	  "+ name") \
	/* Counters: COUNTER_DEF names counter `arg` of the thread's set; \
	 * COUNTERS: uint64_t delta[arg], counters 0..arg-1 since the previous \
	 * COUNTERS (see "Counters, call stacks and samples" below). */ \
	X(COUNTER_DEF, 15, pt_rec_counter_def, sizeof(pt_rec_counter_def), 0, "thread", \
	  "counter index", "+ name") \
	X(COUNTERS, 16, void, 0, 8, "thread", "n", "`uint64_t delta[n]`") \
	/* Synchronization; arg = enum pt_lock_type. The result of lock \
	 * records is optional (pt_rec_lock). */ \
	X(LOCK_REQUEST, 17, pt_rec_lock, PT_REC_LOCK_MIN_PAYLOAD, 0, "thread", "lock type", \
	  "object [, result]") \
	X(LOCK_ACQUIRED, 18, pt_rec_lock, PT_REC_LOCK_MIN_PAYLOAD, 0, "thread", "lock type", \
	  "object [, result]") \
	X(LOCK_FAILED, 19, pt_rec_lock, PT_REC_LOCK_MIN_PAYLOAD, 0, "thread", "lock type", \
	  "object, result = error number (EBUSY, ETIMEDOUT…)") \
	X(LOCK_RELEASED, 20, pt_rec_lock, 0, 0, "thread", "lock type", \
	  "object, or nothing (1.2: the object acquired last)") \
	X(COND_WAIT_BEGIN, 21, pt_rec_cond, sizeof(pt_rec_cond), 0, "thread", "–", "") \
	X(COND_WAIT_END, 22, pt_rec_cond, sizeof(pt_rec_cond), 0, "thread", "–", "") \
	X(COND_SIGNAL, 23, pt_rec_cond, sizeof(pt_rec_cond), 0, "thread", "0 signal, 1 broadcast", \
	  "") \
	X(BARRIER_BEGIN, 24, pt_rec_lock, PT_REC_LOCK_MIN_PAYLOAD, 0, "thread", "7 (barrier)", \
	  "object") \
	X(BARRIER_END, 25, pt_rec_lock, PT_REC_LOCK_MIN_PAYLOAD, 0, "thread", "7 (barrier)", \
	  "object [, result = return value]") \
	/* Process log */ \
	X(PROCESS_INFO, 26, pt_rec_process_info, sizeof(pt_rec_process_info), 0, "process", "–", \
	  "+ exe path + argc strings") \
	X(MODULE_MAP, 27, pt_rec_module_map, sizeof(pt_rec_module_map), 0, "process", "–", \
	  "+ build id bytes + path") \
	X(MODULE_UNMAP, 28, pt_rec_module_unmap, sizeof(pt_rec_module_unmap), 0, "process", "–", \
	  "") \
	X(FUNC_DEF, 29, pt_rec_func_def, sizeof(pt_rec_func_def), 0, "process", "–", \
	  "+ mangled name + file") \
	X(FORK, 30, pt_rec_fork, sizeof(pt_rec_fork), 0, "parent's thread, child's process", "–", \
	  "") \
	X(EXEC, 31, void, 0, 0, "thread (the caller)", "–", "string: the path executed") \
	X(SIGNAL, 32, pt_rec_signal, PT_REC_SIGNAL_MIN_PAYLOAD, 0, "thread, or process", "–", \
	  "signo, code, addr [, tid (3.2)]") \
	X(EXIT, 33, pt_rec_exit, sizeof(pt_rec_exit), 0, "process", "–", "") \
	/* Bookkeeping */ \
	/* LOST: data that never reached this file; CLOSE: the clocks at \
	 * close, last record of a complete log. */ \
	X(LOST, 34, pt_rec_lost, sizeof(pt_rec_lost), 0, "any", "–", "") \
	X(CLOSE, 35, pt_clock_pair, sizeof(pt_clock_pair), 0, "any", "–", "") \
	/* Call stacks and samples (PT_REC_RANGE_SAMPLING). CALLSTACK: the \
	 * return addresses of the callers of the event in the preceding \
	 * record (innermost first, runtime frames left out), at its time. \
	 * SAMPLE: one CPU-time sample of this thread. COUNTER_VALUE: arg = \
	 * a PT_COUNTER_MANUAL COUNTER_DEF. SAMPLING_START: this thread's \
	 * samples begin (its timer is armed). */ \
	X(CALLSTACK, 0x30, void, 0, 8, "thread", "n", "`uint64_t pcs[n]`, innermost first") \
	X(SAMPLE, 0x31, pt_rec_sample, sizeof(pt_rec_sample), 8, "thread", "n", \
	  "+ `uint64_t callers[n]`, innermost first") \
	X(COUNTER_VALUE, 0x32, pt_rec_counter_value, sizeof(pt_rec_counter_value), 0, "thread", \
	  "counter index", "") \
	X(SAMPLING_START, 0x33, pt_rec_sampling_start, sizeof(pt_rec_sampling_start), 0, "thread", \
	  "–", "") \
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
	  "+ `uint64_t count[nblocks]`") \
	/* OpenMP (PT_REC_RANGE_OPENMP; see "OpenMP" below). */ \
	X(OMP_LOC_DEF, 0x60, pt_rec_omp_loc, sizeof(pt_rec_omp_loc), 0, "process", "–", "") \
	X(OMP_PARALLEL_BEGIN, 0x61, pt_rec_omp_parallel, sizeof(pt_rec_omp_parallel), 0, \
	  "thread (the encountering one)", "runtime", "") \
	X(OMP_PARALLEL_END, 0x62, pt_rec_omp_parallel, sizeof(pt_rec_omp_parallel), 0, \
	  "thread (the encountering one)", "runtime", "") \
	X(OMP_IMPLICIT_BEGIN, 0x63, pt_rec_omp_implicit, sizeof(pt_rec_omp_implicit), 0, "thread", \
	  "–", "") \
	X(OMP_IMPLICIT_END, 0x64, pt_rec_omp_implicit, sizeof(pt_rec_omp_implicit), 0, "thread", \
	  "–", "") \
	X(OMP_WORK_BEGIN, 0x65, pt_rec_omp_work, sizeof(pt_rec_omp_work), 0, "thread", \
	  "construct + 16 × schedule", "") \
	X(OMP_WORK_END, 0x66, void, 0, 0, "thread", "construct", "none") \
	X(OMP_CHUNK, 0x67, pt_rec_omp_chunk, sizeof(pt_rec_omp_chunk), 0, "thread", "–", "") \
	X(OMP_WAIT_BEGIN, 0x6a, pt_rec_omp_sync, sizeof(pt_rec_omp_sync), 0, "thread", \
	  "sync kind", "") \
	X(OMP_WAIT_END, 0x6b, void, 0, 0, "thread", "sync kind", "none") \
	X(OMP_TASK_CREATE, 0x6c, pt_rec_omp_task_create, sizeof(pt_rec_omp_task_create), 0, \
	  "thread", "–", "") \
	X(OMP_TASK_SCHEDULE, 0x6d, pt_rec_omp_task_schedule, sizeof(pt_rec_omp_task_schedule), \
	  0, "thread", "prior task's status", "") \
	X(OMP_TASK_DEPEND, 0x6e, pt_rec_omp_task_depend, sizeof(pt_rec_omp_task_depend), 0, \
	  "thread", "0 count, 1 edge", "") \
	X(OMP_CONTROL, 0x6f, pt_rec_omp_control, sizeof(pt_rec_omp_control), 0, "thread", "what", \
	  "") \
	/* MPI (PT_REC_RANGE_MPI, see "MPI records" below): the job and the \
	 * clock synchronisation in the process log; every MPI call's begin \
	 * and end (arg = PT_MPI_CALL_*, <paratrace/mpi_calls.h>) and what it \
	 * moved in the thread log of the calling thread. */ \
	X(MPI_JOB, 0x70, pt_rec_mpi_job, sizeof(pt_rec_mpi_job), 0, "process", "–", \
	  "+ host name + launcher") \
	X(MPI_INIT, 0x71, pt_rec_mpi_init, sizeof(pt_rec_mpi_init), 0, "process", "–", \
	  "+ host name + library version") \
	X(MPI_CLOCK, 0x72, pt_rec_mpi_clock, sizeof(pt_rec_mpi_clock), 0, "process", \
	  "0 MPI_Init, 1 MPI_Finalize", "") \
	X(MPI_COMM_DEF, 0x73, pt_rec_mpi_comm_def, sizeof(pt_rec_mpi_comm_def), 0, "process", "–", \
	  "+ `int32_t world[local + remote]`") \
	X(MPI_CALL, 0x74, void, 0, 0, "thread", "call", "none: 8 bytes") \
	X(MPI_CALL_END, 0x75, void, 0, 0, "thread", "call", "none: 8 bytes") \
	X(MPI_SEND, 0x76, pt_rec_mpi_msg, sizeof(pt_rec_mpi_msg), 0, "thread", "call", "") \
	X(MPI_RECV, 0x77, pt_rec_mpi_msg, sizeof(pt_rec_mpi_msg), 0, "thread", "call", "") \
	X(MPI_IRECV, 0x78, pt_rec_mpi_msg, sizeof(pt_rec_mpi_msg), 0, "thread", "call", "") \
	X(MPI_COLL, 0x79, pt_rec_mpi_coll, sizeof(pt_rec_mpi_coll), 0, "thread", "call", "") \
	X(MPI_RMA, 0x7a, pt_rec_mpi_rma, sizeof(pt_rec_mpi_rma), 0, "thread", "call", "") \
	X(MPI_IO, 0x7b, pt_rec_mpi_io, sizeof(pt_rec_mpi_io), 0, "thread", "call", "") \
	X(MPI_ERROR, 0x7c, pt_rec_mpi_error, sizeof(pt_rec_mpi_error), 0, "thread", "call", \
	  "+ the library's error string") \
	X(MPI_UNTRACED, 0x7d, pt_rec_mpi_untraced, sizeof(pt_rec_mpi_untraced), 0, "process", \
	  "–", "+ the MPI library's path")

enum pt_rec_kind {
	PT_REC_END = 0, /* never a record: end of written data */
#define PT_REC_SCHEMA_ENUM_(name, value, ...) PT_REC_##name = value,
	PT_REC_SCHEMA(PT_REC_SCHEMA_ENUM_)
#undef PT_REC_SCHEMA_ENUM_

	/* Ranges reserved for later parts; the reader skips kinds it does not
	 * know, so a part can add kinds within its range without a major bump. */
	PT_REC_RANGE_SAMPLING_FIRST = 0x30, /* call stacks, samples */
	PT_REC_RANGE_SAMPLING_LAST = 0x3f,
	PT_REC_RANGE_GPU_FIRST = 0x40, /* GPU launches, copies, device times */
	PT_REC_RANGE_GPU_LAST = 0x5f,
	PT_REC_RANGE_RUNTIME_FIRST = 0x60, /* more interposition families */
	PT_REC_RANGE_RUNTIME_LAST = 0x7f,
	PT_REC_RANGE_OPENMP_FIRST = 0x60, /* OpenMP (OMPT, GOMP_*) */
	PT_REC_RANGE_OPENMP_LAST = 0x6f,
	PT_REC_RANGE_MPI_FIRST = 0x70, /* MPI, within the runtime range */
	PT_REC_RANGE_MPI_LAST = 0x7f,
};

#define PT_FUNC_ID_BITS 24
#define PT_FUNC_ID_MAX ((1u << PT_FUNC_ID_BITS) - 1)

static inline int pt_rec_is_func(unsigned kind)
{
	return kind == PT_REC_FUNC_ENTER || kind == PT_REC_FUNC_EXIT;
}
static inline int pt_rec_is_func_pc(unsigned kind)
{
	return kind == PT_REC_FUNC_ENTER_PC || kind == PT_REC_FUNC_EXIT_PC;
}
static inline int pt_rec_is_exit(unsigned kind)
{
	return kind == PT_REC_FUNC_EXIT || kind == PT_REC_FUNC_EXIT_PC;
}
static inline uint32_t pt_rec_func_id(const pt_rec_head *h)
{
	return (uint32_t)h->arg | (uint32_t)h->size8 << 8;
}
/* Size in bytes of the record starting with h (0 for PT_REC_END). */
static inline size_t pt_rec_size(const pt_rec_head *h)
{
	if (h->kind == PT_REC_END)
		return 0;
	if (pt_rec_is_func(h->kind))
		return sizeof(pt_rec_head);
	return (size_t)h->size8 * 8;
}
static inline pt_rec_head pt_rec_func(unsigned kind, uint32_t id, uint32_t delta)
{
	pt_rec_head h = {(uint8_t)kind, (uint8_t)id, (uint16_t)(id >> 8), delta};
	return h;
}

/* Compact function records (2.0). A FUNC_ENTER/EXIT whose id and delta are
 * both below PT_COMPACT_LIMIT is one 32-bit little-endian word:
 *   bits 0..7    PT_COMPACT_FLAG | kind   (0x81 enter, 0x82 exit)
 *   bits 8..19   function id
 *   bits 20..31  delta (ticks since the previous record of the file)
 * The flag bit is never set in the kind of an 8-byte head, so the first
 * byte tells the two apart. Only function records (compact or 8-byte) and
 * compact lock records may start at an offset that is not a multiple of 8
 * (4 modulo 8 in 2.0; any even offset in 3.0); every other record starts at
 * a multiple of 8, after a PT_COMPACT_PAD word (2.0) or PT_PAD16 pads (3.0)
 * where needed, so payloads stay aligned. The hot loops of a program, where the bytes of a trace
 * come from, call few functions at short intervals: nearly all their records fit. */
#define PT_COMPACT_FLAG 0x80u
#define PT_COMPACT_BITS 12
#define PT_COMPACT_LIMIT (1u << PT_COMPACT_BITS)
#define PT_COMPACT_PAD PT_COMPACT_FLAG /* 2.0: the whole word, 4 bytes of filler, no time */

static inline int pt_compact_fits(uint32_t id, uint64_t delta)
{
	return (id | delta) < PT_COMPACT_LIMIT;
}
static inline uint32_t pt_compact_word(unsigned kind, uint32_t id, uint32_t delta)
{
	return PT_COMPACT_FLAG | kind | id << 8 | delta << (8 + PT_COMPACT_BITS);
}
static inline int pt_compact_is_func(uint32_t word)
{
	return (word & 0xff) == (PT_COMPACT_FLAG | PT_REC_FUNC_ENTER) ||
	       (word & 0xff) == (PT_COMPACT_FLAG | PT_REC_FUNC_EXIT);
}
/* The 8-byte form of a compact function record. */
static inline pt_rec_head pt_compact_head(uint32_t word)
{
	return pt_rec_func(word & 0x7f, word >> 8 & (PT_COMPACT_LIMIT - 1),
			   word >> (8 + PT_COMPACT_BITS));
}

/* Short function records (3.0). A function record of the same function as
 * the file's previous function record (FUNC_ENTER, FUNC_EXIT, FUNC_ENTER_PC
 * or FUNC_EXIT_PC, in any form, short ones included), entered or exited
 * again, whose delta is below PT_SHORT_LIMIT, is one 16-bit little-endian
 * word:
 *   bits 0..4    delta bits 0..4
 *   bit 5        0 enter, 1 exit (PT_SHORT_EXIT)
 *   bits 6..7    11 (PT_SHORT_TAG): no kind or compact flag byte has both
 *   bits 8..15   delta bits 5..12
 * A hot loop calling one function, or a recursion, writes nothing else: a
 * traced call is 4 bytes. The reader delivers the full form of the kind
 * of that previous record: FUNC_ENTER/EXIT with its id, or
 * FUNC_ENTER_PC/EXIT_PC (16 bytes) with its address. A LOST record
 * forgets the previous function (what was lost may have been one), so the
 * next function record is a full one. Filler before a record that must
 * start at a multiple of 8 is made of 2-byte pads, PT_PAD16 (bytes 0x80,
 * 0x00), instead of 2.0's pad word. */
#define PT_SHORT_TAG 0xc0u
#define PT_SHORT_EXIT 0x20u
#define PT_SHORT_BITS 13
#define PT_SHORT_LIMIT (1u << PT_SHORT_BITS)
#define PT_PAD16 0x0080u

static inline int pt_short_is(uint8_t first_byte)
{
	return (first_byte & PT_SHORT_TAG) == PT_SHORT_TAG;
}
static inline uint16_t pt_short_word(int exit, uint32_t delta)
{
	return (uint16_t)(PT_SHORT_TAG | (exit ? PT_SHORT_EXIT : 0u) | (delta & 0x1fu) |
	                  (delta >> 5) << 8);
}
static inline int pt_short_exit(uint16_t word)
{
	return (word & PT_SHORT_EXIT) != 0;
}
static inline uint32_t pt_short_delta(uint16_t word)
{
	return (word & 0x1fu) | (uint32_t)(word >> 8) << 5;
}

/* Compact lock records (2.0): a LOCK_ACQUIRED or LOCK_RELEASED with result 0
 * (and since 3.0 a LOCK_REQUEST) of the object of the file's most recent
 * LOCK_ACQUIRED (a loop taking one lock again and again) whose delta is
 * below PT_COMPACT_LOCK_LIMIT:
 *   bits 0..7    PT_COMPACT_FLAG | kind   (0x92 acquired, 0x94 released,
 *                0x91 request: 3.0 only)
 *   bits 8..15   lock type (the arg of the full record)
 *   bits 16..31  delta
 * Readers deliver the 16-byte form with that object filled in. */
#define PT_COMPACT_LOCK_LIMIT (1u << 16)

static inline int pt_compact_is_lock(uint32_t word, unsigned version_major)
{
	return (word & 0xff) == (PT_COMPACT_FLAG | PT_REC_LOCK_ACQUIRED) ||
	       (word & 0xff) == (PT_COMPACT_FLAG | PT_REC_LOCK_RELEASED) ||
	       (version_major >= 3 && (word & 0xff) == (PT_COMPACT_FLAG | PT_REC_LOCK_REQUEST));
}
static inline uint32_t pt_compact_lock_word(unsigned kind, unsigned type, uint32_t delta)
{
	return PT_COMPACT_FLAG | kind | (type & 0xffu) << 8 | delta << 16;
}
/* The head of the 16-byte form; the object comes from the reader. */
static inline pt_rec_head pt_compact_lock_head(uint32_t word)
{
	pt_rec_head h = {(uint8_t)(word & 0x7f), (uint8_t)(word >> 8), 2, word >> 16};
	return h;
}

enum pt_lock_type {
	PT_LOCK_MUTEX = 1,
	PT_LOCK_RWLOCK_READ = 2,
	PT_LOCK_RWLOCK_WRITE = 3,
	PT_LOCK_SPIN = 4,
	PT_LOCK_SEMAPHORE = 5,
	PT_LOCK_C11_MTX = 6,
	PT_LOCK_BARRIER = 7,
	/* OpenMP mutual exclusion (OMPT mutex callbacks, GOMP_* and omp_*_lock
	 * wrappers): the object is the runtime's lock (a critical's, a lock's) */
	PT_LOCK_OMP_LOCK = 8,     /* omp_set_lock */
	PT_LOCK_OMP_NEST_LOCK = 9, /* omp_set_nest_lock */
	PT_LOCK_OMP_CRITICAL = 10, /* critical (named or not: OMPT cannot tell) */
	PT_LOCK_OMP_ATOMIC = 11,   /* atomic done with a lock */
	PT_LOCK_OMP_ORDERED = 12,  /* ordered */
	PT_LOCK_OMP_CRITICAL_NAMED = 13, /* critical(name) of a GOMP_* program */
};
static inline int pt_lock_is_omp(unsigned type)
{
	return type >= PT_LOCK_OMP_LOCK && type <= PT_LOCK_OMP_CRITICAL_NAMED;
}

/* Payloads (they follow pt_rec_head), each with the fields `paratrace dump`
 * prints for its kinds, in order: PT_FIELDS_<NAME>(T, F, A, S, C), T the
 * payload type, made of
 *   F(T, fmt, "key", member, "names")  member of the payload
 *   A(fmt, "key", "names")             the head's arg
 *   S(offset, mode)                    name=: the string at that payload offset
 *                                      (mode PLAIN, or DEMANGLED when names are
 *                                      resolved), if it ends inside the record
 *   C(printer, "doc")                  what no fmt describes: a printer of
 *                                      analyzer/cli/dump_format.c
 * fmt: U unsigned, I signed, X hex (0x..), FLAGS (names of bits 0, 1, ...
 * separated by |), ENUM (names of values 0, 1, ...; a value without a name
 * prints as a number), ENUMQ (the same, but '?'), PC (an address, named),
 * DEVTIME (absolute ticks as ns like the line's time), U32X3 (x,y,z),
 * GPU_FUNC and GPU_KERNEL (the name of that id, if known).
 * A member past the end of the record (an optional trailing field) is 0. */
#define PT_FIELDS_FUNC_ENTER(T, F, A, S, C) C(func_id, "id= [at=file:line] name=")
#define PT_FIELDS_FUNC_EXIT PT_FIELDS_FUNC_ENTER
#define PT_FIELDS_THREAD_NAME(T, F, A, S, C) S(0, PLAIN)
#define PT_FIELDS_EXEC PT_FIELDS_THREAD_NAME
#define PT_FIELDS_COUNTERS(T, F, A, S, C) A(U, "n", "") C(counter_values, "v0= v1= ...")
#define PT_FIELDS_CALLSTACK(T, F, A, S, C) \
	A(U, "n", "") C(callstack, "pc0=0x.. pc1=0x.. ... [name=f <- g <- ...]")

typedef struct pt_rec_time {
	uint64_t ticks;
} pt_rec_time;
#define PT_FIELDS_TIME(T, F, A, S, C) F(T, U, "ticks", ticks, "")

typedef struct pt_rec_pc {
	uint64_t pc; /* run-time address of the function */
} pt_rec_pc;
#define PT_FIELDS_FUNC_ENTER_PC(T, F, A, S, C) F(T, PC, "pc", pc, "")
#define PT_FIELDS_FUNC_EXIT_PC PT_FIELDS_FUNC_ENTER_PC

typedef struct pt_rec_thread_start {
	uint64_t create_seq;    /* matches the creator's THREAD_CREATE; 0 = unknown creator */
	uint32_t creator_tid;   /* 0 = unknown (main thread, foreign creator) */
	uint32_t flags;         /* PT_THREAD_* */
	uint64_t start_routine; /* address, resolved offline */
} pt_rec_thread_start;
#define PT_THREAD_MAIN 0x1
#define PT_THREAD_C11 0x2 /* thrd_create */
#define PT_FIELDS_THREAD_START(T, F, A, S, C) \
	F(T, U, "creator", creator_tid, "") F(T, U, "seq", create_seq, "") \
	F(T, FLAGS, "flags", flags, "main|c11") F(T, PC, "routine", start_routine, "")

typedef struct pt_rec_thread_end {
	uint64_t retval; /* value returned / passed to pthread_exit (as an integer) */
	uint32_t flags;  /* PT_THREAD_END_* */
	uint32_t pad;
} pt_rec_thread_end;
#define PT_THREAD_END_EXIT 0x1      /* pthread_exit */
#define PT_THREAD_END_CANCELED 0x2  /* cancellation */
#define PT_THREAD_END_PROCESS 0x4   /* closed because the process exited */
#define PT_FIELDS_THREAD_END(T, F, A, S, C) \
	F(T, X, "retval", retval, "") \
	F(T, FLAGS, "flags", flags, "pthread_exit|canceled|process_exit")

typedef struct pt_rec_thread_create {
	uint64_t create_seq; /* process-unique, > 0 */
	uint64_t start_routine;
	int32_t result; /* pthread_create's return value */
	uint32_t flags; /* PT_THREAD_* */
} pt_rec_thread_create;
#define PT_FIELDS_THREAD_CREATE(T, F, A, S, C) \
	F(T, U, "seq", create_seq, "") F(T, I, "result", result, "") \
	F(T, FLAGS, "flags", flags, "main|c11") F(T, PC, "routine", start_routine, "")

typedef struct pt_rec_thread_join {
	uint64_t thread;     /* pthread_t as an integer */
	uint64_t create_seq; /* of the joined thread, 0 if unknown */
	int32_t result;      /* JOIN_END only */
	uint32_t pad;
} pt_rec_thread_join;
#define PT_FIELDS_THREAD_JOIN_BEGIN(T, F, A, S, C) \
	F(T, X, "thread", thread, "") F(T, U, "seq", create_seq, "")
#define PT_FIELDS_THREAD_JOIN_END(T, F, A, S, C) \
	PT_FIELDS_THREAD_JOIN_BEGIN(T, F, A, S, C) F(T, I, "result", result, "")

typedef struct pt_rec_user_event {
	uint32_t type;
	uint32_t pad;
	int64_t value;
} pt_rec_user_event;
#define PT_FIELDS_USER_EVENT(T, F, A, S, C) F(T, U, "type", type, "") F(T, I, "value", value, "")
#define PT_FIELDS_USER_VALUE_NAME(T, F, A, S, C) \
	PT_FIELDS_USER_EVENT(T, F, A, S, C) S(sizeof(T), PLAIN)

typedef struct pt_rec_user_type {
	uint32_t type;
	uint32_t flags; /* PT_USER_TYPE_* */
	/* followed by NUL-terminated name */
} pt_rec_user_type;
#define PT_USER_TYPE_SCOPE 0x1 /* value 0 closes the scope */
#define PT_FIELDS_USER_TYPE(T, F, A, S, C) \
	F(T, U, "type", type, "") F(T, FLAGS, "flags", flags, "scope") S(sizeof(T), PLAIN)

typedef struct pt_rec_counter_def {
	uint64_t config; /* perf_event attr.config, for the record */
	uint32_t type;   /* perf_event attr.type */
	uint32_t flags;
	/* followed by NUL-terminated name as the user wrote it */
} pt_rec_counter_def;
#define PT_FIELDS_COUNTER_DEF(T, F, A, S, C) \
	A(U, "index", "") F(T, U, "type", type, "") F(T, X, "config", config, "") \
	F(T, X, "flags", flags, "") S(sizeof(T), PLAIN)

/* LOCK_* and BARRIER_* records. `result` and `pad` are optional: a
 * record of 16 bytes (head + object) has result 0, which is how the
 * runtime writes every record whose result is 0. Since 1.2 a LOCK_RELEASED
 * may also omit the object (8 bytes, head alone): it releases the object
 * of the most recent LOCK_ACQUIRED record of the same file. libptlog
 * delivers such a record as the 16-byte form, object filled in. Read them
 * with pt_rec_lock_get, not PT_REC_PAYLOAD. */
typedef struct pt_rec_lock {
	uint64_t object; /* address of the lock / semaphore / barrier */
	int32_t result;  /* FAILED / BARRIER_END: the call's return or error number */
	uint32_t pad;
} pt_rec_lock;
#define PT_REC_LOCK_MIN_PAYLOAD 8
#define PT_LOCK_TYPE_NAMES \
	"|mutex|rwlock_read|rwlock_write|spin|semaphore|c11_mtx|barrier|omp_lock|omp_nest_lock|" \
	"omp_critical|omp_atomic|omp_ordered|omp_critical_named"
#define PT_FIELDS_LOCK_REQUEST(T, F, A, S, C) \
	F(T, X, "obj", object, "") A(ENUM, "type", PT_LOCK_TYPE_NAMES)
#define PT_FIELDS_LOCK_ACQUIRED(T, F, A, S, C) \
	PT_FIELDS_LOCK_REQUEST(T, F, A, S, C) F(T, I, "result", result, "")
#define PT_FIELDS_LOCK_FAILED PT_FIELDS_LOCK_ACQUIRED
#define PT_FIELDS_LOCK_RELEASED PT_FIELDS_LOCK_REQUEST
#define PT_FIELDS_BARRIER_BEGIN PT_FIELDS_LOCK_REQUEST
#define PT_FIELDS_BARRIER_END PT_FIELDS_LOCK_ACQUIRED

/* COND_* records. A futex (FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_WAKE made
 * through libc's syscall(): C++20 atomic waits, latches, barriers,
 * semaphores) is recorded as a condition whose address is the futex word,
 * with PT_COND_FUTEX in the arg and mutex 0: WAIT_END's result is 0 or the
 * error number (EAGAIN, ETIMEDOUT, EINTR), SIGNAL's is the number of threads
 * woken. A SIGNAL's arg bit 0 says broadcast (a wake of more than one). */
typedef struct pt_rec_cond {
	uint64_t cond;
	uint64_t mutex;
	int32_t result; /* WAIT_END: return value (0, ETIMEDOUT…) */
	uint32_t pad;
} pt_rec_cond;
#define PT_COND_BROADCAST 0x1
#define PT_COND_FUTEX 0x2
#define PT_FIELDS_COND_WAIT_BEGIN(T, F, A, S, C) \
	F(T, X, "cond", cond, "") F(T, X, "mutex", mutex, "") C(cond_futex, "[futex]")
#define PT_FIELDS_COND_WAIT_END(T, F, A, S, C) \
	F(T, X, "cond", cond, "") F(T, X, "mutex", mutex, "") F(T, I, "result", result, "") \
	C(cond_futex, "[futex]")
#define PT_FIELDS_COND_SIGNAL(T, F, A, S, C) \
	F(T, X, "cond", cond, "") F(T, X, "mutex", mutex, "") \
	C(cond_signal, "broadcast=0|1 [futex woken=n]")

typedef struct pt_rec_process_info {
	uint32_t argc;
	uint32_t flags; /* PT_HDR_FLAG_* */
	uint64_t parent_run_seq; /* reserved */
	/* followed by: exe path\0, then argc strings\0 */
} pt_rec_process_info;
#define PT_FIELDS_PROCESS_INFO(T, F, A, S, C) \
	F(T, U, "argc", argc, "") F(T, FLAGS, "flags", flags, "forked|execed") \
	C(command_line, "exe= name=<command line>")

typedef struct pt_rec_module_map {
	uint64_t base; /* load bias (dlpi_addr) */
	uint64_t lo;   /* lowest mapped address of the module */
	uint64_t hi;   /* one past the highest */
	uint32_t build_id_len;
	uint32_t flags; /* PT_MODULE_* */
	/* followed by build_id_len bytes, then NUL-terminated path, padded to 8 */
} pt_rec_module_map;
#define PT_MODULE_DLOPEN 0x1 /* mapped by dlopen after start */
#define PT_MODULE_MAIN 0x2   /* the executable */
#define PT_FIELDS_MODULE_MAP(T, F, A, S, C) \
	F(T, X, "base", base, "") F(T, X, "lo", lo, "") F(T, X, "hi", hi, "") \
	C(build_id, "buildid=<hex, or ->") F(T, FLAGS, "flags", flags, "dlopen|main") \
	C(module_path, "name=<path>")

typedef struct pt_rec_module_unmap {
	uint64_t base;
} pt_rec_module_unmap;
#define PT_FIELDS_MODULE_UNMAP(T, F, A, S, C) F(T, X, "base", base, "")

typedef struct pt_rec_func_def {
	uint32_t id;   /* run-time function id (FUNC_ENTER/EXIT) */
	uint32_t line; /* 0 = unknown */
	uint64_t module_base; /* load bias of the module that registered it, 0 if unknown */
	/* followed by NUL-terminated (mangled) name, then NUL-terminated file */
} pt_rec_func_def;
#define PT_FIELDS_FUNC_DEF(T, F, A, S, C) \
	F(T, U, "id", id, "") F(T, U, "line", line, "") F(T, X, "base", module_base, "") \
	C(func_def_names, "[file=] name=<demangled>")

typedef struct pt_rec_fork {
	uint32_t child_pid;
	uint32_t parent_pid;
	uint32_t flags; /* PT_FORK_* */
	uint32_t pad;
} pt_rec_fork;
#define PT_FORK_VFORK 0x1
#define PT_FORK_SPAWN 0x2 /* posix_spawn, system, popen */
#define PT_FIELDS_FORK(T, F, A, S, C) \
	F(T, U, "child", child_pid, "") F(T, U, "parent", parent_pid, "") \
	F(T, FLAGS, "flags", flags, "vfork|spawn")

/* A signal the runtime's handler took, in the log of the thread that took
 * it; in the process log when that thread was inside the runtime (its log
 * then holds a record in progress), where tid says which thread it was. */
typedef struct pt_rec_signal {
	int32_t signo;
	int32_t code;  /* si_code */
	uint64_t addr; /* si_addr for faults */
	uint32_t tid;  /* 3.2: the thread that took it (0: not said) */
	uint32_t pad;
} pt_rec_signal;
#define PT_REC_SIGNAL_MIN_PAYLOAD 16
#define PT_FIELDS_SIGNAL(T, F, A, S, C) \
	F(T, I, "signo", signo, "") F(T, I, "code", code, "") F(T, X, "addr", addr, "") \
	F(T, U, "tid", tid, "")

typedef struct pt_rec_exit {
	int32_t status; /* exit status, or signal number when PT_EXIT_SIGNAL */
	uint32_t how;   /* PT_EXIT_* */
} pt_rec_exit;
#define PT_EXIT_NORMAL 1 /* exit() / return from main */
#define PT_EXIT__EXIT 2  /* _exit / _Exit */
#define PT_EXIT_QUICK 3  /* quick_exit */
#define PT_EXIT_SIGNAL 4 /* killed by a fatal signal */
#define PT_EXIT_ABORT 5
#define PT_FIELDS_EXIT(T, F, A, S, C) \
	F(T, I, "status", status, "") \
	F(T, ENUM, "how", how, "|normal|_exit|quick_exit|signal|abort")

typedef struct pt_rec_lost {
	uint64_t records; /* how many records were dropped */
	uint64_t bytes;
	uint32_t reason; /* PT_LOST_* */
	uint32_t pad;
} pt_rec_lost;
#define PT_LOST_NO_SPACE 1    /* could not extend/map the file (disk full…) */
#define PT_LOST_NO_MEMORY 2
#define PT_LOST_REENTRANT 3   /* raised by a signal handler inside a hook or the runtime */
#define PT_LOST_LIMIT 4       /* PARATRACE_MAX_SIZE reached */
/* raised by a thread after the process's end (exit, _exit) closed its log;
 * bytes is 0 (not known) */
#define PT_LOST_ENDED 5
#define PT_FIELDS_LOST(T, F, A, S, C) \
	F(T, U, "records", records, "") F(T, U, "bytes", bytes, "") \
	F(T, ENUM, "reason", reason, "|no_space|no_memory|reentrant|limit|ended")
/* CLOSE: the clocks when the log was closed (T = pt_clock_pair). */
#define PT_FIELDS_CLOSE(T, F, A, S, C) \
	F(T, U, "ticks", ticks, "") F(T, U, "mono_ns", mono_ns, "") F(T, U, "real_ns", real_ns, "")

/* Counters, call stacks and samples (issue 7), inside PT_REC_RANGE_SAMPLING.
 * docs/FORMAT.md "Counters, call stacks and samples" describes them.
 *
 * COUNTER_DEF (thread log, before the first COUNTERS record of that thread):
 *   arg = index of the counter in this thread's set; payload pt_rec_counter_def
 *   (flags PT_COUNTER_*) + name. COUNTERS: arg = n, uint64_t delta[n] for
 *   counters 0..n-1 since the thread's previous COUNTERS record (the first one:
 *   since the counters were opened, at thread start); it is taken right after
 *   the record that precedes it (FUNC_ENTER/EXIT, a sync or thread record),
 *   and is stamped when read, right after that record. */
#define PT_COUNTER_USER_ONLY 0x1 /* counts user space only (perf_event_paranoid) */
#define PT_COUNTER_MANUAL 0x2    /* opened by PT_COUNTER(name), read by COUNTER_VALUE */
#define PT_COUNTER_SOFTWARE 0x4  /* a kernel software event (PERF_TYPE_SOFTWARE) */

typedef struct pt_rec_sample {
	uint64_t pc; /* interrupted instruction (exact, not a return address) */
} pt_rec_sample;
#define PT_FIELDS_SAMPLE(T, F, A, S, C) \
	F(T, X, "pc", pc, "") A(U, "n", "") \
	C(sample_callers, "caller0=0x.. caller1=0x.. ... [name=f <- g <- ...]")

typedef struct pt_rec_sampling_start {
	uint64_t period_ns; /* CPU time between samples (PARATRACE_SAMPLING) */
	uint32_t signo;     /* signal the runtime samples with */
	uint32_t depth;     /* most callers per SAMPLE */
} pt_rec_sampling_start;
#define PT_FIELDS_SAMPLING_START(T, F, A, S, C) \
	F(T, U, "period_ns", period_ns, "") F(T, U, "signo", signo, "") F(T, U, "depth", depth, "")

typedef struct pt_rec_counter_value {
	uint64_t value; /* count since this thread's first PT_COUNTER(name) */
} pt_rec_counter_value;
#define PT_FIELDS_COUNTER_VALUE(T, F, A, S, C) A(U, "index", "") F(T, U, "value", value, "")

#define PT_CALLSTACK_MAX 64 /* most frames a CALLSTACK or SAMPLE carries */

/* GPU launches, copies and device times (issue 8), inside PT_REC_RANGE_GPU.
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

/* Kernel profiles (issue 20): counters instrument.so puts inside kernels
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
/* OpenMP (issue 18), inside PT_REC_RANGE_OPENMP. docs/FORMAT.md "OpenMP
 * records" and docs/OPENMP.md describe them. Written from OMPT callbacks
 * (LLVM's libomp) or from the GOMP_* wrappers (GNU libgomp), never both for
 * one program. Code locations are numbered per process: OMP_LOC_DEF (process
 * log) gives location `loc` its code address, once, before or after the
 * records that use it; 0 = unknown. A parallel region instance is a process-
 * unique id; an explicit task is PT_OMP_TASK_EXPLICIT | loc << 40 | a
 * process-unique sequence number, so a thread that runs it knows where it
 * was created; an implicit task (a thread of a region's team) is its
 * region's id, 0 the initial task. */
enum pt_omp_runtime {
	PT_OMP_RUNTIME_OMPT = 1, /* OMPT tool interface (LLVM libomp, Intel) */
	PT_OMP_RUNTIME_GOMP = 2, /* GOMP_* entry points interposed (GNU libgomp) */
};
#define PT_OMP_TASK_EXPLICIT (1ull << 63)
#define PT_OMP_LOC_SHIFT 40
#define PT_OMP_LOC_MAX 0x7fffffu /* the largest location a task id holds */
static inline uint32_t pt_omp_task_loc(uint64_t task)
{
	return (uint32_t)(task >> PT_OMP_LOC_SHIFT) & PT_OMP_LOC_MAX;
}

typedef struct pt_rec_omp_loc {
	uint32_t loc;     /* 1..PT_OMP_LOC_MAX */
	uint32_t flags;   /* PT_OMP_LOC_*, and the construct: PT_OMP_LOC_CONSTRUCT */
	uint64_t codeptr; /* where the construct is: a return address in its code */
	uint64_t fn;      /* its outlined body (GOMP_*: the function the runtime runs), 0 if unknown */
} pt_rec_omp_loc;
#define PT_OMP_LOC_RETURN_ADDRESS 0x1 /* codeptr is a return address (look up codeptr - 1) */
/* What construct is there, as the first record that used the location
 * says: that record's kind in bits 8..15 (OMP_PARALLEL_BEGIN,
 * OMP_WORK_BEGIN, OMP_WAIT_BEGIN, OMP_TASK_CREATE) and its arg (the
 * construct, the sync kind) in bits 16..23. */
#define PT_OMP_LOC_CONSTRUCT(kind, arg) ((uint32_t)(kind) << 8 | ((uint32_t)(arg)&0xff) << 16)
static inline unsigned pt_omp_loc_kind(uint32_t flags)
{
	return flags >> 8 & 0xff;
}
static inline unsigned pt_omp_loc_arg(uint32_t flags)
{
	return flags >> 16 & 0xff;
}
#define PT_FIELDS_OMP_LOC_DEF(T, F, A, S, C) \
	F(T, U, "loc", loc, "") C(omp_loc_flags, "construct= [return_address]") \
	F(T, PC, "code", codeptr, "") F(T, PC, "fn", fn, "")

/* OMP_PARALLEL_BEGIN/END, on the thread that encounters the region (the
 * master of its team). */
typedef struct pt_rec_omp_parallel {
	uint64_t id;        /* process-unique, > 0 */
	uint32_t loc;
	uint16_t requested; /* BEGIN: team size asked for (num_threads, nthreads-var) */
	uint16_t flags;     /* PT_OMP_PAR_* */
} pt_rec_omp_parallel;
#define PT_OMP_PAR_LOOP 0x1     /* combined parallel loop (GOMP_parallel_loop_*) */
#define PT_OMP_PAR_SECTIONS 0x2 /* combined parallel sections */
#define PT_OMP_PAR_TEAMS 0x4    /* a teams construct (OMPT league) */
#define PT_OMP_RUNTIME_NAMES "|ompt|gomp"
#define PT_FIELDS_OMP_PARALLEL_BEGIN(T, F, A, S, C) \
	A(ENUM, "runtime", PT_OMP_RUNTIME_NAMES) F(T, U, "id", id, "") F(T, U, "loc", loc, "") \
	F(T, U, "requested", requested, "") F(T, FLAGS, "flags", flags, "loop|sections|teams")
#define PT_FIELDS_OMP_PARALLEL_END(T, F, A, S, C) \
	A(ENUM, "runtime", PT_OMP_RUNTIME_NAMES) F(T, U, "id", id, "") F(T, U, "loc", loc, "")

/* OMP_IMPLICIT_BEGIN/END: this thread runs its part of region `parallel`
 * (thread `index` of a team of `team`). */
typedef struct pt_rec_omp_implicit {
	uint64_t parallel;
	uint32_t loc;
	uint16_t team;
	uint16_t index;
} pt_rec_omp_implicit;
#define PT_FIELDS_OMP_IMPLICIT_BEGIN(T, F, A, S, C) \
	F(T, U, "parallel", parallel, "") F(T, U, "loc", loc, "") F(T, U, "team", team, "") \
	F(T, U, "index", index, "")
#define PT_FIELDS_OMP_IMPLICIT_END(T, F, A, S, C) \
	F(T, U, "parallel", parallel, "") F(T, U, "loc", loc, "")

/* Work-sharing constructs: arg = enum pt_omp_work + 16 * enum
 * pt_omp_sched. OMP_WORK_END's arg is the construct alone. */
enum pt_omp_work {
	PT_OMP_WORK_LOOP = 1, /* the values of OMPT's ompt_work_t */
	PT_OMP_WORK_SECTIONS = 2,
	PT_OMP_WORK_SINGLE_EXECUTOR = 3,
	PT_OMP_WORK_SINGLE_OTHER = 4,
	PT_OMP_WORK_WORKSHARE = 5,
	PT_OMP_WORK_DISTRIBUTE = 6,
	PT_OMP_WORK_TASKLOOP = 7,
	PT_OMP_WORK_SCOPE = 8,
	PT_OMP_WORK_MASKED = 9, /* masked / master (OMPT's masked callback) */
};
enum pt_omp_sched {
	PT_OMP_SCHED_UNKNOWN = 0,
	PT_OMP_SCHED_STATIC = 1,
	PT_OMP_SCHED_DYNAMIC = 2,
	PT_OMP_SCHED_GUIDED = 3,
	PT_OMP_SCHED_RUNTIME = 4, /* schedule(runtime), or auto */
};
#define PT_OMP_WORK_NAMES "|loop|sections|single|single_other|workshare|distribute|taskloop|scope|masked"
#define PT_OMP_SCHED_NAMES "?|static|dynamic|guided|runtime"
typedef struct pt_rec_omp_work {
	uint64_t count; /* loop: iterations of the whole loop; sections: sections; 0 unknown */
	uint32_t loc;
	uint32_t chunk; /* the schedule's chunk size, 0 = none given */
} pt_rec_omp_work;
#define PT_FIELDS_OMP_WORK_BEGIN(T, F, A, S, C) \
	C(omp_work_arg, "construct= schedule=") F(T, U, "count", count, "") \
	F(T, U, "loc", loc, "") F(T, U, "chunk", chunk, "")
#define PT_FIELDS_OMP_WORK_END(T, F, A, S, C) A(ENUM, "construct", PT_OMP_WORK_NAMES)

/* OMP_CHUNK: a loop chunk this thread got from the runtime (dynamic,
 * guided, runtime and ordered schedules: one per dispatch). */
typedef struct pt_rec_omp_chunk {
	int64_t first;  /* first iteration (the loop variable's value) */
	uint64_t count; /* iterations */
} pt_rec_omp_chunk;
#define PT_FIELDS_OMP_CHUNK(T, F, A, S, C) F(T, I, "first", first, "") F(T, U, "count", count, "")

/* Synchronization: OMP_WAIT_BEGIN/END around the time a thread waits in a
 * barrier, taskwait or taskgroup, spinning included (OMPT's
 * sync_region_wait; the whole call of a GOMP_* one); tasks may run in
 * between. arg = enum pt_omp_sync (OMPT's ompt_sync_region_t values).
 * Kinds 0x68 and 0x69 are unused. */
enum pt_omp_sync {
	PT_OMP_SYNC_BARRIER = 1,
	PT_OMP_SYNC_BARRIER_IMPLICIT = 2, /* OMPT 5.0's implicit barrier */
	PT_OMP_SYNC_BARRIER_EXPLICIT = 3,
	PT_OMP_SYNC_BARRIER_IMPLEMENTATION = 4,
	PT_OMP_SYNC_TASKWAIT = 5,
	PT_OMP_SYNC_TASKGROUP = 6,
	PT_OMP_SYNC_REDUCTION = 7,
	PT_OMP_SYNC_BARRIER_IMPLICIT_WORKSHARE = 8,
	PT_OMP_SYNC_BARRIER_IMPLICIT_PARALLEL = 9,
	PT_OMP_SYNC_BARRIER_TEAMS = 10,
};
static inline int pt_omp_sync_is_barrier(unsigned kind)
{
	return kind <= PT_OMP_SYNC_BARRIER_IMPLEMENTATION || kind >= PT_OMP_SYNC_BARRIER_IMPLICIT_WORKSHARE;
}
#define PT_OMP_SYNC_NAMES \
	"|barrier|implicit_barrier|barrier|implementation_barrier|taskwait|taskgroup|reduction|" \
	"implicit_barrier|implicit_barrier|teams_barrier"
typedef struct pt_rec_omp_sync {
	uint32_t loc;
	uint32_t pad;
} pt_rec_omp_sync;
#define PT_FIELDS_OMP_WAIT_BEGIN(T, F, A, S, C) \
	A(ENUM, "kind", PT_OMP_SYNC_NAMES) F(T, U, "loc", loc, "")
#define PT_FIELDS_OMP_WAIT_END(T, F, A, S, C) A(ENUM, "kind", PT_OMP_SYNC_NAMES)

/* Explicit tasks. TASK_CREATE on the creating thread; TASK_SCHEDULE where
 * a thread switches from task `prior` (arg: its status) to task `next`. */
typedef struct pt_rec_omp_task_create {
	uint64_t task;
	uint32_t flags; /* OMPT's ompt_task_flag_t: 0x4 explicit, 0x8000000 undeferred, ... */
	uint32_t deps;  /* has dependences (GOMP_*: how many) */
} pt_rec_omp_task_create;
#define PT_FIELDS_OMP_TASK_CREATE(T, F, A, S, C) \
	F(T, X, "task", task, "") F(T, X, "flags", flags, "") F(T, U, "deps", deps, "")
enum pt_omp_task_status {
	PT_OMP_TASK_COMPLETE = 1, /* OMPT's ompt_task_status_t */
	PT_OMP_TASK_YIELD = 2,
	PT_OMP_TASK_CANCEL = 3,
	PT_OMP_TASK_DETACH = 4,
	PT_OMP_TASK_EARLY_FULFILL = 5,
	PT_OMP_TASK_LATE_FULFILL = 6,
	PT_OMP_TASK_SWITCH = 7,
	PT_OMP_TASK_TASKWAIT_COMPLETE = 8,
};
typedef struct pt_rec_omp_task_schedule {
	uint64_t prior;
	uint64_t next;
} pt_rec_omp_task_schedule;
#define PT_FIELDS_OMP_TASK_SCHEDULE(T, F, A, S, C) \
	A(ENUM, "status", "|complete|yield|cancel|detach|early_fulfill|late_fulfill|switch|" \
	                  "taskwait_complete") \
	F(T, X, "prior", prior, "") F(T, X, "next", next, "")
/* arg 0: task `a` has `b` dependences; arg 1: task `b` depends on task `a`. */
typedef struct pt_rec_omp_task_depend {
	uint64_t a;
	uint64_t b;
} pt_rec_omp_task_depend;
#define PT_FIELDS_OMP_TASK_DEPEND(T, F, A, S, C) \
	A(ENUM, "what", "count|edge") F(T, X, "a", a, "") F(T, X, "b", b, "")

/* Calls that change how later regions run: arg = enum pt_omp_control. */
enum pt_omp_control {
	PT_OMP_SET_NUM_THREADS = 1,
	PT_OMP_SET_DYNAMIC = 2,
	PT_OMP_SET_MAX_ACTIVE_LEVELS = 3,
	PT_OMP_SET_SCHEDULE = 4, /* value = kind, value2 = chunk */
};
typedef struct pt_rec_omp_control {
	int64_t value;
	int64_t value2;
} pt_rec_omp_control;
#define PT_FIELDS_OMP_CONTROL(T, F, A, S, C) \
	A(ENUM, "what", "|set_num_threads|set_dynamic|set_max_active_levels|set_schedule") \
	F(T, I, "value", value, "") F(T, I, "value2", value2, "")
/* MPI (issue 17), inside PT_REC_RANGE_MPI; docs/FORMAT.md "MPI records" and
 * docs/MPI.md describe them. The calls (arg of every thread record) are
 * PT_MPI_CALL_* of <paratrace/mpi_calls.h>; ranks are ranks in
 * MPI_COMM_WORLD ("world ranks"), whatever communicator the call used;
 * communicators are ids that every process of the job gives the same
 * communicator (MPI_COMM_DEF).
 *
 * Process log:
 *   MPI_JOB       at start, when the launcher's environment (mpirun, srun)
 *                 says which process of a job this is
 *   MPI_INIT      once MPI_Init or MPI_Init_thread has returned
 *   MPI_CLOCK     the synchronisation of this process's clock with rank
 *                 0's, at MPI_Init (arg 0) and at MPI_Finalize (arg 1)
 *   MPI_COMM_DEF  a communicator, when first seen (created or used)
 *   MPI_UNTRACED  at the end, in a rank none of whose MPI calls was traced:
 *                 why, as the runtime sees it
 * Thread log of the calling thread:
 *   MPI_CALL ... MPI_CALL_END around every traced MPI call, and just
 *   before its end what the call moved: MPI_SEND (a message sent),
 *   MPI_IRECV (a receive posted), MPI_RECV (a message received, by the
 *   call that completed it: MPI_Recv or the Wait/Test that found its
 *   request done), MPI_COLL, MPI_RMA, MPI_IO; only for a call that
 *   succeeded (3.2; 3.1 wrote a blocking call's at its begin, failed or
 *   not): a call that returned an error moved nothing and says so
 *   (MPI_ERROR). */
typedef struct pt_rec_mpi_job {
	int32_t rank; /* in the job, as the launcher's environment says */
	uint32_t size;
	uint32_t launcher; /* PT_MPI_LAUNCHER_* */
	uint32_t world;    /* 3.2: the header's job_world (0 before) */
	/* followed by the host name */
} pt_rec_mpi_job;
/* One run can hold several jobs, "worlds": the one its launcher started
 * (world 0) and those MPI_Comm_spawn started (1, 2...), each with an
 * MPI_COMM_WORLD of its own. A rank in a record (peer, root, target, the
 * members of MPI_COMM_DEF) is a job rank: world << 24 | its rank in that
 * world's MPI_COMM_WORLD; in world 0 the world rank itself. */
#define PT_MPI_WORLD_SHIFT 24
#define PT_MPI_WORLDS_MAX 127
#define PT_MPI_JOB_RANK(world, rank) ((int32_t)((uint32_t)(world) << PT_MPI_WORLD_SHIFT | (uint32_t)(rank)))
#define PT_MPI_LAUNCHER_OPENMPI 1
#define PT_MPI_LAUNCHER_PMIX 2
#define PT_MPI_LAUNCHER_SLURM 3
#define PT_FIELDS_MPI_JOB(T, F, A, S, C) \
	F(T, I, "rank", rank, "") F(T, U, "size", size, "") \
	F(T, ENUM, "launcher", launcher, "|openmpi|pmix|slurm") F(T, U, "world", world, "") \
	S(sizeof(T), PLAIN)

typedef struct pt_rec_mpi_init {
	int32_t rank; /* in MPI_COMM_WORLD */
	uint32_t size;
	int32_t required; /* MPI_Init_thread's thread level (0 single .. 3 multiple); MPI_Init: -1 */
	int32_t provided; /* the level the library gave */
	uint32_t flags;   /* PT_MPI_INIT_* */
	uint32_t world;   /* 3.2: the job's world (PT_MPI_JOB_RANK); 0 before */
	/* followed by the host name */
} pt_rec_mpi_init;
#define PT_MPI_INIT_FORTRAN 0x1 /* through the Fortran entry point */
#define PT_FIELDS_MPI_INIT(T, F, A, S, C) \
	F(T, I, "rank", rank, "") F(T, U, "size", size, "") F(T, I, "required", required, "") \
	F(T, I, "provided", provided, "") F(T, FLAGS, "flags", flags, "fortran") \
	F(T, U, "world", world, "") S(sizeof(T), PLAIN)

/* One point of the mapping from this process's clock to rank 0's: at
 * local_ns (CLOCK_MONOTONIC here), rank 0's CLOCK_MONOTONIC read ref_ns.
 * Measured by `rounds` ping-pongs with rank 0 (more while they are slow),
 * keeping the one with the shortest round trip (the error is at most half
 * of it). Rank 0: ref = local. */
typedef struct pt_rec_mpi_clock {
	uint64_t local_ns;
	uint64_t ref_ns;
	uint64_t rtt_ns;
	uint32_t rounds; /* ping-pongs made */
	uint32_t pad;
} pt_rec_mpi_clock;
#define PT_FIELDS_MPI_CLOCK(T, F, A, S, C) \
	A(ENUM, "at", "init|finalize") F(T, U, "local_ns", local_ns, "") \
	F(T, U, "ref_ns", ref_ns, "") F(T, U, "rtt_ns", rtt_ns, "") F(T, U, "rounds", rounds, "")

typedef struct pt_rec_mpi_comm_def {
	uint64_t comm;        /* its id, the same in every process that has it */
	uint32_t local_size;  /* processes in it (intercommunicator: its local group) */
	uint32_t remote_size; /* an intercommunicator's remote group; 0 otherwise */
	uint32_t flags;       /* PT_MPI_COMM_* */
	int32_t rank;         /* this process's rank in it */
	/* followed by int32_t world[local_size + remote_size]: the world rank
	 * of each of its ranks, then of each rank of the remote group */
} pt_rec_mpi_comm_def;
#define PT_MPI_COMM_WORLD_ID 1 /* MPI_COMM_WORLD's id */
#define PT_MPI_COMM_SELF_ID 2  /* MPI_COMM_SELF's, in every process */
#define PT_MPI_COMM_INTER 0x1
/* Not seen created (made by a call the runtime does not wrap, or
 * MPI_Comm_idup): its id is made when first used, and two processes may
 * give it different ids. */
#define PT_MPI_COMM_LATE 0x2
#define PT_FIELDS_MPI_COMM_DEF(T, F, A, S, C) \
	F(T, X, "comm", comm, "") F(T, U, "local", local_size, "") \
	F(T, U, "remote", remote_size, "") F(T, FLAGS, "flags", flags, "inter|late") \
	F(T, I, "rank", rank, "") C(mpi_comm_ranks, "world=r,r,...")

/* MPI_SEND, MPI_RECV, MPI_IRECV. */
typedef struct pt_rec_mpi_msg {
	int32_t peer; /* world rank of the destination or source; -1 any (MPI_IRECV) */
	int32_t tag;  /* -1: any (MPI_IRECV) */
	uint64_t bytes; /* sent, received, or room posted (MPI_IRECV) */
	uint64_t comm;
	uint64_t request; /* of a non-blocking or persistent call; 0 for a blocking one */
	/* MPI_RECV: ticks when the receive was posted (its MPI_Recv, MPI_Irecv
	 * or MPI_Start began); 0 otherwise */
	uint64_t posted;
} pt_rec_mpi_msg;
_Static_assert(sizeof(pt_rec_mpi_msg) == 40, "pt_rec_mpi_msg layout");
#define PT_FIELDS_MPI_MSG_(T, F, A, S, C) \
	C(mpi_call, "call=MPI_..") F(T, I, "peer", peer, "") F(T, I, "tag", tag, "") \
	F(T, U, "bytes", bytes, "") F(T, X, "comm", comm, "") F(T, X, "request", request, "")
#define PT_FIELDS_MPI_SEND PT_FIELDS_MPI_MSG_
#define PT_FIELDS_MPI_IRECV PT_FIELDS_MPI_MSG_
#define PT_FIELDS_MPI_RECV(T, F, A, S, C) \
	PT_FIELDS_MPI_MSG_(T, F, A, S, C) C(mpi_posted, "posted=<ns before this record>")

#define PT_FIELDS_MPI_CALL(T, F, A, S, C) C(mpi_call, "call=MPI_..")
#define PT_FIELDS_MPI_CALL_END PT_FIELDS_MPI_CALL

typedef struct pt_rec_mpi_coll {
	uint64_t comm;
	int32_t root;  /* world rank of the root; -1 none */
	uint32_t size; /* processes of the communicator (remote group for an intercommunicator) */
	uint64_t sent; /* bytes this process gives to the operation */
	uint64_t recvd; /* bytes it gets from it */
	uint64_t request; /* a non-blocking collective's request; 0 */
} pt_rec_mpi_coll;
_Static_assert(sizeof(pt_rec_mpi_coll) == 40, "pt_rec_mpi_coll layout");
#define PT_FIELDS_MPI_COLL(T, F, A, S, C) \
	C(mpi_call, "call=MPI_..") F(T, X, "comm", comm, "") F(T, I, "root", root, "") \
	F(T, U, "size", size, "") F(T, U, "sent", sent, "") F(T, U, "recvd", recvd, "") \
	F(T, X, "request", request, "")

typedef struct pt_rec_mpi_rma {
	int32_t target; /* world rank; -1 none (window-wide operations) */
	uint32_t pad;
	uint64_t bytes;
	uint64_t win; /* window handle */
} pt_rec_mpi_rma;
#define PT_FIELDS_MPI_RMA(T, F, A, S, C) \
	C(mpi_call, "call=MPI_..") F(T, I, "target", target, "") F(T, U, "bytes", bytes, "") \
	F(T, X, "win", win, "")

typedef struct pt_rec_mpi_io {
	uint64_t bytes; /* asked to read or write */
	uint64_t file;  /* MPI_File handle */
} pt_rec_mpi_io;
#define PT_FIELDS_MPI_IO(T, F, A, S, C) \
	C(mpi_call, "call=MPI_..") F(T, U, "bytes", bytes, "") F(T, X, "file", file, "")

/* The call returned an error (MPI_ERRORS_RETURN or another handler that
 * returns): written just before its MPI_CALL_END. Nothing the call would
 * have moved is recorded, except the receives that a Wait/Test family
 * call completed before it returned MPI_ERR_IN_STATUS. */
typedef struct pt_rec_mpi_error {
	int32_t code;        /* what the call returned */
	int32_t error_class; /* MPI_Error_class of it; -1 unknown */
	/* followed by the library's MPI_Error_string of it */
} pt_rec_mpi_error;
#define PT_FIELDS_MPI_ERROR(T, F, A, S, C) \
	C(mpi_call, "call=MPI_..") F(T, I, "code", code, "") F(T, I, "class", error_class, "") \
	S(sizeof(T), PLAIN)

/* A process the launcher started as a rank of a job (MPI_JOB) ended and no
 * MPI call of it was traced: what the runtime found, for the analyzer's
 * warning. */
typedef struct pt_rec_mpi_untraced {
	uint32_t why; /* PT_MPI_UNTRACED_* */
	uint32_t pad;
	/* followed by the path of the object that defines PMPI_Init ("" none) */
} pt_rec_mpi_untraced;
/* No MPI library among the process's objects: the program does not use
 * MPI, or links it statically without exporting it. */
#define PT_MPI_UNTRACED_NO_LIBRARY 1
/* An MPI library is loaded, but no call reached libtrace.so's MPI_*: the
 * program calls the PMPI_* entry points itself, or its MPI calls are bound
 * inside one object (MPI linked statically, -Bsymbolic). */
#define PT_MPI_UNTRACED_BYPASSED 2
/* The MPI library is not Open MPI: its calls were passed on untraced. */
#define PT_MPI_UNTRACED_OTHER_MPI 3
#define PT_FIELDS_MPI_UNTRACED(T, F, A, S, C) \
	F(T, ENUM, "why", why, "|no_library|bypassed|other_mpi") S(sizeof(T), PLAIN)

/* Payload of a record, or NULL if the record is too small for it. */
#define PT_REC_PAYLOAD(head, type) \
	(pt_rec_size(head) >= sizeof(pt_rec_head) + sizeof(type) \
		 ? (const type *)(const void *)((const pt_rec_head *)(head) + 1) \
		 : (const type *)NULL)

/* A lock record's payload, the optional result filled in (0 when absent).
 * Returns out, or NULL if the record is too small to hold the object. */
static inline const pt_rec_lock *pt_rec_lock_get(const pt_rec_head *h, pt_rec_lock *out)
{
	const pt_rec_lock *l = PT_REC_PAYLOAD(h, pt_rec_lock);
	if (l) {
		*out = *l;
		return out;
	}
	const uint64_t *obj = PT_REC_PAYLOAD(h, uint64_t);
	if (!obj)
		return NULL;
	out->object = *obj;
	out->result = 0;
	out->pad = 0;
	return out;
}

/* Size of a record with `payload` bytes of payload, rounded up to 8. */
static inline size_t pt_rec_size_for(size_t payload)
{
	return (sizeof(pt_rec_head) + payload + 7) & ~(size_t)7;
}

#define PT_REC_MAX_SIZE ((size_t)0xffff * 8)

/* Bytes of a record of kind NAME with its smallest payload (the schema's):
 * the size of every record of a fixed-size kind (TIME, LOST, CLOSE...). */
enum pt_rec_sizes {
#define PT_REC_SCHEMA_SIZE_(name, value, type, min, ...) \
	PT_REC_SIZE_##name = (int)((sizeof(pt_rec_head) + (min) + 7) / 8 * 8),
	PT_REC_SCHEMA(PT_REC_SCHEMA_SIZE_)
#undef PT_REC_SCHEMA_SIZE_
};
#define PT_REC_SIZE(name) ((size_t)PT_REC_SIZE_##name)

#ifdef __cplusplus
}
#endif

#endif /* PARATRACE_FORMAT_H */
