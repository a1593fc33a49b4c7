/* SPDX-License-Identifier: MIT */
/* One ABI's half of the MPI part (mpi_abi.h): its description of itself,
 * what MPI_Init and MPI_Finalize add, and what a forked child forgets. It
 * sets the other MPI files up and calls into them; what they all share is
 * in mpi_record.c, below them; the job and the part of the runtime are
 * mpi_pt_mpi_job.c's, compiled once. */
#define _GNU_SOURCE
#include "mpi_internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>


/* ---- MPI_Init, MPI_Finalize ------------------------------------------- */

/* A duplicate of MPI_COMM_WORLD for the runtime's own messages (the clock
 * synchronisation), so that they never match the program's. */
static MPI_Comm sync_comm;
static int have_sync;

void pt_mpi_after_init(int required, int provided, int fortran)
{
	if (pt_mpi_ready)
		return;
	if (provided < 0) { /* MPI_Init (or no `provided`): the level it gave */
		provided = MPI_THREAD_SINGLE;
		__typeof__(&PMPI_Query_thread) query = pt_mpi_sym("PMPI_Query_thread");
		if (query)
			query(&provided);
	}
	int have_world = pt_mpi_abi_handles();
	__typeof__(&PMPI_Comm_rank) comm_rank = pt_mpi_sym("PMPI_Comm_rank");
	__typeof__(&PMPI_Comm_size) comm_size = pt_mpi_sym("PMPI_Comm_size");
	__typeof__(&PMPI_Comm_dup) comm_dup = pt_mpi_sym("PMPI_Comm_dup");
	if (!have_world || !comm_rank || !comm_size || !comm_dup ||
	    comm_rank(pt_mpi_comm_world, &pt_mpi_rank) != MPI_SUCCESS ||
	    comm_size(pt_mpi_comm_world, &pt_mpi_size) != MPI_SUCCESS) {
		pt_warn("MPI_Init: cannot find %s's MPI_COMM_WORLD; MPI calls are not traced",
			PT_MPI_ABI_NAME);
		__atomic_store_n(&pt_mpi_mode, PT_MPI_PASS, __ATOMIC_RELAXED);
		return;
	}
	pt_mpi_world = pt_mpi_job.world;
	pt_mpi_family = pt_mpi_job.family;
	pt_mpi_base = PT_MPI_JOB_RANK(pt_mpi_job.world, 0);
	if (pt_mpi_comm_init() != 0) {
		pt_warn("MPI_Init: out of memory; MPI calls are not traced");
		__atomic_store_n(&pt_mpi_mode, PT_MPI_PASS, __ATOMIC_RELAXED);
		return;
	}
	pt_mpi_req_shared = provided >= MPI_THREAD_MULTIPLE;
	pt_mpi_ready = 1;
	/* a spawned job's intercommunicator with its parents, made by
	 * MPI_Init: registered now, as the parents do after MPI_Comm_spawn */
	__typeof__(&PMPI_Comm_get_parent) get_parent = pt_mpi_sym("PMPI_Comm_get_parent");
	MPI_Comm parent;
	if (get_parent && get_parent(&parent) == MPI_SUCCESS)
		pt_mpi_comm_created(parent);
	if (pt_mpi_job.joined && (pt_mpi_job.rank != pt_mpi_rank || (pt_mpi_job.size && pt_mpi_job.size != (uint32_t)pt_mpi_size)))
		pt_warn("the launcher said rank %d of %u, MPI_Init says rank %d of %d",
			pt_mpi_job.rank, pt_mpi_job.size, pt_mpi_rank, pt_mpi_size);
	pt_rec_mpi_init r = {pt_mpi_rank, (uint32_t)pt_mpi_size, required, provided,
			     fortran ? PT_MPI_INIT_FORTRAN : 0, pt_mpi_job.world};
	char host[256];
	pt_mpi_host_name(host, sizeof host);
	pt_process_emit(PT_REC_MPI_INIT, 0, &r, sizeof r, host, strlen(host) + 1);
	have_sync = comm_dup(pt_mpi_comm_world, &sync_comm) == MPI_SUCCESS;
	if (have_sync)
		pt_mpi_clock_sync(0, sync_comm);
}

void pt_mpi_before_finalize(void)
{
	if (!pt_mpi_ready || !have_sync)
		return;
	pt_mpi_clock_sync(1, sync_comm);
	__typeof__(&PMPI_Comm_free) comm_free = pt_mpi_sym("PMPI_Comm_free");
	if (comm_free)
		comm_free(&sync_comm);
	have_sync = 0;
}

void pt_mpi_after_finalize(void)
{
	pt_mpi_ready = 0;
}

/* ---- this half ------------------------------------------------------------ */

static void abi_fork_child(void)
{
	pt_mpi_ready = 0;
	__atomic_store_n(&pt_mpi_mode, PT_MPI_PASS, __ATOMIC_RELAXED);
	pt_mpi_comm_fork_child();
	pt_mpi_req_fork_child();
}

PT_MPI_ABI(this_abi) = {
	.name = PT_MPI_ABI_NAME,
	.match = pt_mpi_abi_match,
	.c = pt_mpi_wrap_c,
	.f = pt_mpi_wrap_f,
	.nc = &pt_mpi_wrap_c_n,
	.nf = &pt_mpi_wrap_f_n,
	.fork_child = abi_fork_child,
};
