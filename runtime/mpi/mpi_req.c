/* SPDX-License-Identifier: MIT */
/* Requests of non-blocking and persistent calls, from the call that made
 * them to the Wait/Test that completes them, possibly on another thread:
 * what a completed receive was (its communicator, to turn the status's
 * source into a world rank; when it was posted), and what MPI_Start
 * starts. A hash table of the handles under the runtime's lock; entries
 * are recycled through a free list, their memory mapped by the runtime. */
#define _GNU_SOURCE
#include "mpi_internal.h"

#include <string.h>

#define NBUCKETS 4096u

static pt_spin lock;
static pt_mpi_req *buckets[NBUCKETS];
static pt_mpi_req *free_list;

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

static pt_mpi_req **find_locked(uintptr_t h)
{
	pt_mpi_req **p = &buckets[bucket(h)];
	while (*p && (*p)->handle != h)
		p = &(*p)->next;
	return p;
}

void pt_mpi_req_add(const pt_mpi_req *r)
{
	pt_spin_lock(&lock);
	pt_mpi_req **p = find_locked(r->handle);
	pt_mpi_req *e = *p;
	if (!e) { /* a handle completed elsewhere than in a Wait/Test keeps none */
		e = alloc_locked();
		if (!e) {
			pt_spin_unlock(&lock);
			return;
		}
		e->next = NULL;
		*p = e;
	}
	pt_mpi_req *next = e->next;
	*e = *r;
	e->next = next;
	pt_spin_unlock(&lock);
}

int pt_mpi_req_done(uintptr_t h, pt_mpi_req *out)
{
	pt_spin_lock(&lock);
	pt_mpi_req **p = find_locked(h);
	pt_mpi_req *e = *p;
	if (!e) {
		pt_spin_unlock(&lock);
		return 0;
	}
	*out = *e;
	if (e->persistent) {
		e->active = 0;
	} else {
		*p = e->next;
		e->next = free_list;
		free_list = e;
	}
	pt_spin_unlock(&lock);
	return 1;
}

int pt_mpi_req_peek(uintptr_t h, pt_mpi_req *out)
{
	pt_spin_lock(&lock);
	pt_mpi_req *e = *find_locked(h);
	if (e)
		*out = *e;
	pt_spin_unlock(&lock);
	return e != NULL;
}

int pt_mpi_req_start(uintptr_t h, uint64_t now, pt_mpi_req *out)
{
	pt_spin_lock(&lock);
	pt_mpi_req *e = *find_locked(h);
	if (e) {
		e->active = 1;
		e->posted = now;
		*out = *e;
	}
	pt_spin_unlock(&lock);
	return e != NULL;
}

void pt_mpi_req_forget(uintptr_t h)
{
	pt_spin_lock(&lock);
	pt_mpi_req **p = find_locked(h);
	pt_mpi_req *e = *p;
	if (e) {
		*p = e->next;
		e->next = free_list;
		free_list = e;
	}
	pt_spin_unlock(&lock);
}

void pt_mpi_req_fork_child(void)
{
	pt_spin_reset(&lock);
}
