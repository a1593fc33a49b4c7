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

typedef struct pt_fw_mpi {
	int rank;       /* in MPI_COMM_WORLD; -1: not a rank */
	int confirmed;  /* its MPI_INIT was seen (else: the launcher's word only) */
	uint32_t size;  /* of the job, 0 if unknown */
	const char *host; /* NULL if unknown */
	/* clock points: at local time l[i] (this process's clock), rank 0's
	 * clock read l[i] + off[i]; 0 points: times are left as they are */
	int clocks;
	uint64_t l[2];
	int64_t off[2];
	uint64_t rtt[2]; /* round trip of each point's ping-pong (its error is half) */
} pt_fw_mpi;

/* The MPI facts of ctx->processes[process], NULL when it is no rank. */
const pt_fw_mpi *pt_fw_mpi_process(const pt_trace_ctx *ctx, size_t process);

/* Time t of this process on rank 0's clock: linear between the two clock
 * points (offset and drift), the nearest point's offset with one. */
static inline uint64_t pt_fw_mpi_map(const pt_fw_mpi *m, uint64_t t)
{
	if (m->clocks == 1 || (m->clocks == 2 && m->l[1] <= m->l[0]))
		return t + (uint64_t)m->off[0];
	__int128 dt = (__int128)(int64_t)(t - m->l[0]);
	__int128 d = (__int128)(m->off[1] - m->off[0]) * dt / (int64_t)(m->l[1] - m->l[0]);
	return t + (uint64_t)(m->off[0] + (int64_t)d);
}

#endif
