/* SPDX-License-Identifier: MIT */
/* What a collective moved, for the C and Fortran wrappers alike: the
 * bytes of each rule of the table of calls (COLL(rule), ICOLL(rule) in
 * include/paratrace/mpi_calls.h) from the arguments the wrapper passes.
 *
 * sent: the bytes the call reads from this process's send buffer;
 * recvd: the bytes it writes into its receive buffer (docs/MPI.md).
 * Arguments MPI says are not significant (a non-root's receive counts,
 * MPI_IN_PLACE's send type) are never looked at: they may be anything. */
#define _GNU_SOURCE
#include "mpi_internal.h"

/* A collective's record: root in comm's ranks (-1 none), bytes. */
static void coll_record(pt_rec_mpi_coll *r, MPI_Comm comm, int root, uint64_t sent,
			uint64_t recvd, uintptr_t request)
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
static uint32_t coll_size(MPI_Comm comm)
{
	const pt_mpi_comm *c = pt_mpi_ready ? pt_mpi_comm_get(comm) : NULL;
	return c ? c->size : 0;
}

static int is_root(MPI_Comm comm, int root)
{
	const pt_mpi_comm *c = pt_mpi_ready ? pt_mpi_comm_get(comm) : NULL;
	if (!c)
		return 0;
	return c->inter ? root == MPI_ROOT : root == c->rank;
}

static uint64_t sum_counts(const int *counts, uint32_t n, MPI_Datatype dt)
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

/* Reduce_scatter: this process's share of the reduction lands in its
 * receive buffer. */
static uint64_t my_count(MPI_Comm comm, const int *counts, MPI_Datatype dt)
{
	const pt_mpi_comm *c = pt_mpi_comm_get(comm);
	if (!c || c->inter || c->rank < 0 || !counts)
		return 0;
	return pt_mpi_bytes(counts[c->rank], dt);
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
	return sum_counts(counts, (uint32_t)(out ? o : in), dt);
}
static uint64_t nb_sum_w(MPI_Comm comm, const int *counts, const MPI_Datatype *types, int out)
{
	int in, o;
	degrees(comm, &in, &o);
	return sum_counts_w(counts, types, (uint32_t)(out ? o : in));
}

/* Count arrays of the whole group: one count per member of comm's group
 * (its remote group for an intercommunicator). */
static uint64_t all_bytes(MPI_Comm comm, int count, MPI_Datatype dt)
{
	return pt_mpi_bytes((int64_t)count * coll_size(comm), dt);
}
static uint64_t all_sum(MPI_Comm comm, const int *counts, MPI_Datatype dt)
{
	return sum_counts(counts, coll_size(comm), dt);
}
static uint64_t all_sum_w(MPI_Comm comm, const int *counts, const MPI_Datatype *types)
{
	return sum_counts_w(counts, types, coll_size(comm));
}

/* What a collective moves: sent, the bytes the call reads from this
 * process's send buffer; recvd, the bytes it writes into its receive
 * buffer (docs/MPI.md). Across an intercommunicator the root group's
 * processes (MPI_ROOT, MPI_PROC_NULL) give nothing to a gather or reduce
 * and get nothing from a scatter; MPI_IN_PLACE at a gather's or scatter's
 * root leaves its own part unmoved, and in an all-to-all the receive
 * buffer is read as well as written. */
static void coll_bytes(enum pt_mpi_coll_rule rule, const pt_mpi_coll_args *a, uint64_t *sent,
		       uint64_t *recvd)
{
	MPI_Comm comm = a->comm;
	int root = a->root, rootless = root == MPI_ROOT || root == MPI_PROC_NULL;
	switch (rule) {
	case PT_MPI_RULE_BARRIER:
		break;
	case PT_MPI_RULE_BCAST:
		if (is_root(comm, root))
			*sent = pt_mpi_bytes(a->count, a->datatype);
		else if (root != MPI_PROC_NULL)
			*recvd = pt_mpi_bytes(a->count, a->datatype);
		break;
	case PT_MPI_RULE_REDUCE:
		if (!rootless)
			*sent = pt_mpi_bytes(a->count, a->datatype);
		if (is_root(comm, root))
			*recvd = pt_mpi_bytes(a->count, a->datatype);
		break;
	case PT_MPI_RULE_ALLREDUCE:
		*sent = *recvd = pt_mpi_bytes(a->count, a->datatype);
		break;
	case PT_MPI_RULE_GATHER:
		if (!rootless && !a->sendbuf_in_place)
			*sent = pt_mpi_bytes(a->sendcount, a->sendtype);
		if (is_root(comm, root))
			*recvd = all_bytes(comm, a->recvcount, a->recvtype);
		break;
	case PT_MPI_RULE_GATHERV:
		if (!rootless && !a->sendbuf_in_place)
			*sent = pt_mpi_bytes(a->sendcount, a->sendtype);
		if (is_root(comm, root))
			*recvd = all_sum(comm, a->recvcounts, a->recvtype);
		break;
	case PT_MPI_RULE_SCATTER:
		if (is_root(comm, root))
			*sent = all_bytes(comm, a->sendcount, a->sendtype);
		if (!rootless && !a->recvbuf_in_place)
			*recvd = pt_mpi_bytes(a->recvcount, a->recvtype);
		break;
	case PT_MPI_RULE_SCATTERV:
		if (is_root(comm, root))
			*sent = all_sum(comm, a->sendcounts, a->sendtype);
		if (!rootless && !a->recvbuf_in_place)
			*recvd = pt_mpi_bytes(a->recvcount, a->recvtype);
		break;
	case PT_MPI_RULE_ALLGATHER:
		if (!a->sendbuf_in_place)
			*sent = pt_mpi_bytes(a->sendcount, a->sendtype);
		*recvd = all_bytes(comm, a->recvcount, a->recvtype);
		break;
	case PT_MPI_RULE_ALLGATHERV:
		if (!a->sendbuf_in_place)
			*sent = pt_mpi_bytes(a->sendcount, a->sendtype);
		*recvd = all_sum(comm, a->recvcounts, a->recvtype);
		break;
	case PT_MPI_RULE_ALLTOALL:
		*recvd = all_bytes(comm, a->recvcount, a->recvtype);
		*sent = a->sendbuf_in_place ? *recvd : all_bytes(comm, a->sendcount, a->sendtype);
		break;
	case PT_MPI_RULE_ALLTOALLV:
		*recvd = all_sum(comm, a->recvcounts, a->recvtype);
		*sent = a->sendbuf_in_place ? *recvd : all_sum(comm, a->sendcounts, a->sendtype);
		break;
	case PT_MPI_RULE_ALLTOALLW:
		*recvd = all_sum_w(comm, a->recvcounts, a->recvtypes);
		*sent = a->sendbuf_in_place ? *recvd : all_sum_w(comm, a->sendcounts, a->sendtypes);
		break;
	case PT_MPI_RULE_REDUCE_SCATTER:
		*sent = all_sum(comm, a->recvcounts, a->datatype);
		*recvd = my_count(comm, a->recvcounts, a->datatype);
		break;
	case PT_MPI_RULE_REDUCE_SCATTER_BLOCK:
		*sent = all_bytes(comm, a->recvcount, a->datatype);
		*recvd = pt_mpi_bytes(a->recvcount, a->datatype);
		break;
	case PT_MPI_RULE_NEIGHBOR_ALLGATHER:
		*sent = pt_mpi_bytes(a->sendcount, a->sendtype);
		*recvd = nb_bytes(comm, a->recvcount, a->recvtype, 0);
		break;
	case PT_MPI_RULE_NEIGHBOR_ALLGATHERV:
		*sent = pt_mpi_bytes(a->sendcount, a->sendtype);
		*recvd = nb_sum(comm, a->recvcounts, a->recvtype, 0);
		break;
	case PT_MPI_RULE_NEIGHBOR_ALLTOALL:
		*sent = nb_bytes(comm, a->sendcount, a->sendtype, 1);
		*recvd = nb_bytes(comm, a->recvcount, a->recvtype, 0);
		break;
	case PT_MPI_RULE_NEIGHBOR_ALLTOALLV:
		*sent = nb_sum(comm, a->sendcounts, a->sendtype, 1);
		*recvd = nb_sum(comm, a->recvcounts, a->recvtype, 0);
		break;
	case PT_MPI_RULE_NEIGHBOR_ALLTOALLW:
		*sent = nb_sum_w(comm, a->sendcounts, a->sendtypes, 1);
		*recvd = nb_sum_w(comm, a->recvcounts, a->recvtypes, 0);
		break;
	}
}

void pt_mpi_coll_end(unsigned call, int rc, enum pt_mpi_coll_rule rule, const pt_mpi_coll_args *a,
		     const MPI_Request *req)
{
	if (rc != MPI_SUCCESS || !pt_mpi_ready) {
		pt_mpi_end_call(call, rc);
		return;
	}
	uint64_t sent = 0, recvd = 0;
	coll_bytes(rule, a, &sent, &recvd);
	pt_rec_mpi_coll r;
	coll_record(&r, a->comm, a->root, sent, recvd, req ? (uintptr_t)*req : 0);
	pt_mpi_end_one(call, rc, PT_REC_MPI_COLL, &r, sizeof r);
}
