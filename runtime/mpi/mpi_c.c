/* SPDX-License-Identifier: MIT */
/* The C API's wrappers (docs/MPI.md). Every one has the same shape:
 *
 *   PT_MPI_REAL(MPI_x)            the library's PMPI_x, looked up once
 *   if (!pt_mpi_on()) return real(...);   not traced: exactly the real call
 *   begin: MPI_CALL [+ what is known before the call]
 *   rc = real(...);               never inside the runtime's region
 *   end: [what the call did] + MPI_CALL_END
 *   return rc;                    what the library returned, errno as it left it
 *
 * What a call moved is described in world ranks and communicator ids
 * (mpi_comm.c). Arguments MPI says are not significant (a non-root's
 * receive counts, MPI_IN_PLACE's send type) are never looked at: they may
 * be anything. */
#define _GNU_SOURCE
#include "mpi_internal.h"

#include <string.h>

/* Open MPI marks the MPI-2 calls MPI-3 deprecated (MPI_Attr_get,
 * MPI_Keyval_create): their wrappers still pass them on. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define CALL(n) PT_MPI_CALL_##n

/* ---- calls recorded as a begin and an end ------------------------------ */
#define PLAIN(n, params, args)                                                                     \
	PT_INTERPOSE int MPI_##n params                                                            \
	{                                                                                          \
		PT_MPI_REAL(MPI_##n)                                                               \
		if (!pt_mpi_on())                                                                  \
			return real_MPI_##n args;                                                  \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		int rc = real_MPI_##n args;                                                        \
		if (on)                                                                            \
			pt_mpi_end_call(CALL(n), rc);                                              \
		return rc;                                                                         \
	}

/* ---- helpers ------------------------------------------------------------ */

void pt_mpi_msg(pt_rec_mpi_msg *m, const pt_mpi_comm *c, int peer, int tag, uint64_t bytes,
		uintptr_t request)
{
	m->peer = pt_mpi_world_rank(c, peer);
	m->tag = tag;
	m->bytes = bytes;
	m->comm = c ? c->id : 0;
	m->request = request;
	m->posted = 0;
}

int pt_mpi_recv_msg(const pt_mpi_req *r, const MPI_Status *st, pt_rec_mpi_msg *m)
{
	static __typeof__(&PMPI_Test_cancelled) cancelled;
	static __typeof__(&PMPI_Get_elements_x) elements;
	if (!cancelled)
		cancelled = (__typeof__(&PMPI_Test_cancelled))pt_mpi_sym("PMPI_Test_cancelled");
	if (!elements)
		elements = (__typeof__(&PMPI_Get_elements_x))pt_mpi_sym("PMPI_Get_elements_x");
	if (st->MPI_SOURCE < 0) /* MPI_PROC_NULL: no message */
		return 0;
	int flag = 0;
	if (cancelled && cancelled(st, &flag) == MPI_SUCCESS && flag)
		return 0;
	MPI_Count n = 0;
	if (!elements || elements(st, pt_mpi_byte, &n) != MPI_SUCCESS || n < 0)
		n = 0;
	pt_mpi_msg(m, r->comm, st->MPI_SOURCE, st->MPI_TAG, (uint64_t)n, r->handle);
	m->posted = r->posted;
	return 1;
}

/* Arrays for n requests: on the stack of the caller up to this many. */
#define FEW 16

static __thread struct {
	char *mem;
	size_t bytes, n;
} scratch __attribute__((tls_model("initial-exec")));

int pt_mpi_scratch_get(size_t n, pt_mpi_scratch *s)
{
	if (n > scratch.n) {
		size_t per = sizeof(MPI_Request) + 2 * sizeof(MPI_Status) + sizeof(int) + 1;
		size_t want = n * per + 64;
		char *m = pt_pages_alloc(want);
		if (!m)
			return -1;
		if (scratch.mem)
			pt_pages_free(scratch.mem, scratch.bytes);
		scratch.mem = m;
		scratch.bytes = want;
		scratch.n = n;
	}
	s->req = (MPI_Request *)(void *)scratch.mem;
	s->st = (MPI_Status *)(void *)(s->req + scratch.n);
	s->st2 = s->st + scratch.n;
	s->idx = (int *)(void *)(s->st2 + scratch.n);
	s->done = (char *)(s->idx + scratch.n);
	return 0;
}

int pt_mpi_any_recv(const MPI_Request *h, size_t n)
{
	pt_mpi_req r;
	for (size_t i = 0; i < n; i++)
		if (h[i] && h[i] != pt_mpi_request_null && pt_mpi_req_peek((uintptr_t)h[i], &r) &&
		    r.kind == PT_MPI_REQ_RECV)
			return 1;
	return 0;
}

void pt_mpi_complete(unsigned call, int rc, const MPI_Request *h, const char *done,
		     const MPI_Status *st, size_t n)
{
	pt_rec_mpi_msg m[FEW];
	size_t k = 0;
	int saved = errno;
	pt_mpi_depth = 0;
	pt_thread *t = pt_enter();
	for (size_t i = 0; i < n; i++) {
		if ((done && !done[i]) || !h[i] || h[i] == pt_mpi_request_null)
			continue;
		pt_mpi_req r;
		if (!pt_mpi_req_done((uintptr_t)h[i], &r) || r.kind != PT_MPI_REQ_RECV || !st)
			continue;
		if (!pt_mpi_recv_msg(&r, &st[i], &m[k]))
			continue;
		if (++k == FEW && t) {
			for (size_t j = 0; j < k; j++)
				pt_emit(t, PT_REC_MPI_RECV, call, &m[j], sizeof m[j]);
			k = 0;
		}
	}
	if (t) {
		for (size_t j = 0; j < k; j++)
			pt_emit(t, PT_REC_MPI_RECV, call, &m[j], sizeof m[j]);
		pt_mpi_emit_end(t, call, rc);
		pt_leave(t);
	}
	errno = saved;
}

/* ---- MPI_Init, MPI_Finalize --------------------------------------------- */

PT_INTERPOSE int MPI_Init(int *argc, char ***argv)
{
	PT_MPI_REAL(MPI_Init)
	if (!pt_mpi_on())
		return real_MPI_Init(argc, argv);
	int on = pt_mpi_begin_call(CALL(Init));
	int rc = real_MPI_Init(argc, argv);
	if (rc == MPI_SUCCESS)
		pt_mpi_after_init(-1, -1, 0);
	if (on)
		pt_mpi_end_call(CALL(Init), rc);
	return rc;
}

PT_INTERPOSE int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	PT_MPI_REAL(MPI_Init_thread)
	if (!pt_mpi_on())
		return real_MPI_Init_thread(argc, argv, required, provided);
	int on = pt_mpi_begin_call(CALL(Init_thread));
	int rc = real_MPI_Init_thread(argc, argv, required, provided);
	if (rc == MPI_SUCCESS)
		pt_mpi_after_init(required, provided ? *provided : -1, 0);
	if (on)
		pt_mpi_end_call(CALL(Init_thread), rc);
	return rc;
}

PT_INTERPOSE int MPI_Finalize(void)
{
	PT_MPI_REAL(MPI_Finalize)
	if (!pt_mpi_on())
		return real_MPI_Finalize();
	int on = pt_mpi_begin_call(CALL(Finalize));
	pt_mpi_before_finalize();
	int rc = real_MPI_Finalize();
	pt_mpi_after_finalize();
	if (on)
		pt_mpi_end_call(CALL(Finalize), rc);
	return rc;
}

/* ---- point to point ----------------------------------------------------- */

/* A send's end: MPI_SEND (with its request, a non-blocking one) when it
 * succeeded; nothing is sent to MPI_PROC_NULL. */
void pt_mpi_send_end(unsigned call, int rc, int dest, int tag, MPI_Comm comm, int count,
		     MPI_Datatype dt, const MPI_Request *req)
{
	if (rc != MPI_SUCCESS || !pt_mpi_ready || dest == MPI_PROC_NULL) {
		pt_mpi_end_call(call, rc);
		return;
	}
	pt_rec_mpi_msg m;
	pt_mpi_msg(&m, pt_mpi_comm_get(comm), dest, tag, pt_mpi_bytes(count, dt),
		   req ? (uintptr_t)*req : 0);
	pt_mpi_end(call, rc, PT_REC_MPI_SEND, &m, sizeof m, 1);
}

/* A blocking receive's end: MPI_RECV from its status (MPI_Sendrecv's
 * MPI_SEND before it), MPI_CALL_END. */
void pt_mpi_recv_end(unsigned call, int rc, MPI_Comm comm, const MPI_Status *st, uint64_t posted,
		     const pt_mpi_sent *sent)
{
	pt_rec_mpi_msg m[2];
	unsigned kind[2];
	size_t n = 0;
	pt_mpi_req r = {.kind = PT_MPI_REQ_RECV, .posted = posted};
	if (rc == MPI_SUCCESS && pt_mpi_ready && (r.comm = pt_mpi_comm_get(comm))) {
		if (sent && sent->dest != MPI_PROC_NULL) {
			pt_mpi_msg(&m[n], r.comm, sent->dest, sent->tag,
				   pt_mpi_bytes(sent->count, sent->dt), 0);
			kind[n++] = PT_REC_MPI_SEND;
		}
		if (pt_mpi_recv_msg(&r, st, &m[n]))
			kind[n++] = PT_REC_MPI_RECV;
	}
	int saved = errno;
	pt_mpi_depth = 0;
	pt_thread *t = pt_enter();
	if (t) {
		for (size_t i = 0; i < n; i++)
			pt_emit(t, kind[i], call, &m[i], sizeof m[i]);
		pt_mpi_emit_end(t, call, rc);
		pt_leave(t);
	}
	errno = saved;
}

/* A receive posted (Irecv, Imrecv, Recv_init): remembered under its
 * request until a Wait/Test completes it. */
void pt_mpi_recv_posted(unsigned call, int rc, const pt_mpi_comm *c, int src, int tag,
			uint64_t bytes, const MPI_Request *req, uint64_t posted, int persistent)
{
	if (rc != MPI_SUCCESS || !pt_mpi_ready || src == MPI_PROC_NULL || !req || !*req) {
		pt_mpi_end_call(call, rc);
		return;
	}
	pt_mpi_req r = {.handle = (uintptr_t)*req,
			.kind = PT_MPI_REQ_RECV,
			.persistent = (uint8_t)persistent,
			.active = (uint8_t)!persistent,
			.call = (uint8_t)call,
			.peer = pt_mpi_world_rank(c, src),
			.tag = tag,
			.bytes = bytes,
			.comm = c,
			.posted = posted};
	pt_mpi_req_add(&r);
	if (persistent) {
		pt_mpi_end_call(call, rc);
		return;
	}
	pt_rec_mpi_msg m;
	pt_mpi_msg(&m, c, src, tag, bytes, (uintptr_t)*req);
	pt_mpi_end(call, rc, PT_REC_MPI_IRECV, &m, sizeof m, 1);
}

#define SEND(n)                                                                                    \
	PT_INTERPOSE int MPI_##n(const void *buf, int count, MPI_Datatype dt, int dest, int tag,   \
				 MPI_Comm comm)                                                    \
	{                                                                                          \
		PT_MPI_REAL(MPI_##n)                                                               \
		if (!pt_mpi_on())                                                                  \
			return real_MPI_##n(buf, count, dt, dest, tag, comm);                      \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		int rc = real_MPI_##n(buf, count, dt, dest, tag, comm);                            \
		if (on)                                                                            \
			pt_mpi_send_end(CALL(n), rc, dest, tag, comm, count, dt, NULL);            \
		return rc;                                                                         \
	}
SEND(Send)
SEND(Bsend)
SEND(Ssend)
SEND(Rsend)

#define ISEND(n)                                                                                   \
	PT_INTERPOSE int MPI_##n(const void *buf, int count, MPI_Datatype dt, int dest, int tag,   \
				 MPI_Comm comm, MPI_Request *req)                                  \
	{                                                                                          \
		PT_MPI_REAL(MPI_##n)                                                               \
		if (!pt_mpi_on())                                                                  \
			return real_MPI_##n(buf, count, dt, dest, tag, comm, req);                 \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		int rc = real_MPI_##n(buf, count, dt, dest, tag, comm, req);                       \
		if (on)                                                                            \
			pt_mpi_send_end(CALL(n), rc, dest, tag, comm, count, dt, req);             \
		return rc;                                                                         \
	}
ISEND(Isend)
ISEND(Ibsend)
ISEND(Issend)
ISEND(Irsend)

PT_INTERPOSE int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
			  MPI_Status *status)
{
	PT_MPI_REAL(MPI_Recv)
	if (!pt_mpi_on())
		return real_MPI_Recv(buf, count, dt, src, tag, comm, status);
	uint64_t posted = pt_now();
	int on = pt_mpi_begin_call(CALL(Recv));
	MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
	int rc = real_MPI_Recv(buf, count, dt, src, tag, comm, st);
	if (on)
		pt_mpi_recv_end(CALL(Recv), rc, comm, st, posted, NULL);
	return rc;
}

PT_INTERPOSE int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
			   MPI_Request *req)
{
	PT_MPI_REAL(MPI_Irecv)
	if (!pt_mpi_on())
		return real_MPI_Irecv(buf, count, dt, src, tag, comm, req);
	uint64_t posted = pt_now();
	int on = pt_mpi_begin_call(CALL(Irecv));
	int rc = real_MPI_Irecv(buf, count, dt, src, tag, comm, req);
	if (on)
		pt_mpi_recv_posted(CALL(Irecv), rc, pt_mpi_comm_get(comm), src, tag, pt_mpi_bytes(count, dt),
			    req, posted, 0);
	return rc;
}

PT_INTERPOSE int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
			      int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
			      int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	PT_MPI_REAL(MPI_Sendrecv)
	if (!pt_mpi_on())
		return real_MPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
					 recvcount, recvtype, source, recvtag, comm, status);
	uint64_t posted = pt_now();
	int on = pt_mpi_begin_call(CALL(Sendrecv));
	MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
	int rc = real_MPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
				   recvtype, source, recvtag, comm, st);
	pt_mpi_sent sent = {dest, sendtag, sendcount, sendtype};
	if (on)
		pt_mpi_recv_end(CALL(Sendrecv), rc, comm, st, posted, &sent);
	return rc;
}

PT_INTERPOSE int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
				      int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	PT_MPI_REAL(MPI_Sendrecv_replace)
	if (!pt_mpi_on())
		return real_MPI_Sendrecv_replace(buf, count, dt, dest, sendtag, source, recvtag, comm,
						 status);
	uint64_t posted = pt_now();
	int on = pt_mpi_begin_call(CALL(Sendrecv_replace));
	MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
	int rc = real_MPI_Sendrecv_replace(buf, count, dt, dest, sendtag, source, recvtag, comm, st);
	pt_mpi_sent sent = {dest, sendtag, count, dt};
	if (on)
		pt_mpi_recv_end(CALL(Sendrecv_replace), rc, comm, st, posted, &sent);
	return rc;
}

/* Matched probes: the message handle stands for the receive until
 * MPI_Mrecv / MPI_Imrecv takes it (kept like a request: its communicator
 * turns the source into a world rank). */
static void message_seen(int rc, MPI_Comm comm, const MPI_Message *msg, int found)
{
	static MPI_Message no_proc;
	if (!no_proc)
		no_proc = (MPI_Message)pt_mpi_sym("ompi_message_no_proc");
	if (rc != MPI_SUCCESS || !found || !pt_mpi_ready || !*msg || *msg == no_proc)
		return;
	pt_mpi_req r = {.handle = (uintptr_t)*msg,
			.kind = PT_MPI_REQ_RECV,
			.active = 1,
			.comm = pt_mpi_comm_get(comm),
			.posted = pt_now()};
	pt_mpi_req_add(&r);
}

PT_INTERPOSE int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
			    MPI_Status *status)
{
	PT_MPI_REAL(MPI_Mprobe)
	if (!pt_mpi_on())
		return real_MPI_Mprobe(source, tag, comm, message, status);
	int on = pt_mpi_begin_call(CALL(Mprobe));
	int rc = real_MPI_Mprobe(source, tag, comm, message, status);
	if (on) {
		message_seen(rc, comm, message, 1);
		pt_mpi_end_call(CALL(Mprobe), rc);
	}
	return rc;
}

PT_INTERPOSE int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
			     MPI_Status *status)
{
	PT_MPI_REAL(MPI_Improbe)
	if (!pt_mpi_on())
		return real_MPI_Improbe(source, tag, comm, flag, message, status);
	int on = pt_mpi_begin_call(CALL(Improbe));
	int rc = real_MPI_Improbe(source, tag, comm, flag, message, status);
	if (on) {
		message_seen(rc, comm, message, rc == MPI_SUCCESS && *flag);
		pt_mpi_end_call(CALL(Improbe), rc);
	}
	return rc;
}

PT_INTERPOSE int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
			   MPI_Status *status)
{
	PT_MPI_REAL(MPI_Mrecv)
	if (!pt_mpi_on())
		return real_MPI_Mrecv(buf, count, type, message, status);
	MPI_Message h = *message;
	int on = pt_mpi_begin_call(CALL(Mrecv));
	MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
	int rc = real_MPI_Mrecv(buf, count, type, message, st);
	if (on) {
		pt_mpi_req r;
		pt_rec_mpi_msg m;
		if (rc == MPI_SUCCESS && pt_mpi_ready && pt_mpi_req_done((uintptr_t)h, &r) &&
		    pt_mpi_recv_msg(&r, st, &m)) {
			m.request = 0;
			pt_mpi_end(CALL(Mrecv), rc, PT_REC_MPI_RECV, &m, sizeof m, 1);
		} else {
			pt_mpi_end_call(CALL(Mrecv), rc);
		}
	}
	return rc;
}

PT_INTERPOSE int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
			    MPI_Request *request)
{
	PT_MPI_REAL(MPI_Imrecv)
	if (!pt_mpi_on())
		return real_MPI_Imrecv(buf, count, type, message, request);
	MPI_Message h = *message;
	uint64_t posted = pt_now();
	int on = pt_mpi_begin_call(CALL(Imrecv));
	int rc = real_MPI_Imrecv(buf, count, type, message, request);
	if (on) {
		pt_mpi_req r;
		if (rc == MPI_SUCCESS && pt_mpi_ready && pt_mpi_req_done((uintptr_t)h, &r))
			pt_mpi_recv_posted(CALL(Imrecv), rc, r.comm, MPI_ANY_SOURCE, MPI_ANY_TAG,
				    pt_mpi_bytes(count, type), request, posted, 0);
		else
			pt_mpi_end_call(CALL(Imrecv), rc);
	}
	return rc;
}

/* ---- persistent requests ------------------------------------------------ */

#define SEND_INIT(n)                                                                               \
	PT_INTERPOSE int MPI_##n(const void *buf, int count, MPI_Datatype dt, int dest, int tag,   \
				 MPI_Comm comm, MPI_Request *req)                                  \
	{                                                                                          \
		PT_MPI_REAL(MPI_##n)                                                               \
		if (!pt_mpi_on())                                                                  \
			return real_MPI_##n(buf, count, dt, dest, tag, comm, req);                 \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		int rc = real_MPI_##n(buf, count, dt, dest, tag, comm, req);                       \
		if (on) {                                                                          \
			if (rc == MPI_SUCCESS && pt_mpi_ready && dest != MPI_PROC_NULL) {          \
				const pt_mpi_comm *c = pt_mpi_comm_get(comm);                      \
				pt_mpi_req r = {.handle = (uintptr_t)*req,                         \
						.kind = PT_MPI_REQ_SEND,                           \
						.persistent = 1,                                   \
						.call = CALL(n),                                   \
						.peer = pt_mpi_world_rank(c, dest),                \
						.tag = tag,                                        \
						.bytes = pt_mpi_bytes(count, dt),                  \
						.comm = c};                                        \
				pt_mpi_req_add(&r);                                                \
			}                                                                          \
			pt_mpi_end_call(CALL(n), rc);                                              \
		}                                                                                  \
		return rc;                                                                         \
	}
SEND_INIT(Send_init)
SEND_INIT(Bsend_init)
SEND_INIT(Ssend_init)
SEND_INIT(Rsend_init)

PT_INTERPOSE int MPI_Recv_init(void *buf, int count, MPI_Datatype dt, int src, int tag,
			       MPI_Comm comm, MPI_Request *req)
{
	PT_MPI_REAL(MPI_Recv_init)
	if (!pt_mpi_on())
		return real_MPI_Recv_init(buf, count, dt, src, tag, comm, req);
	int on = pt_mpi_begin_call(CALL(Recv_init));
	int rc = real_MPI_Recv_init(buf, count, dt, src, tag, comm, req);
	if (on)
		pt_mpi_recv_posted(CALL(Recv_init), rc, pt_mpi_comm_get(comm), src, tag,
			    pt_mpi_bytes(count, dt), req, 0, 1);
	return rc;
}

/* MPI_Start(all): each persistent send becomes a MPI_SEND, each receive a
 * MPI_IRECV, as if made by a non-blocking call now. */
void pt_mpi_started(unsigned call, int rc, const MPI_Request *h, size_t n, uint64_t now)
{
	if (rc != MPI_SUCCESS || !pt_mpi_ready) {
		pt_mpi_end_call(call, rc);
		return;
	}
	int saved = errno;
	pt_mpi_depth = 0;
	pt_thread *t = pt_enter();
	if (!t) {
		errno = saved;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		pt_mpi_req r;
		if (!h[i] || !pt_mpi_req_start((uintptr_t)h[i], now, &r))
			continue;
		pt_rec_mpi_msg m = {r.peer, r.tag, r.bytes, r.comm ? r.comm->id : 0, r.handle, 0};
		pt_emit(t, r.kind == PT_MPI_REQ_SEND ? PT_REC_MPI_SEND : PT_REC_MPI_IRECV, call, &m,
			sizeof m);
	}
	pt_mpi_emit_end(t, call, rc);
	pt_leave(t);
	errno = saved;
}

PT_INTERPOSE int MPI_Start(MPI_Request *req)
{
	PT_MPI_REAL(MPI_Start)
	if (!pt_mpi_on())
		return real_MPI_Start(req);
	MPI_Request h = *req;
	uint64_t now = pt_now();
	int on = pt_mpi_begin_call(CALL(Start));
	int rc = real_MPI_Start(req);
	if (on)
		pt_mpi_started(CALL(Start), rc, &h, 1, now);
	return rc;
}

PT_INTERPOSE int MPI_Startall(int count, MPI_Request reqs[])
{
	PT_MPI_REAL(MPI_Startall)
	if (!pt_mpi_on())
		return real_MPI_Startall(count, reqs);
	uint64_t now = pt_now();
	int on = pt_mpi_begin_call(CALL(Startall));
	int rc = real_MPI_Startall(count, reqs);
	if (on)
		pt_mpi_started(CALL(Startall), rc, reqs, count > 0 ? (size_t)count : 0, now);
	return rc;
}

PT_INTERPOSE int MPI_Request_free(MPI_Request *req)
{
	PT_MPI_REAL(MPI_Request_free)
	if (!pt_mpi_on())
		return real_MPI_Request_free(req);
	if (req && *req)
		pt_mpi_req_forget((uintptr_t)*req);
	int on = pt_mpi_begin_call(CALL(Request_free));
	int rc = real_MPI_Request_free(req);
	if (on)
		pt_mpi_end_call(CALL(Request_free), rc);
	return rc;
}

/* ---- completion: the Wait and Test families ----------------------------- */
/* Before the call the requests are copied (it overwrites completed ones
 * with MPI_REQUEST_NULL); when one of them is a receive and the program
 * ignores statuses, the wrapper passes statuses of its own. */

PT_INTERPOSE int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	PT_MPI_REAL(MPI_Wait)
	if (!pt_mpi_on())
		return real_MPI_Wait(req, status);
	MPI_Request h = *req;
	int need = pt_mpi_ready && pt_mpi_any_recv(&h, 1);
	MPI_Status mine, *st = need && status == MPI_STATUS_IGNORE ? &mine : status;
	int on = pt_mpi_begin_call(CALL(Wait));
	if (on)
		pt_mpi_req_claim(&h, 1);
	int rc = real_MPI_Wait(req, st);
	if (on) {
		char done = rc == MPI_SUCCESS;
		pt_mpi_complete(CALL(Wait), rc, &h, &done, need ? st : NULL, 1);
		pt_mpi_req_unclaim(&h, 1);
	}
	return rc;
}

PT_INTERPOSE int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
	PT_MPI_REAL(MPI_Test)
	if (!pt_mpi_on())
		return real_MPI_Test(req, flag, status);
	MPI_Request h = *req;
	int need = pt_mpi_ready && pt_mpi_any_recv(&h, 1);
	MPI_Status mine, *st = need && status == MPI_STATUS_IGNORE ? &mine : status;
	int on = pt_mpi_begin_call(CALL(Test));
	if (on)
		pt_mpi_req_claim(&h, 1);
	int rc = real_MPI_Test(req, flag, st);
	if (on) {
		char done = rc == MPI_SUCCESS && *flag;
		pt_mpi_complete(CALL(Test), rc, &h, &done, need ? st : NULL, 1);
		pt_mpi_req_unclaim(&h, 1);
	}
	return rc;
}

/* Waitall, Testall: every request (when the call says so). */
static int all_call(unsigned call, int count, MPI_Request reqs[], int *flag, MPI_Status *statuses,
		    int (*wait)(int, MPI_Request *, MPI_Status *),
		    int (*test)(int, MPI_Request *, int *, MPI_Status *))
{
	size_t n = count > 0 ? (size_t)count : 0;
	pt_mpi_scratch s = {0};
	MPI_Request few[FEW];
	MPI_Request *h = few;
	int need = 0;
	if (pt_mpi_ready && pt_mpi_any_recv(reqs, n)) {
		if ((n > FEW || statuses == MPI_STATUSES_IGNORE) && pt_mpi_scratch_get(n, &s) == 0) {
			need = 1;
			if (n > FEW)
				h = s.req;
			if (statuses == MPI_STATUSES_IGNORE)
				statuses = s.st;
		} else if (n <= FEW) {
			need = 1;
		}
	}
	if (need)
		memcpy(h, reqs, n * sizeof *h);
	int on = pt_mpi_begin_call(call);
	if (on && need)
		pt_mpi_req_claim(h, n);
	int rc = wait ? wait(count, reqs, statuses) : test(count, reqs, flag, statuses);
	if (!on)
		return rc;
	int complete = rc == MPI_SUCCESS && (!flag || *flag);
	if (!need || (!complete && rc != MPI_ERR_IN_STATUS)) {
		if (need)
			pt_mpi_req_unclaim(h, n);
		pt_mpi_end_call(call, rc);
		return rc;
	}
	/* MPI_ERR_IN_STATUS: the requests whose status says success are done */
	char dfew[FEW], *done = n > FEW ? s.done : dfew;
	for (size_t i = 0; i < n; i++)
		done[i] = complete || statuses[i].MPI_ERROR == MPI_SUCCESS;
	pt_mpi_complete(call, rc, h, done, statuses, n);
	pt_mpi_req_unclaim(h, n);
	return rc;
}

PT_INTERPOSE int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status *statuses)
{
	PT_MPI_REAL(MPI_Waitall)
	if (!pt_mpi_on())
		return real_MPI_Waitall(count, reqs, statuses);
	return all_call(CALL(Waitall), count, reqs, NULL, statuses, real_MPI_Waitall, NULL);
}

PT_INTERPOSE int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
	PT_MPI_REAL(MPI_Testall)
	if (!pt_mpi_on())
		return real_MPI_Testall(count, reqs, flag, statuses);
	return all_call(CALL(Testall), count, reqs, flag, statuses, NULL, real_MPI_Testall);
}

/* Waitany, Testany: the one at *index. */
static int any_call(unsigned call, int count, MPI_Request reqs[], int *index, int *flag,
		    MPI_Status *status, int (*wait)(int, MPI_Request *, int *, MPI_Status *),
		    int (*test)(int, MPI_Request *, int *, int *, MPI_Status *))
{
	size_t n = count > 0 ? (size_t)count : 0;
	pt_mpi_scratch s = {0};
	MPI_Request few[FEW], *h = few;
	int need = pt_mpi_ready && pt_mpi_any_recv(reqs, n);
	if (need && n > FEW) {
		if (pt_mpi_scratch_get(n, &s) == 0)
			h = s.req;
		else
			need = 0;
	}
	if (need)
		memcpy(h, reqs, n * sizeof *h);
	MPI_Status mine, *st = need && status == MPI_STATUS_IGNORE ? &mine : status;
	int on = pt_mpi_begin_call(call);
	if (on && need)
		pt_mpi_req_claim(h, n);
	int rc = wait ? wait(count, reqs, index, st) : test(count, reqs, index, flag, st);
	if (!on)
		return rc;
	if (rc == MPI_SUCCESS && need && (!flag || *flag) && *index != MPI_UNDEFINED &&
	    *index >= 0 && (size_t)*index < n) {
		char done = 1;
		pt_mpi_complete(call, rc, &h[*index], &done, st, 1);
	} else {
		pt_mpi_end_call(call, rc);
	}
	if (need)
		pt_mpi_req_unclaim(h, n);
	return rc;
}

PT_INTERPOSE int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
	PT_MPI_REAL(MPI_Waitany)
	if (!pt_mpi_on())
		return real_MPI_Waitany(count, reqs, index, status);
	return any_call(CALL(Waitany), count, reqs, index, NULL, status, real_MPI_Waitany, NULL);
}

PT_INTERPOSE int MPI_Testany(int count, MPI_Request reqs[], int *index, int *flag,
			     MPI_Status *status)
{
	PT_MPI_REAL(MPI_Testany)
	if (!pt_mpi_on())
		return real_MPI_Testany(count, reqs, index, flag, status);
	return any_call(CALL(Testany), count, reqs, index, flag, status, NULL, real_MPI_Testany);
}

/* Waitsome, Testsome: outcount of them, their statuses in index order. */
static int some_call(unsigned call, int incount, MPI_Request reqs[], int *outcount, int indices[],
		     MPI_Status statuses[],
		     int (*fn)(int, MPI_Request *, int *, int *, MPI_Status *))
{
	size_t n = incount > 0 ? (size_t)incount : 0;
	pt_mpi_scratch s = {0};
	int need = pt_mpi_ready && pt_mpi_any_recv(reqs, n) && pt_mpi_scratch_get(n, &s) == 0;
	if (need) {
		memcpy(s.req, reqs, n * sizeof *s.req);
		if (statuses == MPI_STATUSES_IGNORE)
			statuses = s.st;
	}
	int on = pt_mpi_begin_call(call);
	if (on && need)
		pt_mpi_req_claim(s.req, n);
	int rc = fn(incount, reqs, outcount, indices, statuses);
	if (!on)
		return rc;
	if (rc != MPI_SUCCESS || !need || *outcount == MPI_UNDEFINED || *outcount <= 0) {
		if (need)
			pt_mpi_req_unclaim(s.req, n);
		pt_mpi_end_call(call, rc);
		return rc;
	}
	/* the scratch's own statuses may be the ones in use: gather handles
	 * in index order into a separate array */
	size_t k = (size_t)*outcount;
	MPI_Request few[FEW], *h = k <= FEW ? few : NULL;
	if (!h) { /* reuse the copy's tail: indices are distinct and < n */
		for (size_t i = 0; i < k; i++)
			s.idx[i] = indices[i];
		for (size_t i = 0; i < k; i++) {
			MPI_Request x = s.req[s.idx[i]];
			s.req[s.idx[i]] = s.req[i];
			s.req[i] = x;
			for (size_t j = i + 1; j < k; j++)
				if ((size_t)s.idx[j] == i)
					s.idx[j] = s.idx[i];
		}
		h = s.req;
	} else {
		for (size_t i = 0; i < k; i++)
			h[i] = s.req[indices[i]];
	}
	pt_mpi_complete(call, rc, h, NULL, statuses, k);
	pt_mpi_req_unclaim(s.req, n); /* the same handles, in another order */
	return rc;
}

PT_INTERPOSE int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
			      MPI_Status statuses[])
{
	PT_MPI_REAL(MPI_Waitsome)
	if (!pt_mpi_on())
		return real_MPI_Waitsome(incount, reqs, outcount, indices, statuses);
	return some_call(CALL(Waitsome), incount, reqs, outcount, indices, statuses,
			 real_MPI_Waitsome);
}

PT_INTERPOSE int MPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
			      MPI_Status statuses[])
{
	PT_MPI_REAL(MPI_Testsome)
	if (!pt_mpi_on())
		return real_MPI_Testsome(incount, reqs, outcount, indices, statuses);
	return some_call(CALL(Testsome), incount, reqs, outcount, indices, statuses,
			 real_MPI_Testsome);
}

/* ---- collectives ---------------------------------------------------------- */
/* sent: bytes the call reads from this process's send buffer; recvd: the
 * bytes it writes into its receive buffer (docs/MPI.md). */

void pt_mpi_coll(pt_rec_mpi_coll *r, MPI_Comm comm, int root, uint64_t sent, uint64_t recvd,
		 uintptr_t request)
{
	const pt_mpi_comm *c = pt_mpi_comm_get(comm);
	r->comm = c ? c->id : 0;
	r->root = root >= 0 ? pt_mpi_world_rank(c, root) : -1;
	if (root == MPI_ROOT && c && c->inter) /* an intercommunicator's root */
		r->root = pt_mpi_base + pt_mpi_rank;
	r->size = c ? c->size : 0;
	r->sent = sent;
	r->recvd = recvd;
	r->request = request;
}

/* The communicator's size for count arrays (remote group's for an
 * intercommunicator), and whether this process is the root. */
uint32_t pt_mpi_coll_size(MPI_Comm comm)
{
	const pt_mpi_comm *c = pt_mpi_ready ? pt_mpi_comm_get(comm) : NULL;
	return c ? c->size : 0;
}

int pt_mpi_is_root(MPI_Comm comm, int root)
{
	const pt_mpi_comm *c = pt_mpi_ready ? pt_mpi_comm_get(comm) : NULL;
	if (!c)
		return 0;
	return c->inter ? root == MPI_ROOT : root == c->rank;
}

uint64_t pt_mpi_sum_counts(const int *counts, uint32_t n, MPI_Datatype dt)
{
	int64_t total = 0;
	for (uint32_t i = 0; counts && i < n; i++)
		total += counts[i] > 0 ? counts[i] : 0;
	return pt_mpi_bytes(total, dt);
}

static uint64_t sum_counts_w(const int *counts, const MPI_Datatype *types, uint32_t n)
{
	uint64_t total = 0;
	for (uint32_t i = 0; counts && types && i < n; i++)
		total += pt_mpi_bytes(counts[i], types[i]);
	return total;
}

/* Neighbours of a process topology: in and out degree. */
static void degrees(MPI_Comm comm, int *in, int *out)
{
	static __typeof__(&PMPI_Topo_test) topo;
	static __typeof__(&PMPI_Cartdim_get) cartdim;
	static __typeof__(&PMPI_Graph_neighbors_count) gcount;
	static __typeof__(&PMPI_Dist_graph_neighbors_count) dcount;
	if (!topo) {
		cartdim = (__typeof__(cartdim))pt_mpi_sym("PMPI_Cartdim_get");
		gcount = (__typeof__(gcount))pt_mpi_sym("PMPI_Graph_neighbors_count");
		dcount = (__typeof__(dcount))pt_mpi_sym("PMPI_Dist_graph_neighbors_count");
		topo = (__typeof__(topo))pt_mpi_sym("PMPI_Topo_test");
	}
	*in = *out = 0;
	int kind = MPI_UNDEFINED, w;
	const pt_mpi_comm *c = pt_mpi_comm_get(comm);
	if (!topo || !c || topo(comm, &kind) != MPI_SUCCESS)
		return;
	if (kind == MPI_CART && cartdim && cartdim(comm, in) == MPI_SUCCESS)
		*out = *in = 2 * *in;
	else if (kind == MPI_GRAPH && gcount && gcount(comm, c->rank, in) == MPI_SUCCESS)
		*out = *in;
	else if (kind == MPI_DIST_GRAPH && dcount)
		dcount(comm, in, out, &w);
}

/* A collective: MPI_COLL at its end (with the request of a non-blocking
 * one), when the call succeeded. The byte expressions read only the
 * arguments, which the call leaves as they were. */
#define COLL_BODY_(n, sent_expr, recvd_expr, root, real_args, req)                                 \
	PT_MPI_REAL(MPI_##n)                                                                       \
	if (!pt_mpi_on())                                                                          \
		return real_MPI_##n real_args;                                                     \
	int on = pt_mpi_begin_call(CALL(n));                                                       \
	int rc = real_MPI_##n real_args;                                                           \
	if (on) {                                                                                  \
		if (rc == MPI_SUCCESS && pt_mpi_ready) {                                           \
			pt_rec_mpi_coll r;                                                         \
			pt_mpi_coll(&r, comm, root, sent_expr, recvd_expr, req);                   \
			pt_mpi_end(CALL(n), rc, PT_REC_MPI_COLL, &r, sizeof r, 1);                 \
		} else {                                                                           \
			pt_mpi_end_call(CALL(n), rc);                                              \
		}                                                                                  \
	}                                                                                          \
	return rc;

/* The request of a non-blocking collective, after the call. */
#define COLL_BODY(n, sent_expr, recvd_expr, root, real_args, is_nb)                                 \
	COLL_BODY_(n, sent_expr, recvd_expr, root, real_args, NB_REQ_##is_nb)
#define NB_REQ_0 0
#define NB_REQ_1 ((uintptr_t)*request)

#define IN_PLACE(buf) ((buf) == MPI_IN_PLACE)

PT_INTERPOSE int MPI_Barrier(MPI_Comm comm)
{
	COLL_BODY(Barrier, 0, 0, -1, (comm), 0)
}
PT_INTERPOSE int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	COLL_BODY(Ibarrier, 0, 0, -1, (comm, request), 1)
}

#define BCAST_SENT (pt_mpi_is_root(comm, root) ? pt_mpi_bytes(count, datatype) : 0)
#define BCAST_RECVD (pt_mpi_is_root(comm, root) || root == MPI_PROC_NULL ? 0 : pt_mpi_bytes(count, datatype))
PT_INTERPOSE int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	COLL_BODY(Bcast, BCAST_SENT, BCAST_RECVD, root, (buffer, count, datatype, root, comm), 0)
}
PT_INTERPOSE int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
			    MPI_Request *request)
{
	COLL_BODY(Ibcast, BCAST_SENT, BCAST_RECVD, root,
		  (buffer, count, datatype, root, comm, request), 1)
}

/* an intercommunicator's root group gives nothing (MPI_ROOT, MPI_PROC_NULL) */
#define RED_SENT (root == MPI_ROOT || root == MPI_PROC_NULL ? 0 : pt_mpi_bytes(count, datatype))
#define RED_RECVD (pt_mpi_is_root(comm, root) ? pt_mpi_bytes(count, datatype) : 0)
PT_INTERPOSE int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
			    MPI_Op op, int root, MPI_Comm comm)
{
	COLL_BODY(Reduce, RED_SENT, RED_RECVD, root,
		  (sendbuf, recvbuf, count, datatype, op, root, comm), 0)
}
PT_INTERPOSE int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
			     MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
	COLL_BODY(Ireduce, RED_SENT, RED_RECVD, root,
		  (sendbuf, recvbuf, count, datatype, op, root, comm, request), 1)
}

#define ALLRED pt_mpi_bytes(count, datatype)
#define ALLRED_FN(n, nb, ...)                                                                      \
	PT_INTERPOSE int MPI_##n(const void *sendbuf, void *recvbuf, int count,                    \
				 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm __VA_ARGS__)      \
	{                                                                                          \
		COLL_BODY(n, ALLRED, ALLRED, -1,                                                   \
			  (sendbuf, recvbuf, count, datatype, op, comm NB_ARG_##nb), nb)           \
	}
#define NB_ARG_0
#define NB_ARG_1 , request
ALLRED_FN(Allreduce, 0)
ALLRED_FN(Iallreduce, 1, , MPI_Request *request)
ALLRED_FN(Scan, 0)
ALLRED_FN(Iscan, 1, , MPI_Request *request)
ALLRED_FN(Exscan, 0)
ALLRED_FN(Iexscan, 1, , MPI_Request *request)

/* Gather: the root receives from all; MPI_IN_PLACE at the root leaves its
 * send arguments unused. */
#define GATHER_SENT                                                                                \
	(root == MPI_ROOT || root == MPI_PROC_NULL || IN_PLACE(sendbuf)                           \
		 ? 0                                                                               \
		 : pt_mpi_bytes(sendcount, sendtype))
#define GATHER_RECVD                                                                               \
	(pt_mpi_is_root(comm, root) ? pt_mpi_bytes((int64_t)recvcount * pt_mpi_coll_size(comm), recvtype) : 0)
#define GATHERV_RECVD                                                                              \
	(pt_mpi_is_root(comm, root) ? pt_mpi_sum_counts(recvcounts, pt_mpi_coll_size(comm), recvtype) : 0)
PT_INTERPOSE int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
			    MPI_Comm comm)
{
	COLL_BODY(Gather, GATHER_SENT, GATHER_RECVD, root,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), 0)
}
PT_INTERPOSE int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
			     MPI_Comm comm, MPI_Request *request)
{
	COLL_BODY(Igather, GATHER_SENT, GATHER_RECVD, root,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
		   request),
		  1)
}
PT_INTERPOSE int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			     void *recvbuf, const int recvcounts[], const int displs[],
			     MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	COLL_BODY(Gatherv, GATHER_SENT, GATHERV_RECVD, root,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm),
		  0)
}
PT_INTERPOSE int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			      void *recvbuf, const int recvcounts[], const int displs[],
			      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	COLL_BODY(Igatherv, GATHER_SENT, GATHERV_RECVD, root,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
		   request),
		  1)
}

#define SCATTER_SENT                                                                               \
	(pt_mpi_is_root(comm, root) ? pt_mpi_bytes((int64_t)sendcount * pt_mpi_coll_size(comm), sendtype) : 0)
#define SCATTERV_SENT (pt_mpi_is_root(comm, root) ? pt_mpi_sum_counts(sendcounts, pt_mpi_coll_size(comm), sendtype) : 0)
#define SCATTER_RECVD                                                                              \
	(root == MPI_ROOT || root == MPI_PROC_NULL || IN_PLACE(recvbuf)                           \
		 ? 0                                                                               \
		 : pt_mpi_bytes(recvcount, recvtype))
PT_INTERPOSE int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
			     MPI_Comm comm)
{
	COLL_BODY(Scatter, SCATTER_SENT, SCATTER_RECVD, root,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), 0)
}
PT_INTERPOSE int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
			      MPI_Comm comm, MPI_Request *request)
{
	COLL_BODY(Iscatter, SCATTER_SENT, SCATTER_RECVD, root,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
		   request),
		  1)
}
PT_INTERPOSE int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
			      MPI_Datatype sendtype, void *recvbuf, int recvcount,
			      MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	COLL_BODY(Scatterv, SCATTERV_SENT, SCATTER_RECVD, root,
		  (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm),
		  0)
}
PT_INTERPOSE int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
			       MPI_Datatype sendtype, void *recvbuf, int recvcount,
			       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	COLL_BODY(Iscatterv, SCATTERV_SENT, SCATTER_RECVD, root,
		  (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
		   request),
		  1)
}

#define AG_SENT (IN_PLACE(sendbuf) ? 0 : pt_mpi_bytes(sendcount, sendtype))
#define AG_RECVD pt_mpi_bytes((int64_t)recvcount * pt_mpi_coll_size(comm), recvtype)
#define AGV_RECVD pt_mpi_sum_counts(recvcounts, pt_mpi_coll_size(comm), recvtype)
PT_INTERPOSE int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL_BODY(Allgather, AG_SENT, AG_RECVD, -1,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), 0)
}
PT_INTERPOSE int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
				void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
				MPI_Request *request)
{
	COLL_BODY(Iallgather, AG_SENT, AG_RECVD, -1,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request), 1)
}
PT_INTERPOSE int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
				void *recvbuf, const int recvcounts[], const int displs[],
				MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL_BODY(Allgatherv, AG_SENT, AGV_RECVD, -1,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm), 0)
}
PT_INTERPOSE int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
				 void *recvbuf, const int recvcounts[], const int displs[],
				 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	COLL_BODY(Iallgatherv, AG_SENT, AGV_RECVD, -1,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
		   request),
		  1)
}

/* MPI_IN_PLACE in an all-to-all: the send arguments are unused and the
 * receive buffer is read as well as written. */
#define A2A_SENT                                                                                   \
	(IN_PLACE(sendbuf) ? pt_mpi_bytes((int64_t)recvcount * pt_mpi_coll_size(comm), recvtype)          \
			   : pt_mpi_bytes((int64_t)sendcount * pt_mpi_coll_size(comm), sendtype))
#define A2A_RECVD pt_mpi_bytes((int64_t)recvcount * pt_mpi_coll_size(comm), recvtype)
#define A2AV_SENT                                                                                  \
	(IN_PLACE(sendbuf) ? pt_mpi_sum_counts(recvcounts, pt_mpi_coll_size(comm), recvtype)                     \
			   : pt_mpi_sum_counts(sendcounts, pt_mpi_coll_size(comm), sendtype))
#define A2AV_RECVD pt_mpi_sum_counts(recvcounts, pt_mpi_coll_size(comm), recvtype)
#define A2AW_SENT                                                                                  \
	(IN_PLACE(sendbuf) ? sum_counts_w(recvcounts, recvtypes, pt_mpi_coll_size(comm))                  \
			   : sum_counts_w(sendcounts, sendtypes, pt_mpi_coll_size(comm)))
#define A2AW_RECVD sum_counts_w(recvcounts, recvtypes, pt_mpi_coll_size(comm))
PT_INTERPOSE int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			      void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL_BODY(Alltoall, A2A_SENT, A2A_RECVD, -1,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), 0)
}
PT_INTERPOSE int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			       MPI_Request *request)
{
	COLL_BODY(Ialltoall, A2A_SENT, A2A_RECVD, -1,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request), 1)
}
PT_INTERPOSE int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
			       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
			       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL_BODY(Alltoallv, A2AV_SENT, A2AV_RECVD, -1,
		  (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
		   comm),
		  0)
}
PT_INTERPOSE int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
				MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
				const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
				MPI_Request *request)
{
	COLL_BODY(Ialltoallv, A2AV_SENT, A2AV_RECVD, -1,
		  (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
		   comm, request),
		  1)
}
PT_INTERPOSE int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
			       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
			       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	COLL_BODY(Alltoallw, A2AW_SENT, A2AW_RECVD, -1,
		  (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
		   recvtypes, comm),
		  0)
}
PT_INTERPOSE int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
				const MPI_Datatype sendtypes[], void *recvbuf,
				const int recvcounts[], const int rdispls[],
				const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
	COLL_BODY(Ialltoallw, A2AW_SENT, A2AW_RECVD, -1,
		  (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
		   recvtypes, comm, request),
		  1)
}

/* Reduce_scatter: this process's share of the reduction lands in its
 * receive buffer. */
static uint64_t my_count(MPI_Comm comm, const int *counts, MPI_Datatype dt)
{
	const pt_mpi_comm *c = pt_mpi_comm_get(comm);
	if (!c || c->inter || c->rank < 0 || !counts)
		return 0;
	return pt_mpi_bytes(counts[c->rank], dt);
}
#define RS_SENT pt_mpi_sum_counts(recvcounts, pt_mpi_coll_size(comm), datatype)
#define RS_RECVD my_count(comm, recvcounts, datatype)
#define RSB_SENT pt_mpi_bytes((int64_t)recvcount * pt_mpi_coll_size(comm), datatype)
#define RSB_RECVD pt_mpi_bytes(recvcount, datatype)
PT_INTERPOSE int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
				    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	COLL_BODY(Reduce_scatter, RS_SENT, RS_RECVD, -1,
		  (sendbuf, recvbuf, recvcounts, datatype, op, comm), 0)
}
PT_INTERPOSE int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
				     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
				     MPI_Request *request)
{
	COLL_BODY(Ireduce_scatter, RS_SENT, RS_RECVD, -1,
		  (sendbuf, recvbuf, recvcounts, datatype, op, comm, request), 1)
}
PT_INTERPOSE int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
					  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	COLL_BODY(Reduce_scatter_block, RSB_SENT, RSB_RECVD, -1,
		  (sendbuf, recvbuf, recvcount, datatype, op, comm), 0)
}
PT_INTERPOSE int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
					   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
					   MPI_Request *request)
{
	COLL_BODY(Ireduce_scatter_block, RSB_SENT, RSB_RECVD, -1,
		  (sendbuf, recvbuf, recvcount, datatype, op, comm, request), 1)
}

/* Neighbourhood collectives: to each out-neighbour, from each in-one. */
static uint64_t nb_bytes(MPI_Comm comm, int count, MPI_Datatype dt, int out)
{
	int in, o;
	degrees(comm, &in, &o);
	return pt_mpi_bytes((int64_t)count * (out ? o : in), dt);
}
static uint64_t nb_sum(MPI_Comm comm, const int *counts, MPI_Datatype dt, int out)
{
	int in, o;
	degrees(comm, &in, &o);
	return pt_mpi_sum_counts(counts, (uint32_t)(out ? o : in), dt);
}
static uint64_t nb_sum_w(MPI_Comm comm, const int *counts, const MPI_Datatype *types, int out)
{
	int in, o;
	degrees(comm, &in, &o);
	return sum_counts_w(counts, types, (uint32_t)(out ? o : in));
}
#define NAG_SENT pt_mpi_bytes(sendcount, sendtype)
#define NAG_RECVD nb_bytes(comm, recvcount, recvtype, 0)
#define NAGV_RECVD nb_sum(comm, recvcounts, recvtype, 0)
#define NA2A_SENT nb_bytes(comm, sendcount, sendtype, 1)
#define NA2AV_SENT nb_sum(comm, sendcounts, sendtype, 1)
#define NA2AW_SENT nb_sum_w(comm, sendcounts, sendtypes, 1)
#define NA2AW_RECVD nb_sum_w(comm, recvcounts, recvtypes, 0)
PT_INTERPOSE int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
					void *recvbuf, int recvcount, MPI_Datatype recvtype,
					MPI_Comm comm)
{
	COLL_BODY(Neighbor_allgather, NAG_SENT, NAG_RECVD, -1,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), 0)
}
PT_INTERPOSE int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
					 void *recvbuf, int recvcount, MPI_Datatype recvtype,
					 MPI_Comm comm, MPI_Request *request)
{
	COLL_BODY(Ineighbor_allgather, NAG_SENT, NAG_RECVD, -1,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request), 1)
}
PT_INTERPOSE int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
					 void *recvbuf, const int recvcounts[], const int displs[],
					 MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL_BODY(Neighbor_allgatherv, NAG_SENT, NAGV_RECVD, -1,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm), 0)
}
PT_INTERPOSE int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount,
					  MPI_Datatype sendtype, void *recvbuf,
					  const int recvcounts[], const int displs[],
					  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	COLL_BODY(Ineighbor_allgatherv, NAG_SENT, NAGV_RECVD, -1,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
		   request),
		  1)
}
PT_INTERPOSE int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
				       void *recvbuf, int recvcount, MPI_Datatype recvtype,
				       MPI_Comm comm)
{
	COLL_BODY(Neighbor_alltoall, NA2A_SENT, NAG_RECVD, -1,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), 0)
}
PT_INTERPOSE int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
					void *recvbuf, int recvcount, MPI_Datatype recvtype,
					MPI_Comm comm, MPI_Request *request)
{
	COLL_BODY(Ineighbor_alltoall, NA2A_SENT, NAG_RECVD, -1,
		  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request), 1)
}
PT_INTERPOSE int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
					const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
					const int recvcounts[], const int rdispls[],
					MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL_BODY(Neighbor_alltoallv, NA2AV_SENT, NAGV_RECVD, -1,
		  (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
		   comm),
		  0)
}
PT_INTERPOSE int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
					 const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
					 const int recvcounts[], const int rdispls[],
					 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	COLL_BODY(Ineighbor_alltoallv, NA2AV_SENT, NAGV_RECVD, -1,
		  (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
		   comm, request),
		  1)
}
PT_INTERPOSE int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
					const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
					void *recvbuf, const int recvcounts[],
					const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
					MPI_Comm comm)
{
	COLL_BODY(Neighbor_alltoallw, NA2AW_SENT, NA2AW_RECVD, -1,
		  (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
		   recvtypes, comm),
		  0)
}
PT_INTERPOSE int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
					 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
					 void *recvbuf, const int recvcounts[],
					 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
					 MPI_Comm comm, MPI_Request *request)
{
	COLL_BODY(Ineighbor_alltoallw, NA2AW_SENT, NA2AW_RECVD, -1,
		  (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
		   recvtypes, comm, request),
		  1)
}

/* ---- communicators ------------------------------------------------------- */
/* A new communicator is registered right after the call that made it, in
 * creation order (mpi_comm.c); a freed one leaves the table first. */
#define COMM_NEW(n, params, args, newcomm)                                                         \
	PT_INTERPOSE int MPI_##n params                                                            \
	{                                                                                          \
		PT_MPI_REAL(MPI_##n)                                                               \
		if (!pt_mpi_on())                                                                  \
			return real_MPI_##n args;                                                  \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		int rc = real_MPI_##n args;                                                        \
		if (on) {                                                                          \
			if (rc == MPI_SUCCESS && newcomm)                                          \
				pt_mpi_comm_created(*(newcomm));                                   \
			pt_mpi_end_call(CALL(n), rc);                                              \
		}                                                                                  \
		return rc;                                                                         \
	}
COMM_NEW(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm), (comm, group, newcomm),
	 newcomm)
COMM_NEW(Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm), (comm, newcomm), newcomm)
COMM_NEW(Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm),
	 (comm, info, newcomm), newcomm)
COMM_NEW(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm),
	 (comm, color, key, newcomm), newcomm)
COMM_NEW(Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm),
	 (comm, split_type, key, info, newcomm), newcomm)
COMM_NEW(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm),
	 (comm, group, tag, newcomm), newcomm)
COMM_NEW(Cart_create,
	 (MPI_Comm old_comm, int ndims, const int dims[], const int periods[], int reorder,
	  MPI_Comm *comm_cart),
	 (old_comm, ndims, dims, periods, reorder, comm_cart), comm_cart)
COMM_NEW(Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *new_comm),
	 (comm, remain_dims, new_comm), new_comm)
COMM_NEW(Graph_create,
	 (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
	  MPI_Comm *comm_graph),
	 (comm_old, nnodes, index, edges, reorder, comm_graph), comm_graph)
COMM_NEW(Dist_graph_create,
	 (MPI_Comm comm_old, int n, const int nodes[], const int degrees[], const int targets[],
	  const int weights[], MPI_Info info, int reorder, MPI_Comm *newcomm),
	 (comm_old, n, nodes, degrees, targets, weights, info, reorder, newcomm), newcomm)
COMM_NEW(Dist_graph_create_adjacent,
	 (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
	  int outdegree, const int destinations[], const int destweights[], MPI_Info info,
	  int reorder, MPI_Comm *comm_dist_graph),
	 (comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights, info,
	  reorder, comm_dist_graph),
	 comm_dist_graph)
COMM_NEW(Intercomm_create,
	 (MPI_Comm local_comm, int local_leader, MPI_Comm bridge_comm, int remote_leader, int tag,
	  MPI_Comm *newintercomm),
	 (local_comm, local_leader, bridge_comm, remote_leader, tag, newintercomm), newintercomm)
COMM_NEW(Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintercomm),
	 (intercomm, high, newintercomm), newintercomm)
COMM_NEW(Comm_spawn,
	 (const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
	  MPI_Comm *intercomm, int array_of_errcodes[]),
	 (command, argv, maxprocs, info, root, comm, intercomm, array_of_errcodes), intercomm)
COMM_NEW(Comm_spawn_multiple,
	 (int count, char *array_of_commands[], char **array_of_argv[],
	  const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm,
	  MPI_Comm *intercomm, int array_of_errcodes[]),
	 (count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info, root, comm,
	  intercomm, array_of_errcodes),
	 intercomm)
COMM_NEW(Comm_accept,
	 (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm),
	 (port_name, info, root, comm, newcomm), newcomm)
COMM_NEW(Comm_connect,
	 (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm),
	 (port_name, info, root, comm, newcomm), newcomm)
COMM_NEW(Comm_join, (int fd, MPI_Comm *intercomm), (fd, intercomm), intercomm)

#define COMM_GONE(n)                                                                               \
	PT_INTERPOSE int MPI_##n(MPI_Comm *comm)                                                   \
	{                                                                                          \
		PT_MPI_REAL(MPI_##n)                                                               \
		if (!pt_mpi_on())                                                                  \
			return real_MPI_##n(comm);                                                 \
		if (comm && pt_mpi_ready)                                                          \
			pt_mpi_comm_freed(*comm);                                                  \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		int rc = real_MPI_##n(comm);                                                       \
		if (on)                                                                            \
			pt_mpi_end_call(CALL(n), rc);                                              \
		return rc;                                                                         \
	}
COMM_GONE(Comm_free)
COMM_GONE(Comm_disconnect)

extern PT_HIDDEN unsigned pt_mpi_type_gen;

PT_INTERPOSE int MPI_Type_free(MPI_Datatype *type)
{
	PT_MPI_REAL(MPI_Type_free)
	if (!pt_mpi_on())
		return real_MPI_Type_free(type);
	__atomic_add_fetch(&pt_mpi_type_gen, 1, __ATOMIC_RELAXED);
	int on = pt_mpi_begin_call(CALL(Type_free));
	int rc = real_MPI_Type_free(type);
	if (on)
		pt_mpi_end_call(CALL(Type_free), rc);
	return rc;
}

/* ---- one-sided ------------------------------------------------------------ */

/* A one-sided call's end: MPI_RMA when it succeeded. */
static void rma_end(unsigned call, int rc, int target, MPI_Win win, uint64_t bytes)
{
	if (rc != MPI_SUCCESS || !pt_mpi_ready) {
		pt_mpi_end_call(call, rc);
		return;
	}
	pt_rec_mpi_rma r = {pt_mpi_win_world_rank(win, target), 0, bytes, (uintptr_t)win};
	pt_mpi_end(call, rc, PT_REC_MPI_RMA, &r, sizeof r, 1);
}

#define RMA_BODY(n, target, bytes, args)                                                           \
	PT_MPI_REAL(MPI_##n)                                                                       \
	if (!pt_mpi_on())                                                                          \
		return real_MPI_##n args;                                                          \
	int on = pt_mpi_begin_call(CALL(n));                                                       \
	int rc = real_MPI_##n args;                                                                \
	if (on)                                                                                    \
		rma_end(CALL(n), rc, target, win, bytes);                                          \
	return rc;

PT_INTERPOSE int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
			 int target_rank, MPI_Aint target_disp, int target_count,
			 MPI_Datatype target_datatype, MPI_Win win)
{
	RMA_BODY(Put, target_rank, pt_mpi_bytes(origin_count, origin_datatype),
		 (origin_addr, origin_count, origin_datatype, target_rank, target_disp,
		  target_count, target_datatype, win))
}
PT_INTERPOSE int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
			 int target_rank, MPI_Aint target_disp, int target_count,
			 MPI_Datatype target_datatype, MPI_Win win)
{
	RMA_BODY(Get, target_rank, pt_mpi_bytes(origin_count, origin_datatype),
		 (origin_addr, origin_count, origin_datatype, target_rank, target_disp,
		  target_count, target_datatype, win))
}
PT_INTERPOSE int MPI_Accumulate(const void *origin_addr, int origin_count,
				MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
				int target_count, MPI_Datatype target_datatype, MPI_Op op,
				MPI_Win win)
{
	RMA_BODY(Accumulate, target_rank, pt_mpi_bytes(origin_count, origin_datatype),
		 (origin_addr, origin_count, origin_datatype, target_rank, target_disp,
		  target_count, target_datatype, op, win))
}
PT_INTERPOSE int MPI_Get_accumulate(const void *origin_addr, int origin_count,
				    MPI_Datatype origin_datatype, void *result_addr,
				    int result_count, MPI_Datatype result_datatype, int target_rank,
				    MPI_Aint target_disp, int target_count,
				    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	RMA_BODY(Get_accumulate, target_rank, pt_mpi_bytes(origin_count, origin_datatype),
		 (origin_addr, origin_count, origin_datatype, result_addr, result_count,
		  result_datatype, target_rank, target_disp, target_count, target_datatype, op,
		  win))
}
PT_INTERPOSE int MPI_Fetch_and_op(const void *origin_addr, void *result_addr,
				  MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
				  MPI_Op op, MPI_Win win)
{
	RMA_BODY(Fetch_and_op, target_rank, pt_mpi_bytes(1, datatype),
		 (origin_addr, result_addr, datatype, target_rank, target_disp, op, win))
}
PT_INTERPOSE int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
				      void *result_addr, MPI_Datatype datatype, int target_rank,
				      MPI_Aint target_disp, MPI_Win win)
{
	RMA_BODY(Compare_and_swap, target_rank, pt_mpi_bytes(1, datatype),
		 (origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win))
}
PT_INTERPOSE int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
			  int target_rank, MPI_Aint target_disp, int target_cout,
			  MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	RMA_BODY(Rput, target_rank, pt_mpi_bytes(origin_count, origin_datatype),
		 (origin_addr, origin_count, origin_datatype, target_rank, target_disp,
		  target_cout, target_datatype, win, request))
}
PT_INTERPOSE int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
			  int target_rank, MPI_Aint target_disp, int target_count,
			  MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	RMA_BODY(Rget, target_rank, pt_mpi_bytes(origin_count, origin_datatype),
		 (origin_addr, origin_count, origin_datatype, target_rank, target_disp,
		  target_count, target_datatype, win, request))
}
PT_INTERPOSE int MPI_Raccumulate(const void *origin_addr, int origin_count,
				 MPI_Datatype origin_datatype, int target_rank,
				 MPI_Aint target_disp, int target_count,
				 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
				 MPI_Request *request)
{
	RMA_BODY(Raccumulate, target_rank, pt_mpi_bytes(origin_count, origin_datatype),
		 (origin_addr, origin_count, origin_datatype, target_rank, target_disp,
		  target_count, target_datatype, op, win, request))
}
PT_INTERPOSE int MPI_Rget_accumulate(const void *origin_addr, int origin_count,
				     MPI_Datatype origin_datatype, void *result_addr,
				     int result_count, MPI_Datatype result_datatype,
				     int target_rank, MPI_Aint target_disp, int target_count,
				     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
				     MPI_Request *request)
{
	RMA_BODY(Rget_accumulate, target_rank, pt_mpi_bytes(origin_count, origin_datatype),
		 (origin_addr, origin_count, origin_datatype, result_addr, result_count,
		  result_datatype, target_rank, target_disp, target_count, target_datatype, op,
		  win, request))
}
PT_INTERPOSE int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
	RMA_BODY(Win_lock, rank, 0, (lock_type, rank, assert, win))
}
PT_INTERPOSE int MPI_Win_unlock(int rank, MPI_Win win)
{
	RMA_BODY(Win_unlock, rank, 0, (rank, win))
}

PT_INTERPOSE int MPI_Win_free(MPI_Win *win)
{
	PT_MPI_REAL(MPI_Win_free)
	if (!pt_mpi_on())
		return real_MPI_Win_free(win);
	if (win && pt_mpi_ready)
		pt_mpi_win_freed(*win);
	int on = pt_mpi_begin_call(CALL(Win_free));
	int rc = real_MPI_Win_free(win);
	if (on)
		pt_mpi_end_call(CALL(Win_free), rc);
	return rc;
}

/* ---- MPI I/O ----------------------------------------------------------- */

#define IO(n, params, args)                                                                        \
	PT_INTERPOSE int MPI_##n params                                                            \
	{                                                                                          \
		PT_MPI_REAL(MPI_##n)                                                               \
		if (!pt_mpi_on())                                                                  \
			return real_MPI_##n args;                                                  \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		int rc = real_MPI_##n args;                                                        \
		if (on && rc == MPI_SUCCESS) {                                                     \
			pt_rec_mpi_io r = {pt_mpi_bytes(count, datatype), (uintptr_t)fh};          \
			pt_mpi_end(CALL(n), rc, PT_REC_MPI_IO, &r, sizeof r, 1);                   \
		} else if (on) {                                                                   \
			pt_mpi_end_call(CALL(n), rc);                                              \
		}                                                                                  \
		return rc;                                                                         \
	}
#define IO_RW(n, cv, last)                                                                         \
	IO(n, (MPI_File fh, cv void *buf, int count, MPI_Datatype datatype, last),                 \
	   (fh, buf, count, datatype, LAST_ARG_##last))
#define IO_AT(n, cv, last)                                                                         \
	IO(n, (MPI_File fh, MPI_Offset offset, cv void *buf, int count, MPI_Datatype datatype,     \
	       last),                                                                              \
	   (fh, offset, buf, count, datatype, LAST_ARG_##last))
#define ST MPI_Status *status
#define RQ MPI_Request *request
#define LAST_ARG_ST status
#define LAST_ARG_RQ request
IO_RW(File_read, , ST)
IO_RW(File_read_all, , ST)
IO_RW(File_write, const, ST)
IO_RW(File_write_all, const, ST)
IO_AT(File_read_at, , ST)
IO_AT(File_read_at_all, , ST)
IO_AT(File_write_at, const, ST)
IO_AT(File_write_at_all, const, ST)
IO_RW(File_read_shared, , ST)
IO_RW(File_write_shared, const, ST)
IO_RW(File_iread, , RQ)
IO_RW(File_iwrite, const, RQ)
IO_AT(File_iread_at, , RQ)
IO_AT(File_iwrite_at, const, RQ)
IO_RW(File_read_ordered, , ST)
IO_RW(File_write_ordered, const, ST)

/* ---- everything else: the call's begin and end ---------------------------- */
PLAIN(Comm_rank, (MPI_Comm comm, int *rank), (comm, rank))
PLAIN(Comm_size, (MPI_Comm comm, int *size), (comm, size))
PLAIN(Comm_group, (MPI_Comm comm, MPI_Group *group), (comm, group))
PLAIN(Comm_remote_group, (MPI_Comm comm, MPI_Group *group), (comm, group))
PLAIN(Comm_remote_size, (MPI_Comm comm, int *size), (comm, size))
PLAIN(Comm_test_inter, (MPI_Comm comm, int *flag), (comm, flag))
PLAIN(Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result), (comm1, comm2, result))
PLAIN(Cancel, (MPI_Request *request), (request))
PLAIN(Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest), (comm, direction, disp, rank_source, rank_dest))
PLAIN(Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]), (comm, rank, maxdims, coords))
PLAIN(Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]), (comm, maxdims, dims, periods, coords))
PLAIN(Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank), (comm, ndims, dims, periods, newrank))
PLAIN(Cart_rank, (MPI_Comm comm, const int coords[], int *rank), (comm, coords, rank))
PLAIN(Cartdim_get, (MPI_Comm comm, int *ndims), (comm, ndims))
PLAIN(Dims_create, (int nnodes, int ndims, int dims[]), (nnodes, ndims, dims))
PLAIN(Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]), (comm, maxindex, maxedges, index, edges))
PLAIN(Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank), (comm, nnodes, index, edges, newrank))
PLAIN(Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]), (comm, rank, maxneighbors, neighbors))
PLAIN(Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges), (comm, nnodes, nedges))
PLAIN(Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors), (comm, rank, nneighbors))
PLAIN(Topo_test, (MPI_Comm comm, int *status), (comm, status))
PLAIN(Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status), (source, tag, comm, status))
PLAIN(Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status), (source, tag, comm, flag, status))
PLAIN(Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win), (base, size, disp_unit, info, comm, win))
PLAIN(Win_fence, (int assert, MPI_Win win), (assert, win))
PLAIN(Win_start, (MPI_Group group, int assert, MPI_Win win), (group, assert, win))
PLAIN(Win_complete, (MPI_Win win), (win))
PLAIN(Win_post, (MPI_Group group, int assert, MPI_Win win), (group, assert, win))
PLAIN(Win_wait, (MPI_Win win), (win))
PLAIN(Win_test, (MPI_Win win, int *flag), (win, flag))
PLAIN(Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm), (inbuf, incount, datatype, outbuf, outsize, position, comm))
PLAIN(Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm), (inbuf, insize, position, outbuf, outcount, datatype, comm))
PLAIN(Op_create, (MPI_User_function *function, int commute, MPI_Op *op), (function, commute, op))
PLAIN(Op_free, (MPI_Op *op), (op))
PLAIN(Attr_delete, (MPI_Comm comm, int keyval), (comm, keyval))
PLAIN(Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag), (comm, keyval, attribute_val, flag))
PLAIN(Attr_put, (MPI_Comm comm, int keyval, void *attribute_val), (comm, keyval, attribute_val))
PLAIN(Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup), (group1, group2, newgroup))
PLAIN(Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup), (group, n, ranks, newgroup))
PLAIN(Group_free, (MPI_Group *group), (group))
PLAIN(Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup), (group, n, ranks, newgroup))
PLAIN(Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup), (group1, group2, newgroup))
PLAIN(Group_rank, (MPI_Group group, int *rank), (group, rank))
PLAIN(Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup), (group, n, ranges, newgroup))
PLAIN(Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup), (group, n, ranges, newgroup))
PLAIN(Group_size, (MPI_Group group, int *size), (group, size))
PLAIN(Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]), (group1, n, ranks1, group2, ranks2))
PLAIN(Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup), (group1, group2, newgroup))
PLAIN(Group_compare, (MPI_Group group1, MPI_Group group2, int *result), (group1, group2, result))
PLAIN(Keyval_free, (int *keyval), (keyval))
PLAIN(Keyval_create, (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state), (copy_fn, delete_fn, keyval, extra_state))
PLAIN(Abort, (MPI_Comm comm, int errorcode), (comm, errorcode))
PLAIN(Error_class, (int errorcode, int *errorclass), (errorcode, errorclass))
PLAIN(Errhandler_free, (MPI_Errhandler *errhandler), (errhandler))
PLAIN(Error_string, (int errorcode, char *string, int *resultlen), (errorcode, string, resultlen))
PLAIN(Get_processor_name, (char *name, int *resultlen), (name, resultlen))
PLAIN(Initialized, (int *flag), (flag))
PLAIN(Buffer_attach, (void *buffer, int size), (buffer, size))
PLAIN(Buffer_detach, (void *buffer, int *size), (buffer, size))
PLAIN(Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count), (status, datatype, count))
PLAIN(Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count), (status, datatype, count))
PLAIN(Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size), (incount, datatype, comm, size))
PLAIN(Test_cancelled, (const MPI_Status *status, int *flag), (status, flag))
PLAIN(Type_commit, (MPI_Datatype *type), (type))
PLAIN(Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype), (count, oldtype, newtype))
PLAIN(Type_indexed, (int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype), (count, array_of_blocklengths, array_of_displacements, oldtype, newtype))
PLAIN(Type_size, (MPI_Datatype type, int *size), (type, size))
PLAIN(Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype), (count, blocklength, stride, oldtype, newtype))
PLAIN(File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh), (comm, filename, amode, info, fh))
PLAIN(File_close, (MPI_File *fh), (fh))
PLAIN(Request_get_status, (MPI_Request request, int *flag, MPI_Status *status), (request, flag, status))
PLAIN(Win_flush, (int rank, MPI_Win win), (rank, win))
PLAIN(Win_flush_all, (MPI_Win win), (win))
PLAIN(Win_flush_local, (int rank, MPI_Win win), (rank, win))
PLAIN(Win_flush_local_all, (MPI_Win win), (win))
PLAIN(Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request), (comm, newcomm, request))
PLAIN(Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win), (size, disp_unit, info, comm, baseptr, win))
PLAIN(Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win), (size, disp_unit, info, comm, baseptr, win))
PLAIN(Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win), (info, comm, win))
PLAIN(Win_lock_all, (int assert, MPI_Win win), (assert, win))
PLAIN(Win_unlock_all, (MPI_Win win), (win))
PLAIN(Win_sync, (MPI_Win win), (win))
PLAIN(File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info), (fh, disp, etype, filetype, datarep, info))
PLAIN(File_sync, (MPI_File fh), (fh))
PLAIN(Finalized, (int *flag), (flag))
PLAIN(Query_thread, (int *provided), (provided))
PLAIN(Type_create_struct, (int count, const int array_of_block_lengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype), (count, array_of_block_lengths, array_of_displacements, array_of_types, newtype))
PLAIN(Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype), (count, blocklength, stride, oldtype, newtype))
PLAIN(Type_create_hindexed, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype), (count, array_of_blocklengths, array_of_displacements, oldtype, newtype))
PLAIN(Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype), (oldtype, lb, extent, newtype))
PLAIN(Type_get_extent, (MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent), (type, lb, extent))
PLAIN(Get_address, (const void *location, MPI_Aint *address), (location, address))
PLAIN(Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag), (comm, comm_keyval, attribute_val, flag))
PLAIN(Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler), (comm, errhandler))
PLAIN(Comm_get_parent, (MPI_Comm *parent), (parent))
PLAIN(Type_create_subarray, (int ndims, const int size_array[], const int subsize_array[], const int start_array[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype), (ndims, size_array, subsize_array, start_array, order, oldtype, newtype))
PLAIN(Type_dup, (MPI_Datatype type, MPI_Datatype *newtype), (type, newtype))
PLAIN(Get_version, (int *version, int *subversion), (version, subversion))

/* MPI_Wtime, MPI_Wtick return a double. */
#define PLAIN_DOUBLE(n)                                                                            \
	PT_INTERPOSE double MPI_##n(void)                                                          \
	{                                                                                          \
		static __typeof__(&PMPI_##n) real;                                                 \
		if (pt_unlikely(!real) && !(real = (__typeof__(&PMPI_##n))pt_mpi_sym("PMPI_" #n))) \
			return (double)pt_mpi_missing("MPI_" #n);                                  \
		if (!pt_mpi_on())                                                                  \
			return real();                                                             \
		int on = pt_mpi_begin_call(CALL(n));                                               \
		double r = real();                                                                 \
		if (on)                                                                            \
			pt_mpi_end_call(CALL(n), MPI_SUCCESS);                                     \
		return r;                                                                          \
	}
PLAIN_DOUBLE(Wtime)
PLAIN_DOUBLE(Wtick)
