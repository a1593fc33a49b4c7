/* SPDX-License-Identifier: MIT */
/* An MPI message counter that owes nothing to paratrace: the "counted"
 * tests (check_mpi.py) preload it in front of libtrace.so and compare
 * what each rank did, as it saw it, with the trace. It wraps the calls by
 * name and passes each on to the next definition (dlsym RTLD_NEXT: the
 * tracer's wrapper, then the MPI library).
 *
 *   mpirun -np N env MPICOUNT_OUT=DIR LD_PRELOAD=mpicount.so:libtrace.so ./app
 *
 * At MPI_Finalize each rank writes DIR/rank-R.txt:
 *   send <dest> <msgs> <bytes>   sends (count * type size) to a world rank:
 *                                MPI_Send, MPI_Isend, MPI_Sendrecv, a
 *                                persistent send each time it is started
 *   recv <src> <msgs> <bytes>    receives completed (source and size from
 *                                the status): MPI_Recv, MPI_Sendrecv, an
 *                                MPI_Irecv or started persistent receive
 *                                completed by MPI_Wait, MPI_Waitall, MPI_Test
 *   call <name> <n>              calls of each wrapped function
 *   pending_irecv <n>            receives never seen completed
 * Only calls that returned MPI_SUCCESS move anything. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXR 1024
#define MAXQ 8192

static long s_msgs[MAXR], s_bytes[MAXR], r_msgs[MAXR], r_bytes[MAXR];

#define CALLS(X)                                                                                   \
	X(Send)                                                                                    \
	X(Isend) X(Irecv) X(Recv) X(Sendrecv) X(Wait) X(Waitall) X(Test) X(Send_init) X(Recv_init) \
	    X(Start) X(Startall) X(Request_free) X(Allreduce) X(Reduce) X(Bcast) X(Alltoall)       \
	        X(Barrier)
#define COUNTER_(n) static long n_##n;
CALLS(COUNTER_)

/* Receives posted and not yet seen completed; persistent requests and
 * what a start of each moves. */
static MPI_Request pend[MAXQ];
static int npend;
static struct persistent {
	MPI_Request r;
	int send, dest, count;
	MPI_Datatype type;
	MPI_Comm comm;
} pers[MAXQ];
static int npers;

#define NEXT(name)                                                                                 \
	static __typeof__(&name) real;                                                             \
	if (!real)                                                                                 \
	real = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

static int wrank(MPI_Comm c, int r)
{
	if (r < 0 || c == MPI_COMM_WORLD)
		return r;
	MPI_Group g, w;
	int out = r;
	PMPI_Comm_group(c, &g);
	PMPI_Comm_group(MPI_COMM_WORLD, &w);
	PMPI_Group_translate_ranks(g, 1, &r, w, &out);
	PMPI_Group_free(&g);
	PMPI_Group_free(&w);
	return out;
}

static void tally_send(int dest, MPI_Comm c, int count, MPI_Datatype t)
{
	int sz;
	PMPI_Type_size(t, &sz);
	dest = wrank(c, dest);
	if (dest >= 0 && dest < MAXR) {
		s_msgs[dest]++;
		s_bytes[dest] += (long)count * sz;
	}
}

static void tally_recv(const MPI_Status *st)
{
	int n = 0;
	PMPI_Get_count(st, MPI_BYTE, &n);
	int src = st->MPI_SOURCE; /* MPI_COMM_WORLD in the programs counted */
	if (src >= 0 && src < MAXR) {
		r_msgs[src]++;
		r_bytes[src] += n;
	}
}

static void post(MPI_Request r)
{
	if (npend < MAXQ)
		pend[npend++] = r;
}

static int take(MPI_Request r)
{
	for (int i = 0; i < npend; i++)
		if (pend[i] == r) {
			pend[i] = pend[--npend];
			return 1;
		}
	return 0;
}

static struct persistent *find_pers(MPI_Request r)
{
	for (int i = 0; i < npers; i++)
		if (pers[i].r == r)
			return &pers[i];
	return NULL;
}

int MPI_Send(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm)
{
	NEXT(MPI_Send);
	n_Send++;
	int rc = real(b, c, t, d, tag, comm);
	if (rc == MPI_SUCCESS)
		tally_send(d, comm, c, t);
	return rc;
}

int MPI_Isend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm, MPI_Request *r)
{
	NEXT(MPI_Isend);
	n_Isend++;
	int rc = real(b, c, t, d, tag, comm, r);
	if (rc == MPI_SUCCESS)
		tally_send(d, comm, c, t);
	return rc;
}

int MPI_Irecv(void *b, int c, MPI_Datatype t, int s, int tag, MPI_Comm comm, MPI_Request *r)
{
	NEXT(MPI_Irecv);
	n_Irecv++;
	int rc = real(b, c, t, s, tag, comm, r);
	if (rc == MPI_SUCCESS)
		post(*r);
	return rc;
}

int MPI_Recv(void *b, int c, MPI_Datatype t, int s, int tag, MPI_Comm comm, MPI_Status *st)
{
	NEXT(MPI_Recv);
	n_Recv++;
	MPI_Status own;
	if (st == MPI_STATUS_IGNORE)
		st = &own;
	int rc = real(b, c, t, s, tag, comm, st);
	if (rc == MPI_SUCCESS)
		tally_recv(st);
	return rc;
}

int MPI_Sendrecv(const void *sb, int sc, MPI_Datatype stype, int d, int stag, void *rb, int rcount,
                 MPI_Datatype rt, int s, int rtag, MPI_Comm comm, MPI_Status *st)
{
	NEXT(MPI_Sendrecv);
	n_Sendrecv++;
	MPI_Status own;
	if (st == MPI_STATUS_IGNORE)
		st = &own;
	int rc = real(sb, sc, stype, d, stag, rb, rcount, rt, s, rtag, comm, st);
	if (rc == MPI_SUCCESS) {
		tally_send(d, comm, sc, stype);
		tally_recv(st);
	}
	return rc;
}

int MPI_Send_init(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm,
                  MPI_Request *r)
{
	NEXT(MPI_Send_init);
	n_Send_init++;
	int rc = real(b, c, t, d, tag, comm, r);
	if (rc == MPI_SUCCESS && npers < MAXQ)
		pers[npers++] = (struct persistent){*r, 1, d, c, t, comm};
	return rc;
}

int MPI_Recv_init(void *b, int c, MPI_Datatype t, int s, int tag, MPI_Comm comm, MPI_Request *r)
{
	NEXT(MPI_Recv_init);
	n_Recv_init++;
	int rc = real(b, c, t, s, tag, comm, r);
	if (rc == MPI_SUCCESS && npers < MAXQ)
		pers[npers++] = (struct persistent){*r, 0, s, c, t, comm};
	return rc;
}

static void started(MPI_Request r)
{
	struct persistent *p = find_pers(r);
	if (p && p->send)
		tally_send(p->dest, p->comm, p->count, p->type);
	else if (p)
		post(r);
}

int MPI_Start(MPI_Request *r)
{
	NEXT(MPI_Start);
	n_Start++;
	MPI_Request h = *r;
	int rc = real(r);
	if (rc == MPI_SUCCESS)
		started(h);
	return rc;
}

int MPI_Startall(int n, MPI_Request rs[])
{
	NEXT(MPI_Startall);
	n_Startall++;
	int rc = real(n, rs);
	for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
		started(rs[i]);
	return rc;
}

int MPI_Request_free(MPI_Request *r)
{
	NEXT(MPI_Request_free);
	n_Request_free++;
	struct persistent *p = find_pers(*r);
	if (p)
		*p = pers[--npers];
	take(*r);
	return real(r);
}

int MPI_Wait(MPI_Request *r, MPI_Status *st)
{
	NEXT(MPI_Wait);
	n_Wait++;
	MPI_Request before = *r;
	MPI_Status own;
	if (st == MPI_STATUS_IGNORE)
		st = &own;
	int rc = real(r, st);
	if (rc == MPI_SUCCESS && take(before))
		tally_recv(st);
	return rc;
}

int MPI_Test(MPI_Request *r, int *flag, MPI_Status *st)
{
	NEXT(MPI_Test);
	n_Test++;
	MPI_Request before = *r;
	MPI_Status own;
	if (st == MPI_STATUS_IGNORE)
		st = &own;
	int rc = real(r, flag, st);
	if (rc == MPI_SUCCESS && *flag && take(before))
		tally_recv(st);
	return rc;
}

int MPI_Waitall(int n, MPI_Request rs[], MPI_Status sts[])
{
	NEXT(MPI_Waitall);
	n_Waitall++;
	MPI_Request before[n > 0 ? n : 1];
	MPI_Status own[n > 0 ? n : 1];
	memcpy(before, rs, sizeof(MPI_Request) * (size_t)(n > 0 ? n : 0));
	if (sts == MPI_STATUSES_IGNORE)
		sts = own;
	int rc = real(n, rs, sts);
	for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
		if (take(before[i]))
			tally_recv(&sts[i]);
	return rc;
}

int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm)
{
	NEXT(MPI_Allreduce);
	n_Allreduce++;
	return real(s, r, c, t, o, comm);
}

int MPI_Reduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, int root, MPI_Comm comm)
{
	NEXT(MPI_Reduce);
	n_Reduce++;
	return real(s, r, c, t, o, root, comm);
}

int MPI_Bcast(void *b, int c, MPI_Datatype t, int root, MPI_Comm comm)
{
	NEXT(MPI_Bcast);
	n_Bcast++;
	return real(b, c, t, root, comm);
}

int MPI_Alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                 MPI_Comm comm)
{
	NEXT(MPI_Alltoall);
	n_Alltoall++;
	return real(s, sc, st, r, rc, rt, comm);
}

int MPI_Barrier(MPI_Comm comm)
{
	NEXT(MPI_Barrier);
	n_Barrier++;
	return real(comm);
}

int MPI_Finalize(void)
{
	NEXT(MPI_Finalize);
	int rank;
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	const char *dir = getenv("MPICOUNT_OUT");
	char path[4096];
	snprintf(path, sizeof path, "%s/rank-%d.txt", dir ? dir : ".", rank);
	FILE *f = fopen(path, "w");
	if (f) {
		for (int i = 0; i < MAXR; i++)
			if (s_msgs[i])
				fprintf(f, "send %d %ld %ld\n", i, s_msgs[i], s_bytes[i]);
		for (int i = 0; i < MAXR; i++)
			if (r_msgs[i])
				fprintf(f, "recv %d %ld %ld\n", i, r_msgs[i], r_bytes[i]);
#define PRINT_(n) fprintf(f, "call MPI_" #n " %ld\n", n_##n);
		CALLS(PRINT_)
		fprintf(f, "pending_irecv %d\n", npend);
		fclose(f);
	}
	return real();
}
