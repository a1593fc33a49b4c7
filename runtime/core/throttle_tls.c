/* SPDX-License-Identifier: MIT */
/* Throttled calls counted with no call (hook ABI 3, docs/ABI.md): a module
 * of version 3 has a thread-local pointer of its own, which starts at an
 * array of NULLs of the module's, and reads the function's entry there
 * before it calls the entry hook: where that entry is not NULL, the module
 * adds 1 to the count it points to and skips the hook. The runtime sets that pointer, in the
 * thread, when it throttles one of the module's functions there: one array
 * per (thread, module), of the module's nfuncs entries, allocated once, so
 * it never moves while a module's code (or a signal handler's) holds it.
 * Entry i points to the same slot of a THROTTLE_COUNTS record as the
 * function's pt_fstat.count, so both ways add to one count, in the log's
 * shared mapping (a crash keeps it).
 *
 * The pointer must be back at the module's NULLs (the value the runtime
 * found there), in its thread, before anything it leads
 * to goes away: the count mappings (thread end, fork child) and the array.
 * The runtime can write a module's TLS only while the module is loaded:
 * an unload (dlclose) marks the module's arrays so that nobody writes
 * through their TLS address afterwards; they are freed at their thread's
 * end. Every array is on two lists, its thread's (which only that thread
 * walks) and the process's (under bind_lock: unload and fork). */
#define _GNU_SOURCE
#include "core.h"

#include <paratrace/abi.h>

#include <sys/mman.h>
#include <unistd.h>

typedef struct tbind {
	const void *key;                     /* the module's registration */
	uint64_t **volatile *addr;           /* its counts pointer in the owning thread */
	uint64_t **none;                     /* the pointer's value before: the module's NULLs */
	size_t len;                          /* of this mapping */
	int unloaded;                        /* under bind_lock: addr is gone */
	struct tbind *prev;                  /* the thread's */
	struct tbind *next_all, **pprev_all; /* the process's, under bind_lock */
	uint64_t *slots[];                   /* the array the module's pointer holds */
} tbind;

static __thread tbind *thr_binds __attribute__((tls_model("initial-exec")));
static pt_spin bind_lock;
static tbind *all_binds;

/* A hook's slow path may have interrupted this very thread while it held
 * the lock (a signal handler's call): bounded, and on failure the
 * function stays counted through the hook, as under version 2. */
static int lock_bounded(void)
{
	return pt_spin_trylock_for(&bind_lock, 1000) == 0;
}

static tbind *bind_new(const void *key, const pt_abi_module *m)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (sizeof(tbind) + (size_t)m->nfuncs * sizeof(uint64_t *) + ps - 1) & ~(ps - 1);
	tbind *b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED)
		return NULL;
	b->key = key;
	b->addr = m->thread_counts();
	b->len = len;
	if (!b->addr || !(b->none = *b->addr) || !lock_bounded()) {
		munmap(b, len);
		return NULL;
	}
	b->next_all = all_binds;
	b->pprev_all = &all_binds;
	if (all_binds)
		all_binds->pprev_all = &b->next_all;
	all_binds = b;
	pt_spin_unlock(&bind_lock);
	b->prev = thr_binds;
	thr_binds = b;
	return b;
}

void pt_throttle_tls_bind(uint32_t id, uint64_t *count)
{
	uint32_t base;
	const void *key;
	const pt_abi_module *m = pt_func_module(id, &base, &key);
	if (!m || m->abi_version < 3 || !m->thread_counts)
		return;
	tbind *b = thr_binds;
	while (b && b->key != key)
		b = b->prev;
	if (!b && !(b = bind_new(key, m)))
		return;
	b->slots[id - base] = count;
	/* The entry before the pointer: the module's code, or a handler's,
	 * sees the module's NULLs or an array whose entries are set. */
	atomic_signal_fence(memory_order_seq_cst);
	if (*b->addr != b->slots)
		*b->addr = b->slots;
}

void pt_throttle_tls_unloaded(const void *key)
{
	pt_spin_lock(&bind_lock);
	for (tbind *b = all_binds; b; b = b->next_all)
		if (b->key == key)
			b->unloaded = 1;
	pt_spin_unlock(&bind_lock);
}

/* Under bind_lock, so that an unload cannot take the TLS away meanwhile. */
static void clear_own(void)
{
	for (tbind *b = thr_binds; b; b = b->prev)
		if (!b->unloaded)
			*b->addr = b->none;
	atomic_signal_fence(memory_order_seq_cst);
}

void pt_throttle_tls_clear(int drop)
{
	if (!thr_binds)
		return;
	pt_spin_lock(&bind_lock);
	clear_own();
	if (drop)
		for (tbind *b = thr_binds; b; b = b->prev) {
			*b->pprev_all = b->next_all;
			if (b->next_all)
				b->next_all->pprev_all = b->pprev_all;
		}
	pt_spin_unlock(&bind_lock);
	if (!drop)
		return;
	tbind *b = thr_binds;
	thr_binds = NULL;
	while (b) {
		tbind *prev = b->prev;
		munmap(b, b->len);
		b = prev;
	}
}

/* The other threads' arrays are copies nobody uses in the child. */
void pt_throttle_tls_fork_child(void)
{
	pt_spin_reset(&bind_lock);
	clear_own();
	for (tbind *b = all_binds, *next; b; b = next) {
		next = b->next_all;
		munmap(b, b->len);
	}
	all_binds = NULL;
	thr_binds = NULL;
}
