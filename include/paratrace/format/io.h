/* SPDX-License-Identifier: MIT */
/* paratrace log format, records of file I/O and dynamic memory calls
 * (PT_REC_RANGE_IO, but for 0x55: the core's FUNC_LANDED, format.h). This family's rows of the record schema
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
	X(MEM_FREE, 0x54, pt_rec_mem_free, sizeof(pt_rec_mem_free), 0, "thread", "call", "") \
	/* 3.5: compact forms (see "Compact I/O and memory records" below), \
	 * 4-byte words with their fields after them; readers deliver the \
	 * full record. */ \
	X(MEM_ALLOC_C, 0x38, void, 0, 0, "thread", "–", \
	  "compact only: 20 bytes, read as MEM_ALLOC") \
	X(MEM_FREE_C, 0x39, void, 0, 0, "thread", "–", "compact only: 10 bytes, read as MEM_FREE") \
	X(IO_CALL_C, 0x3a, void, 0, 0, "thread", "–", "compact only: 12 bytes, read as IO_CALL") \
	X(IO_END_C, 0x3b, void, 0, 0, "thread", "–", "compact only: 8 bytes, read as IO_END") \
	/* 3.7 */ \
	X(MEM_FREE_S, 0x2d, void, 0, 0, "thread", "–", \
	  "compact only: 4 bytes, read as MEM_FREE of the block the file's last MEM_ALLOC returned")

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

/* Compact I/O and memory records (3.5). The records of calls in a hot
 * loop, each a little-endian 32-bit word whose first byte is
 * PT_COMPACT_FLAG | kind (a kind below 0x40), at any even offset, its
 * fields right after it (unaligned, little-endian). These four stand alone (no
 * field comes from an earlier record), and readers deliver the full one:
 *   IO_CALL_C    bits 8..12 the call (PT_IO_OP_*), bits 13..31 delta;
 *                uint16 fd, uint16 file, uint32 size -> IO_CALL
 *   IO_END_C     bits 8..12 the call, bits 13..31 delta; uint32 result
 *                -> IO_END of 16 bytes (no file, no errno)
 *   MEM_ALLOC_C  bits 8..11 the call (PT_MEM_OP_*, not realloc), bits
 *                12..31 delta; 48-bit ptr, 48-bit caller, uint32 size
 *                -> MEM_ALLOC of 32 bytes
 *   MEM_FREE_C   bits 8..31 delta; 48-bit ptr -> MEM_FREE (free)
 * A writer uses them when every field fits (descriptor and file id below
 * 65536, sizes and results below 2^32, addresses below 2^48) and the
 * delta too; otherwise the full record. And one that takes its field from
 * the file (3.7):
 *   MEM_FREE_S   bits 8..31 delta -> MEM_FREE (free) of the ptr of the
 *                file's last MEM_ALLOC (either form, any call), which a
 *                reader forgets at a LOST record: a writer uses it only
 *                for that block, and only while no record was lost since
 *                (the block a thread allocated last, freed before the
 *                next allocation: the commonest pair). */
#define PT_IO_C_SHIFT 13
#define PT_MEM_ALLOC_C_SHIFT 12
#define PT_MEM_FREE_C_SHIFT 8
#define PT_MEM_FREE_S_SHIFT 8
#define PT_IO_C_OP_BITS 5
#define PT_MEM_C_OP_BITS 4
#define PT_C_ADDR_LIMIT (1ull << 48)
_Static_assert(PT_IO_OP_COUNT <= (1 << PT_IO_C_OP_BITS), "IO_*_C: the call in 5 bits");
_Static_assert(PT_MEM_OP_COUNT <= (1 << PT_MEM_C_OP_BITS), "MEM_ALLOC_C: the call in 4 bits");
typedef struct pt_io_c_call {
	uint16_t fd;
	uint16_t file;
	uint32_t size;
} pt_io_c_call;
/* The 48-bit addresses as three 16-bit halves: the fields stay 2-byte
 * aligned, as a record at an even offset needs. */
typedef struct pt_mem_c_alloc {
	uint16_t ptr[3];
	uint16_t caller[3];
	uint16_t size[2];
} pt_mem_c_alloc;
static inline void pt_c_addr_put(uint16_t out[3], uint64_t v)
{
	out[0] = (uint16_t)v;
	out[1] = (uint16_t)(v >> 16);
	out[2] = (uint16_t)(v >> 32);
}
static inline uint64_t pt_c_addr_get(const uint16_t in[3])
{
	return in[0] | (uint64_t)in[1] << 16 | (uint64_t)in[2] << 32;
}
/* Bytes of a compact I/O or memory record from its first word (0: not one). */
static inline size_t pt_io_compact_size(uint32_t word)
{
	switch (word & 0x7f) {
	case 0x38: /* MEM_ALLOC_C */
		return 4 + sizeof(pt_mem_c_alloc);
	case 0x39: /* MEM_FREE_C */
		return 4 + 6;
	case 0x3a: /* IO_CALL_C */
		return 4 + sizeof(pt_io_c_call);
	case 0x3b: /* IO_END_C */
		return 4 + 4;
	case 0x2d: /* MEM_FREE_S */
		return 4;
	}
	return 0;
}
/* Never delivered: dump prints the full record a compact one stands for. */
#define PT_FIELDS_IO_CALL_C(T, F, A, S, C) A(ENUM, "call", PT_IO_OP_NAMES)
#define PT_FIELDS_IO_END_C PT_FIELDS_IO_CALL_C
#define PT_FIELDS_MEM_ALLOC_C(T, F, A, S, C) A(ENUM, "call", PT_MEM_OP_NAMES)
#define PT_FIELDS_MEM_FREE_C PT_FIELDS_MEM_ALLOC_C
#define PT_FIELDS_MEM_FREE_S PT_FIELDS_MEM_ALLOC_C

#endif
