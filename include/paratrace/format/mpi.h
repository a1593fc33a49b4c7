/* SPDX-License-Identifier: MIT */
/* paratrace log format, records of MPI (PT_REC_RANGE_MPI). This family's rows
 * of the record schema (PT_REC_ROWS_MPI), payload structs, their dump fields
 * and constants. <paratrace/format.h> includes it: include that, not this. */
#ifndef PARATRACE_FORMAT_MPI_H
#define PARATRACE_FORMAT_MPI_H

#ifndef PARATRACE_FORMAT_H
#error "include <paratrace/format.h>, not <paratrace/format/mpi.h>"
#endif

#define PT_REC_ROWS_MPI(X) \
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
	  "–", "+ the MPI library's path") \
	/* 3.5: the file an MPI_File handle names, from MPI_File_open (a \
	 * kind below 0x40, as the MPI range is full). */ \
	X(MPI_FILE, 0x2c, pt_rec_mpi_file, sizeof(pt_rec_mpi_file), 0, "process", "call", \
	  "+ the file's name") \
	/* 3.3: compact forms (see "Compact MPI records" below), 4-byte words \
	 * with their fields after them; readers deliver the full record. */ \
	X(MPI_CALL_C, 0x26, void, 0, 0, "thread", "–", "compact only: 4 bytes, read as MPI_CALL") \
	X(MPI_CALL_END_C, 0x27, void, 0, 0, "thread", "–", \
	  "compact only: 4 bytes, read as MPI_CALL_END") \
	X(MPI_SEND_C, 0x3c, void, 0, 0, "thread", "–", \
	  "compact only: 16 or 24 bytes, read as MPI_SEND") \
	X(MPI_RECV_C, 0x3d, void, 0, 0, "thread", "–", \
	  "compact only: 16 or 28 bytes, read as MPI_RECV") \
	X(MPI_IRECV_C, 0x3e, void, 0, 0, "thread", "–", \
	  "compact only: 16 or 24 bytes, read as MPI_IRECV") \
	X(MPI_COLL_C, 0x3f, void, 0, 0, "thread", "–", \
	  "compact only: 20 or 28 bytes, read as MPI_COLL") \
	/* 3.5: a non-blocking send's or collective's request completed */ \
	X(MPI_DONE, 0x2e, pt_rec_mpi_done, sizeof(pt_rec_mpi_done), 0, "thread", "call", "") \
	X(MPI_DONE_C, 0x2f, void, 0, 0, "thread", "–", \
	  "compact only: 12 bytes, read as MPI_DONE") \
	/* 3.6: a message or collective equal to the file's previous one of \
	 * its kind (see "Repeated MPI records" below) */ \
	X(MPI_SEND_R, 0x34, void, 0, 0, "thread", "–", \
	  "compact only: 4 or 12 bytes, read as MPI_SEND") \
	X(MPI_RECV_R, 0x35, void, 0, 0, "thread", "–", \
	  "compact only: 4 or 16 bytes, read as MPI_RECV") \
	X(MPI_IRECV_R, 0x36, void, 0, 0, "thread", "–", \
	  "compact only: 4 or 12 bytes, read as MPI_IRECV") \
	X(MPI_COLL_R, 0x37, void, 0, 0, "thread", "–", \
	  "compact only: 4 or 12 bytes, read as MPI_COLL")

/* MPI, inside PT_REC_RANGE_MPI; docs/FORMAT.md "MPI records" and
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
 *   MPI_FILE      (3.5) an MPI_File_open that succeeded: the handle and
 *                 the file's name, made absolute with the working
 *                 directory when it is relative; a handle names that file
 *                 from this record's time until another MPI_FILE reuses it
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
#define PT_MPI_LAUNCHER_HYDRA 4 /* 3.4: MPICH's mpiexec */
#define PT_FIELDS_MPI_JOB(T, F, A, S, C) \
	F(T, I, "rank", rank, "") F(T, U, "size", size, "") \
	F(T, ENUM, "launcher", launcher, "|openmpi|pmix|slurm|hydra") F(T, U, "world", world, "") \
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

typedef struct pt_rec_mpi_file {
	uint64_t file; /* MPI_File handle, as MPI_IO's */
	/* followed by the file's name */
} pt_rec_mpi_file;
#define PT_FIELDS_MPI_FILE(T, F, A, S, C) \
	C(mpi_call, "call=MPI_..") F(T, X, "file", file, "") S(sizeof(T), PLAIN)

/* Compact MPI records (3.3). The records of a call in a hot loop, each a
 * little-endian 32-bit word whose first byte is PT_COMPACT_FLAG | kind
 * (a kind below 0x40, so that the byte tells it from an 8-byte head and
 * from a short record), at any even offset, its fields right after it
 * (unaligned, little-endian). Readers deliver the full record:
 *   MPI_CALL_C      bits 8..15 the call, bits 16..31 delta -> MPI_CALL
 *   MPI_CALL_END_C  bits 8..31 delta -> MPI_CALL_END
 *   MPI_SEND_C, MPI_RECV_C, MPI_IRECV_C, MPI_COLL_C
 *                   bit 8: the communicator is MPI_COMM_SELF
 *                   (PT_MPI_COMM_SELF_ID), else MPI_COMM_WORLD
 *                   (PT_MPI_COMM_WORLD_ID); bit 9: a request follows the
 *                   fields; bits 10..31 delta.
 *     MPI_SEND_C, MPI_IRECV_C: int32 peer, int32 tag, uint32 bytes
 *                   [, uint64 request] -> MPI_SEND, MPI_IRECV
 *     MPI_RECV_C:   int32 peer, int32 tag, uint32 bytes -> MPI_RECV
 *                   posted at the time of the call's MPI_CALL, no
 *                   request; with bit 9: [uint64 request, uint32 ticks
 *                   from posted to the call's MPI_CALL]
 *     MPI_COLL_C:   int32 root, uint32 size, uint32 sent, uint32 recvd
 *                   [, uint64 request] -> MPI_COLL
 * The arg (the call) of every one but MPI_CALL_C is the call of the
 * file's last MPI_CALL, which a LOST record makes readers forget: a
 * writer writes full records after a LOST until the next MPI_CALL. */
#define PT_MPI_C_SELF 0x100u
#define PT_MPI_C_REQUEST 0x200u
#define PT_MPI_C_SHIFT 10
#define PT_MPI_CALL_C_SHIFT 16
#define PT_MPI_END_C_SHIFT 8
typedef struct pt_mpi_c_msg {
	int32_t peer;
	int32_t tag;
	uint32_t bytes;
	uint32_t request_lo, request_hi; /* with PT_MPI_C_REQUEST */
	uint32_t posted_back;            /* MPI_RECV_C with PT_MPI_C_REQUEST */
} pt_mpi_c_msg;
typedef struct pt_mpi_c_coll {
	int32_t root;
	uint32_t size;
	uint32_t sent;
	uint32_t recvd;
	uint32_t request_lo, request_hi; /* with PT_MPI_C_REQUEST */
} pt_mpi_c_coll;
/* Repeated MPI records (3.6): the record of a call in a loop that moves
 * what the file's previous record of its kind moved, in one 4-byte word
 * (a compact record, as above), with a request when the call has one:
 *   MPI_SEND_R, MPI_RECV_R, MPI_IRECV_R, MPI_COLL_R
 *                   bit 8: a request follows (uint64); bits 9..31 delta
 *     -> the file's last MPI_SEND, MPI_RECV, MPI_IRECV or MPI_COLL
 *        (written full, compact or repeated) again: the same peer, tag,
 *        bytes and communicator (MPI_COLL: communicator, root, size, sent
 *        and received bytes), the request that follows or 0;
 *     MPI_RECV_R: posted at the time of the call's MPI_CALL, or, with a
 *        request, [uint64 request, uint32 ticks from posted to the
 *        call's MPI_CALL] as MPI_RECV_C's.
 * A writer repeats only a record it knows reached the file, and a record
 * of that kind that may not have (written through the runtime's region,
 * or lost) makes it forget it: readers keep the last record of each kind
 * across a LOST. The arg is the call of the file's last MPI_CALL, as for
 * the other compact MPI records. */
#define PT_MPI_R_REQUEST 0x100u
#define PT_MPI_R_SHIFT 9
/* Which last record a repeated one stands for, by the full kind it
 * repeats: 0 MPI_SEND, 1 MPI_RECV, 2 MPI_IRECV, 3 MPI_COLL; -1 for a kind
 * never repeated. The writer and the readers keep their last records in
 * this order. */
static inline int pt_mpi_repeat_slot(unsigned kind)
{
	switch (kind) {
	case 0x76: /* MPI_SEND */
		return 0;
	case 0x77: /* MPI_RECV */
		return 1;
	case 0x78: /* MPI_IRECV */
		return 2;
	case 0x79: /* MPI_COLL */
		return 3;
	}
	return -1;
}
/* Bytes of a compact MPI record from its first word (0: not one). */
static inline size_t pt_mpi_compact_size(uint32_t word)
{
	unsigned kind = word & 0x7f, req = (word & PT_MPI_C_REQUEST) != 0;
	unsigned rreq = (word & PT_MPI_R_REQUEST) != 0;
	switch (kind) {
	case 0x34: /* MPI_SEND_R */
	case 0x36: /* MPI_IRECV_R */
	case 0x37: /* MPI_COLL_R */
		return 4 + 8 * rreq;
	case 0x35: /* MPI_RECV_R */
		return 4 + 12 * rreq;
	case 0x26: /* MPI_CALL_C */
	case 0x27: /* MPI_CALL_END_C */
		return 4;
	case 0x3c: /* MPI_SEND_C */
	case 0x3e: /* MPI_IRECV_C */
		return 16 + 8 * req;
	case 0x3d: /* MPI_RECV_C */
		return 16 + 12 * req;
	case 0x3f: /* MPI_COLL_C */
		return 20 + 8 * req;
	case 0x2f: /* MPI_DONE_C */
		return 12;
	}
	return 0;
}
/* MPI_DONE (3.5): a request that is not a receive's (MPI_Isend and the
 * other non-blocking sends, a started persistent send, a non-blocking
 * collective, or a request this part does not describe: one-sided, I/O,
 * generalized) was completed by the Wait/Test family call in progress,
 * after that call's MPI_RECVs. request is the handle the MPI_SEND or
 * MPI_COLL that started it carried: a handle names one live request at a
 * time, so a reader matches the completion to the latest start with that
 * handle not yet completed (on the thread that started it: the record is
 * on the thread that completed it). A receive's completion is its MPI_RECV.
 *   MPI_DONE_C  bits 8..31 delta; uint64 request -> MPI_DONE */
typedef struct pt_rec_mpi_done {
	uint64_t request;
} pt_rec_mpi_done;
#define PT_FIELDS_MPI_DONE(T, F, A, S, C) C(mpi_call, "call=MPI_..") F(T, X, "request", request, "")
#define PT_MPI_DONE_C_SHIFT 8
/* The minor version (of major 3) from which the runtime writes MPI_DONE:
 * a reader must not wait for completions in an older log. */
#define PT_MPI_DONE_SINCE_MINOR 5

/* Never delivered: dump prints the full record a compact one stands for. */
#define PT_FIELDS_MPI_CALL_C(T, F, A, S, C) C(mpi_call, "dumped as its full record")
#define PT_FIELDS_MPI_CALL_END_C PT_FIELDS_MPI_CALL_C
#define PT_FIELDS_MPI_SEND_C PT_FIELDS_MPI_CALL_C
#define PT_FIELDS_MPI_IRECV_C PT_FIELDS_MPI_CALL_C
#define PT_FIELDS_MPI_RECV_C PT_FIELDS_MPI_CALL_C
#define PT_FIELDS_MPI_COLL_C PT_FIELDS_MPI_CALL_C
#define PT_FIELDS_MPI_DONE_C PT_FIELDS_MPI_CALL_C
#define PT_FIELDS_MPI_SEND_R PT_FIELDS_MPI_CALL_C
#define PT_FIELDS_MPI_RECV_R PT_FIELDS_MPI_CALL_C
#define PT_FIELDS_MPI_IRECV_R PT_FIELDS_MPI_CALL_C
#define PT_FIELDS_MPI_COLL_R PT_FIELDS_MPI_CALL_C

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
/* The MPI library has an ABI libtrace.so was not built for (3.3: not Open
 * MPI): its calls were passed on untraced. */
#define PT_MPI_UNTRACED_OTHER_MPI 3
#define PT_FIELDS_MPI_UNTRACED(T, F, A, S, C) \
	F(T, ENUM, "why", why, "|no_library|bypassed|other_mpi") S(sizeof(T), PLAIN)

#endif /* PARATRACE_FORMAT_MPI_H */
