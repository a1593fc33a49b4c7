/* SPDX-License-Identifier: MIT */
/* What the analyzer's MPI parts share (its Paraver part
 * mpi_paraver.c, the report's MPI section mpi_report.c, the
 * Perfetto export's flows): every MPI call of a thread log followed
 * (mpi_track), the messages it sent and received gathered, and those
 * matched into communications (mpi_match). docs/MPI.md, "Analysis".
 *
 * Matching: MPI delivers the messages from one process to another on one
 * communicator with one tag in the order they were sent, to the receives
 * in the order they were posted; a receive that matched any source or tag
 * says in its status which it got (the runtime records the resolved
 * source and tag). So the k-th send from A to B on communicator C with
 * tag T is the k-th receive at B from A on C with T, sends ordered by the
 * time their call began, receives by the time they were posted. */
#ifndef PT_MPI_COMMON_H
#define PT_MPI_COMMON_H

#include <paratrace/mpi_calls.h>
#include <paratrace/tool.h>
#include <stddef.h>
#include <stdint.h>

/* Paraver: the call's type (Extrae's MPITYPE_*), and the collective's
 * details Extrae writes with it. */
#define PT_MPI_EV_SENDSIZE 50100001u /* bytes this process gives a collective */
#define PT_MPI_EV_RECVSIZE 50100002u /* bytes it gets */
#define PT_MPI_EV_ROOT 50100003u     /* 1: this process is the root */
#define PT_MPI_EV_COMM 50100004u     /* communicator (mpi_comms numbering) */

/* One end of a message. Times are absolute ns on the run's one clock. */
typedef struct mpi_end {
	int32_t from, to; /* ranks in the run (pt_fw_mpi.rank) */
	int32_t tag;
	uint32_t shard;   /* the row of the thread that sent or received it */
	uint64_t comm;    /* communicator id */
	uint64_t bytes;
	/* send: its call's begin (logical) and end (physical); receive: when
	 * it was posted (logical) and when the call that completed it ended
	 * (physical) */
	uint64_t lt, pt;
	uint64_t cb;  /* receive: the begin of the call that completed it (its wait) */
	uint64_t seq; /* order in its log: ties of time */
} mpi_end;

typedef struct mpi_ends {
	mpi_end *v;
	size_t n, cap;
} mpi_ends;

int mpi_ends_push(mpi_ends *e, const mpi_end *x);
/* Moves src's ends to the end of dst (src left empty). -1 on ENOMEM. */
int mpi_ends_move(mpi_ends *dst, mpi_ends *src);
void mpi_ends_free(mpi_ends *e);

/* One thread's MPI calls as its records go by. */
typedef struct mpi_track {
	const pt_shard_info *shard;
	const pt_trace_ctx *ctx; /* the records' ranks -> the run's */
	int32_t rank;   /* this process's rank in the run, -1 if not known */
	unsigned call;  /* the open call, 0 none */
	uint64_t begin; /* its begin */
	size_t open_sends; /* sends of the open call (the last ones of `sends`) */
	mpi_ends sends, recvs;
	uint64_t seq;
	int oom;
} mpi_track;

void mpi_track_init(mpi_track *t, const pt_trace_ctx *ctx, const pt_shard_info *shard,
                    int32_t rank);
/* Every record of the thread log (only MPI kinds are looked at). */
void mpi_track_event(mpi_track *t, const pt_event *ev);
/* The log ended at last_ns: a call still open ends there. */
void mpi_track_end(mpi_track *t, uint64_t last_ns);
void mpi_track_free(mpi_track *t);

/* The rank in the run of each process (-1 when not a rank): from the
 * framework's early read, else from MPI_INIT (a run without a launcher). */
typedef struct mpi_ranks {
	int32_t *rank;
	uint8_t *known; /* the framework's: MPI_INIT does not change it */
	uint32_t *size;
	char **host;
	size_t n;
	int any; /* some process is a rank */
} mpi_ranks;

int mpi_ranks_init(mpi_ranks *r, const pt_trace_ctx *ctx);
/* An MPI_INIT whose rank no process can have is left out, and the
 * process is then no rank (the framework warns of it). */
void mpi_ranks_process_event(mpi_ranks *r, size_t process, const pt_event *ev);
void mpi_ranks_free(mpi_ranks *r);
/* The ranks of the job (the largest world size a rank gave) that no
 * process of the trace is, written as "2, 5 (of 8)" into buf; 0 when none
 * is missing (buf is then ""). */
size_t mpi_ranks_missing(const mpi_ranks *r, char *buf, size_t len);

/* Communicators by id, numbered for display: 1 MPI_COMM_WORLD, 2
 * MPI_COMM_SELF, then the others in order of id (the same numbers
 * whatever order the process logs are read in). */
typedef struct mpi_comms {
	uint64_t *id;
	uint32_t *size;
	size_t n, cap;
	int sorted;
} mpi_comms;

void mpi_comms_process_event(mpi_comms *c, const pt_event *ev);
uint32_t mpi_comms_number(mpi_comms *c, uint64_t id);
void mpi_comms_free(mpi_comms *c);

/* What matching found. */
typedef struct mpi_match_stats {
	uint64_t matched;
	uint64_t unmatched_sends; /* sent, never seen received (a rank killed, a log cut) */
	uint64_t unmatched_recvs; /* received, never seen sent */
	uint64_t clamped; /* received before sent on the corrected clocks: moved to the send */
	uint64_t clamped_max_ns; /* the most one of them was moved by */
} mpi_match_stats;

/* Sorts both lists and calls fn for every matched pair (in the order of
 * the sends), with its receive times already kept after the send's begin. */
int mpi_match(mpi_ends *sends, mpi_ends *recvs,
	      void (*fn)(void *arg, const mpi_end *send, const mpi_end *recv), void *arg,
	      mpi_match_stats *stats);

/* Name ("MPI_Send"), family (PT_MPI_PTOP...) and Paraver state of a call;
 * NULL / 0 for a number not in <paratrace/mpi_calls.h>. */
const char *mpi_call_name(unsigned call);
unsigned mpi_call_family(unsigned call);
unsigned mpi_call_state(unsigned call);
const char *mpi_family_label(unsigned family);

/* The report's MPI section (mpi_report.c). */
const pt_tool *pt_tool_mpi(void);

#endif
