/* SPDX-License-Identifier: MIT */
/* paratrace log format, records of file I/O and dynamic memory calls
 * (PT_REC_RANGE_IO). This family's rows of the record schema
 * (PT_REC_ROWS_IO), payload structs, their dump fields and constants.
 * <paratrace/format.h> includes it: include that, not this. */
#ifndef PARATRACE_FORMAT_IO_H
#define PARATRACE_FORMAT_IO_H

#ifndef PARATRACE_FORMAT_H
#error "include <paratrace/format.h>, not <paratrace/format/io.h>"
#endif

#define PT_REC_ROWS_IO(X) \
	/* File I/O (arg = PT_IO_OP_*): IO_CALL when the call begins, IO_END \
	 * when it returns, in the calling thread's log; IO_FILE names a file \
	 * once per open, in the process log. */ \
	X(IO_CALL, 0x50, pt_rec_io_call, sizeof(pt_rec_io_call), 0, "thread", "call", "") \
	X(IO_END, 0x51, pt_rec_io_end, PT_REC_IO_END_MIN, 0, "thread", "call", \
	  "[, file, errno (an open, a failure)]") \
	X(IO_FILE, 0x52, pt_rec_io_file, sizeof(pt_rec_io_file), 0, "process", "–", \
	  "+ the file's name") \
	/* Dynamic memory (arg = PT_MEM_OP_*): one record per call, when it \
	 * returns, in the calling thread's log. */ \
	X(MEM_ALLOC, 0x53, pt_rec_mem_alloc, PT_REC_MEM_ALLOC_MIN, 0, "thread", "call", \
	  "[, old pointer (realloc)]") \
	X(MEM_FREE, 0x54, pt_rec_mem_free, sizeof(pt_rec_mem_free), 0, "thread", "call", "")

/* The I/O calls: Extrae's values of its type 40000004 where it has one. */
enum pt_io_op {
	PT_IO_OP_READ = 1,
	PT_IO_OP_WRITE = 2,
	PT_IO_OP_FREAD = 3,
	PT_IO_OP_FWRITE = 4,
	PT_IO_OP_PREAD = 5,
	PT_IO_OP_PWRITE = 6,
	PT_IO_OP_READV = 7,
	PT_IO_OP_WRITEV = 8,
	PT_IO_OP_PREADV = 9,
	PT_IO_OP_PWRITEV = 10,
	PT_IO_OP_OPEN = 11, /* open, openat, creat and their 64 variants */
	PT_IO_OP_FOPEN = 12,
	PT_IO_OP_IOCTL = 13,
	PT_IO_OP_CLOSE = 14,
	PT_IO_OP_FCLOSE = 15,
	PT_IO_OP_FSYNC = 16, /* ours from here */
	PT_IO_OP_FDATASYNC = 17,
	PT_IO_OP_FDOPEN = 18,
	PT_IO_OP_COUNT
};
#define PT_IO_OP_NAMES \
	"|read|write|fread|fwrite|pread|pwrite|readv|writev|preadv|pwritev|open|fopen|ioctl|" \
	"close|fclose|fsync|fdatasync|fdopen"
/* Which calls move data, and which way. */
static inline int pt_io_op_reads(unsigned op)
{
	return op == PT_IO_OP_READ || op == PT_IO_OP_FREAD || op == PT_IO_OP_PREAD ||
	       op == PT_IO_OP_READV || op == PT_IO_OP_PREADV;
}
static inline int pt_io_op_writes(unsigned op)
{
	return op == PT_IO_OP_WRITE || op == PT_IO_OP_FWRITE || op == PT_IO_OP_PWRITE ||
	       op == PT_IO_OP_WRITEV || op == PT_IO_OP_PWRITEV;
}

/* A call begins: the descriptor (-1: none yet, an open; a stream without
 * one), the file it names in this process (IO_FILE's id; 0: not known,
 * an open) and the bytes asked (0 for calls that move none). */
typedef struct pt_rec_io_call {
	uint64_t size;
	int32_t fd;
	uint32_t file;
} pt_rec_io_call;
#define PT_FIELDS_IO_CALL(T, F, A, S, C) \
	A(ENUM, "call", PT_IO_OP_NAMES) F(T, I, "fd", fd, "") F(T, U, "file", file, "") \
	F(T, U, "size", size, "")

/* It returned: bytes moved (for fread/fwrite, items times the item size),
 * the descriptor an open gave, 0 or the call's value otherwise; -1 when it
 * failed. The record stops after result (16 bytes, the common case) unless
 * the call failed (err, the errno) or was an open that named its file. */
typedef struct pt_rec_io_end {
	int64_t result;
	uint32_t file;
	int32_t err;
} pt_rec_io_end;
#define PT_REC_IO_END_MIN 8
#define PT_FIELDS_IO_END(T, F, A, S, C) \
	A(ENUM, "call", PT_IO_OP_NAMES) F(T, I, "result", result, "") \
	F(T, U, "file", file, "") F(T, I, "errno", err, "")

/* A file, named once: when the program opens it, or when an I/O call first
 * meets a descriptor the runtime did not see opened (standard streams, a
 * dup, a pipe, a socket: then the name the kernel gives it, such as
 * "pipe:[1234]"). Ids count from 1 in each process. */
typedef struct pt_rec_io_file {
	uint32_t file;
	int32_t fd;
	/* followed by the NUL-terminated name */
} pt_rec_io_file;
#define PT_FIELDS_IO_FILE(T, F, A, S, C) \
	F(T, U, "file", file, "") F(T, I, "fd", fd, "") S(sizeof(T), PLAIN)

/* The memory calls: Extrae's values of its type 40000040 where it has one. */
enum pt_mem_op {
	PT_MEM_OP_MALLOC = 1,
	PT_MEM_OP_FREE = 2,
	PT_MEM_OP_REALLOC = 3,
	PT_MEM_OP_CALLOC = 4,
	PT_MEM_OP_POSIX_MEMALIGN = 5,
	PT_MEM_OP_ALIGNED_ALLOC = 6, /* ours from here */
	PT_MEM_OP_MEMALIGN = 7,
	PT_MEM_OP_VALLOC = 8,
	PT_MEM_OP_COUNT
};
#define PT_MEM_OP_NAMES \
	"|malloc|free|realloc|calloc|posix_memalign|aligned_alloc|memalign|valloc"

/* An allocation returned: the block (0: it failed), the bytes asked
 * (calloc: both factors multiplied) and the return address in its caller.
 * A realloc also gives the block it was handed (old, 0 for none), which
 * it freed when ptr is not 0 and differs from it, or kept resized. */
typedef struct pt_rec_mem_alloc {
	uint64_t ptr;
	uint64_t size;
	uint64_t caller;
	uint64_t old; /* realloc only: the record is 8 bytes longer */
} pt_rec_mem_alloc;
#define PT_REC_MEM_ALLOC_MIN 24
#define PT_FIELDS_MEM_ALLOC(T, F, A, S, C) \
	A(ENUM, "call", PT_MEM_OP_NAMES) F(T, X, "ptr", ptr, "") F(T, U, "size", size, "") \
	F(T, PC, "caller", caller, "") F(T, X, "old", old, "")

/* free(ptr); free(NULL) too, since the program made the call. */
typedef struct pt_rec_mem_free {
	uint64_t ptr;
} pt_rec_mem_free;
#define PT_FIELDS_MEM_FREE(T, F, A, S, C) A(ENUM, "call", PT_MEM_OP_NAMES) F(T, X, "ptr", ptr, "")

#endif
