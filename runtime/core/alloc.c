/* SPDX-License-Identifier: MIT */
/* Memory the runtime uses for itself: never the program's malloc (which may
 * be instrumented, interposed, or not yet usable while dlsym bootstraps). */
#define _GNU_SOURCE
#include "core.h"
#include "pt_sys.h"

#include <dlfcn.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A static arena first, so allocation works before any system call is
 * possible or sensible (dlsym -> calloc during the first pt_real). */
char pt_bump_static[PT_BUMP_STATIC] __attribute__((aligned(16)));
static atomic_size_t pt_bump_used;

/* Then chunks of pages, each with its own fill counter in its first bytes.
 * A block is [chunk + PT_BUMP_HEAD + o, + size) with o from one atomic add
 * to that chunk's counter and o + size within the chunk: so no byte is
 * handed out twice, whatever threads (or a signal handler on this thread)
 * do between the read of pt_bump_chunk and the add. A thread still holding
 * a chunk that was replaced adds to that chunk's counter, which the add
 * that found it full has pushed past its end, and tries again. */
static char *_Atomic pt_bump_chunk;
#define PT_BUMP_CHUNK (256 * 1024)
#define PT_BUMP_HEAD 16 /* the counter, padded to the blocks' alignment */

static void *chunk_take(char *chunk, size_t size)
{
	size_t o = atomic_fetch_add((atomic_size_t *)(void *)chunk, size);
	return o + size <= PT_BUMP_CHUNK - PT_BUMP_HEAD ? chunk + PT_BUMP_HEAD + o : NULL;
}

void *pt_bump_alloc(size_t size)
{
	size = (size + 15) & ~(size_t)15;
	size_t off = atomic_fetch_add(&pt_bump_used, size);
	if (off + size <= sizeof pt_bump_static)
		return pt_bump_static + off;
	if (size > PT_BUMP_CHUNK / 4)
		return pt_pages_alloc(size);
	for (;;) {
		char *chunk = atomic_load(&pt_bump_chunk);
		void *p = chunk ? chunk_take(chunk, size) : NULL;
		if (p)
			return p;
		/* Full (the tail it has left is abandoned: rare, small), or none
		 * yet: a fresh chunk with this block taken from it already,
		 * published unless another thread published one first. */
		char *fresh = pt_pages_alloc(PT_BUMP_CHUNK);
		if (!fresh)
			return NULL;
		atomic_store_explicit((atomic_size_t *)(void *)fresh, size, memory_order_relaxed);
		if (atomic_compare_exchange_strong(&pt_bump_chunk, &chunk, fresh))
			return fresh + PT_BUMP_HEAD;
		pt_pages_free(fresh, PT_BUMP_CHUNK);
	}
}

size_t pt_bump_room(const void *p)
{
	return (size_t)(pt_bump_static + sizeof pt_bump_static - (const char *)p);
}

void *pt_pages_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void pt_pages_free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

/* volatile: glibc declares dlsym a leaf function (it never calls back
 * into this file), so the compiler would drop a plain counter's increment
 * and decrement around it; but dlsym does call malloc, calloc and free,
 * whose wrappers read this through pt_real_in_progress. */
__thread volatile int pt_in_dlsym __attribute__((tls_model("initial-exec")));

void *pt_real(const char *name)
{
	pt_in_dlsym++;
	void *p = dlsym(RTLD_NEXT, name);
	pt_in_dlsym--;
	return p;
}

uint32_t pt_gettid(void)
{
	return (uint32_t)pt_sys0(SYS_gettid);
}
