/* SPDX-License-Identifier: MIT */
/* What every file of the MPI part uses: the state MPI_Init sets up (the
 * handles, this rank, the job's numbering), whether MPI calls are traced,
 * the real MPI functions, and the records every wrapper writes. Apart from
 * mpi_part.c, which sets the other files up and so calls into them, so
 * that they depend on this file and never on that one. */
#define _GNU_SOURCE
#include "mpi_internal.h"

#include <errno.h>
#include <string.h>

int pt_mpi_mode;
int pt_mpi_ready;

MPI_Comm pt_mpi_comm_world, pt_mpi_comm_self, pt_mpi_comm_null;
MPI_Datatype pt_mpi_byte;
MPI_Request pt_mpi_request_null;
int pt_mpi_rank = -1, pt_mpi_size;

uint32_t pt_mpi_world, pt_mpi_family;
int32_t pt_mpi_base;

/* ---- modes and real functions ------------------------------------------ */

int pt_mpi_missing(const char *name)
{
	static int warned;
	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		pt_warn("%s was called but no MPI library defines P%s; returning an error", name,
			name);
	return MPI_ERR_INTERN;
}

#ifdef PT_MPI_ABI_OMPI
int pt_mpi_abi_match(void)
{
	return pt_mpi_sym("ompi_mpi_comm_world") != NULL;
}
#else
/* The MPICH ABI (MPICH, and the libraries built on it that keep its ABI:
 * Intel MPI, Cray MPICH, MVAPICH): what the library says it is, which
 * MPI_Get_library_version may say before MPI_Init. No Open MPI object is
 * loaded: a library that has both is Open MPI's (asked first). */
int pt_mpi_abi_match(void)
{
	if (pt_mpi_sym("ompi_mpi_comm_world"))
		return 0;
	char v[512];
	pt_mpi_library_version(v, sizeof v);
	return strstr(v, "MPICH") || strstr(v, "MVAPICH") || strstr(v, "Intel(R) MPI");
}
#endif

int pt_mpi_decide(void)
{
	int m = __atomic_load_n(&pt_mpi_mode, __ATOMIC_ACQUIRE);
	if (m != PT_MPI_UNDECIDED)
		return m;
	/* MPI may be called before libtrace.so's constructor: from another
	 * library's (Open MPI's C++ bindings call MPI_Initialized from
	 * theirs), or the program's. The runtime starts now; while it is
	 * starting elsewhere the call passes untraced and nothing is decided. */
	int on = pt_tracing_start();
	if (on < 0)
		return PT_MPI_PASS;
	const pt_config *cfg = pt_config_get();
	m = PT_MPI_PASS;
	if (!on || (cfg && !cfg->mpi)) {
		m = PT_MPI_PASS;
	} else if (pt_mpi_abi_match()) {
		m = PT_MPI_TRACE;
	} else {
		if (!__atomic_exchange_n(&pt_mpi_other_mpi, 1, __ATOMIC_RELAXED))
			pt_warn("this program's MPI library has an ABI this libtrace.so was not built "
				"for (%s): its MPI calls are passed on untraced (docs/MPI.md)",
				PT_MPI_ABIS_BUILT);
	}
	int expect = PT_MPI_UNDECIDED;
	if (!__atomic_compare_exchange_n(&pt_mpi_mode, &expect, m, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		m = expect;
	return m;
}

/* ---- records -------------------------------------------------------------- */

__thread uint64_t pt_mpi_t0 __attribute__((tls_model("initial-exec")));

uint64_t pt_mpi_begin_call(unsigned call)
{
	uint64_t at = pt_now();
	uint32_t w = PT_COMPACT_FLAG | PT_REC_MPI_CALL_C | call << 8;
	if (!pt_likely(pt_emit_word(at, w, PT_MPI_CALL_C_SHIFT, PT_CTX_OPEN)))
		at = pt_emit_compact(at, w, PT_MPI_CALL_C_SHIFT, NULL, 0, PT_CTX_OPEN,
		                     PT_REC_MPI_CALL, call, NULL, 0);
	if (!at)
		return 0;
	if (pt_unlikely(!__atomic_load_n(&pt_mpi_seen_call, __ATOMIC_RELAXED)))
		__atomic_store_n(&pt_mpi_seen_call, 1, __ATOMIC_RELAXED);
	pt_mpi_t0 = at;
	pt_lib_call = 1;
	return at;
}

/* The word of a compact message or collective record, with its
 * communicator (0: the record has no compact form). */
static uint32_t compact_word(unsigned ckind, uint64_t comm)
{
	if (comm == PT_MPI_COMM_WORLD_ID)
		return PT_COMPACT_FLAG | ckind;
	if (comm == PT_MPI_COMM_SELF_ID)
		return PT_COMPACT_FLAG | ckind | PT_MPI_C_SELF;
	return 0;
}

/* The compact form of a message record (MPI_SEND, MPI_RECV, MPI_IRECV):
 * its word (0: none) and fields in *c, their bytes in *len. */
static uint32_t compact_msg(unsigned kind, const pt_rec_mpi_msg *m, pt_mpi_c_msg *c, size_t *len)
{
	unsigned ckind = kind == PT_REC_MPI_SEND   ? PT_REC_MPI_SEND_C
	                 : kind == PT_REC_MPI_RECV ? PT_REC_MPI_RECV_C
	                                           : PT_REC_MPI_IRECV_C;
	uint32_t w = compact_word(ckind, m->comm);
	if (!w || m->bytes > UINT32_MAX)
		return 0;
	*c = (pt_mpi_c_msg){
	    m->peer, m->tag, (uint32_t)m->bytes, (uint32_t)m->request, (uint32_t)(m->request >> 32),
	    0};
	*len = 12;
	if (kind == PT_REC_MPI_RECV) {
		/* posted: the call's own begin (a blocking receive), or a
		 * request's, before it */
		uint64_t t0 = pt_mpi_t0;
		if (!m->request && m->posted == t0)
			return w;
		if (!m->request || !m->posted || m->posted > t0 || t0 - m->posted > UINT32_MAX)
			return 0;
		c->posted_back = (uint32_t)(t0 - m->posted);
		*len = 24;
		return w | PT_MPI_C_REQUEST;
	}
	if (m->posted)
		return 0;
	if (m->request) {
		*len = 20;
		w |= PT_MPI_C_REQUEST;
	}
	return w;
}

/* The compact form of a record of what a call moved: its word (0: none)
 * and fields in *c, their bytes in *clen. */
typedef union {
	pt_mpi_c_msg msg;
	pt_mpi_c_coll coll;
} pt_mpi_compact;

static uint32_t compact_of(unsigned kind, const void *p, pt_mpi_compact *c, size_t *clen)
{
	*clen = 0;
	if (kind == PT_REC_MPI_SEND || kind == PT_REC_MPI_RECV || kind == PT_REC_MPI_IRECV)
		return compact_msg(kind, p, &c->msg, clen);
	if (kind != PT_REC_MPI_COLL)
		return 0;
	const pt_rec_mpi_coll *r = p;
	uint32_t w = compact_word(PT_REC_MPI_COLL_C, r->comm);
	if (r->sent > UINT32_MAX || r->recvd > UINT32_MAX)
		w = 0;
	c->coll = (pt_mpi_c_coll){r->root,
	                          r->size,
	                          (uint32_t)r->sent,
	                          (uint32_t)r->recvd,
	                          (uint32_t)r->request,
	                          (uint32_t)(r->request >> 32)};
	*clen = 16;
	if (w && r->request) {
		w |= PT_MPI_C_REQUEST;
		*clen = 24;
	}
	return w;
}

/* The last message of each kind (MPI_SEND, MPI_RECV, MPI_IRECV) and the
 * last MPI_COLL this thread's log surely holds, which a repeated record
 * stands for (format/mpi.h, "Repeated MPI records"): set when a record
 * is stored by the writer's fast path, forgotten when one of its kind
 * goes through the runtime's region, where it may be lost. The fields a
 * repeated record carries itself (request, posted) are not kept. */
typedef struct {
	int32_t peer, tag;
	uint64_t bytes, comm;
} last_msg;
typedef struct {
	uint64_t comm;
	int32_t root;
	uint32_t size;
	uint64_t sent, recvd;
} last_coll;
static __thread struct {
	unsigned have; /* bit i: msg[i] (3: coll) */
	last_msg msg[3];
	last_coll coll;
} last __attribute__((tls_model("initial-exec")));

/* The repeated form of a record equal to the last of its kind (0: none)
 * and the fields that follow its word in f, their bytes in *flen. */
static uint32_t repeat_of(unsigned kind, const void *p, uint32_t f[3], size_t *flen)
{
	int i = pt_mpi_repeat_slot(kind);
	if (i < 0 || !(last.have & 1u << i))
		return 0;
	uint64_t request;
	uint32_t w = PT_COMPACT_FLAG;
	*flen = 0;
	if (i == 3) {
		const pt_rec_mpi_coll *r = p;
		const last_coll *l = &last.coll;
		if (r->comm != l->comm || r->root != l->root || r->size != l->size ||
		    r->sent != l->sent || r->recvd != l->recvd)
			return 0;
		request = r->request;
		w |= PT_REC_MPI_COLL_R;
	} else {
		const pt_rec_mpi_msg *m = p;
		const last_msg *l = &last.msg[i];
		if (m->peer != l->peer || m->tag != l->tag || m->bytes != l->bytes ||
		    m->comm != l->comm)
			return 0;
		request = m->request;
		w |= PT_REC_MPI_SEND_R + (unsigned)i;
		if (i == 1) {
			/* posted: the call's own begin (a blocking receive), or a
			 * request's, before it */
			uint64_t t0 = pt_mpi_t0;
			if (!request)
				return m->posted == t0 ? w : 0;
			if (!m->posted || m->posted > t0 || t0 - m->posted > UINT32_MAX)
				return 0;
			f[2] = (uint32_t)(t0 - m->posted);
			*flen = 4;
		} else if (m->posted) {
			return 0;
		}
	}
	if (request) {
		f[0] = (uint32_t)request;
		f[1] = (uint32_t)(request >> 32);
		*flen += 8;
		w |= PT_MPI_R_REQUEST;
	}
	return w;
}

/* What the fast path stored (stored: 1) or the runtime's region was given
 * (0): the record the next of its kind may repeat, or none. */
static void remember(unsigned kind, const void *p, int stored)
{
	int i = pt_mpi_repeat_slot(kind);
	if (i < 0)
		return;
	if (!stored) {
		last.have &= ~(1u << i);
		return;
	}
	if (i == 3) {
		const pt_rec_mpi_coll *r = p;
		last.coll = (last_coll){r->comm, r->root, r->size, r->sent, r->recvd};
	} else {
		const pt_rec_mpi_msg *m = p;
		last.msg[i] = (last_msg){m->peer, m->tag, m->bytes, m->comm};
	}
	last.have |= 1u << i;
}

/* The record of what a call moved (and the call's end, cword2 not 0) by
 * the writer's fast path: its repeated form, else its compact form. 1
 * when written; else nothing was, and the last record is forgotten. */
static int put_fast(uint64_t now, unsigned kind, const void *p, uint32_t cword2)
{
	uint32_t f[3] = {0};
	size_t flen = 0;
	uint32_t w = repeat_of(kind, p, f, &flen);
	if (w) {
		/* a blocking call's: one word, and the end's after it */
		if (flen
		        ? pt_emit_compact_then(now, w, PT_MPI_R_SHIFT, f, flen, cword2, PT_CTX_NEED)
		    : cword2 ? pt_emit_words(now, w, PT_MPI_R_SHIFT, cword2, PT_CTX_NEED)
		             : pt_emit_word(now, w, PT_MPI_R_SHIFT, PT_CTX_NEED))
			return 1;
	}
	pt_mpi_compact c;
	size_t clen;
	w = compact_of(kind, p, &c, &clen);
	int stored =
	    w && pt_emit_compact_then(now, w, PT_MPI_C_SHIFT, &c, clen, cword2, PT_CTX_NEED);
	remember(kind, p, stored);
	return stored;
}

void pt_mpi_put(uint64_t now, unsigned call, unsigned kind, const void *p, size_t len)
{
	if (pt_likely(put_fast(now, kind, p, 0)))
		return;
	pt_emit_compact(now, 0, 0, NULL, 0, PT_CTX_NEED, kind, call, p, len);
}

void pt_mpi_put_finish(uint64_t now, unsigned call, unsigned kind, const void *p, size_t len,
                       int rc)
{
	/* the common case: the record and the end in one pass */
	if (pt_likely(rc == MPI_SUCCESS) &&
	    pt_likely(put_fast(now, kind, p, PT_COMPACT_FLAG | PT_REC_MPI_CALL_END_C)))
		return;
	pt_mpi_put(now, call, kind, p, len);
	pt_mpi_finish(now, call, rc);
}

void pt_mpi_finish(uint64_t now, unsigned call, int rc)
{
	if (pt_likely(rc == MPI_SUCCESS)) {
		uint32_t w = PT_COMPACT_FLAG | PT_REC_MPI_CALL_END_C;
		if (!pt_likely(pt_emit_word(now, w, PT_MPI_END_C_SHIFT, PT_CTX_NEED)))
			pt_emit_compact(now, w, PT_MPI_END_C_SHIFT, NULL, 0, PT_CTX_NEED,
			                PT_REC_MPI_CALL_END, call, NULL, 0);
		return;
	}
	int saved = errno;
	pt_thread *t = pt_enter();
	if (t) {
		/* the library's word on it: both calls only read tables */
		static __typeof__(&PMPI_Error_class) error_class;
		static __typeof__(&PMPI_Error_string) error_string;
		if (!error_class)
			error_class = (__typeof__(error_class))pt_mpi_sym("PMPI_Error_class");
		if (!error_string)
			error_string = (__typeof__(error_string))pt_mpi_sym("PMPI_Error_string");
		pt_rec_mpi_error e = {rc, -1};
		char msg[MPI_MAX_ERROR_STRING];
		int len = 0;
		if (!error_class || error_class(rc, &e.error_class) != MPI_SUCCESS)
			e.error_class = -1;
		if (!error_string || error_string(rc, msg, &len) != MPI_SUCCESS || len < 0 ||
		    len >= (int)sizeof msg)
			len = 0;
		msg[len] = 0;
		pt_emit2(t, PT_REC_MPI_ERROR, call, &e, sizeof e, msg, (size_t)len + 1);
		pt_emit_at(t, now, PT_REC_MPI_CALL_END, call, NULL, 0);
		pt_leave(t);
	}
	errno = saved;
}

void pt_mpi_end(unsigned call, int rc, unsigned kind, const void *p, size_t len, size_t n)
{
	pt_lib_call = 0;
	uint64_t now = pt_now();
	if (!n) {
		pt_mpi_finish(now, call, rc);
		return;
	}
	for (size_t i = 0; i + 1 < n; i++)
		pt_mpi_put(now, call, kind, (const char *)p + i * len, len);
	pt_mpi_put_finish(now, call, kind, (const char *)p + (n - 1) * len, len, rc);
}

/* The datatypes asked about on this thread, a few of them, each in the
 * slot its handle hashes to: most programs use a handful (a loop sending
 * bytes and reducing doubles uses two), and PMPI_Type_size_x costs a call.
 * Types are freed and their handles reused: MPI_Type_free bumps
 * pt_mpi_type_gen, which empties every thread's cache. */
unsigned pt_mpi_type_gen;
#define TYPE_SLOTS 8
static __thread struct {
	MPI_Datatype type;
	unsigned gen;
	uint64_t size;
} type_cache[TYPE_SLOTS] __attribute__((tls_model("initial-exec")));

uint64_t pt_mpi_bytes(int64_t count, MPI_Datatype type)
{
	if (count <= 0 || !pt_mpi_ready)
		return 0;
	uint64_t size;
	if (pt_mpi_builtin_size(type, &size))
		return (uint64_t)count * size;
	unsigned gen = __atomic_load_n(&pt_mpi_type_gen, __ATOMIC_RELAXED);
	unsigned i = (unsigned)(((uintptr_t)type * 0x9e3779b97f4a7c15ull) >> 61) % TYPE_SLOTS;
	if (type_cache[i].type != type || type_cache[i].gen != gen) {
		static __typeof__(&PMPI_Type_size_x) size_x;
		if (!size_x)
			size_x = (__typeof__(&PMPI_Type_size_x))pt_mpi_sym("PMPI_Type_size_x");
		MPI_Count sz = 0;
		if (!size_x || size_x(type, &sz) != MPI_SUCCESS || sz < 0)
			sz = 0;
		type_cache[i].type = type;
		type_cache[i].gen = gen;
		type_cache[i].size = (uint64_t)sz;
	}
	return (uint64_t)count * type_cache[i].size;
}
