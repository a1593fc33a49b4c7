/* SPDX-License-Identifier: MIT */
/* What the MPI part does whatever the ABI of the program's MPI library
 * (mpi_abi.h), compiled once and without mpi.h: which job this process is
 * a rank of (from the launcher's environment, before anything is
 * written), the part of the runtime and its moments, the lookups of the
 * library's functions, and the pick of the ABI half the exported entry
 * points jump to. */
#define _GNU_SOURCE
#include "mpi_abi.h"
#include "pt_fd.h"
#include "pt_interpose.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The halves built into this libtrace.so, for the messages. */
#ifndef PT_MPI_ABIS_BUILT
#define PT_MPI_ABIS_BUILT "none"
#endif

int pt_mpi_seen_call, pt_mpi_other_mpi;

/* The halves' descriptors (PT_MPI_ABI): none where the MPI part was built
 * without them (the unit tests' objects). */
extern const pt_mpi_abi *const __start_pt_mpi_abis[] __attribute__((weak, visibility("hidden")));
extern const pt_mpi_abi *const __stop_pt_mpi_abis[] __attribute__((weak, visibility("hidden")));

/* ---- the MPI library's functions -------------------------------------------- */

PT_REAL_DECL(dlopen);
PT_REAL_DECL(dlclose);

/* Loaded objects' paths, gathered under the loader's lock (nothing may be
 * opened there) into pages of our own. */
typedef struct obj_names {
	char *buf;
	size_t len, used;
} obj_names;

static int add_name(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	obj_names *o = arg;
	const char *n = info->dlpi_name;
	size_t k = n ? strlen(n) + 1 : 1;
	if (!n || k == 1 || o->used + k > o->len)
		return 0; /* the program itself: in the global scope already */
	memcpy(o->buf + o->used, n, k);
	o->used += k;
	return 0;
}

static int is_ours(const void *p)
{
	Dl_info a, b;
	return dladdr(p, &a) && dladdr((const void *)is_ours, &b) && a.dli_fbase == b.dli_fbase;
}

/* A definition of name in an object that is not in the global scope: a
 * library loaded with RTLD_LOCAL (an MPI library that a Python extension
 * or a plugin brought with it, as mpi4py does). RTLD_DEFAULT does not see
 * it; each loaded object is asked through a handle of its own (RTLD_NOLOAD:
 * nothing is loaded, nothing stays open). The object that answered last is
 * asked first next time: one MPI library answers nearly every lookup. */
static void *sym_local(const char *name)
{
	static char last[1024];
	static pt_spin lock;
	__typeof__(&dlopen) open_ = PT_REAL(dlopen);
	__typeof__(&dlclose) close_ = PT_REAL(dlclose);
	if (!open_ || !close_)
		return NULL;
	obj_names o = {pt_pages_alloc(64u << 10), 64u << 10, 0};
	if (!o.buf)
		return NULL;
	pt_spin_lock(&lock);
	size_t k = strlen(last) + 1;
	if (k > 1) {
		memcpy(o.buf, last, k);
		o.used = k;
	}
	pt_spin_unlock(&lock);
	dl_iterate_phdr(add_name, &o);
	void *p = NULL;
	for (size_t at = 0; at < o.used && !p; at += strlen(o.buf + at) + 1) {
		void *h = open_(o.buf + at, RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			continue;
		p = dlsym(h, name);
		if (p && is_ours(p))
			p = NULL;
		close_(h);
		if (p && strlen(o.buf + at) < sizeof last) {
			pt_spin_lock(&lock);
			strcpy(last, o.buf + at);
			pt_spin_unlock(&lock);
		}
	}
	pt_pages_free(o.buf, o.len);
	return p;
}

void *pt_mpi_sym(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);
	return p ? p : sym_local(name);
}

void *pt_mpi_sym_next(const char *name)
{
	void *p = pt_real(name);
	return p ? p : sym_local(name);
}


/* ---- the ABI ---------------------------------------------------------------- */

void pt_mpi_library_version(char *buf, size_t len)
{
	/* MPI_MAX_LIBRARY_VERSION_STRING: 256 in Open MPI, 8192 in MPICH */
	static char text[8192];
	static pt_spin lock;
	int (*get)(char *, int *) = (int (*)(char *, int *))pt_mpi_sym("PMPI_Get_library_version");
	int n = 0;
	buf[0] = 0;
	if (!get || !len)
		return;
	pt_spin_lock(&lock);
	if (get(text, &n) == 0 && n > 0 && (size_t)n < sizeof text) {
		text[n] = 0;
		snprintf(buf, len, "%s", text);
	}
	pt_spin_unlock(&lock);
}

/* The exported entry points' slots (mpi_dispatch.S). */
extern void *pt_mpi_slots[] __attribute__((visibility("hidden")));
extern const size_t pt_mpi_nslots __attribute__((visibility("hidden")));
static const pt_mpi_abi *picked;

const pt_mpi_abi *pt_mpi_picked(void)
{
	return __atomic_load_n(&picked, __ATOMIC_ACQUIRE);
}

void pt_mpi_pick(void)
{
	const pt_mpi_abi *use = NULL, *first = NULL;
	for (const pt_mpi_abi *const *a = __start_pt_mpi_abis; a < __stop_pt_mpi_abis && !use; a++) {
		if (!first)
			first = *a;
		if ((*a)->match())
			use = *a;
	}
	/* no half matches: the first passes the calls on untraced and says
	 * why (its pt_mpi_decide) */
	if (!use)
		use = first;
	if (!use || *use->nc + *use->nf != pt_mpi_nslots) {
		/* a libtrace.so whose halves were built from another table of
		 * calls than its entry points: it cannot go on (a trap, not
		 * abort(): the runtime never calls its own exported wrappers) */
		pt_warn("the MPI part of libtrace.so is inconsistent (%zu entry points, %zu wrappers)",
			pt_mpi_nslots, use ? *use->nc + *use->nf : 0);
		__builtin_trap();
	}
	for (size_t i = 0; i < *use->nc; i++)
		__atomic_store_n(&pt_mpi_slots[i], use->c[i], __ATOMIC_RELEASE);
	for (size_t i = 0; i < *use->nf; i++)
		__atomic_store_n(&pt_mpi_slots[*use->nc + i], use->f[i], __ATOMIC_RELEASE);
	__atomic_store_n(&picked, use, __ATOMIC_RELEASE);
}

/* ---- the job ---------------------------------------------------------- */

/* What the launcher said (join), for the MPI_JOB record and MPI_Init. */
pt_mpi_job_info pt_mpi_job;
#define job pt_mpi_job


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

/* MPICH's Hydra (mpiexec.mpich) hands its ranks PMI_RANK and PMI_SIZE but
 * nothing that names the job; its proxy, the ranks' parent on every node
 * (hydra_pmi_proxy), is started with the address mpiexec listens on
 * (--control-port HOST:PORT: one per mpiexec, the same for all its
 * proxies) and the process group (--pgid: 0 for the ranks mpiexec
 * started, 1, 2... for the ones MPI_Comm_spawn started). The proxy is
 * looked for among the process's first ancestors: a rank may be started
 * through `env` or a shell. 1 when found. */
static int hydra_job(char *name, size_t len, uint32_t *pgid)
{
	pid_t pid = getppid();
	for (int depth = 0; depth < 4 && pid > 1; depth++) {
		char path[64], buf[4096];
		snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
		ssize_t n = pt_fd_read_file(path, buf, sizeof buf - 1);
		if (n <= 0)
			return 0;
		buf[n] = 0;
		const char *port = NULL, *group = NULL, *exe = strrchr(buf, '/');
		exe = exe ? exe + 1 : buf;
		for (ssize_t at = (ssize_t)strlen(buf) + 1; at < n; at += (ssize_t)strlen(buf + at) + 1) {
			if (!strcmp(buf + at, "--control-port") && at + 12 < n)
				port = buf + at + strlen(buf + at) + 1;
			else if (!strcmp(buf + at, "--pgid") && at + 6 < n)
				group = buf + at + strlen(buf + at) + 1;
		}
		if (!strncmp(exe, "hydra_pmi_proxy", 15) && port && *port) {
			unsigned long g = group ? strtoul(group, NULL, 10) : 0;
			*pgid = g <= PT_MPI_WORLDS_MAX ? (uint32_t)g : 0;
			snprintf(name, len, "%s", port);
			return 1;
		}
		/* the parent's parent: the fourth field of /proc/PID/stat,
		 * after the command's name in parentheses */
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
		n = pt_fd_read_file(path, buf, sizeof buf - 1);
		if (n <= 0)
			return 0;
		buf[n] = 0;
		const char *close_paren = strrchr(buf, ')');
		int ppid = 0;
		if (!close_paren || sscanf(close_paren + 1, " %*c %d", &ppid) != 1)
			return 0;
		pid = ppid;
	}
	return 0;
}

/* Every process of one job finds the same key in its environment, and no
 * other job has it: Open MPI's mpirun hands its ranks a random 128-bit
 * key (orte_precondition_transports) and the job id; Slurm a job and step
 * number; Hydra the address of its mpiexec (above); a PMIx launcher a
 * namespace. The run id and the default trace
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
	} else if (!env_uint("PMI_RANK", &rank) && !env_uint("PMI_SIZE", &size) &&
		   hydra_job(name, sizeof name, &job.world)) {
		job.launcher = PT_MPI_LAUNCHER_HYDRA;
		key = fnv1a(fnv1a(key, "hydra"), name);
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

void pt_mpi_host_name(char *buf, size_t len)
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
	pt_mpi_host_name(host, sizeof host);
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
	    "its MPI library has an ABI this libtrace.so was not built for (" PT_MPI_ABIS_BUILT
	    ")"};
	pt_warn("rank 0 of this MPI job made no MPI call that was traced: %s; the other ranks are "
		"likely the same (docs/MPI.md, \"When no MPI call is traced\")",
		why[u.why]);
}

static void mpi_fork_child(void)
{
	/* MPI does not let a forked child use it: whatever it calls goes to
	 * the library untouched. */
	job.joined = 0;
	job.world = 0;
	for (const pt_mpi_abi *const *a = __start_pt_mpi_abis; a < __stop_pt_mpi_abis; a++)
		(*a)->fork_child();
}

PT_SUBSYSTEM(mpi_part) = {
	.name = "mpi",
	.order = PT_ORDER_INTERPOSE,
	.init = mpi_init_part,
	.fork_child = mpi_fork_child,
	.shutdown = mpi_shutdown,
	.join = mpi_join,
};

