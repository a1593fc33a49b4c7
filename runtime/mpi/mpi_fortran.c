/* SPDX-License-Identifier: MIT */
/* The Fortran entry points (docs/MPI.md, "Fortran"). Open MPI's Fortran
 * bindings (`use mpi`, mpif.h: mpi_send_ in libmpi_mpifh) call PMPI_*
 * directly, so the C wrappers never see a Fortran program's calls: these
 * wrap the Fortran symbols themselves (gfortran's and most compilers'
 * naming: lower case, one trailing underscore), pass every call on to the
 * library's own Fortran routine, and describe it with the C handles the
 * Fortran ones stand for (MPI_Comm_f2c...). The `mpi_f08` module's entry
 * points (mpi_send_f08_...) are not wrapped.
 *
 * Every argument of a Fortran MPI routine is an address (CHARACTER
 * arguments add hidden lengths after the last one), so the calls this part
 * only brackets with MPI_CALL / MPI_CALL_END (FPLAIN) are forwarded with
 * the first 16 words of arguments, whatever their number: on the x86-64
 * and AArch64 calling conventions a callee reads only the arguments it has,
 * and the extra words read are the caller's frame. */
#define _GNU_SOURCE
#include "mpi_internal.h"

#include <string.h>

#define CALL(n) PT_MPI_CALL_##n
typedef MPI_Fint F;
/* A Fortran status is MPI_STATUS_SIZE integers: the size of a C one. */
_Static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "Fortran status size");
#define FSTATUS ((size_t)(sizeof(MPI_Status) / sizeof(MPI_Fint)))

/* Open MPI's conversions and sentinels, looked up once. */
static struct {
	int done;
	MPI_Comm (*comm)(MPI_Fint);
	MPI_Datatype (*type)(MPI_Fint);
	MPI_Request (*req)(MPI_Fint);
	int (*status)(const MPI_Fint *, MPI_Status *);
	const void *status_ignore, *statuses_ignore, *in_place;
} ff;

static void ff_init(void)
{
	if (__atomic_load_n(&ff.done, __ATOMIC_ACQUIRE))
		return;
	ff.comm = (__typeof__(ff.comm))pt_mpi_sym("PMPI_Comm_f2c");
	ff.type = (__typeof__(ff.type))pt_mpi_sym("PMPI_Type_f2c");
	ff.req = (__typeof__(ff.req))pt_mpi_sym("PMPI_Request_f2c");
	ff.status = (__typeof__(ff.status))pt_mpi_sym("PMPI_Status_f2c");
	ff.status_ignore = pt_mpi_sym("mpi_fortran_status_ignore_");
	ff.statuses_ignore = pt_mpi_sym("mpi_fortran_statuses_ignore_");
	ff.in_place = pt_mpi_sym("mpi_fortran_in_place_");
	__atomic_store_n(&ff.done, 1, __ATOMIC_RELEASE);
}

/* Handles, valid between MPI_Init and MPI_Finalize (NULL otherwise). */
static MPI_Comm fcomm(const F *c)
{
	ff_init();
	return pt_mpi_ready && ff.comm ? ff.comm(*c) : NULL;
}
static MPI_Datatype ftype(const F *t)
{
	ff_init();
	return pt_mpi_ready && ff.type ? ff.type(*t) : NULL;
}
static MPI_Request freq(const F *r)
{
	ff_init();
	return pt_mpi_ready && ff.req ? ff.req(*r) : NULL;
}
static int fstatus(const F *f, MPI_Status *c)
{
	return ff.status && ff.status(f, c) == MPI_SUCCESS;
}
static int in_place(const void *buf)
{
	ff_init();
	return ff.in_place && buf == ff.in_place;
}

/* The real routine; a program that links no MPI library gets an error. */
#define FREAL(fn)                                                                                  \
	static __typeof__(&fn) real;                                                               \
	if (pt_unlikely(!real) && !(real = (__typeof__(&fn))pt_mpi_sym_next(#fn))) {              \
		*ierr = pt_mpi_missing(#fn);                                                       \
		return;                                                                            \
	}

/* ---- calls recorded as a begin and an end ------------------------------- */
typedef void (*fwd16)(void *, void *, void *, void *, void *, void *, void *, void *, void *,
		      void *, void *, void *, void *, void *, void *, void *);

#define FPLAIN(lower, n)                                                                           \
	PT_INTERPOSE void mpi_##lower##_(void *a, void *b, void *c, void *d, void *e, void *f,     \
					 void *g, void *h, void *i, void *j, void *k, void *l,     \
					 void *m, void *o, void *p, void *q)                       \
	{                                                                                          \
		static fwd16 real;                                                                 \
		if (pt_unlikely(!real) && !(real = (fwd16)pt_mpi_sym_next("mpi_" #lower "_"))) {  \
			pt_mpi_missing("mpi_" #lower "_");                                         \
			return;                                                                    \
		}                                                                                  \
		if (!pt_mpi_on()) {                                                                \
			real(a, b, c, d, e, f, g, h, i, j, k, l, m, o, p, q);                      \
			return;                                                                    \
		}                                                                                  \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		real(a, b, c, d, e, f, g, h, i, j, k, l, m, o, p, q);                              \
		if (on) /* where its ierr is is not known here */                                  \
			pt_mpi_end_call(CALL(n), MPI_SUCCESS);                                     \
	}

/* MPI_WTIME and MPI_WTICK are functions returning a double. */
#define FDOUBLE(lower, n)                                                                          \
	PT_INTERPOSE double mpi_##lower##_(void)                                                   \
	{                                                                                          \
		static double (*real)(void);                                                       \
		if (pt_unlikely(!real) &&                                                          \
		    !(real = (double (*)(void))pt_mpi_sym_next("mpi_" #lower "_")))               \
			return (double)pt_mpi_missing("mpi_" #lower "_");                          \
		if (!pt_mpi_on())                                                                  \
			return real();                                                             \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		double r = real();                                                                 \
		if (on)                                                                            \
			pt_mpi_end_call(CALL(n), MPI_SUCCESS);                                     \
		return r;                                                                          \
	}
FDOUBLE(wtime, Wtime)
FDOUBLE(wtick, Wtick)

/* ---- MPI_INIT, MPI_FINALIZE ------------------------------------------------ */

PT_INTERPOSE void mpi_init_(F *ierr)
{
	FREAL(mpi_init_)
	if (!pt_mpi_on()) {
		real(ierr);
		return;
	}
	int on = pt_mpi_begin_call(CALL(Init));
	real(ierr);
	if (*ierr == MPI_SUCCESS)
		pt_mpi_after_init(-1, -1, 1);
	if (on)
		pt_mpi_end_call(CALL(Init), *ierr);
}

PT_INTERPOSE void mpi_init_thread_(F *required, F *provided, F *ierr)
{
	FREAL(mpi_init_thread_)
	if (!pt_mpi_on()) {
		real(required, provided, ierr);
		return;
	}
	int on = pt_mpi_begin_call(CALL(Init_thread));
	real(required, provided, ierr);
	if (*ierr == MPI_SUCCESS)
		pt_mpi_after_init(*required, *provided, 1);
	if (on)
		pt_mpi_end_call(CALL(Init_thread), *ierr);
}

PT_INTERPOSE void mpi_finalize_(F *ierr)
{
	FREAL(mpi_finalize_)
	if (!pt_mpi_on()) {
		real(ierr);
		return;
	}
	int on = pt_mpi_begin_call(CALL(Finalize));
	pt_mpi_before_finalize();
	real(ierr);
	pt_mpi_after_finalize();
	if (on)
		pt_mpi_end_call(CALL(Finalize), *ierr);
}

/* ---- point to point ----------------------------------------------------- */

#define FSEND(lower, n)                                                                            \
	PT_INTERPOSE void mpi_##lower##_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm,     \
					 F *ierr)                                                  \
	{                                                                                          \
		FREAL(mpi_##lower##_)                                                              \
		if (!pt_mpi_on()) {                                                                \
			real(buf, count, dt, dest, tag, comm, ierr);                               \
			return;                                                                    \
		}                                                                                  \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		real(buf, count, dt, dest, tag, comm, ierr);                                       \
		if (on)                                                                            \
			pt_mpi_send_end(CALL(n), *ierr, *dest, *tag, fcomm(comm), *count,          \
					ftype(dt), NULL);                                          \
	}
FSEND(send, Send)
FSEND(bsend, Bsend)
FSEND(ssend, Ssend)
FSEND(rsend, Rsend)

#define FISEND(lower, n)                                                                           \
	PT_INTERPOSE void mpi_##lower##_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm,     \
					 F *req, F *ierr)                                          \
	{                                                                                          \
		FREAL(mpi_##lower##_)                                                              \
		if (!pt_mpi_on()) {                                                                \
			real(buf, count, dt, dest, tag, comm, req, ierr);                          \
			return;                                                                    \
		}                                                                                  \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		real(buf, count, dt, dest, tag, comm, req, ierr);                                  \
		if (on) {                                                                          \
			MPI_Request h = *ierr == MPI_SUCCESS ? freq(req) : NULL;                   \
			pt_mpi_send_end(CALL(n), *ierr, *dest, *tag, fcomm(comm), *count,          \
					ftype(dt), &h);                                            \
		}                                                                                  \
	}
FISEND(isend, Isend)
FISEND(ibsend, Ibsend)
FISEND(issend, Issend)
FISEND(irsend, Irsend)

/* The status a blocking receive fills: the program's, or ours when it
 * passed MPI_STATUS_IGNORE. */
static F *status_for(F *status, F *mine)
{
	ff_init();
	return status == ff.status_ignore ? mine : status;
}

/* sent: MPI_SENDRECV's message, NULL for a receive alone. */
static void frecv_end(unsigned call, F *ierr, const F *comm, const F *st, uint64_t posted,
		      const pt_mpi_sent *sent)
{
	MPI_Status c;
	if (*ierr == MPI_SUCCESS && pt_mpi_ready && fstatus(st, &c))
		pt_mpi_recv_end(call, *ierr, fcomm(comm), &c, posted, sent);
	else
		pt_mpi_end_call(call, *ierr);
}

PT_INTERPOSE void mpi_recv_(void *buf, F *count, F *dt, F *src, F *tag, F *comm, F *status,
			    F *ierr)
{
	FREAL(mpi_recv_)
	if (!pt_mpi_on()) {
		real(buf, count, dt, src, tag, comm, status, ierr);
		return;
	}
	F mine[FSTATUS], *st = status_for(status, mine);
	uint64_t posted = pt_now();
	int on = pt_mpi_begin_call(CALL(Recv));
	real(buf, count, dt, src, tag, comm, st, ierr);
	if (on)
		frecv_end(CALL(Recv), ierr, comm, st, posted, NULL);
}

PT_INTERPOSE void mpi_irecv_(void *buf, F *count, F *dt, F *src, F *tag, F *comm, F *req, F *ierr)
{
	FREAL(mpi_irecv_)
	if (!pt_mpi_on()) {
		real(buf, count, dt, src, tag, comm, req, ierr);
		return;
	}
	uint64_t posted = pt_now();
	int on = pt_mpi_begin_call(CALL(Irecv));
	real(buf, count, dt, src, tag, comm, req, ierr);
	if (on) {
		MPI_Request h = *ierr == MPI_SUCCESS ? freq(req) : NULL;
		pt_mpi_recv_posted(CALL(Irecv), *ierr, pt_mpi_comm_get(fcomm(comm)), *src, *tag,
				   pt_mpi_bytes(*count, ftype(dt)), &h, posted, 0);
	}
}

PT_INTERPOSE void mpi_sendrecv_(void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf,
				F *rcount, F *rtype, F *src, F *rtag, F *comm, F *status, F *ierr)
{
	FREAL(mpi_sendrecv_)
	if (!pt_mpi_on()) {
		real(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, status,
		     ierr);
		return;
	}
	F mine[FSTATUS], *st = status_for(status, mine);
	uint64_t posted = pt_now();
	int on = pt_mpi_begin_call(CALL(Sendrecv));
	real(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, st, ierr);
	if (on) {
		pt_mpi_sent sent = {*dest, *stag, *scount, ftype(stype)};
		frecv_end(CALL(Sendrecv), ierr, comm, st, posted, &sent);
	}
}

PT_INTERPOSE void mpi_sendrecv_replace_(void *buf, F *count, F *dt, F *dest, F *stag, F *src,
					F *rtag, F *comm, F *status, F *ierr)
{
	FREAL(mpi_sendrecv_replace_)
	if (!pt_mpi_on()) {
		real(buf, count, dt, dest, stag, src, rtag, comm, status, ierr);
		return;
	}
	F mine[FSTATUS], *st = status_for(status, mine);
	uint64_t posted = pt_now();
	int on = pt_mpi_begin_call(CALL(Sendrecv_replace));
	real(buf, count, dt, dest, stag, src, rtag, comm, st, ierr);
	if (on) {
		pt_mpi_sent sent = {*dest, *stag, *count, ftype(dt)};
		frecv_end(CALL(Sendrecv_replace), ierr, comm, st, posted, &sent);
	}
}

/* ---- persistent requests -------------------------------------------------- */

#define FSEND_INIT(lower, n)                                                                       \
	PT_INTERPOSE void mpi_##lower##_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm,     \
					 F *req, F *ierr)                                          \
	{                                                                                          \
		FREAL(mpi_##lower##_)                                                              \
		if (!pt_mpi_on()) {                                                                \
			real(buf, count, dt, dest, tag, comm, req, ierr);                          \
			return;                                                                    \
		}                                                                                  \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		real(buf, count, dt, dest, tag, comm, req, ierr);                                  \
		if (!on)                                                                           \
			return;                                                                    \
		if (*ierr == MPI_SUCCESS && pt_mpi_ready && *dest != MPI_PROC_NULL) {              \
			const pt_mpi_comm *c = pt_mpi_comm_get(fcomm(comm));                       \
			pt_mpi_req r = {.handle = (uintptr_t)freq(req),                            \
					.kind = PT_MPI_REQ_SEND,                                   \
					.persistent = 1,                                           \
					.call = CALL(n),                                           \
					.peer = pt_mpi_world_rank(c, *dest),                       \
					.tag = *tag,                                               \
					.bytes = pt_mpi_bytes(*count, ftype(dt)),                  \
					.comm = c};                                                \
			pt_mpi_req_add(&r);                                                        \
		}                                                                                  \
		pt_mpi_end_call(CALL(n), *ierr);                                                   \
	}
FSEND_INIT(send_init, Send_init)
FSEND_INIT(bsend_init, Bsend_init)
FSEND_INIT(ssend_init, Ssend_init)
FSEND_INIT(rsend_init, Rsend_init)

PT_INTERPOSE void mpi_recv_init_(void *buf, F *count, F *dt, F *src, F *tag, F *comm, F *req,
				 F *ierr)
{
	FREAL(mpi_recv_init_)
	if (!pt_mpi_on()) {
		real(buf, count, dt, src, tag, comm, req, ierr);
		return;
	}
	int on = pt_mpi_begin_call(CALL(Recv_init));
	real(buf, count, dt, src, tag, comm, req, ierr);
	if (on) {
		MPI_Request h = *ierr == MPI_SUCCESS ? freq(req) : NULL;
		pt_mpi_recv_posted(CALL(Recv_init), *ierr, pt_mpi_comm_get(fcomm(comm)), *src, *tag,
				   pt_mpi_bytes(*count, ftype(dt)), &h, 0, 1);
	}
}

PT_INTERPOSE void mpi_start_(F *req, F *ierr)
{
	FREAL(mpi_start_)
	if (!pt_mpi_on()) {
		real(req, ierr);
		return;
	}
	MPI_Request h = freq(req);
	uint64_t now = pt_now();
	int on = pt_mpi_begin_call(CALL(Start));
	real(req, ierr);
	if (on)
		pt_mpi_started(CALL(Start), *ierr, &h, 1, now);
}

PT_INTERPOSE void mpi_startall_(F *count, F *reqs, F *ierr)
{
	FREAL(mpi_startall_)
	if (!pt_mpi_on()) {
		real(count, reqs, ierr);
		return;
	}
	size_t n = *count > 0 ? (size_t)*count : 0;
	pt_mpi_scratch s;
	int have = pt_mpi_ready && pt_mpi_scratch_get(n, &s) == 0;
	for (size_t i = 0; have && i < n; i++)
		s.req[i] = freq(&reqs[i]);
	uint64_t now = pt_now();
	int on = pt_mpi_begin_call(CALL(Startall));
	real(count, reqs, ierr);
	if (on)
		pt_mpi_started(CALL(Startall), *ierr, have ? s.req : NULL, have ? n : 0, now);
}

PT_INTERPOSE void mpi_request_free_(F *req, F *ierr)
{
	FREAL(mpi_request_free_)
	if (!pt_mpi_on()) {
		real(req, ierr);
		return;
	}
	MPI_Request h = freq(req);
	if (h)
		pt_mpi_req_forget((uintptr_t)h);
	int on = pt_mpi_begin_call(CALL(Request_free));
	real(req, ierr);
	if (on)
		pt_mpi_end_call(CALL(Request_free), *ierr);
}

/* ---- completion ------------------------------------------------------------ */
/* The C handles of the requests are taken before the call (it sets
 * completed ones to MPI_REQUEST_NULL); after it, the Fortran statuses of
 * the completed receives are turned into C ones for pt_mpi_complete. */

/* n requests' C handles into s (a scratch of room >= n elements); 0 if
 * none is a receive this part knows (nothing to describe then). */
static int frequests(const F *reqs, size_t n, pt_mpi_scratch *s, size_t room)
{
	if (!pt_mpi_ready || pt_mpi_scratch_get(room ? room : 1, s))
		return 0;
	for (size_t i = 0; i < n; i++)
		s->req[i] = freq(&reqs[i]);
	return pt_mpi_any_recv(s->req, n);
}

/* The statuses a call fills: the program's, or the scratch's when it
 * passed MPI_STATUSES_IGNORE. */
static F *statuses_for(F *statuses, pt_mpi_scratch *s)
{
	ff_init();
	return statuses == ff.statuses_ignore ? (F *)(void *)s->st : statuses;
}

/* Completes requests h[0..n) (done[i]) whose Fortran statuses are fst. */
static void fcomplete(unsigned call, const MPI_Request *h, const char *done, const F *fst,
		      MPI_Status *cst, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!done || done[i])
			fstatus(fst + i * FSTATUS, &cst[i]);
	pt_mpi_complete(call, MPI_SUCCESS, h, done, cst, n); /* only after a success */
}

PT_INTERPOSE void mpi_wait_(F *req, F *status, F *ierr)
{
	FREAL(mpi_wait_)
	if (!pt_mpi_on()) {
		real(req, status, ierr);
		return;
	}
	MPI_Request h = freq(req);
	int need = pt_mpi_ready && pt_mpi_any_recv(&h, 1);
	F mine[FSTATUS], *st = need ? status_for(status, mine) : status;
	int on = pt_mpi_begin_call(CALL(Wait));
	if (on && need)
		pt_mpi_req_claim(&h, 1);
	real(req, st, ierr);
	if (!on)
		return;
	if (need && *ierr == MPI_SUCCESS) {
		MPI_Status c;
		char done = 1;
		fcomplete(CALL(Wait), &h, &done, st, &c, 1);
	} else {
		pt_mpi_end_call(CALL(Wait), *ierr);
	}
	if (need)
		pt_mpi_req_unclaim(&h, 1);
}

PT_INTERPOSE void mpi_test_(F *req, F *flag, F *status, F *ierr)
{
	FREAL(mpi_test_)
	if (!pt_mpi_on()) {
		real(req, flag, status, ierr);
		return;
	}
	MPI_Request h = freq(req);
	int need = pt_mpi_ready && pt_mpi_any_recv(&h, 1);
	F mine[FSTATUS], *st = need ? status_for(status, mine) : status;
	int on = pt_mpi_begin_call(CALL(Test));
	if (on && need)
		pt_mpi_req_claim(&h, 1);
	real(req, flag, st, ierr);
	if (!on)
		return;
	if (need && *ierr == MPI_SUCCESS && *flag) {
		MPI_Status c;
		char done = 1;
		fcomplete(CALL(Test), &h, &done, st, &c, 1);
	} else {
		pt_mpi_end_call(CALL(Test), *ierr);
	}
	if (need)
		pt_mpi_req_unclaim(&h, 1);
}

PT_INTERPOSE void mpi_waitall_(F *count, F *reqs, F *statuses, F *ierr)
{
	FREAL(mpi_waitall_)
	if (!pt_mpi_on()) {
		real(count, reqs, statuses, ierr);
		return;
	}
	size_t n = *count > 0 ? (size_t)*count : 0;
	pt_mpi_scratch s;
	int need = frequests(reqs, n, &s, n);
	F *st = need ? statuses_for(statuses, &s) : statuses;
	int on = pt_mpi_begin_call(CALL(Waitall));
	if (on && need)
		pt_mpi_req_claim(s.req, n);
	real(count, reqs, st, ierr);
	if (!on)
		return;
	if (need && *ierr == MPI_SUCCESS)
		fcomplete(CALL(Waitall), s.req, NULL, st, s.st2, n);
	else
		pt_mpi_end_call(CALL(Waitall), *ierr);
	if (need)
		pt_mpi_req_unclaim(s.req, n);
}

PT_INTERPOSE void mpi_testall_(F *count, F *reqs, F *flag, F *statuses, F *ierr)
{
	FREAL(mpi_testall_)
	if (!pt_mpi_on()) {
		real(count, reqs, flag, statuses, ierr);
		return;
	}
	size_t n = *count > 0 ? (size_t)*count : 0;
	pt_mpi_scratch s;
	int need = frequests(reqs, n, &s, n);
	F *st = need ? statuses_for(statuses, &s) : statuses;
	int on = pt_mpi_begin_call(CALL(Testall));
	if (on && need)
		pt_mpi_req_claim(s.req, n);
	real(count, reqs, flag, st, ierr);
	if (!on)
		return;
	if (need && *ierr == MPI_SUCCESS && *flag)
		fcomplete(CALL(Testall), s.req, NULL, st, s.st2, n);
	else
		pt_mpi_end_call(CALL(Testall), *ierr);
	if (need)
		pt_mpi_req_unclaim(s.req, n);
}

/* Waitany, Testany: the index is 1-based in Fortran. */
PT_INTERPOSE void mpi_waitany_(F *count, F *reqs, F *index, F *status, F *ierr)
{
	FREAL(mpi_waitany_)
	if (!pt_mpi_on()) {
		real(count, reqs, index, status, ierr);
		return;
	}
	size_t n = *count > 0 ? (size_t)*count : 0;
	pt_mpi_scratch s;
	int need = frequests(reqs, n, &s, n);
	F mine[FSTATUS], *st = need ? status_for(status, mine) : status;
	int on = pt_mpi_begin_call(CALL(Waitany));
	if (on && need)
		pt_mpi_req_claim(s.req, n);
	real(count, reqs, index, st, ierr);
	if (!on)
		return;
	if (need && *ierr == MPI_SUCCESS && *index >= 1 && (size_t)*index <= n) {
		MPI_Status c;
		char done = 1;
		fcomplete(CALL(Waitany), &s.req[*index - 1], &done, st, &c, 1);
	} else {
		pt_mpi_end_call(CALL(Waitany), *ierr);
	}
	if (need)
		pt_mpi_req_unclaim(s.req, n);
}

PT_INTERPOSE void mpi_testany_(F *count, F *reqs, F *index, F *flag, F *status, F *ierr)
{
	FREAL(mpi_testany_)
	if (!pt_mpi_on()) {
		real(count, reqs, index, flag, status, ierr);
		return;
	}
	size_t n = *count > 0 ? (size_t)*count : 0;
	pt_mpi_scratch s;
	int need = frequests(reqs, n, &s, n);
	F mine[FSTATUS], *st = need ? status_for(status, mine) : status;
	int on = pt_mpi_begin_call(CALL(Testany));
	if (on && need)
		pt_mpi_req_claim(s.req, n);
	real(count, reqs, index, flag, st, ierr);
	if (!on)
		return;
	if (need && *ierr == MPI_SUCCESS && *flag && *index >= 1 && (size_t)*index <= n) {
		MPI_Status c;
		char done = 1;
		fcomplete(CALL(Testany), &s.req[*index - 1], &done, st, &c, 1);
	} else {
		pt_mpi_end_call(CALL(Testany), *ierr);
	}
	if (need)
		pt_mpi_req_unclaim(s.req, n);
}

/* Waitsome, Testsome: outcount requests, 1-based indices, statuses in
 * index order. */
static void fsome_end(unsigned call, F *ierr, const F *outcount, const F *indices, const F *st,
		      pt_mpi_scratch *s, size_t n)
{
	if (*ierr != MPI_SUCCESS || *outcount == MPI_UNDEFINED || *outcount <= 0) {
		pt_mpi_end_call(call, *ierr);
		return;
	}
	size_t k = (size_t)*outcount;
	/* the completed handles, in index order, where the C statuses go
	 * after them: st2 is free until fcomplete fills it */
	MPI_Request *h = (MPI_Request *)(void *)s->st2;
	MPI_Status *cst = s->st2 + (k * sizeof(MPI_Request) + sizeof(MPI_Status) - 1) /
					   sizeof(MPI_Status);
	if (cst + k > s->st2 + n) { /* no room left: nothing to describe */
		pt_mpi_end_call(call, *ierr);
		return;
	}
	for (size_t i = 0; i < k; i++)
		h[i] = indices[i] >= 1 && (size_t)indices[i] <= n ? s->req[indices[i] - 1] : NULL;
	fcomplete(call, h, NULL, st, cst, k);
}

#define FSOME(lower, n)                                                                            \
	PT_INTERPOSE void mpi_##lower##_(F *incount, F *reqs, F *outcount, F *indices,             \
					 F *statuses, F *ierr)                                     \
	{                                                                                          \
		FREAL(mpi_##lower##_)                                                              \
		if (!pt_mpi_on()) {                                                                \
			real(incount, reqs, outcount, indices, statuses, ierr);                    \
			return;                                                                    \
		}                                                                                  \
		size_t cnt = *incount > 0 ? (size_t)*incount : 0;                                  \
		pt_mpi_scratch s;                                                                  \
		/* twice the room: handles and C statuses of the completed ones */                 \
		int need = frequests(reqs, cnt, &s, 2 * cnt + 2);                                  \
		F *st = need ? statuses_for(statuses, &s) : statuses;                              \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		if (on && need)                                                                    \
			pt_mpi_req_claim(s.req, cnt);                                              \
		real(incount, reqs, outcount, indices, st, ierr);                                  \
		if (!on)                                                                           \
			return;                                                                    \
		if (need) {                                                                        \
			fsome_end(CALL(n), ierr, outcount, indices, st, &s, 2 * cnt + 2);          \
			pt_mpi_req_unclaim(s.req, cnt);                                            \
		} else {                                                                           \
			pt_mpi_end_call(CALL(n), *ierr);                                           \
		}                                                                                  \
	}
FSOME(waitsome, Waitsome)
FSOME(testsome, Testsome)

/* ---- collectives ---------------------------------------------------------- */

static void fcoll_end(unsigned call, int rc, MPI_Comm comm, int root, uint64_t sent,
		      uint64_t recvd)
{
	if (rc != MPI_SUCCESS || !pt_mpi_ready) {
		pt_mpi_end_call(call, rc);
		return;
	}
	pt_rec_mpi_coll r;
	pt_mpi_coll(&r, comm, root, sent, recvd, 0);
	pt_mpi_end(call, rc, PT_REC_MPI_COLL, &r, sizeof r, 1);
}

/* body: the root (-1 none) and the byte counts from the arguments and the
 * communicator c, after the call (which leaves them as they were). */
#define FCOLL(lower, n, params, args, body)                                                        \
	PT_INTERPOSE void mpi_##lower##_ params                                                    \
	{                                                                                          \
		FREAL(mpi_##lower##_)                                                              \
		if (!pt_mpi_on()) {                                                                \
			real args;                                                                 \
			return;                                                                    \
		}                                                                                  \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		real args;                                                                         \
		if (!on)                                                                           \
			return;                                                                    \
		MPI_Comm c = fcomm(comm);                                                          \
		int r = -1;                                                                        \
		uint64_t sent = 0, recvd = 0;                                                      \
		if (*ierr == MPI_SUCCESS && pt_mpi_ready) {                                        \
			body                                                                       \
		}                                                                                  \
		fcoll_end(CALL(n), *ierr, c, r, sent, recvd);                                      \
	}

FCOLL(barrier, Barrier, (F * comm, F *ierr), (comm, ierr), )
FCOLL(bcast, Bcast, (void *buf, F *count, F *dt, F *root, F *comm, F *ierr),
      (buf, count, dt, root, comm, ierr), {
	      r = *root;
	      if (pt_mpi_is_root(c, r))
		      sent = pt_mpi_bytes(*count, ftype(dt));
	      else if (r != MPI_PROC_NULL)
		      recvd = pt_mpi_bytes(*count, ftype(dt));
      })
FCOLL(reduce, Reduce, (void *sbuf, void *rbuf, F *count, F *dt, F *op, F *root, F *comm, F *ierr),
      (sbuf, rbuf, count, dt, op, root, comm, ierr), {
	      r = *root;
	      if (r != MPI_ROOT && r != MPI_PROC_NULL)
		      sent = pt_mpi_bytes(*count, ftype(dt));
	      if (pt_mpi_is_root(c, r))
		      recvd = pt_mpi_bytes(*count, ftype(dt));
      })
#define FALLRED(lower, n)                                                                          \
	FCOLL(lower, n, (void *sbuf, void *rbuf, F *count, F *dt, F *op, F *comm, F *ierr),        \
	      (sbuf, rbuf, count, dt, op, comm, ierr),                                             \
	      { sent = recvd = pt_mpi_bytes(*count, ftype(dt)); })
FALLRED(allreduce, Allreduce)
FALLRED(scan, Scan)
FALLRED(exscan, Exscan)
FCOLL(gather, Gather,
      (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *ierr),
      (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr), {
	      r = *root;
	      if (r != MPI_ROOT && r != MPI_PROC_NULL && !in_place(sbuf))
		      sent = pt_mpi_bytes(*scount, ftype(stype));
	      if (pt_mpi_is_root(c, r))
		      recvd = pt_mpi_bytes((int64_t)*rcount * pt_mpi_coll_size(c), ftype(rtype));
      })
FCOLL(gatherv, Gatherv,
      (void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *root,
       F *comm, F *ierr),
      (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr), {
	      r = *root;
	      if (r != MPI_ROOT && r != MPI_PROC_NULL && !in_place(sbuf))
		      sent = pt_mpi_bytes(*scount, ftype(stype));
	      if (pt_mpi_is_root(c, r))
		      recvd = pt_mpi_sum_counts(rcounts, pt_mpi_coll_size(c), ftype(rtype));
      })
FCOLL(scatter, Scatter,
      (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *ierr),
      (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr), {
	      r = *root;
	      if (pt_mpi_is_root(c, r))
		      sent = pt_mpi_bytes((int64_t)*scount * pt_mpi_coll_size(c), ftype(stype));
	      if (r != MPI_ROOT && r != MPI_PROC_NULL && !in_place(rbuf))
		      recvd = pt_mpi_bytes(*rcount, ftype(rtype));
      })
FCOLL(scatterv, Scatterv,
      (void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount, F *rtype, F *root,
       F *comm, F *ierr),
      (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr), {
	      r = *root;
	      if (pt_mpi_is_root(c, r))
		      sent = pt_mpi_sum_counts(scounts, pt_mpi_coll_size(c), ftype(stype));
	      if (r != MPI_ROOT && r != MPI_PROC_NULL && !in_place(rbuf))
		      recvd = pt_mpi_bytes(*rcount, ftype(rtype));
      })
FCOLL(allgather, Allgather,
      (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *ierr),
      (sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr), {
	      if (!in_place(sbuf))
		      sent = pt_mpi_bytes(*scount, ftype(stype));
	      recvd = pt_mpi_bytes((int64_t)*rcount * pt_mpi_coll_size(c), ftype(rtype));
      })
FCOLL(allgatherv, Allgatherv,
      (void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *comm,
       F *ierr),
      (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr), {
	      if (!in_place(sbuf))
		      sent = pt_mpi_bytes(*scount, ftype(stype));
	      recvd = pt_mpi_sum_counts(rcounts, pt_mpi_coll_size(c), ftype(rtype));
      })
FCOLL(alltoall, Alltoall,
      (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *ierr),
      (sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr), {
	      recvd = pt_mpi_bytes((int64_t)*rcount * pt_mpi_coll_size(c), ftype(rtype));
	      sent = in_place(sbuf)
			     ? recvd
			     : pt_mpi_bytes((int64_t)*scount * pt_mpi_coll_size(c), ftype(stype));
      })
FCOLL(alltoallv, Alltoallv,
      (void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts, F *rdispls, F *rtype,
       F *comm, F *ierr),
      (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierr), {
	      recvd = pt_mpi_sum_counts(rcounts, pt_mpi_coll_size(c), ftype(rtype));
	      sent = in_place(sbuf) ? recvd
				    : pt_mpi_sum_counts(scounts, pt_mpi_coll_size(c), ftype(stype));
      })
FCOLL(reduce_scatter, Reduce_scatter,
      (void *sbuf, void *rbuf, F *rcounts, F *dt, F *op, F *comm, F *ierr),
      (sbuf, rbuf, rcounts, dt, op, comm, ierr), {
	      const pt_mpi_comm *pc = pt_mpi_comm_get(c);
	      sent = pt_mpi_sum_counts(rcounts, pt_mpi_coll_size(c), ftype(dt));
	      if (pc && !pc->inter && pc->rank >= 0)
		      recvd = pt_mpi_bytes(rcounts[pc->rank], ftype(dt));
      })
FCOLL(reduce_scatter_block, Reduce_scatter_block,
      (void *sbuf, void *rbuf, F *rcount, F *dt, F *op, F *comm, F *ierr),
      (sbuf, rbuf, rcount, dt, op, comm, ierr), {
	      sent = pt_mpi_bytes((int64_t)*rcount * pt_mpi_coll_size(c), ftype(dt));
	      recvd = pt_mpi_bytes(*rcount, ftype(dt));
      })

/* ---- communicators ----------------------------------------------------------- */

#define FCOMM_NEW(lower, n, params, args, newcomm)                                                 \
	PT_INTERPOSE void mpi_##lower##_ params                                                    \
	{                                                                                          \
		FREAL(mpi_##lower##_)                                                              \
		if (!pt_mpi_on()) {                                                                \
			real args;                                                                 \
			return;                                                                    \
		}                                                                                  \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		real args;                                                                         \
		if (!on)                                                                           \
			return;                                                                    \
		if (*ierr == MPI_SUCCESS)                                                          \
			pt_mpi_comm_created(fcomm(newcomm));                                       \
		pt_mpi_end_call(CALL(n), *ierr);                                                   \
	}
FCOMM_NEW(comm_dup, Comm_dup, (F * comm, F *newcomm, F *ierr), (comm, newcomm, ierr), newcomm)
FCOMM_NEW(comm_dup_with_info, Comm_dup_with_info, (F * comm, F *info, F *newcomm, F *ierr),
	  (comm, info, newcomm, ierr), newcomm)
FCOMM_NEW(comm_split, Comm_split, (F * comm, F *color, F *key, F *newcomm, F *ierr),
	  (comm, color, key, newcomm, ierr), newcomm)
FCOMM_NEW(comm_split_type, Comm_split_type,
	  (F * comm, F *type, F *key, F *info, F *newcomm, F *ierr),
	  (comm, type, key, info, newcomm, ierr), newcomm)
FCOMM_NEW(comm_create, Comm_create, (F * comm, F *group, F *newcomm, F *ierr),
	  (comm, group, newcomm, ierr), newcomm)
FCOMM_NEW(comm_create_group, Comm_create_group, (F * comm, F *group, F *tag, F *newcomm, F *ierr),
	  (comm, group, tag, newcomm, ierr), newcomm)
FCOMM_NEW(cart_create, Cart_create,
	  (F * comm, F *ndims, F *dims, F *periods, F *reorder, F *newcomm, F *ierr),
	  (comm, ndims, dims, periods, reorder, newcomm, ierr), newcomm)
FCOMM_NEW(cart_sub, Cart_sub, (F * comm, F *remain, F *newcomm, F *ierr),
	  (comm, remain, newcomm, ierr), newcomm)
FCOMM_NEW(graph_create, Graph_create,
	  (F * comm, F *nnodes, F *index, F *edges, F *reorder, F *newcomm, F *ierr),
	  (comm, nnodes, index, edges, reorder, newcomm, ierr), newcomm)
FCOMM_NEW(dist_graph_create, Dist_graph_create,
	  (F * comm, F *n, F *nodes, F *degrees, F *targets, F *weights, F *info, F *reorder,
	   F *newcomm, F *ierr),
	  (comm, n, nodes, degrees, targets, weights, info, reorder, newcomm, ierr), newcomm)
FCOMM_NEW(dist_graph_create_adjacent, Dist_graph_create_adjacent,
	  (F * comm, F *indegree, F *sources, F *sweights, F *outdegree, F *dests, F *dweights,
	   F *info, F *reorder, F *newcomm, F *ierr),
	  (comm, indegree, sources, sweights, outdegree, dests, dweights, info, reorder, newcomm,
	   ierr),
	  newcomm)
FCOMM_NEW(intercomm_create, Intercomm_create,
	  (F * lcomm, F *lleader, F *pcomm, F *rleader, F *tag, F *newcomm, F *ierr),
	  (lcomm, lleader, pcomm, rleader, tag, newcomm, ierr), newcomm)
FCOMM_NEW(intercomm_merge, Intercomm_merge, (F * intercomm, F *high, F *newcomm, F *ierr),
	  (intercomm, high, newcomm, ierr), newcomm)

#define FCOMM_GONE(lower, n)                                                                       \
	PT_INTERPOSE void mpi_##lower##_(F *comm, F *ierr)                                         \
	{                                                                                          \
		FREAL(mpi_##lower##_)                                                              \
		if (!pt_mpi_on()) {                                                                \
			real(comm, ierr);                                                          \
			return;                                                                    \
		}                                                                                  \
		MPI_Comm c = fcomm(comm);                                                          \
		if (c)                                                                             \
			pt_mpi_comm_freed(c);                                                      \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		real(comm, ierr);                                                                  \
		if (on)                                                                            \
			pt_mpi_end_call(CALL(n), *ierr);                                           \
	}
FCOMM_GONE(comm_free, Comm_free)
FCOMM_GONE(comm_disconnect, Comm_disconnect)

extern PT_HIDDEN unsigned pt_mpi_type_gen;

PT_INTERPOSE void mpi_type_free_(F *type, F *ierr)
{
	FREAL(mpi_type_free_)
	if (!pt_mpi_on()) {
		real(type, ierr);
		return;
	}
	__atomic_add_fetch(&pt_mpi_type_gen, 1, __ATOMIC_RELAXED);
	int on = pt_mpi_begin_call(CALL(Type_free));
	real(type, ierr);
	if (on)
		pt_mpi_end_call(CALL(Type_free), *ierr);
}

/* ---- everything else: the call's begin and end ---------------------------- */
FPLAIN(comm_rank, Comm_rank)
FPLAIN(comm_size, Comm_size)
FPLAIN(comm_group, Comm_group)
FPLAIN(comm_remote_group, Comm_remote_group)
FPLAIN(comm_remote_size, Comm_remote_size)
FPLAIN(comm_test_inter, Comm_test_inter)
FPLAIN(comm_compare, Comm_compare)
FPLAIN(cancel, Cancel)
FPLAIN(cart_shift, Cart_shift)
FPLAIN(cart_coords, Cart_coords)
FPLAIN(cart_get, Cart_get)
FPLAIN(cart_map, Cart_map)
FPLAIN(cart_rank, Cart_rank)
FPLAIN(cartdim_get, Cartdim_get)
FPLAIN(dims_create, Dims_create)
FPLAIN(graph_get, Graph_get)
FPLAIN(graph_map, Graph_map)
FPLAIN(graph_neighbors, Graph_neighbors)
FPLAIN(graphdims_get, Graphdims_get)
FPLAIN(graph_neighbors_count, Graph_neighbors_count)
FPLAIN(topo_test, Topo_test)
FPLAIN(probe, Probe)
FPLAIN(iprobe, Iprobe)
FPLAIN(win_create, Win_create)
FPLAIN(win_free, Win_free)
FPLAIN(put, Put)
FPLAIN(get, Get)
FPLAIN(accumulate, Accumulate)
FPLAIN(win_fence, Win_fence)
FPLAIN(win_start, Win_start)
FPLAIN(win_complete, Win_complete)
FPLAIN(win_post, Win_post)
FPLAIN(win_wait, Win_wait)
FPLAIN(win_test, Win_test)
FPLAIN(win_lock, Win_lock)
FPLAIN(win_unlock, Win_unlock)
FPLAIN(pack, Pack)
FPLAIN(unpack, Unpack)
FPLAIN(op_create, Op_create)
FPLAIN(op_free, Op_free)
FPLAIN(attr_delete, Attr_delete)
FPLAIN(attr_get, Attr_get)
FPLAIN(attr_put, Attr_put)
FPLAIN(group_difference, Group_difference)
FPLAIN(group_excl, Group_excl)
FPLAIN(group_free, Group_free)
FPLAIN(group_incl, Group_incl)
FPLAIN(group_intersection, Group_intersection)
FPLAIN(group_rank, Group_rank)
FPLAIN(group_range_excl, Group_range_excl)
FPLAIN(group_range_incl, Group_range_incl)
FPLAIN(group_size, Group_size)
FPLAIN(group_translate_ranks, Group_translate_ranks)
FPLAIN(group_union, Group_union)
FPLAIN(group_compare, Group_compare)
FPLAIN(keyval_free, Keyval_free)
FPLAIN(keyval_create, Keyval_create)
FPLAIN(abort, Abort)
FPLAIN(error_class, Error_class)
FPLAIN(errhandler_free, Errhandler_free)
FPLAIN(error_string, Error_string)
FPLAIN(get_processor_name, Get_processor_name)
FPLAIN(initialized, Initialized)
FPLAIN(buffer_attach, Buffer_attach)
FPLAIN(buffer_detach, Buffer_detach)
FPLAIN(get_count, Get_count)
FPLAIN(get_elements, Get_elements)
FPLAIN(pack_size, Pack_size)
FPLAIN(test_cancelled, Test_cancelled)
FPLAIN(type_commit, Type_commit)
FPLAIN(type_contiguous, Type_contiguous)
FPLAIN(type_indexed, Type_indexed)
FPLAIN(type_size, Type_size)
FPLAIN(type_vector, Type_vector)
FPLAIN(file_open, File_open)
FPLAIN(file_close, File_close)
FPLAIN(file_read, File_read)
FPLAIN(file_read_all, File_read_all)
FPLAIN(file_write, File_write)
FPLAIN(file_write_all, File_write_all)
FPLAIN(file_read_at, File_read_at)
FPLAIN(file_read_at_all, File_read_at_all)
FPLAIN(file_write_at, File_write_at)
FPLAIN(file_write_at_all, File_write_at_all)
FPLAIN(comm_spawn, Comm_spawn)
FPLAIN(comm_spawn_multiple, Comm_spawn_multiple)
FPLAIN(request_get_status, Request_get_status)
FPLAIN(ireduce, Ireduce)
FPLAIN(iallreduce, Iallreduce)
FPLAIN(ibarrier, Ibarrier)
FPLAIN(ibcast, Ibcast)
FPLAIN(ialltoall, Ialltoall)
FPLAIN(ialltoallv, Ialltoallv)
FPLAIN(iallgather, Iallgather)
FPLAIN(iallgatherv, Iallgatherv)
FPLAIN(igather, Igather)
FPLAIN(igatherv, Igatherv)
FPLAIN(iscatter, Iscatter)
FPLAIN(iscatterv, Iscatterv)
FPLAIN(ireduce_scatter, Ireduce_scatter)
FPLAIN(iscan, Iscan)
FPLAIN(ireduce_scatter_block, Ireduce_scatter_block)
FPLAIN(alltoallw, Alltoallw)
FPLAIN(ialltoallw, Ialltoallw)
FPLAIN(get_accumulate, Get_accumulate)
FPLAIN(neighbor_allgather, Neighbor_allgather)
FPLAIN(ineighbor_allgather, Ineighbor_allgather)
FPLAIN(neighbor_allgatherv, Neighbor_allgatherv)
FPLAIN(ineighbor_allgatherv, Ineighbor_allgatherv)
FPLAIN(neighbor_alltoall, Neighbor_alltoall)
FPLAIN(ineighbor_alltoall, Ineighbor_alltoall)
FPLAIN(neighbor_alltoallv, Neighbor_alltoallv)
FPLAIN(ineighbor_alltoallv, Ineighbor_alltoallv)
FPLAIN(neighbor_alltoallw, Neighbor_alltoallw)
FPLAIN(ineighbor_alltoallw, Ineighbor_alltoallw)
FPLAIN(fetch_and_op, Fetch_and_op)
FPLAIN(compare_and_swap, Compare_and_swap)
FPLAIN(win_flush, Win_flush)
FPLAIN(win_flush_all, Win_flush_all)
FPLAIN(win_flush_local, Win_flush_local)
FPLAIN(win_flush_local_all, Win_flush_local_all)
FPLAIN(mprobe, Mprobe)
FPLAIN(improbe, Improbe)
FPLAIN(mrecv, Mrecv)
FPLAIN(imrecv, Imrecv)
FPLAIN(comm_idup, Comm_idup)
FPLAIN(iexscan, Iexscan)
FPLAIN(win_allocate, Win_allocate)
FPLAIN(win_allocate_shared, Win_allocate_shared)
FPLAIN(win_create_dynamic, Win_create_dynamic)
FPLAIN(rput, Rput)
FPLAIN(rget, Rget)
FPLAIN(raccumulate, Raccumulate)
FPLAIN(rget_accumulate, Rget_accumulate)
FPLAIN(win_lock_all, Win_lock_all)
FPLAIN(win_unlock_all, Win_unlock_all)
FPLAIN(win_sync, Win_sync)
FPLAIN(comm_accept, Comm_accept)
FPLAIN(comm_connect, Comm_connect)
FPLAIN(file_read_shared, File_read_shared)
FPLAIN(file_write_shared, File_write_shared)
FPLAIN(file_iread, File_iread)
FPLAIN(file_iwrite, File_iwrite)
FPLAIN(file_iread_at, File_iread_at)
FPLAIN(file_iwrite_at, File_iwrite_at)
FPLAIN(file_read_ordered, File_read_ordered)
FPLAIN(file_write_ordered, File_write_ordered)
FPLAIN(file_set_view, File_set_view)
FPLAIN(file_sync, File_sync)
FPLAIN(finalized, Finalized)
FPLAIN(query_thread, Query_thread)
FPLAIN(type_create_struct, Type_create_struct)
FPLAIN(type_create_hvector, Type_create_hvector)
FPLAIN(type_create_hindexed, Type_create_hindexed)
FPLAIN(type_create_resized, Type_create_resized)
FPLAIN(type_get_extent, Type_get_extent)
FPLAIN(get_address, Get_address)
FPLAIN(comm_get_attr, Comm_get_attr)
FPLAIN(comm_set_errhandler, Comm_set_errhandler)
FPLAIN(comm_get_parent, Comm_get_parent)
FPLAIN(type_create_subarray, Type_create_subarray)
FPLAIN(type_dup, Type_dup)
FPLAIN(get_version, Get_version)
