/* SPDX-License-Identifier: MIT */
/* paratrace log format: the only contract between the runtime (writer) and the
 * reader. Both include this header; nothing else defines a record layout.
 * Human-readable description: docs/FORMAT.md (keep the two in step).
 *
 * This header holds the file header, the record head, the record schema and
 * the core records (function entry and exit, time, lost data, close) with
 * the compact and short forms; each family of records (threads, sync,
 * samples, GPU, OpenMP, MPI...) has its rows, payloads and encoders in
 * <paratrace/format/<family>.h>, included below.
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
 * (PT_MPI_JOB_RANK).
 * 3.3: compact MPI records (format/mpi.h, "Compact MPI records": kinds
 * 0x26, 0x27, 0x3c-0x3f as the first byte of a word with PT_COMPACT_FLAG);
 * a blocking receive's MPI_RECV posted at its MPI_CALL's time. THROTTLE and
 * THROTTLE_COUNTS (format/throttle.h): functions the runtime stopped
 * recording on a thread, and their calls counted since. File I/O and
 * dynamic memory calls (format/io.h, PT_REC_RANGE_IO, carved out of the GPU
 * range's unused upper half). The off-CPU records (format/offcpu.h,
 * OFFCPU and OFFCPU_SOURCE: kinds 0x28 and 0x29, taken from the range kept
 * for families outside the product).
 * 3.4: MPI_JOB's launcher PT_MPI_LAUNCHER_HYDRA (MPICH's mpiexec); the
 * calls MPI_File_iread_all, _iwrite_all, _iread_at_all, _iwrite_at_all
 * (245-248, <paratrace/mpi_calls.h>); the same records from programs on
 * MPICH-ABI libraries.
 * 3.5: MPI_FILE (format/mpi.h: kind 0x2c, taken from the range kept for
 * families outside the product), the file an MPI_File handle names; the
 * Fortran MPI-IO calls' MPI_IO records; compact I/O and memory
 * records (format/io.h, "Compact I/O and memory records": kinds 0x38-0x3b
 * as the first byte of a word with PT_COMPACT_FLAG); MPI_DONE and its
 * compact form MPI_DONE_C (kinds 0x2e, 0x2f, from the same range as
 * MPI_FILE): the Wait/Test call that completed a non-blocking send's or
 * collective's request.
 * 3.6: repeated MPI records (format/mpi.h, "Repeated MPI records": kinds
 * 0x34-0x37 as the first byte of a word with PT_COMPACT_FLAG), a message
 * or collective equal to the file's previous one of its kind in 4 bytes.
 * 3.7: MEM_FREE_S (format/io.h: kind 0x2d as the first byte of a word with
 * PT_COMPACT_FLAG, from the same range as MPI_FILE), the free of the block
 * the file's last MEM_ALLOC returned in 4 bytes.
 * 3.8: FUNC_LANDED (kind 0x55, taken from the I/O range's free kinds): a
 * longjmp landed in a recorded call, which goes on (no new call). 3.7 and
 * older runtimes wrote "FUNC_EXIT id, FUNC_ENTER id" there, which a reader
 * cannot tell from a return and a new call when the longjmp skipped no
 * recorded frame. */
#define PT_FORMAT_VERSION_MAJOR 3
#define PT_FORMAT_VERSION_MINOR 8
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
 * this, in the order of the kinds; a test fails when the two differ).
 *
 *   X(NAME, value, payload type, min payload, per arg, file, arg, payload note)
 *
 * payload type: the struct after the head (void: none, or only a string or
 * an array). min payload: bytes after the head the reader requires of a
 * record of this kind (a smaller one is damage), plus `per arg` bytes per
 * unit of the head's arg (arrays of arg elements). file, arg, payload note:
 * for the documentation.
 *
 * The rows are kept by family: the core records' (PT_REC_ROWS_CORE) here,
 * each family's (PT_REC_ROWS_<FAMILY>) with its payloads in
 * <paratrace/format/<family>.h>; PT_REC_SCHEMA, below the includes, strings
 * them together. Adding a kind: a row in its family's rows, its payload
 * struct and its PT_FIELDS_<NAME> beside them; then `pt_format_doc --update
 * docs/FORMAT.md` (see FORMAT.md). A kind added in the reserved ranges needs
 * no major version change. Adding a family: its header in format/, its
 * #include and its rows' line in PT_REC_SCHEMA below. */
#define PT_REC_ROWS_CORE(X) \
	/* Hot path: id = arg | size8 << 8 (24 bits; 0 is never used). */ \
	X(FUNC_ENTER, 1, void, 0, 0, "thread", "id bits 0..7", \
	  "none: 8 bytes (4 compact, 2 short)") \
	X(FUNC_EXIT, 2, void, 0, 0, "thread", "id bits 0..7", \
	  "none: 8 bytes (4 compact, 2 short)") \
	/* -finstrument-functions builds: the function's address. */ \
	X(FUNC_ENTER_PC, 3, pt_rec_pc, sizeof(pt_rec_pc), 0, "thread", "–", "") \
	X(FUNC_EXIT_PC, 4, pt_rec_pc, sizeof(pt_rec_pc), 0, "thread", "–", "") \
	/* A longjmp landed in the innermost open call of the function (3.8). */ \
	X(FUNC_LANDED, 0x55, pt_rec_landed, sizeof(pt_rec_landed), 0, "thread", "–", \
	  "function id") \
	/* Absolute time; delta is 0. First record of every file, and wherever \
	 * a delta would not fit in 32 bits. */ \
	X(TIME, 5, pt_rec_time, sizeof(pt_rec_time), 0, "all", "–", "absolute ticks") \
	/* Bookkeeping */ \
	/* LOST: data that never reached this file; CLOSE: the clocks at \
	 * close, last record of a complete log. */ \
	X(LOST, 34, pt_rec_lost, sizeof(pt_rec_lost), 0, "any", "–", "") \
	X(CLOSE, 35, pt_clock_pair, sizeof(pt_clock_pair), 0, "any", "–", "")

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

typedef struct pt_rec_time {
	uint64_t ticks;
} pt_rec_time;
#define PT_FIELDS_TIME(T, F, A, S, C) F(T, U, "ticks", ticks, "")

typedef struct pt_rec_pc {
	uint64_t pc; /* run-time address of the function */
} pt_rec_pc;
#define PT_FIELDS_FUNC_ENTER_PC(T, F, A, S, C) F(T, PC, "pc", pc, "")
#define PT_FIELDS_FUNC_EXIT_PC PT_FIELDS_FUNC_ENTER_PC

/* FUNC_LANDED: a longjmp landed in the innermost open call of function id
 * (its FUNC_ENTER's id), where setjmp returned again: every call entered
 * after it has ended at this time without its exit; it goes on, and no new
 * call begins (its FUNC_EXIT is still to come). Written by the hook
 * __paratrace_func_landed2 (docs/ABI.md, "After a longjmp lands"). A
 * record with a payload, so that readers older than 3.8 skip it by its
 * size; the reader delivers its id in ev->func_id too. Not a function
 * record for the short form: neither writer nor reader counts it as the
 * file's previous function record. */
typedef struct pt_rec_landed {
	uint32_t id;
	uint32_t reserved; /* 0 */
} pt_rec_landed;
#define PT_FIELDS_FUNC_LANDED PT_FIELDS_FUNC_ENTER

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

/* Defined once the kinds are known (below the families), but the families'
 * readers (pt_rec_lock_get) use it through PT_REC_PAYLOAD. */
static inline size_t pt_rec_size(const pt_rec_head *h);

/* Payload of a record, or NULL if the record is too small for it. */
#define PT_REC_PAYLOAD(head, type) \
	(pt_rec_size(head) >= sizeof(pt_rec_head) + sizeof(type) \
		 ? (const type *)(const void *)((const pt_rec_head *)(head) + 1) \
		 : (const type *)NULL)

/* The families of records, strung together: each is its #include here and
 * its rows' line in PT_REC_SCHEMA. Rows may come in any order (FORMAT.md's
 * table is printed in the order of the kinds). */
#include <paratrace/format/thread.h>
#include <paratrace/format/user.h>
#include <paratrace/format/sync.h>
#include <paratrace/format/proc.h>
#include <paratrace/format/samples.h>
#include <paratrace/format/gpu.h>
#include <paratrace/format/omp.h>
#include <paratrace/format/mpi.h>
#include <paratrace/format/throttle.h>
#include <paratrace/format/io.h>
#include <paratrace/format/offcpu.h>

/* A family built outside the product (an experiment, tests/toy/): a build
 * of the reader, the runtime and paratrace compiled with
 * -DPT_FORMAT_EXTRA="its_format.h" (cmake/extra_family.cmake) has that
 * header's rows, PT_REC_ROWS_EXTRA, in its schema. Their kinds are in
 * PT_REC_RANGE_EXTRA, which no family of the product uses; any other build
 * skips such records as kinds it does not know. */
#ifdef PT_FORMAT_EXTRA
#include PT_FORMAT_EXTRA
#endif
#ifndef PT_REC_ROWS_EXTRA
#define PT_REC_ROWS_EXTRA(X)
#endif

#define PT_REC_SCHEMA(X) \
	PT_REC_ROWS_CORE(X) \
	PT_REC_ROWS_THREAD(X) \
	PT_REC_ROWS_USER(X) \
	PT_REC_ROWS_SYNC(X) \
	PT_REC_ROWS_PROC(X) \
	PT_REC_ROWS_SAMPLES(X) \
	PT_REC_ROWS_GPU(X) \
	PT_REC_ROWS_OMP(X) \
	PT_REC_ROWS_MPI(X) \
	PT_REC_ROWS_THROTTLE(X) \
	PT_REC_ROWS_IO(X) \
	PT_REC_ROWS_OFFCPU(X) \
	PT_REC_ROWS_EXTRA(X)

enum pt_rec_kind {
	PT_REC_END = 0, /* never a record: end of written data */
#define PT_REC_SCHEMA_ENUM_(name, value, ...) PT_REC_##name = value,
	PT_REC_SCHEMA(PT_REC_SCHEMA_ENUM_)
#undef PT_REC_SCHEMA_ENUM_

	/* Ranges reserved for later parts; the reader skips kinds it does not
	 * know, so a part can add kinds within its range without a major bump. */
	PT_REC_RANGE_OFFCPU_FIRST = 0x28, /* off-CPU stretches */
	PT_REC_RANGE_OFFCPU_LAST = 0x29,
	PT_REC_RANGE_EXTRA_FIRST = 0x2a, /* a family outside the product (PT_FORMAT_EXTRA) */
	PT_REC_RANGE_EXTRA_LAST = 0x2b,  /* 0x2c: MPI_FILE; 0x2e, 0x2f: MPI_DONE(_C) (format/mpi.h);
	                                  * 0x2d: MEM_FREE_S (format/io.h) */
	PT_REC_RANGE_SAMPLING_FIRST = 0x30, /* call stacks, samples */
	PT_REC_RANGE_SAMPLING_LAST = 0x3f,
	PT_REC_RANGE_GPU_FIRST = 0x40, /* GPU launches, copies, device times */
	PT_REC_RANGE_GPU_LAST = 0x4f,
	PT_REC_RANGE_IO_FIRST = 0x50, /* file I/O and dynamic memory calls; 0x55: FUNC_LANDED */
	PT_REC_RANGE_IO_LAST = 0x5f,
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