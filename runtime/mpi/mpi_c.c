/* SPDX-License-Identifier: MIT */
/* What the C and Fortran wrappers share (docs/MPI.md): a call's end
 * with what it moved (a collective's: mpi_coll.c). The wrappers
 * themselves are written from the table of MPI calls when libtrace.so is
 * built (gen_wrappers.py), each calling these with its arguments in C
 * terms (the Fortran ones convert theirs).
 *
 * What a call moved is described in world ranks and communicator ids
 * (mpi_comm.c). Arguments MPI says are not significant (a non-root's
 * receive counts, MPI_IN_PLACE's send type) are never looked at: they may
 * be anything. */
#define _GNU_SOURCE
#include "mpi_internal.h"

#include <string.h>
#include <unistd.h>

/* ---- point to point -------------------------------------------------- */

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
	if (st->MPI_SOURCE < 0 || pt_mpi_status_cancelled(st)) /* MPI_PROC_NULL: no message */
		return 0;
	pt_mpi_msg(m, r->comm, st->MPI_SOURCE, st->MPI_TAG, pt_mpi_status_bytes(st), r->handle);
	m->posted = r->posted;
	return 1;
}

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
	pt_mpi_end_one(call, rc, PT_REC_MPI_SEND, &m, sizeof m);
}

/* A blocking receive's end: MPI_RECV from its status (MPI_Sendrecv's
 * MPI_SEND before it), MPI_CALL_END. */
void pt_mpi_recv_end(unsigned call, int rc, MPI_Comm comm, const MPI_Status *st, uint64_t posted,
		     const pt_mpi_sent *sent)
{
	if (!sent && rc == MPI_SUCCESS && pt_mpi_ready) {
		/* a receive alone: pt_mpi_recv_msg's record, without a request */
		const pt_mpi_comm *c = pt_mpi_comm_get(comm);
		if (c && st->MPI_SOURCE >= 0 && !pt_mpi_status_cancelled(st)) {
			pt_rec_mpi_msg m;
			pt_mpi_msg(&m, c, st->MPI_SOURCE, st->MPI_TAG, pt_mpi_status_bytes(st), 0);
			m.posted = posted;
			pt_mpi_end_one(call, rc, PT_REC_MPI_RECV, &m, sizeof m);
			return;
		}
	}
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
	pt_lib_call = 0;
	uint64_t now = pt_now();
	if (!n) {
		pt_mpi_finish(now, call, rc);
		return;
	}
	if (n == 2)
		pt_mpi_put(now, call, kind[0], &m[0], sizeof m[0]);
	pt_mpi_put_finish(now, call, kind[n - 1], &m[n - 1], sizeof m[n - 1], rc);
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
	pt_mpi_end_one(call, rc, PT_REC_MPI_IRECV, &m, sizeof m);
}

/* Matched probes: the message handle stands for the receive until
 * MPI_Mrecv / MPI_Imrecv takes it (kept like a request: its communicator
 * turns the source into a world rank). */
void pt_mpi_message_seen(int rc, MPI_Comm comm, const MPI_Message *msg, int found)
{
#ifdef PT_MPI_ABI_OMPI
	static MPI_Message no_proc;
	if (!no_proc)
		no_proc = (MPI_Message)pt_mpi_sym("ompi_message_no_proc");
#else
	const MPI_Message no_proc = MPI_MESSAGE_NO_PROC;
#endif
	if (rc != MPI_SUCCESS || !found || !pt_mpi_ready || !*msg || *msg == no_proc)
		return;
	pt_mpi_req r = {.handle = (uintptr_t)*msg,
			.kind = PT_MPI_REQ_RECV,
			.active = 1,
			.comm = pt_mpi_comm_get(comm),
			.posted = pt_now()};
	pt_mpi_req_add(&r);
}

/* MPI_Mrecv: the message's entry, taken by the receive. */
void pt_mpi_mrecv_end(unsigned call, int rc, MPI_Message h, const MPI_Status *st)
{
	pt_mpi_req r;
	pt_rec_mpi_msg m;
	if (rc == MPI_SUCCESS && pt_mpi_ready && pt_mpi_req_done((uintptr_t)h, &r) &&
	    pt_mpi_recv_msg(&r, st, &m)) {
		m.request = 0;
		pt_mpi_end_one(call, rc, PT_REC_MPI_RECV, &m, sizeof m);
	} else {
		pt_mpi_end_call(call, rc);
	}
}

/* MPI_Imrecv: a receive posted from the message's communicator. */
void pt_mpi_imrecv_end(unsigned call, int rc, MPI_Message h, int count, MPI_Datatype dt,
		       const MPI_Request *req, uint64_t posted)
{
	pt_mpi_req r;
	if (rc == MPI_SUCCESS && pt_mpi_ready && pt_mpi_req_done((uintptr_t)h, &r))
		pt_mpi_recv_posted(call, rc, r.comm, MPI_ANY_SOURCE, MPI_ANY_TAG,
				   pt_mpi_bytes(count, dt), req, posted, 0);
	else
		pt_mpi_end_call(call, rc);
}

/* A persistent send (MPI_Send_init...): a template for MPI_Start. */
void pt_mpi_send_init_end(unsigned call, int rc, int dest, int tag, MPI_Comm comm, int count,
			  MPI_Datatype dt, const MPI_Request *req)
{
	if (rc == MPI_SUCCESS && pt_mpi_ready && dest != MPI_PROC_NULL) {
		const pt_mpi_comm *c = pt_mpi_comm_get(comm);
		pt_mpi_req r = {.handle = (uintptr_t)*req,
				.kind = PT_MPI_REQ_SEND,
				.persistent = 1,
				.call = (uint8_t)call,
				.peer = pt_mpi_world_rank(c, dest),
				.tag = tag,
				.bytes = pt_mpi_bytes(count, dt),
				.comm = c};
		pt_mpi_req_add(&r);
	}
	pt_mpi_end_call(call, rc);
}

/* MPI_Start(all): each persistent send becomes a MPI_SEND, each receive a
 * MPI_IRECV, as if made by a non-blocking call now. */
void pt_mpi_started(unsigned call, int rc, const MPI_Request *h, size_t n, uint64_t now)
{
	if (rc != MPI_SUCCESS || !pt_mpi_ready) {
		pt_mpi_end_call(call, rc);
		return;
	}
	pt_lib_call = 0;
	uint64_t end = pt_now();
	for (size_t i = 0; i < n; i++) {
		pt_mpi_req r;
		if (!h[i] || !pt_mpi_req_start((uintptr_t)h[i], now, &r))
			continue;
		pt_rec_mpi_msg m = {r.peer, r.tag, r.bytes, r.comm ? r.comm->id : 0, r.handle, 0};
		pt_mpi_put(end, call,
		           r.kind == PT_MPI_REQ_SEND ? PT_REC_MPI_SEND : PT_REC_MPI_IRECV, &m,
		           sizeof m);
	}
	pt_mpi_finish(end, call, rc);
}

/* ---- one-sided, I/O -------------------------------------------------- */

/* A one-sided call's end: MPI_RMA when it succeeded. */
void pt_mpi_rma_end(unsigned call, int rc, int target, MPI_Win win, uint64_t bytes)
{
	if (rc != MPI_SUCCESS || !pt_mpi_ready) {
		pt_mpi_end_call(call, rc);
		return;
	}
	pt_rec_mpi_rma r = {pt_mpi_win_world_rank(win, target), 0, bytes, (uintptr_t)win};
	pt_mpi_end_one(call, rc, PT_REC_MPI_RMA, &r, sizeof r);
}

/* An I/O call's end: MPI_IO when it succeeded. */
void pt_mpi_io_end(unsigned call, int rc, MPI_File fh, int count, MPI_Datatype dt)
{
	if (rc != MPI_SUCCESS) {
		pt_mpi_end_call(call, rc);
		return;
	}
	pt_rec_mpi_io r = {pt_mpi_bytes(count, dt), (uintptr_t)fh};
	pt_mpi_end_one(call, rc, PT_REC_MPI_IO, &r, sizeof r);
}

/* A ROMIO file system prefix ("ufs:", "nfs:"...): letters then ':'. */
static int fs_prefixed(const char *name, size_t len)
{
	size_t i = 0;
	while (i < len && ((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z')))
		i++;
	return i > 0 && i < len && name[i] == ':';
}

void pt_mpi_file_open_end(unsigned call, int rc, MPI_File fh, const char *name, size_t len)
{
	if (rc == MPI_SUCCESS && name) {
		if (len == (size_t)-1)
			len = strlen(name);
		while (len && name[len - 1] == ' ') /* Fortran's padding */
			len--;
		/* absolute, as the I/O family names a file: a relative name is
		 * the working directory's at the open */
		char path[4096];
		size_t n = 0;
		if (len && name[0] != '/' && !fs_prefixed(name, len) && getcwd(path, sizeof path)) {
			n = strlen(path);
			if (n + 1 < sizeof path && (n == 0 || path[n - 1] != '/'))
				path[n++] = '/';
		}
		if (len > sizeof path - 1 - n)
			len = sizeof path - 1 - n;
		memcpy(path + n, name, len);
		n += len;
		path[n] = 0;
		pt_rec_mpi_file f = {(uintptr_t)fh};
		pt_process_emit(PT_REC_MPI_FILE, call, &f, sizeof f, path, n + 1);
	}
	pt_mpi_end_call(call, rc);
}

/* ---- completion: the Wait and Test families ---------------------------- */

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
	pt_lib_call = 0;
	uint64_t now = pt_now();
	for (size_t i = 0; i < n; i++) {
		if ((done && !done[i]) || !h[i] || h[i] == pt_mpi_request_null)
			continue;
		pt_mpi_req r;
		pt_rec_mpi_msg m;
		if (pt_mpi_req_done((uintptr_t)h[i], &r) && r.kind == PT_MPI_REQ_RECV) {
			if (st && pt_mpi_recv_msg(&r, &st[i], &m))
				pt_mpi_put(now, call, PT_REC_MPI_RECV, &m, sizeof m);
			continue;
		}
		/* a send's, a collective's, or one not described: the reader
		 * matches it to the MPI_SEND or MPI_COLL that has its handle */
		pt_rec_mpi_done d = {(uintptr_t)h[i]};
		pt_emit_compact(now, PT_COMPACT_FLAG | PT_REC_MPI_DONE_C, PT_MPI_DONE_C_SHIFT, &d,
		                sizeof d, PT_CTX_NEED, PT_REC_MPI_DONE, call, &d, sizeof d);
	}
	pt_mpi_finish(now, call, rc);
}

/* Waitall, Testall: every request (when the call says so). */
int pt_mpi_all_call(unsigned call, int count, MPI_Request reqs[], int *flag, MPI_Status *statuses,
		    int (*wait)(int, MPI_Request *, MPI_Status *),
		    int (*test)(int, MPI_Request *, int *, MPI_Status *))
{
	size_t n = count > 0 ? (size_t)count : 0;
	pt_mpi_scratch s = {0};
	MPI_Request few[FEW];
	MPI_Request *h = few;
	/* the handles are needed whatever the requests (each completed one
	 * is recorded), statuses only for receives */
	int need = 0, recv = pt_mpi_ready && pt_mpi_any_recv(reqs, n);
	if (pt_mpi_ready) {
		int ignored = recv && statuses == MPI_STATUSES_IGNORE;
		if ((n > FEW || ignored) && pt_mpi_scratch_get(n, &s) == 0) {
			need = 1;
			if (n > FEW)
				h = s.req;
			if (ignored)
				statuses = s.st;
		} else if (n <= FEW) {
			need = 1;
		}
	}
	if (need)
		memcpy(h, reqs, n * sizeof *h);
	int claim = need && recv;
	uint64_t on = pt_mpi_begin_call(call);
	if (on && claim)
		pt_mpi_req_claim(h, n);
	int rc = wait ? wait(count, reqs, statuses) : test(count, reqs, flag, statuses);
	if (!on)
		return rc;
	int complete = rc == MPI_SUCCESS && (!flag || *flag);
	if (!need || (!complete && rc != MPI_ERR_IN_STATUS)) {
		if (claim)
			pt_mpi_req_unclaim(h, n);
		pt_mpi_end_call(call, rc);
		return rc;
	}
	/* MPI_ERR_IN_STATUS: the requests whose status says success are done */
	MPI_Status *st = statuses != MPI_STATUSES_IGNORE ? statuses : NULL;
	char dfew[FEW], *done = n > FEW ? s.done : dfew;
	for (size_t i = 0; i < n; i++)
		done[i] = complete || (st && st[i].MPI_ERROR == MPI_SUCCESS);
	pt_mpi_complete(call, rc, h, done, st, n);
	if (claim)
		pt_mpi_req_unclaim(h, n);
	return rc;
}

/* Waitany, Testany: the one at *index. */
int pt_mpi_any_call(unsigned call, int count, MPI_Request reqs[], int *index, int *flag,
		    MPI_Status *status, int (*wait)(int, MPI_Request *, int *, MPI_Status *),
		    int (*test)(int, MPI_Request *, int *, int *, MPI_Status *))
{
	size_t n = count > 0 ? (size_t)count : 0;
	pt_mpi_scratch s = {0};
	MPI_Request few[FEW], *h = few;
	int recv = pt_mpi_ready && pt_mpi_any_recv(reqs, n), need = pt_mpi_ready;
	if (need && n > FEW) {
		if (pt_mpi_scratch_get(n, &s) == 0)
			h = s.req;
		else
			need = 0;
	}
	if (need)
		memcpy(h, reqs, n * sizeof *h);
	int claim = need && recv;
	MPI_Status mine, *st = claim && status == MPI_STATUS_IGNORE ? &mine : status;
	uint64_t on = pt_mpi_begin_call(call);
	if (on && claim)
		pt_mpi_req_claim(h, n);
	int rc = wait ? wait(count, reqs, index, st) : test(count, reqs, index, flag, st);
	if (!on)
		return rc;
	if (rc == MPI_SUCCESS && need && (!flag || *flag) && *index != MPI_UNDEFINED &&
	    *index >= 0 && (size_t)*index < n) {
		char done = 1;
		pt_mpi_complete(call, rc, &h[*index], &done, st != MPI_STATUS_IGNORE ? st : NULL, 1);
	} else {
		pt_mpi_end_call(call, rc);
	}
	if (claim)
		pt_mpi_req_unclaim(h, n);
	return rc;
}

/* Waitsome, Testsome: outcount of them, their statuses in index order. */
int pt_mpi_some_call(unsigned call, int incount, MPI_Request reqs[], int *outcount, int indices[],
		     MPI_Status statuses[],
		     int (*fn)(int, MPI_Request *, int *, int *, MPI_Status *))
{
	size_t n = incount > 0 ? (size_t)incount : 0;
	pt_mpi_scratch s = {0};
	int recv = pt_mpi_ready && pt_mpi_any_recv(reqs, n);
	int need = pt_mpi_ready && pt_mpi_scratch_get(n, &s) == 0, claim = need && recv;
	if (need) {
		memcpy(s.req, reqs, n * sizeof *s.req);
		if (claim && statuses == MPI_STATUSES_IGNORE)
			statuses = s.st;
	}
	uint64_t on = pt_mpi_begin_call(call);
	if (on && claim)
		pt_mpi_req_claim(s.req, n);
	int rc = fn(incount, reqs, outcount, indices, statuses);
	if (!on)
		return rc;
	if (rc != MPI_SUCCESS || !need || *outcount == MPI_UNDEFINED || *outcount <= 0) {
		if (claim)
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
	pt_mpi_complete(call, rc, h, NULL, statuses != MPI_STATUSES_IGNORE ? statuses : NULL, k);
	if (claim)
		pt_mpi_req_unclaim(s.req, n); /* the same handles, in another order */
	return rc;
}
