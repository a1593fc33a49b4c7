/* SPDX-License-Identifier: MIT */
/* What the framework knows of the MPI ranks of a trace before any tool
 * runs (internal to the analyzer: built-in tools reach it through their
 * ctx). A rank's process log is read while the model is built (fw_mpi.c):
 * its rank, the job's size and its host place it in the model (tasks in
 * rank order, nodes by host), and its clock synchronisation records
 * (MPI_CLOCK) give the mapping of its times onto rank 0's clock, which
 * the framework applies to every record it delivers (pt_event.time_ns).
 * docs/MPI.md, "Analysis". */
#ifndef PT_FW_MPI_H
#define PT_FW_MPI_H

#include <paratrace/tool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct pt_fw_mpi {
	/* its rank in the run: a run's jobs ("worlds": the one the launcher
	 * started, 0, then those MPI_Comm_spawn started) are numbered one
	 * after the other, world 0's ranks first; -1: not a rank */
	int rank;
	uint32_t world;   /* which job: 0, or the k-th spawned */
	int world_rank;   /* in its world's MPI_COMM_WORLD */
	int confirmed;    /* its MPI_INIT was seen (else: the launcher's word only) */
	uint32_t size;    /* the run's ranks (all its worlds), 0 if unknown */
	const char *host; /* NULL if unknown */
	/* no MPI call of it was traced: PT_MPI_UNTRACED_* (0: not said) and
	 * the MPI library's path its runtime found (NULL none) */
	uint32_t untraced;
	const char *untraced_lib;
	/* clock points: at local time l[i] (this process's clock), rank 0's
	 * clock read l[i] + off[i], give or take rtt[i] / 2 (the round trip of
	 * that point's ping-pong); 0 points: times are left as they are */
	int clocks;
	uint64_t l[2];
	int64_t off[2];
	uint64_t rtt[2];
	/* the offsets the map uses at l[0] and l[1] (pt_fw_mpi_fit) */
	int64_t use[2];
	uint64_t at_offset[2]; /* of each point's record in the process log */
	/* the points refused as damaged (file, offset, why; one a line), for
	 * the model to warn about; NULL if none */
	char *refused;
	/* an MPI_JOB or MPI_INIT record of it, or a file header, gave a rank
	 * no process can have (refused as damaged): it is no rank */
	int no_rank;
} pt_fw_mpi;

/* Whether a rank, its world's size and its world, as an MPI_JOB or
 * MPI_INIT record or a file header says them, can be a process's: 0, or
 * -1 with what is wrong written into why. A world has at most
 * PT_FW_MPI_WORLD_RANKS ranks (records write world << 24 | rank), a rank
 * is below its world's size, PT_MPI_WORLDS_MAX is the last world; a size
 * of 0 is allowed only where `size_unknown` (a launcher that did not say
 * it). These bounds keep every table the analyzer sizes by ranks within
 * what the run can have, and the run's rank count within int32_t. */
#define PT_FW_MPI_WORLD_RANKS (1u << PT_MPI_WORLD_SHIFT)
int pt_fw_mpi_rank_check(int64_t rank, uint32_t size, uint32_t world, int size_unknown, char *why,
                         size_t len);
/* The same of an MPI_JOB or MPI_INIT record: 0, or -1 with the warning
 * that refuses it (without its file and offset) written into msg. Other
 * kinds: 0. */
int pt_fw_mpi_record_check(const pt_event *ev, char *msg, size_t len);

/* Sets use[] from the clock points. Each point bounds the offset at its
 * time: off[i] +- rtt[i] / 2. The map is the line with the least drift
 * that keeps within both bounds: where they overlap, no drift, and the
 * offset in the middle of the overlap; otherwise the line between their
 * nearest edges. Two good points give their drift (less at most their
 * half widths); a point whose exchange was slow (a rank that lost its CPU
 * in the middle of it) has a wide bound, and cannot put its error into
 * the drift: ranks sharing one clock keep the better point's offset, or
 * better, throughout. */
void pt_fw_mpi_fit(pt_fw_mpi *m);

/* The MPI facts of ctx->processes[process], NULL when it is no rank. */
const pt_fw_mpi *pt_fw_mpi_process(const pt_trace_ctx *ctx, size_t process);

/* A rank as records write it (PT_MPI_JOB_RANK: world << 24 | rank in that
 * world) -> its rank in the run (pt_fw_mpi.rank); negative ones (none,
 * any) as they are; -1 for a world the trace does not have. */
int32_t pt_fw_mpi_rank_of(const pt_trace_ctx *ctx, int32_t job_rank);

/* "rank R", and for a spawned world's "rank R (world W rank r)". */
static inline void pt_fw_mpi_label(const pt_fw_mpi *m, char *buf, size_t len)
{
	if (m->world)
		snprintf(buf, len, "rank %d (world %u rank %d)", m->rank, m->world, m->world_rank);
	else
		snprintf(buf, len, "rank %d", m->rank);
}

/* Time t of this process on rank 0's clock: linear through the two
 * points' offsets as pt_fw_mpi_fit chose them, the offset alone with one
 * point. The offsets are bounded (fw_mpi.c) but t is any time a log
 * holds: computed wide, and kept within the clock's range. */
static inline uint64_t pt_fw_mpi_map(const pt_fw_mpi *m, uint64_t t)
{
	__int128 off = m->use[0];
	if (m->clocks == 2 && m->l[1] > m->l[0])
		off += (__int128)(m->use[1] - m->use[0]) * ((__int128)t - (__int128)m->l[0]) /
		       (__int128)(m->l[1] - m->l[0]);
	__int128 r = (__int128)t + off;
	return r < 0 ? 0 : r > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

#endif
