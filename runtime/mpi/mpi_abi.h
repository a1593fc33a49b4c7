/* SPDX-License-Identifier: MIT */
/* The MPI part's two halves (docs/MPI.md, "One library, two ABIs").
 *
 * MPI implementations do not share an ABI: Open MPI's handles are
 * pointers to its objects (MPI_COMM_WORLD is &ompi_mpi_comm_world), the
 * MPICH family's (MPICH, Intel MPI, Cray MPICH, MVAPICH) are ints with the
 * kind and, for a predefined datatype, its size in their bits; statuses,
 * constants and sentinels differ too. So the files that read handles
 * (everything of runtime/mpi/ but mpi_job.c, and the generated wrappers)
 * are compiled once per ABI, against that ABI's own mpi.h, into one
 * relocatable object each whose hidden names are made local
 * (runtime/mpi/mpi.cmake): both live in libtrace.so without a clash.
 *
 * What is compiled once, without any mpi.h, is this header's: the job the
 * launcher says this process belongs to, the part of the runtime, the
 * lookups of the MPI library's functions, and the pick of the ABI. The
 * exported MPI_* and mpi_*_ entry points (mpi_dispatch.S, generated) jump
 * through one slot each; the first call through any slot picks the ABI
 * whose half matches the loaded MPI library and points every slot at that
 * half's wrappers. */
#ifndef PT_MPI_ABI_H
#define PT_MPI_ABI_H

#include "pt_runtime.h"

#include <stddef.h>
#include <stdint.h>

/* One ABI's half, as it describes itself (PT_MPI_ABI in its mpi_part.c). */
typedef struct pt_mpi_abi {
	const char *name; /* "Open MPI", "MPICH" */
	/* The MPI library the process loaded has this ABI. */
	int (*match)(void);
	/* Its wrappers in the dispatcher's order: the C ones, then the
	 * Fortran ones (gen_wrappers.py --symbols). */
	void *const *c, *const *f;
	const size_t *nc, *nf;
	/* A forked child: MPI is not used there (mpi_job.c). */
	void (*fork_child)(void);
} pt_mpi_abi;

/* A pointer to the descriptor goes to the linker section pt_mpi_abis. */
#define PT_MPI_ABI(id)                                                                             \
	static const pt_mpi_abi id;                                                                \
	static const pt_mpi_abi *const id##_entry                                                  \
		__attribute__((used, section("pt_mpi_abis"), aligned(sizeof(void *)))) = &id;      \
	static const pt_mpi_abi id

/* Fills the slots with the matching half's wrappers (the first that
 * matches, Open MPI's before MPICH's; none: the first half, whose
 * wrappers pass the calls on untraced and say so). Idempotent. */
PT_HIDDEN void pt_mpi_pick(void);
/* The half picked; NULL before the first MPI call. */
PT_HIDDEN const pt_mpi_abi *pt_mpi_picked(void);

/* ---- the job (mpi_job.c) ------------------------------------------------ */
/* What the launcher said, read at start. */
typedef struct pt_mpi_job_info {
	int joined;
	int rank;
	uint32_t size;
	uint32_t launcher; /* PT_MPI_LAUNCHER_* */
	uint32_t world;    /* which of the run's jobs (MPI_Comm_spawn's: 1, 2...) */
	uint32_t family;   /* Open MPI: the job id's upper half, shared by the run's jobs */
} pt_mpi_job_info;
extern PT_HIDDEN pt_mpi_job_info pt_mpi_job;
/* This host's name ("?" if it has none), for MPI_JOB and MPI_INIT. */
PT_HIDDEN void pt_mpi_host_name(char *buf, size_t len);

/* For the part's shutdown, which says why a rank recorded nothing: a call
 * was recorded (set once: no line bounces between threads); the MPI
 * library is of no ABI this libtrace.so has. */
extern PT_HIDDEN int pt_mpi_seen_call, pt_mpi_other_mpi;

/* ---- the MPI library's functions (mpi_job.c) ------------------------------ */
/* A function of the MPI library by name (PMPI_*: the C profiling entry
 * points, which libtrace.so never defines; Fortran names: the next
 * definition after libtrace.so's). NULL if the library has none. */
PT_HIDDEN void *pt_mpi_sym(const char *name);
PT_HIDDEN void *pt_mpi_sym_next(const char *name);

/* The library's MPI_Get_library_version text into buf ("" if it has
 * none); callable before MPI_Init. */
PT_HIDDEN void pt_mpi_library_version(char *buf, size_t len);

#endif
