/* SPDX-License-Identifier: MIT */
/* The Fortran wrappers' view of a call (mpi_fortran.c): Open MPI's
 * Fortran handles and statuses as C ones. Private to runtime/mpi/. */
#ifndef PT_MPI_FORTRAN_H
#define PT_MPI_FORTRAN_H

#include "mpi_internal.h"

/* A Fortran status is MPI_STATUS_SIZE integers: the size of a C one. */
_Static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "Fortran status size");
#define PT_MPI_FSTATUS ((size_t)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
/* Count arrays are read as C ints. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER is a C int");

/* static __typeof__(&w) real: the library's own Fortran routine `name`,
 * which the wrapper w stands for, looked up once; a program that links no
 * MPI library gets an error in *ierr. */
#define PT_MPI_FREAL(w, name)                                                                      \
	static __typeof__(&w) real;                                                                \
	if (pt_unlikely(!real) && !(real = (__typeof__(&w))pt_mpi_sym_next(name))) {              \
		*ierr = pt_mpi_missing(name);                                                      \
		return;                                                                            \
	}

/* A routine only bracketed, forwarded with 16 words of arguments
 * (mpi_fortran.c says why that is safe). */
typedef void (*pt_mpi_fwords)(void *, void *, void *, void *, void *, void *, void *, void *,
			      void *, void *, void *, void *, void *, void *, void *, void *);

/* The library's conversions and sentinels, looked up at the first use
 * (mpi_fortran.c). */
typedef struct pt_mpi_ftable {
	int done;
	MPI_Comm (*comm)(MPI_Fint);
	MPI_Datatype (*type)(MPI_Fint);
	MPI_Request (*req)(MPI_Fint);
	MPI_File (*file)(MPI_Fint);
	int (*status)(const MPI_Fint *, MPI_Status *);
	const void *status_ignore, *statuses_ignore, *in_place;
} pt_mpi_ftable;
extern PT_HIDDEN pt_mpi_ftable pt_mpi_ff;
PT_HIDDEN void pt_mpi_ff_lookup(void);

static inline void pt_mpi_ff_init(void)
{
	if (!__atomic_load_n(&pt_mpi_ff.done, __ATOMIC_ACQUIRE))
		pt_mpi_ff_lookup();
}

/* Handles, valid between MPI_Init and MPI_Finalize (0 otherwise). */
static inline MPI_Comm pt_mpi_fcomm(const MPI_Fint *c)
{
	pt_mpi_ff_init();
	return pt_mpi_ready && pt_mpi_ff.comm ? pt_mpi_ff.comm(*c) : (MPI_Comm)0;
}
static inline MPI_Datatype pt_mpi_ftype(const MPI_Fint *t)
{
	pt_mpi_ff_init();
	return pt_mpi_ready && pt_mpi_ff.type ? pt_mpi_ff.type(*t) : (MPI_Datatype)0;
}
static inline MPI_Request pt_mpi_freq(const MPI_Fint *r)
{
	pt_mpi_ff_init();
	return pt_mpi_ready && pt_mpi_ff.req ? pt_mpi_ff.req(*r) : (MPI_Request)0;
}
static inline MPI_File pt_mpi_ffile(const MPI_Fint *f)
{
	pt_mpi_ff_init();
	return pt_mpi_ready && pt_mpi_ff.file ? pt_mpi_ff.file(*f) : (MPI_File)0;
}
/* A sentinel's address: Open MPI's is the symbol's; MPICH's is in the
 * variable the symbol names, which its Fortran MPI_Init sets. */
static inline const void *pt_mpi_fsentinel(const void *sym)
{
#ifdef PT_MPI_ABI_OMPI
	return sym;
#else
	return sym ? *(const void *const *)sym : NULL;
#endif
}
static inline int pt_mpi_fin_place(const void *buf)
{
	pt_mpi_ff_init();
	const void *p = pt_mpi_fsentinel(pt_mpi_ff.in_place);
	return p && buf == p;
}

/* The status(es) a call fills: the program's, or the wrapper's (mine, the
 * scratch's) when it passed MPI_STATUS(ES)_IGNORE. */
static inline MPI_Fint *pt_mpi_fstatus_for(MPI_Fint *status, MPI_Fint *mine)
{
	pt_mpi_ff_init();
	return status == pt_mpi_fsentinel(pt_mpi_ff.status_ignore) ? mine : status;
}
static inline MPI_Fint *pt_mpi_fstatuses_for(MPI_Fint *statuses, pt_mpi_scratch *s)
{
	pt_mpi_ff_init();
	return statuses == pt_mpi_fsentinel(pt_mpi_ff.statuses_ignore) ? (MPI_Fint *)(void *)s->st
	                                                               : statuses;
}

/* A blocking receive's end from its Fortran status; sent: MPI_SENDRECV's
 * message, NULL for a receive alone. */
PT_HIDDEN void pt_mpi_frecv_end(unsigned call, const MPI_Fint *ierr, const MPI_Fint *comm,
				const MPI_Fint *st, uint64_t posted, const pt_mpi_sent *sent);
/* n requests' C handles into s (a scratch of room >= n elements): 1 if
 * one is a receive this part knows (its status is needed), 0 if none; -1
 * when they cannot be had (nothing to describe then). */
PT_HIDDEN int pt_mpi_frequests(const MPI_Fint *reqs, size_t n, pt_mpi_scratch *s,
				size_t room);
/* Completes requests h[0..n) (done[i]) whose Fortran statuses are fst
 * (NULL: none, and no receive among them), after a call that succeeded;
 * cst: room for their C statuses. */
PT_HIDDEN void pt_mpi_fcomplete(unsigned call, const MPI_Request *h, const char *done,
				const MPI_Fint *fst, MPI_Status *cst, size_t n);
/* The end of a call that completes one request (Wait, Test, Waitany,
 * Testany): done, the request *h with its Fortran status st; else the
 * call's end alone (rc: what it returned). */
PT_HIDDEN void pt_mpi_fdone_one(unsigned call, int rc, int done, const MPI_Request *h,
				const MPI_Fint *st);
/* Waitsome, Testsome: outcount requests, 1-based indices, statuses in
 * index order; s holds the call's requests, n elements of each array. */
PT_HIDDEN void pt_mpi_fsome_end(unsigned call, const MPI_Fint *ierr, const MPI_Fint *outcount,
				const MPI_Fint *indices, const MPI_Fint *st, pt_mpi_scratch *s,
				size_t n);

#endif
