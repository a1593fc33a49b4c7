/* SPDX-License-Identifier: MIT */
/* The MPI part of the runtime (docs/MPI.md): which job this process is a
 * rank of (from the launcher's environment, before anything is written),
 * what MPI_Init and MPI_Finalize add, and the part's moments (init,
 * shutdown, fork). It sets the other MPI files up and calls into them;
 * what they all share is in mpi_record.c, below them. */
#define _GNU_SOURCE
#include "mpi_internal.h"

#include <dlfcn.h>
#include <link.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* ---- the job ---------------------------------------------------------- */

/* What the launcher said (join), for the MPI_JOB record. */
static struct {
	int joined;
	int rank;
	uint32_t size;
	uint32_t launcher;
	uint32_t world;  /* which of the run's jobs (MPI_Comm_spawn's: 1, 2...) */
	uint32_t family; /* Open MPI: the job id's upper half, shared by the run's jobs */
} job;


static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; s && *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

static int env_uint(const char *name, uint32_t *out)
{
	const char *v = getenv(name);
	char *end;
	if (!v || !*v)
		return -1;
	unsigned long x = strtoul(v, &end, 10);
	if (*end || x > UINT32_MAX)
		return -1;
	*out = (uint32_t)x;
	return 0;
}

/* The directory name's job part: what identifies the job to a person
 * (Open MPI's job id, Slurm's job.step), letters, digits, '.', '-' only. */
static void dir_name(char *out, size_t len, const char *what)
{
	char clean[64];
	size_t n = 0;
	for (const char *p = what; *p && n + 1 < sizeof clean; p++)
		clean[n++] = (char)((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
						    (*p >= 'A' && *p <= 'Z') || *p == '.' || *p == '-'
					    ? *p
					    : '_');
	clean[n] = 0;
	snprintf(out, len, "paratrace-mpi-%s", clean);
}

/* Every process of one job finds the same key in its environment, and no
 * other job has it: Open MPI's mpirun hands its ranks a random 128-bit
 * key (orte_precondition_transports) and the job id; Slurm a job and step
 * number; a PMIx launcher a namespace. The run id and the default trace
 * directory are made from it, so the ranks agree without talking.
 *
 * The jobs MPI_Comm_spawn starts join their parent's run: an Open MPI job
 * id is family << 16 | n, every job of one mpirun has its family and key,
 * the first n = 1 and the spawned ones 2, 3...; the key is made from the
 * first job's id and the spawned job is world n - 1 of the run. */
static void mpi_join(pt_run_job *out)
{
	const pt_config *cfg = pt_config_get();
	if (cfg && !cfg->mpi)
		return;
	uint32_t rank, size = 0;
	uint64_t key = 0xcbf29ce484222325ull;
	char name[64];
	const char *jobid;
	if (!env_uint("OMPI_COMM_WORLD_RANK", &rank) && !env_uint("OMPI_COMM_WORLD_SIZE", &size) &&
	    (jobid = getenv("OMPI_MCA_ess_base_jobid"))) {
		job.launcher = PT_MPI_LAUNCHER_OPENMPI;
		uint32_t id;
		snprintf(name, sizeof name, "%s", jobid);
		if (!env_uint("OMPI_MCA_ess_base_jobid", &id) && (id & 0xffffu) &&
		    (id & 0xffffu) - 1 <= PT_MPI_WORLDS_MAX) {
			job.world = (id & 0xffffu) - 1;
			job.family = id >> 16;
			snprintf(name, sizeof name, "%u", (id & 0xffff0000u) | 1u);
		}
		key = fnv1a(fnv1a(key, name), getenv("OMPI_MCA_orte_precondition_transports"));
		key = fnv1a(key, getenv("OMPI_MCA_orte_hnp_uri"));
	} else if (!env_uint("SLURM_PROCID", &rank) && getenv("SLURM_JOB_ID") &&
		   getenv("SLURM_STEP_ID")) {
		job.launcher = PT_MPI_LAUNCHER_SLURM;
		env_uint("SLURM_NTASKS", &size);
		key = fnv1a(fnv1a(fnv1a(key, getenv("SLURM_JOB_ID")), "."), getenv("SLURM_STEP_ID"));
		key = fnv1a(key, getenv("SLURM_CLUSTER_NAME"));
		snprintf(name, sizeof name, "%s.%s", getenv("SLURM_JOB_ID"), getenv("SLURM_STEP_ID"));
	} else if (!env_uint("PMIX_RANK", &rank) && getenv("PMIX_NAMESPACE")) {
		job.launcher = PT_MPI_LAUNCHER_PMIX;
		key = fnv1a(fnv1a(key, getenv("PMIX_NAMESPACE")), getenv("PMIX_SERVER_URI2"));
		snprintf(name, sizeof name, "%s", getenv("PMIX_NAMESPACE"));
	} else {
		return;
	}
	job.joined = 1;
	job.rank = (int)rank;
	job.size = size;
	out->run_id = key ? key : 1;
	out->rank = rank;
	out->size = size;
	out->world = job.world;
	dir_name(out->dir, sizeof out->dir, name);
}

static void host_name(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0)
		snprintf(buf, len, "?");
	buf[len - 1] = 0;
}

static void mpi_init_part(void)
{
	if (!job.joined)
		return;
	pt_rec_mpi_job r = {job.rank, job.size, job.launcher, job.world};
	char host[256];
	host_name(host, sizeof host);
	pt_process_emit(PT_REC_MPI_JOB, 0, &r, sizeof r, host, strlen(host) + 1);
}


/* A rank none of whose MPI calls was traced: why, in the process log, and
 * from rank 0 a warning (once for the run: every rank of a job is likely
 * built alike, and the analyzer names them all). Not from a signal's
 * handler: dladdr is not async-signal-safe. */
static void mpi_shutdown(int in_signal)
{
	if (in_signal || !job.joined || __atomic_load_n(&pt_mpi_seen_call, __ATOMIC_RELAXED))
		return;
	pt_rec_mpi_untraced u = {PT_MPI_UNTRACED_NO_LIBRARY, 0};
	const char *lib = "";
	Dl_info d;
	void *p = pt_mpi_sym("PMPI_Init");
	if (p && dladdr(p, &d) && d.dli_fname) {
		u.why = PT_MPI_UNTRACED_BYPASSED;
		lib = *d.dli_fname ? d.dli_fname : "the program";
	}
	if (__atomic_load_n(&pt_mpi_other_mpi, __ATOMIC_RELAXED))
		u.why = PT_MPI_UNTRACED_OTHER_MPI;
	pt_process_emit(PT_REC_MPI_UNTRACED, 0, &u, sizeof u, lib, strlen(lib) + 1);
	if (job.rank != 0 || job.world != 0)
		return;
	static const char *const why[] = {
	    NULL, "no MPI library was loaded: it does not use MPI, or links it statically",
	    "its MPI library is loaded but no call reached libtrace.so's MPI functions (the "
	    "program calls PMPI_* itself, or MPI is linked statically into it)",
	    "its MPI library is not Open MPI"};
	pt_warn("rank 0 of this MPI job made no MPI call that was traced: %s; the other ranks are "
		"likely the same (docs/MPI.md, \"When no MPI call is traced\")",
		why[u.why]);
}

static void mpi_fork_child(void)
{
	/* Open MPI does not let a forked child use MPI: whatever it calls
	 * goes to the library untouched. */
	pt_mpi_ready = 0;
	__atomic_store_n(&pt_mpi_mode, PT_MPI_PASS, __ATOMIC_RELAXED);
	job.joined = 0;
	job.world = 0;
	pt_mpi_comm_fork_child();
	pt_mpi_req_fork_child();
}

PT_SUBSYSTEM(mpi_part) = {
	.name = "mpi",
	.order = PT_ORDER_INTERPOSE,
	.init = mpi_init_part,
	.fork_child = mpi_fork_child,
	.shutdown = mpi_shutdown,
	.join = mpi_join,
};

/* ---- MPI_Init, MPI_Finalize ------------------------------------------- */

/* A duplicate of MPI_COMM_WORLD for the runtime's own messages (the clock
 * synchronisation), so that they never match the program's. */
static MPI_Comm sync_comm;

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
	pt_mpi_comm_world = (MPI_Comm)pt_mpi_sym("ompi_mpi_comm_world");
	pt_mpi_comm_self = (MPI_Comm)pt_mpi_sym("ompi_mpi_comm_self");
	pt_mpi_comm_null = (MPI_Comm)pt_mpi_sym("ompi_mpi_comm_null");
	pt_mpi_byte = (MPI_Datatype)pt_mpi_sym("ompi_mpi_byte");
	pt_mpi_request_null = (MPI_Request)pt_mpi_sym("ompi_request_null");
	__typeof__(&PMPI_Comm_rank) comm_rank = pt_mpi_sym("PMPI_Comm_rank");
	__typeof__(&PMPI_Comm_size) comm_size = pt_mpi_sym("PMPI_Comm_size");
	__typeof__(&PMPI_Comm_dup) comm_dup = pt_mpi_sym("PMPI_Comm_dup");
	if (!pt_mpi_comm_world || !pt_mpi_byte || !comm_rank || !comm_size || !comm_dup ||
	    comm_rank(pt_mpi_comm_world, &pt_mpi_rank) != MPI_SUCCESS ||
	    comm_size(pt_mpi_comm_world, &pt_mpi_size) != MPI_SUCCESS) {
		pt_warn("MPI_Init: cannot find Open MPI's MPI_COMM_WORLD; MPI calls are not traced");
		__atomic_store_n(&pt_mpi_mode, PT_MPI_PASS, __ATOMIC_RELAXED);
		return;
	}
	pt_mpi_world = job.world;
	pt_mpi_family = job.family;
	pt_mpi_base = PT_MPI_JOB_RANK(job.world, 0);
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
	if (job.joined && (job.rank != pt_mpi_rank || (job.size && job.size != (uint32_t)pt_mpi_size)))
		pt_warn("the launcher said rank %d of %u, MPI_Init says rank %d of %d",
			job.rank, job.size, pt_mpi_rank, pt_mpi_size);
	pt_rec_mpi_init r = {pt_mpi_rank, (uint32_t)pt_mpi_size, required, provided,
			     fortran ? PT_MPI_INIT_FORTRAN : 0, job.world};
	char host[256];
	host_name(host, sizeof host);
	pt_process_emit(PT_REC_MPI_INIT, 0, &r, sizeof r, host, strlen(host) + 1);
	if (comm_dup(pt_mpi_comm_world, &sync_comm) == MPI_SUCCESS)
		pt_mpi_clock_sync(0, sync_comm);
	else
		sync_comm = NULL;
}

void pt_mpi_before_finalize(void)
{
	if (!pt_mpi_ready || !sync_comm)
		return;
	pt_mpi_clock_sync(1, sync_comm);
	__typeof__(&PMPI_Comm_free) comm_free = pt_mpi_sym("PMPI_Comm_free");
	if (comm_free)
		comm_free(&sync_comm);
	sync_comm = NULL;
}

void pt_mpi_after_finalize(void)
{
	pt_mpi_ready = 0;
}
