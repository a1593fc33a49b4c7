/* SPDX-License-Identifier: MIT */
/* Requests of non-blocking and persistent calls, from the call that made
 * them to the Wait/Test that completes them, possibly on another thread:
 * what a completed receive was (its communicator, to turn the status's
 * source into a world rank; when it was posted), and what MPI_Start
 * starts. A hash table of the handles under the runtime's lock; entries
 * are recycled through a free list, their memory mapped by the runtime.
 * One handle can have several entries for a moment: one claimed by a
 * Wait or Test whose request MPI has just freed, and the new request MPI
 * gave the handle to (pt_mpi_req_claim). */
#define _GNU_SOURCE
#include "mpi_internal.h"

#include <string.h>

#define NBUCKETS 4096u

static pt_spin lock;
static pt_mpi_req *buckets[NBUCKETS];
static pt_mpi_req *free_list;

/* Only under MPI_THREAD_MULTIPLE may threads call MPI at once: the table
 * is under its lock then, and Waits and Tests claim their entries. At any
 * lower level the program makes its MPI calls one at a time (and orders
 * them: MPI requires it), so the thread in a call has the table to itself
 * and needs neither. */
int pt_mpi_req_shared = 1;

static inline void table_lock(void)
{
	if (pt_mpi_req_shared)
		pt_spin_lock(&lock);
}

static inline void table_unlock(void)
{
	if (pt_mpi_req_shared)
		pt_spin_unlock(&lock);
}

static unsigned bucket(uintptr_t h)
{
	return (unsigned)(((h >> 3) * 0x9e3779b97f4a7c15ull) >> 52) & (NBUCKETS - 1);
}

/* A free entry (under lock); NULL without memory. */
static pt_mpi_req *alloc_locked(void)
{
	if (!free_list) {
		size_t n = 4096;
		pt_mpi_req *v = pt_pages_alloc(n * sizeof *v);
		if (!v)
			return NULL;
		for (size_t i = 0; i < n; i++) {
			v[i].next = free_list;
			free_list = &v[i];
		}
	}
	pt_mpi_req *r = free_list;
	free_list = r->next;
	return r;
}

/* This thread's token for the entries it claims. */
static __thread char me_token __attribute__((tls_model("initial-exec")));
#define ME ((const void *)&me_token)

/* The entry of h that owner claimed; with owner not NULL, failing that, an
 * unclaimed one. Where the chain ends (*p NULL) if there is none. */
static pt_mpi_req **find_locked(uintptr_t h, const void *owner)
{
	pt_mpi_req **p, **unclaimed = NULL;
	for (p = &buckets[bucket(h)]; *p; p = &(*p)->next)
		if ((*p)->handle == h) {
			if ((*p)->owner == owner)
				return p;
			if (!(*p)->owner && !unclaimed)
				unclaimed = p;
		}
	return unclaimed ? unclaimed : p;
}

void pt_mpi_req_add(const pt_mpi_req *r)
{
	table_lock();
	/* an unclaimed entry of the handle is a request that completed unseen */
	pt_mpi_req **p = find_locked(r->handle, NULL);
	pt_mpi_req *e = *p;
	if (!e) {
		e = alloc_locked();
		if (!e) {
			table_unlock();
			return;
		}
		e->next = NULL;
		*p = e;
	}
	pt_mpi_req *next = e->next;
	*e = *r;
	e->owner = NULL;
	e->next = next;
	table_unlock();
}

void pt_mpi_req_claim(const MPI_Request *h, size_t n)
{
	if (!pt_mpi_req_shared)
		return;
	table_lock();
	for (size_t i = 0; i < n; i++) {
		pt_mpi_req *e = *find_locked((uintptr_t)h[i], NULL);
		if (e)
			e->owner = ME;
	}
	table_unlock();
}

void pt_mpi_req_unclaim(const MPI_Request *h, size_t n)
{
	if (!pt_mpi_req_shared)
		return;
	table_lock();
	for (size_t i = 0; i < n; i++) {
		pt_mpi_req *e = *find_locked((uintptr_t)h[i], ME);
		if (e && e->owner == ME)
			e->owner = NULL;
	}
	table_unlock();
}

int pt_mpi_req_done(uintptr_t h, pt_mpi_req *out)
{
	table_lock();
	pt_mpi_req **p = find_locked(h, ME);
	pt_mpi_req *e = *p;
	if (!e) {
		table_unlock();
		return 0;
	}
	*out = *e;
	if (e->persistent) {
		e->active = 0;
		e->owner = NULL;
	} else {
		*p = e->next;
		e->next = free_list;
		free_list = e;
	}
	table_unlock();
	return 1;
}

int pt_mpi_req_peek(uintptr_t h, pt_mpi_req *out)
{
	table_lock();
	pt_mpi_req *e = *find_locked(h, ME);
	if (e)
		*out = *e;
	table_unlock();
	return e != NULL;
}

int pt_mpi_req_start(uintptr_t h, uint64_t now, pt_mpi_req *out)
{
	table_lock();
	pt_mpi_req *e = *find_locked(h, ME);
	if (e) {
		e->active = 1;
		e->posted = now;
		*out = *e;
	}
	table_unlock();
	return e != NULL;
}

void pt_mpi_req_forget(uintptr_t h)
{
	table_lock();
	pt_mpi_req **p = find_locked(h, ME);
	pt_mpi_req *e = *p;
	if (e) {
		*p = e->next;
		e->next = free_list;
		free_list = e;
	}
	table_unlock();
}

void pt_mpi_req_fork_child(void)
{
	pt_spin_reset(&lock);
}
