/* Memory the runtime uses for itself: never the program's malloc (which may
 * be instrumented, interposed, or not yet usable while dlsym bootstraps). */
#define _GNU_SOURCE
#include "core.h"

#include <dlfcn.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A static arena first, so allocation works before any system call is
 * possible or sensible (dlsym -> calloc during the first pt_real). */
static char pt_bump_static[64 * 1024] __attribute__((aligned(16)));
static atomic_size_t pt_bump_used;
static char *_Atomic pt_bump_chunk;
static atomic_size_t pt_bump_chunk_used;
#define PT_BUMP_CHUNK (256 * 1024)

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
		if (chunk) {
			size_t o = atomic_fetch_add(&pt_bump_chunk_used, size);
			if (o + size <= PT_BUMP_CHUNK)
				return chunk + o;
		}
		/* Chunk exhausted: whoever swaps in a fresh one wins; losers retry.
		 * The tail of the old chunk is abandoned (rare, small). */
		char *fresh = pt_pages_alloc(PT_BUMP_CHUNK);
		if (!fresh)
			return NULL;
		if (atomic_compare_exchange_strong(&pt_bump_chunk, &chunk, fresh))
			atomic_store(&pt_bump_chunk_used, 0);
		else
			pt_pages_free(fresh, PT_BUMP_CHUNK);
	}
}

int pt_bump_owns(const void *p)
{
	return (const char *)p >= pt_bump_static &&
	       (const char *)p < pt_bump_static + sizeof pt_bump_static;
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

static __thread int pt_in_dlsym __attribute__((tls_model("initial-exec")));

int pt_real_in_progress(void)
{
	return pt_in_dlsym;
}

void *pt_real(const char *name)
{
	pt_in_dlsym++;
	void *p = dlsym(RTLD_NEXT, name);
	pt_in_dlsym--;
	return p;
}

uint32_t pt_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}
