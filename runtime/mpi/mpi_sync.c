/* SPDX-License-Identifier: MIT */
/* One clock for all ranks. Each rank's CLOCK_MONOTONIC counts from its
 * host's boot: across hosts they differ by far more than a message's
 * latency, and they drift apart. At MPI_Init and at MPI_Finalize, rank 0
 * exchanges ROUNDS ping-pongs with every other rank in turn, on a
 * communicator of the runtime's own:
 *
 *   rank 0:  t1 = now; send; recv(t_r); t2 = now
 *   rank r:  recv; t_r = now; send(t_r)
 *
 * and keeps the exchange with the shortest round trip: at t_r on rank r's
 * clock, rank 0's read (t1 + t2) / 2, give or take half that round trip.
 * Rank r records the pair (MPI_CLOCK); the analyzer maps its times onto
 * rank 0's clock, linearly between the pair at MPI_Init and the one at
 * MPI_Finalize (the offset and the drift). */
#define _GNU_SOURCE
#include "mpi_internal.h"

#define ROUNDS 24
#define TAG_PING 0x7a71
#define TAG_RESULT 0x7a72

void pt_mpi_clock_sync(int phase, MPI_Comm comm)
{
	__typeof__(&PMPI_Send) send = pt_mpi_sym("PMPI_Send");
	__typeof__(&PMPI_Recv) recv = pt_mpi_sym("PMPI_Recv");
	if (!send || !recv)
		return;
	MPI_Status st;
	if (pt_mpi_rank == 0) {
		uint64_t now = pt_mono_ns();
		pt_rec_mpi_clock self = {now, now, 0, 0, 0};
		pt_process_emit(PT_REC_MPI_CLOCK, (unsigned)phase, &self, sizeof self, NULL, 0);
		for (int r = 1; r < pt_mpi_size; r++) {
			uint64_t best_rtt = UINT64_MAX, best_ref = 0, best_remote = 0;
			for (int k = 0; k < ROUNDS; k++) {
				uint64_t remote = 0;
				uint64_t t1 = pt_mono_ns();
				if (send(NULL, 0, pt_mpi_byte, r, TAG_PING, comm) != MPI_SUCCESS ||
				    recv(&remote, sizeof remote, pt_mpi_byte, r, TAG_PING, comm, &st) !=
					    MPI_SUCCESS)
					return;
				uint64_t t2 = pt_mono_ns();
				if (t2 - t1 < best_rtt) {
					best_rtt = t2 - t1;
					best_ref = t1 + (t2 - t1) / 2;
					best_remote = remote;
				}
			}
			uint64_t res[3] = {best_remote, best_ref, best_rtt};
			if (send(res, sizeof res, pt_mpi_byte, r, TAG_RESULT, comm) != MPI_SUCCESS)
				return;
		}
		return;
	}
	for (int k = 0; k < ROUNDS; k++) {
		if (recv(NULL, 0, pt_mpi_byte, 0, TAG_PING, comm, &st) != MPI_SUCCESS)
			return;
		uint64_t t = pt_mono_ns();
		if (send(&t, sizeof t, pt_mpi_byte, 0, TAG_PING, comm) != MPI_SUCCESS)
			return;
	}
	uint64_t res[3];
	if (recv(res, sizeof res, pt_mpi_byte, 0, TAG_RESULT, comm, &st) != MPI_SUCCESS)
		return;
	pt_rec_mpi_clock c = {res[0], res[1], res[2], ROUNDS, 0};
	pt_process_emit(PT_REC_MPI_CLOCK, (unsigned)phase, &c, sizeof c, NULL, 0);
}
