/* SPDX-License-Identifier: MIT */
/* The Fortran entry points (docs/MPI.md, "Fortran"). Open MPI's Fortran
 * bindings (`use mpi`, mpif.h: mpi_send_ in libmpi_mpifh) call PMPI_*
 * directly, so the C wrappers never see a Fortran program's calls: the
 * Fortran wrappers (written from the table of calls by gen_wrappers.py)
 * wrap the Fortran symbols themselves (gfortran's and most compilers'
 * naming: lower case, one trailing underscore), pass every call on to the
 * library's own Fortran routine, and describe it with the C handles the
 * Fortran ones stand for (MPI_Comm_f2c...): this file. The `mpi_f08`
 * module's entry points (mpi_send_f08_...) are not wrapped.
 *
 * Every argument of a Fortran MPI routine is an address (CHARACTER
 * arguments add hidden lengths after the last one), so the calls only
 * bracketed with MPI_CALL / MPI_CALL_END are forwarded with the first 16
 * words of arguments, whatever their number: on the x86-64 and AArch64
 * calling conventions a callee reads only the arguments it has, and the
 * extra words read are the caller's frame. */
#define _GNU_SOURCE
#include "mpi_fortran.h"

pt_mpi_ftable pt_mpi_ff;

#ifdef PT_MPI_ABI_OMPI
void pt_mpi_ff_lookup(void)
{
	pt_mpi_ff.comm = (__typeof__(pt_mpi_ff.comm))pt_mpi_sym("PMPI_Comm_f2c");
	pt_mpi_ff.type = (__typeof__(pt_mpi_ff.type))pt_mpi_sym("PMPI_Type_f2c");
	pt_mpi_ff.req = (__typeof__(pt_mpi_ff.req))pt_mpi_sym("PMPI_Request_f2c");
	pt_mpi_ff.file = (__typeof__(pt_mpi_ff.file))pt_mpi_sym("PMPI_File_f2c");
	pt_mpi_ff.status = (__typeof__(pt_mpi_ff.status))pt_mpi_sym("PMPI_Status_f2c");
	pt_mpi_ff.status_ignore = pt_mpi_sym("mpi_fortran_status_ignore_");
	pt_mpi_ff.statuses_ignore = pt_mpi_sym("mpi_fortran_statuses_ignore_");
	pt_mpi_ff.in_place = pt_mpi_sym("mpi_fortran_in_place_");
	__atomic_store_n(&pt_mpi_ff.done, 1, __ATOMIC_RELEASE);
}
#else
/* MPICH: a Fortran handle is the C one (mpi.h's MPI_Comm_f2c is a cast);
 * the sentinels are variables of the library (MPI_F_STATUS_IGNORE,
 * MPI_F_STATUSES_IGNORE, and MPIR_F_MPI_IN_PLACE, the address of the
 * Fortran MPI_IN_PLACE) that its Fortran MPI_Init sets: read at each use
 * (pt_mpi_fsentinel). */
static MPI_Comm comm_f2c(MPI_Fint f)
{
	return (MPI_Comm)f;
}
static MPI_Datatype type_f2c(MPI_Fint f)
{
	return (MPI_Datatype)f;
}
static MPI_Request req_f2c(MPI_Fint f)
{
	return (MPI_Request)f;
}

void pt_mpi_ff_lookup(void)
{
	pt_mpi_ff.comm = comm_f2c;
	pt_mpi_ff.type = type_f2c;
	pt_mpi_ff.req = req_f2c;
	/* ROMIO's MPI_File is a pointer, its Fortran handle an index */
	pt_mpi_ff.file = (__typeof__(pt_mpi_ff.file))pt_mpi_sym("PMPI_File_f2c");
	pt_mpi_ff.status = (__typeof__(pt_mpi_ff.status))pt_mpi_sym("PMPI_Status_f2c");
	pt_mpi_ff.status_ignore = pt_mpi_sym("MPI_F_STATUS_IGNORE");
	pt_mpi_ff.statuses_ignore = pt_mpi_sym("MPI_F_STATUSES_IGNORE");
	pt_mpi_ff.in_place = pt_mpi_sym("MPIR_F_MPI_IN_PLACE");
	__atomic_store_n(&pt_mpi_ff.done, 1, __ATOMIC_RELEASE);
}
#endif

static int fstatus(const MPI_Fint *f, MPI_Status *c)
{
	return pt_mpi_ff.status && pt_mpi_ff.status(f, c) == MPI_SUCCESS;
}

void pt_mpi_frecv_end(unsigned call, const MPI_Fint *ierr, const MPI_Fint *comm,
		      const MPI_Fint *st, uint64_t posted, const pt_mpi_sent *sent)
{
	MPI_Status c;
	if (*ierr == MPI_SUCCESS && pt_mpi_ready && fstatus(st, &c))
		pt_mpi_recv_end(call, *ierr, pt_mpi_fcomm(comm), &c, posted, sent);
	else
		pt_mpi_end_call(call, *ierr);
}

int pt_mpi_frequests(const MPI_Fint *reqs, size_t n, pt_mpi_scratch *s, size_t room)
{
	if (!pt_mpi_ready || pt_mpi_scratch_get(room ? room : 1, s))
		return -1;
	for (size_t i = 0; i < n; i++)
		s->req[i] = pt_mpi_freq(&reqs[i]);
	return pt_mpi_any_recv(s->req, n);
}

void pt_mpi_fcomplete(unsigned call, const MPI_Request *h, const char *done, const MPI_Fint *fst,
		      MPI_Status *cst, size_t n)
{
	for (size_t i = 0; fst && i < n; i++)
		if (!done || done[i])
			fstatus(fst + i * PT_MPI_FSTATUS, &cst[i]);
	/* only after a success */
	pt_mpi_complete(call, MPI_SUCCESS, h, done, fst ? cst : NULL, n);
}

void pt_mpi_fdone_one(unsigned call, int rc, int done, const MPI_Request *h, const MPI_Fint *st)
{
	if (!done) {
		pt_mpi_end_call(call, rc);
		return;
	}
	MPI_Status c;
	char one = 1;
	pt_mpi_fcomplete(call, h, &one, st, &c, 1);
}

void pt_mpi_fsome_end(unsigned call, const MPI_Fint *ierr, const MPI_Fint *outcount,
		      const MPI_Fint *indices, const MPI_Fint *st, pt_mpi_scratch *s, size_t n)
{
	if (*ierr != MPI_SUCCESS || *outcount == MPI_UNDEFINED || *outcount <= 0) {
		pt_mpi_end_call(call, *ierr);
		return;
	}
	size_t k = (size_t)*outcount;
	/* the completed handles, in index order, where the C statuses go
	 * after them: st2 is free until pt_mpi_fcomplete fills it */
	MPI_Request *h = (MPI_Request *)(void *)s->st2;
	MPI_Status *cst = s->st2 + (k * sizeof(MPI_Request) + sizeof(MPI_Status) - 1) /
					   sizeof(MPI_Status);
	if (cst + k > s->st2 + n) { /* no room left: nothing to describe */
		pt_mpi_end_call(call, *ierr);
		return;
	}
	for (size_t i = 0; i < k; i++)
		h[i] = indices[i] >= 1 && (size_t)indices[i] <= n ? s->req[indices[i] - 1]
		                                                      : (MPI_Request)0;
	pt_mpi_fcomplete(call, h, NULL, st, cst, k);
}
