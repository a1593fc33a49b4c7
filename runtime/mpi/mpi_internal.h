/* SPDX-License-Identifier: MIT */
/* Private to one ABI's half of the MPI part of libtrace.so (runtime/mpi/,
 * mpi_abi.h, docs/MPI.md).
 *
 * libtrace.so never links libmpi: mpi.h is used for types and constants
 * only, and everything else of the MPI library is looked up when the
 * program calls MPI: the real PMPI_* functions and, for Open MPI, the
 * objects behind its predefined handles (MPI_COMM_WORLD is the address of
 * ompi_mpi_comm_world). These files are compiled once against Open MPI's
 * mpi.h and once against MPICH's; a program without MPI never runs a line
 * of them.
 *
 * Files: mpi_part.c (this half's MPI_Init and MPI_Finalize and its
 * description), mpi_handles.c (the predefined handles, which differ
 * between the ABIs beyond mpi.h's types),
 * mpi_record.c (modes, records, the real functions: below every other),
 * mpi_comm.c (communicators -> world ranks and ids), mpi_req.c (requests),
 * mpi_sync.c (clock synchronisation), mpi_c.c (what the wrappers
 * describe of a call), mpi_coll.c (what a collective moved),
 * mpi_fortran.c (the Fortran handles and statuses),
 * gen_wrappers.py (the C and Fortran wrappers, written from the table of
 * calls when libtrace.so is built). */
#ifndef PT_MPI_INTERNAL_H
#define PT_MPI_INTERNAL_H

#include "mpi_abi.h"
#include "pt_interpose.h"
#include "pt_runtime.h"

#include <mpi.h>
#include <paratrace/mpi_calls.h>

#if defined(OPEN_MPI) && OPEN_MPI
#define PT_MPI_ABI_OMPI 1
#define PT_MPI_ABI_NAME "Open MPI"
/* What a status says of the message it describes, read from Open MPI's
 * MPI_Status itself (mpi.h: _cancelled, and _ucount, the bytes received):
 * what MPI_Test_cancelled and MPI_Get_elements_x(MPI_BYTE) return, without
 * two calls into the library per receive. */
static inline int pt_mpi_status_cancelled(const MPI_Status *st)
{
	return st->_cancelled != 0;
}
static inline uint64_t pt_mpi_status_bytes(const MPI_Status *st)
{
	return (uint64_t)st->_ucount;
}
/* A predefined datatype's size known without asking: none in Open MPI
 * (its handles are addresses). */
static inline int pt_mpi_builtin_size(MPI_Datatype type, uint64_t *size)
{
	(void)type;
	(void)size;
	return 0;
}
#elif defined(MPICH) && MPICH
#define PT_MPI_ABI_MPICH 1
#define PT_MPI_ABI_NAME "MPICH"
/* MPICH's MPI_Status (mpi.h): the bytes received in count_lo and the
 * upper bits of count_hi_and_cancelled, whose lowest bit says cancelled. */
static inline int pt_mpi_status_cancelled(const MPI_Status *st)
{
	return (st->count_hi_and_cancelled & 1) != 0;
}
static inline uint64_t pt_mpi_status_bytes(const MPI_Status *st)
{
	return (uint64_t)(uint32_t)st->count_lo |
	       (uint64_t)((uint32_t)st->count_hi_and_cancelled >> 1) << 32;
}
/* MPICH's handles are ints that say what they are: a predefined
 * datatype (mpi.h: MPI_INT is 0x4c000405, MPI_DOUBLE 0x4c00080b) has kind
 * "builtin" (bits 30-31: 01), object "datatype" (bits 26-29: 0011) and its
 * size in bytes in bits 8-15. Its size is had without a call or a cache. */
static inline int pt_mpi_builtin_size(MPI_Datatype type, uint64_t *size)
{
	if (((uint32_t)type & 0xfc000000u) != 0x4c000000u)
		return 0;
	*size = ((uint32_t)type >> 8) & 0xffu;
	return 1;
}
#else
#error "the MPI part is built against Open MPI's or MPICH's mpi.h: see docs/MPI.md"
#endif

/* A window's key in the table of communicators (mpi_comm.c), which holds
 * windows too: never a communicator's handle. */
#ifdef PT_MPI_ABI_OMPI
#define pt_mpi_win_key(win) ((MPI_Comm)(void *)(win))
#else
#define pt_mpi_win_key(win) ((MPI_Comm)(win)) /* another kind in the handle's bits */
#endif

/* This half's ABI is the loaded MPI library's (mpi_record.c). */
PT_HIDDEN int pt_mpi_abi_match(void);
/* After MPI_Init: the predefined handles this part uses (below); 0 if
 * they cannot be had. */
PT_HIDDEN int pt_mpi_abi_handles(void);
/* The generated wrappers, in the dispatcher's order (gen_wrappers.py). */
extern PT_HIDDEN void *const pt_mpi_wrap_c[], *const pt_mpi_wrap_f[];
extern PT_HIDDEN const size_t pt_mpi_wrap_c_n, pt_mpi_wrap_f_n;

/* ---- modes ------------------------------------------------------------ */
enum {
	PT_MPI_UNDECIDED = 0,
	PT_MPI_TRACE = 1, /* this half's ABI, tracing on: calls recorded */
	PT_MPI_PASS = 2,  /* calls passed on untouched */
};
extern PT_HIDDEN int pt_mpi_mode;
/* Between a successful MPI_Init and MPI_Finalize: handles and PMPI calls
 * may be used to describe a call. */
extern PT_HIDDEN int pt_mpi_ready;
/* Inside a recorded MPI call on this thread, the core's pt_lib_call is
 * set (pt_mpi_begin_call to pt_mpi_end): calls the library makes to MPI_*
 * itself are not recorded again, nor its own locks (pt_runtime.h). */

/* Decides the mode at the first call (thread-safe, idempotent). */
PT_HIDDEN int pt_mpi_decide(void);

/* Whether a call starting now on this thread is recorded. */
static inline int pt_mpi_on(void)
{
	if (pt_lib_call)
		return 0;
	if (pt_unlikely(pt_mpi_mode != PT_MPI_TRACE) && pt_mpi_decide() != PT_MPI_TRACE)
		return 0;
	return pt_tracing();
}

/* ---- real functions ------------------------------------------------------ */
/* A wrapper whose real function cannot be found: warned once, an error
 * code returned (the program did not link an MPI library, or not this
 * call). */
PT_HIDDEN int pt_mpi_missing(const char *name);

/* static __typeof__(&PMPI_x) *real: looked up once. */
#define PT_MPI_REAL(name)                                                                          \
	static __typeof__(&P##name) real_##name;                                                   \
	if (pt_unlikely(!real_##name) &&                                                           \
	    !(real_##name = (__typeof__(&P##name))pt_mpi_sym("P" #name)))                          \
		return pt_mpi_missing(#name);

/* ---- predefined handles (valid while pt_mpi_ready) ----------------------- */
extern PT_HIDDEN MPI_Comm pt_mpi_comm_world, pt_mpi_comm_self, pt_mpi_comm_null;
extern PT_HIDDEN MPI_Datatype pt_mpi_byte;
extern PT_HIDDEN MPI_Request pt_mpi_request_null;
extern PT_HIDDEN int pt_mpi_rank, pt_mpi_size; /* in MPI_COMM_WORLD */
/* Which of the run's jobs this process is a rank of (0: the one the
 * launcher started; MPI_Comm_spawn's 1, 2...), and the job rank of its
 * rank 0 (PT_MPI_JOB_RANK: every rank in a record is a job rank). Open
 * MPI: the family every job id of the run shares (0 unknown). */
extern PT_HIDDEN uint32_t pt_mpi_world, pt_mpi_family;
extern PT_HIDDEN int32_t pt_mpi_base;

/* ---- records ---------------------------------------------------------- */
/* A call begins: its MPI_CALL. Returns the ticks it was stamped with, the
 * call's begin, which a receive posted by the call takes as its own (one
 * clock read); 0 when the call is not recorded. A recorded call is ended
 * with pt_mpi_end* (or pt_mpi_put and pt_mpi_finish). */
PT_HIDDEN uint64_t pt_mpi_begin_call(unsigned call);
/* The begin of this thread's call in progress (pt_mpi_begin_call's). */
extern PT_HIDDEN __thread uint64_t pt_mpi_t0 __attribute__((tls_model("initial-exec")));
/* One record of what a call moved (MPI_SEND, MPI_RECV, MPI_IRECV,
 * MPI_COLL, MPI_RMA, MPI_IO) at `now`, in its compact form where its
 * fields allow (format/mpi.h); the call need not be in the runtime's region. */
PT_HIDDEN void pt_mpi_put(uint64_t now, unsigned call, unsigned kind, const void *p, size_t len);
/* pt_mpi_put, then pt_mpi_finish: the record and the end, in one pass of
 * the writer's fast path where both have their compact forms. */
PT_HIDDEN void pt_mpi_put_finish(uint64_t now, unsigned call, unsigned kind, const void *p,
                                 size_t len, int rc);
/* The end of a call at now: MPI_ERROR when rc is not MPI_SUCCESS, then
 * MPI_CALL_END. */
PT_HIDDEN void pt_mpi_finish(uint64_t now, unsigned call, int rc);
/* The call ended and returned rc: n records of `kind` (each `len` bytes,
 * back to back in p), then its end (pt_mpi_finish), all stamped with one
 * clock read. A failed call moved nothing: callers pass n = 0 then (but
 * for the receives a Wait/Test family call completed before it returned
 * MPI_ERR_IN_STATUS). */
PT_HIDDEN void pt_mpi_end(unsigned call, int rc, unsigned kind, const void *p, size_t len,
                          size_t n);

/* pt_mpi_end of one record, inline: the common end of a call that moved
 * something (a send, a receive posted, a collective). */
static inline void pt_mpi_end_one(unsigned call, int rc, unsigned kind, const void *p, size_t len)
{
	pt_lib_call = 0;
	pt_mpi_put_finish(pt_now(), call, kind, p, len, rc);
}

static inline void pt_mpi_end_call(unsigned call, int rc)
{
	pt_mpi_end(call, rc, 0, NULL, 0, 0);
}

/* Bytes of count elements of a datatype (0 if it cannot be had). */
PT_HIDDEN uint64_t pt_mpi_bytes(int64_t count, MPI_Datatype type);

/* ---- communicators (mpi_comm.c) ----------------------------------------- */
typedef struct pt_mpi_comm {
	MPI_Comm handle;
	uint64_t id;   /* PT_MPI_COMM_WORLD_ID... the same in every process */
	int inter;     /* an intercommunicator: peers are in its remote group */
	int rank;      /* this process's rank in it */
	uint32_t size; /* of the group peers are ranks of */
	int32_t *world; /* world rank of each of those ranks; NULL: the identity */
	struct pt_mpi_comm *next;
} pt_mpi_comm;

/* The communicator behind a handle; registered (MPI_COMM_DEF, flagged
 * late) if it was never seen created. NULL for MPI_COMM_NULL or when it
 * cannot be described. */
PT_HIDDEN const pt_mpi_comm *pt_mpi_comm_get(MPI_Comm c);
/* A communicator a call just created (after Comm_dup, Comm_split...),
 * in the order of creation, which every member shares: so its id is the
 * same in all of them. */
PT_HIDDEN void pt_mpi_comm_created(MPI_Comm c);
/* Before MPI_Comm_free / MPI_Comm_disconnect: the handle may come back
 * for another communicator. */
PT_HIDDEN void pt_mpi_comm_freed(MPI_Comm c);
/* Peer rank in c (remote group for an intercommunicator) -> job rank;
 * negative ranks (MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ROOT) come back as is. */
static inline int32_t pt_mpi_world_rank(const pt_mpi_comm *c, int rank)
{
	if (rank < 0 || !c)
		return rank;
	if (!c->world)
		return pt_mpi_base + rank;
	return (uint32_t)rank < c->size ? c->world[rank] : -1;
}
PT_HIDDEN int pt_mpi_comm_init(void); /* after MPI_Init: WORLD, SELF */
/* A one-sided call's target rank in the window's group -> world rank;
 * windows leave the table when freed. */
PT_HIDDEN int32_t pt_mpi_win_world_rank(MPI_Win win, int rank);
PT_HIDDEN void pt_mpi_win_freed(MPI_Win win);
PT_HIDDEN void pt_mpi_comm_fork_child(void);

/* ---- requests (mpi_req.c) --------------------------------------------- */
enum { PT_MPI_REQ_SEND = 1, PT_MPI_REQ_RECV = 2, PT_MPI_REQ_OTHER = 3 };
typedef struct pt_mpi_req {
	uintptr_t handle;
	uint8_t kind;       /* PT_MPI_REQ_* */
	uint8_t persistent; /* MPI_*_init: stays after completion, started by MPI_Start */
	uint8_t active;
	uint8_t call;       /* the call that made it */
	int32_t peer;       /* world rank (persistent: the template's) */
	int32_t tag;
	uint64_t bytes;
	const pt_mpi_comm *comm;
	uint64_t posted; /* ticks at the Irecv or MPI_Start */
	const void *owner; /* the thread whose Wait or Test claimed it, or NULL */
	struct pt_mpi_req *next;
} pt_mpi_req;

PT_HIDDEN void pt_mpi_req_add(const pt_mpi_req *r);
/* The request was completed (Wait/Test found it done): its entry in
 * *out, removed unless persistent (then made inactive). 0 if unknown. */
PT_HIDDEN int pt_mpi_req_done(uintptr_t h, pt_mpi_req *out);
/* A copy of the entry, without changing it. 0 if unknown. */
PT_HIDDEN int pt_mpi_req_peek(uintptr_t h, pt_mpi_req *out);
/* MPI_Start of a persistent request: active, posted now. 0 if unknown. */
PT_HIDDEN int pt_mpi_req_start(uintptr_t h, uint64_t now, pt_mpi_req *out);
PT_HIDDEN void pt_mpi_req_forget(uintptr_t h); /* MPI_Request_free */
/* A Wait or Test claims the entries of its requests before the call and
 * gives them up after it. Inside the call MPI frees a completed request,
 * and may give its handle to a request another thread makes at once,
 * before this thread has looked its entry up: the new request gets an
 * entry of its own instead of overwriting the claimed one, and each thread
 * finds its own. Unclaiming a handle whose entry is gone does nothing. */
PT_HIDDEN void pt_mpi_req_claim(const MPI_Request *h, size_t n);
PT_HIDDEN void pt_mpi_req_unclaim(const MPI_Request *h, size_t n);
PT_HIDDEN void pt_mpi_req_fork_child(void);
/* 1 (the default) until MPI_Init says the thread level is below
 * MPI_THREAD_MULTIPLE (mpi_req.c says why it then takes no lock). */
extern PT_HIDDEN int pt_mpi_req_shared;

/* A message record from a request and the status that completed it. */
PT_HIDDEN int pt_mpi_recv_msg(const pt_mpi_req *r, const MPI_Status *st, pt_rec_mpi_msg *m);

/* ---- what the C and Fortran wrappers share (mpi_c.c) -------------------- */
/* Each writes the call's end, after what it moved; nothing but the end
 * when rc says the call failed. The wrappers are generated
 * (gen_wrappers.py); the C ones pass their arguments, the Fortran ones
 * the C handles theirs stand for. */

/* A message about to be sent / a receive posted: the record's payload. */
PT_HIDDEN void pt_mpi_msg(pt_rec_mpi_msg *m, const pt_mpi_comm *c, int peer, int tag,
			  uint64_t bytes, uintptr_t request);
/* A send (MPI_SEND, with the request of a non-blocking one; NULL req: a
 * blocking one), a blocking receive (MPI_RECV from its status; sent
 * given: MPI_Sendrecv's MPI_SEND first), a receive posted (its request
 * remembered; persistent: a template for MPI_Start), MPI_Start(all) (a
 * MPI_SEND or MPI_IRECV per request started). */
PT_HIDDEN void pt_mpi_send_end(unsigned call, int rc, int dest, int tag, MPI_Comm comm, int count,
			       MPI_Datatype dt, const MPI_Request *req);
/* A message MPI_Sendrecv(_replace) sent; dest MPI_PROC_NULL: none. */
typedef struct pt_mpi_sent {
	int dest, tag, count;
	MPI_Datatype dt;
} pt_mpi_sent;
PT_HIDDEN void pt_mpi_recv_end(unsigned call, int rc, MPI_Comm comm, const MPI_Status *st,
			       uint64_t posted, const pt_mpi_sent *sent);
PT_HIDDEN void pt_mpi_recv_posted(unsigned call, int rc, const pt_mpi_comm *c, int src, int tag,
				  uint64_t bytes, const MPI_Request *req, uint64_t posted,
				  int persistent);
PT_HIDDEN void pt_mpi_send_init_end(unsigned call, int rc, int dest, int tag, MPI_Comm comm,
				    int count, MPI_Datatype dt, const MPI_Request *req);
PT_HIDDEN void pt_mpi_started(unsigned call, int rc, const MPI_Request *h, size_t n,
			      uint64_t now);
/* Matched probes: the message handle a probe found (found: it found one)
 * stands for the receive until MPI_Mrecv / MPI_Imrecv takes it. */
PT_HIDDEN void pt_mpi_message_seen(int rc, MPI_Comm comm, const MPI_Message *msg, int found);
PT_HIDDEN void pt_mpi_mrecv_end(unsigned call, int rc, MPI_Message h, const MPI_Status *st);
PT_HIDDEN void pt_mpi_imrecv_end(unsigned call, int rc, MPI_Message h, int count,
				 MPI_Datatype dt, const MPI_Request *req, uint64_t posted);
/* One-sided (target in the window's group), I/O. */
PT_HIDDEN void pt_mpi_rma_end(unsigned call, int rc, int target, MPI_Win win, uint64_t bytes);
PT_HIDDEN void pt_mpi_io_end(unsigned call, int rc, MPI_File fh, int count, MPI_Datatype dt);
/* MPI_File_open's end: the handle fh (when rc is MPI_SUCCESS) named in the
 * process log (MPI_FILE); len: the name's bytes, (size_t)-1 when it ends
 * with a NUL (C), else a Fortran name padded with blanks. */
PT_HIDDEN void pt_mpi_file_open_end(unsigned call, int rc, MPI_File fh, const char *name,
                                    size_t len);

/* Requests a Wait/Test family call was given (copied before the call:
 * it overwrites them) and which of them completed (done[i]). When the
 * program passed no statuses, `st` is the wrapper's own (NULL: none, and
 * no receive among them). Writes a MPI_RECV for each completed receive, a
 * MPI_DONE for each other completed request (a send's, a non-blocking
 * collective's), then the call's end (rc: what it returned). */
PT_HIDDEN void pt_mpi_complete(unsigned call, int rc, const MPI_Request *h, const char *done,
			       const MPI_Status *st, size_t n);
/* Whether one of the n requests is a receive this part knows (statuses
 * are needed then). */
PT_HIDDEN int pt_mpi_any_recv(const MPI_Request *h, size_t n);
/* The traced C Waitall/Testall (wait or test given), Waitany/Testany,
 * Waitsome/Testsome: the real call made, its end written. */
PT_HIDDEN int pt_mpi_all_call(unsigned call, int count, MPI_Request reqs[], int *flag,
			      MPI_Status *statuses, int (*wait)(int, MPI_Request *, MPI_Status *),
			      int (*test)(int, MPI_Request *, int *, MPI_Status *));
PT_HIDDEN int pt_mpi_any_call(unsigned call, int count, MPI_Request reqs[], int *index, int *flag,
			      MPI_Status *status,
			      int (*wait)(int, MPI_Request *, int *, MPI_Status *),
			      int (*test)(int, MPI_Request *, int *, int *, MPI_Status *));
PT_HIDDEN int pt_mpi_some_call(unsigned call, int incount, MPI_Request reqs[], int *outcount,
			       int indices[], MPI_Status statuses[],
			       int (*fn)(int, MPI_Request *, int *, int *, MPI_Status *));

/* Per-thread scratch for the arrays a Wait/Test family call needs when
 * the program's are not enough (request copies, statuses, done flags):
 * n elements of each; NULL if memory cannot be had. */
typedef struct pt_mpi_scratch {
	MPI_Request *req;
	MPI_Status *st;
	MPI_Status *st2; /* Fortran: the C statuses of the Fortran ones */
	char *done;
	int *idx;
} pt_mpi_scratch;
PT_HIDDEN int pt_mpi_scratch_get(size_t n, pt_mpi_scratch *s);

/* A collective (mpi_coll.c): MPI_COLL at its end (req: the request of a
 * non-blocking one), its bytes by the rule of its kind (the table's
 * COLL(rule)). The
 * rule reads the arguments of a call that has them: root (-1: the call
 * has none), counts and types, whether a buffer is MPI_IN_PLACE. */
enum pt_mpi_coll_rule {
	PT_MPI_RULE_BARRIER,
	PT_MPI_RULE_BCAST,
	PT_MPI_RULE_REDUCE,
	PT_MPI_RULE_ALLREDUCE,
	PT_MPI_RULE_GATHER,
	PT_MPI_RULE_GATHERV,
	PT_MPI_RULE_SCATTER,
	PT_MPI_RULE_SCATTERV,
	PT_MPI_RULE_ALLGATHER,
	PT_MPI_RULE_ALLGATHERV,
	PT_MPI_RULE_ALLTOALL,
	PT_MPI_RULE_ALLTOALLV,
	PT_MPI_RULE_ALLTOALLW,
	PT_MPI_RULE_REDUCE_SCATTER,
	PT_MPI_RULE_REDUCE_SCATTER_BLOCK,
	PT_MPI_RULE_NEIGHBOR_ALLGATHER,
	PT_MPI_RULE_NEIGHBOR_ALLGATHERV,
	PT_MPI_RULE_NEIGHBOR_ALLTOALL,
	PT_MPI_RULE_NEIGHBOR_ALLTOALLV,
	PT_MPI_RULE_NEIGHBOR_ALLTOALLW,
};
typedef struct pt_mpi_coll_args {
	MPI_Comm comm;
	int root;
	int count, sendcount, recvcount;
	MPI_Datatype datatype, sendtype, recvtype;
	const int *sendcounts, *recvcounts;
	const MPI_Datatype *sendtypes, *recvtypes;
	int sendbuf_in_place, recvbuf_in_place;
} pt_mpi_coll_args;
PT_HIDDEN void pt_mpi_coll_end(unsigned call, int rc, enum pt_mpi_coll_rule rule,
			       const pt_mpi_coll_args *a, const MPI_Request *req);

/* MPI_Type_free bumps it: a datatype's handle may come back for another. */
extern PT_HIDDEN unsigned pt_mpi_type_gen;

/* ---- MPI_Init / MPI_Finalize (mpi_part.c, mpi_sync.c) ------------------- */
/* After the real MPI_Init/MPI_Init_thread succeeded: handles, WORLD,
 * MPI_INIT, the clock synchronisation. required -1: MPI_Init; provided
 * -1: asked of the library (MPI_Query_thread). */
PT_HIDDEN void pt_mpi_after_init(int required, int provided, int fortran);
/* Before the real MPI_Finalize: the last synchronisation. */
PT_HIDDEN void pt_mpi_before_finalize(void);
PT_HIDDEN void pt_mpi_after_finalize(void);
/* The synchronisation itself (phase 0 at init, 1 at finalize). */
PT_HIDDEN void pt_mpi_clock_sync(int phase, MPI_Comm comm);

#endif
