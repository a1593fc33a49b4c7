/* SPDX-License-Identifier: MIT */
/* Pre-faulting a log's next window from a helper thread.
 *
 * Why: on the VMs we run on (and on any hypervisor that shadows guest page
 * tables), the first store through a new virtual page costs ~4 us in the
 * thread that makes it, even after MADV_POPULATE_WRITE: the kernel has set
 * the page table entry, but the hypervisor builds its own entry only at the
 * first access from user space. With 8-byte records that is ~7.5 ns per
 * event, more than the rest of the hot path. A store by another thread of
 * the same process pays it instead (measured: a 4 MiB window filled in
 * 3.9 ms when fresh, 0.28 ms after another thread touched each page once).
 *
 * So once a thread's log is busy, the writer asks for its next window ahead
 * of time (writer.c) and one helper thread prepares it: extends the file
 * with written zeros, maps the window, populates it and touches each page
 * with an atomic OR of 0 (a write access that changes no byte). The owner
 * takes the window when its current one is full; the system calls and the
 * first touches are then paid by the helper, not by the traced thread. A
 * log that outruns the helper (it had to stop it short) maps its next
 * windows itself and leaves the helper only the touches, the larger part.
 *
 * It costs CPU time, more than it saves the traced thread: in bench/hooks
 * (1 thread, 2M calls) the thread's CPU per call dropped 47 -> 27 ns while
 * the process's rose 48 -> 55 ns; in bench/peers (shorter runs, 8 MB
 * traces) the process's CPU per call rose by 25-60% and wall time improved
 * only for one thread (-10%). So it is off by default: PARATRACE_PREFAULT=on
 * asks for it, `auto` uses it only while fewer logs are busy than the
 * process has CPUs, for users who want the least perturbation of the
 * traced threads and have idle CPUs to pay for it.
 *
 * The helper is a raw clone(2) thread, not a pthread: it is started from
 * the writer's slow path, which may run in a signal handler, where
 * pthread_create is not safe; and it stays invisible to the program (no
 * pthread, not in glibc's thread list, all signals blocked). It therefore
 * runs only the code below: plain loads and stores, atomics and raw system
 * calls, no libc, no errno, no TLS. It dies with the process; a fork child
 * starts its own when it needs one. */
#define _GNU_SOURCE
#include "core.h"
#include "pt_fd.h"
#include "pt_sys.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

int pt_prefault_mode = 0;
static atomic_int pt_busy_logs;

static int cpus_usable(void)
{
	static int n;
	if (!n) {
		cpu_set_t set;
		n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
	}
	return n;
}

int pt_prefault_worth_it(int *busy)
{
	if (pt_prefault_mode == 0)
		return 0;
	if (!*busy) {
		*busy = 1;
		atomic_fetch_add(&pt_busy_logs, 1);
	}
	return pt_prefault_mode == 1 || atomic_load(&pt_busy_logs) < cpus_usable();
}

void pt_prefault_log_done(int *busy)
{
	if (*busy)
		atomic_fetch_sub(&pt_busy_logs, 1);
	*busy = 0;
}

#if defined(__x86_64__)

#define PT_PF_STACK (64u * 1024)

static pt_prefault *pt_pf_queue; /* pending requests, under pt_pf_lock */
static pt_spin pt_pf_lock;
static atomic_uint pt_pf_seq;    /* bumped at every request: the futex word */
static atomic_int pt_pf_started; /* 0 none, 1 starting or running, -1 failed */

#define PT_PF_NOINST                                                                   \
	__attribute__((no_instrument_function,                                          \
		       no_sanitize("address", "undefined", "thread"), no_stack_protector))

/* The window of one request: the same steps as the writer's own
 * map_window (reserve with written zeros, map, populate), then the touch.
 * pf->base stays NULL when a step fails; the owner then maps it itself and
 * reports what it could not get. */
static PT_PF_NOINST void prepare(pt_prefault *pf)
{
	if (pf->base)
		goto touch; /* mapped by the owner: only the touch is asked */
	/* The writer's zeros: set up before the first request (map_ahead). */
	const char *zeros = __atomic_load_n(&pt_zero_src, __ATOMIC_ACQUIRE);
	uint64_t zlen = pt_zero_len;
	if (!zeros)
		return;
	/* The log's descriptor is read from its slot inside a use (pt_fd.h):
	 * the program may make the runtime move it meanwhile. */
	pt_fd_use_begin_raw();
	long p = -EBADF;
	while (pf->reserved < pf->off + pf->len) {
		uint64_t left = pf->off + pf->len - pf->reserved;
		long n = left < zlen ? (long)left : (long)zlen;
		long w = pt_sys4(SYS_pwrite64, __atomic_load_n(pf->fd, __ATOMIC_ACQUIRE),
		                 (long)zeros, n, (long)pf->reserved);
		if (w == -EINTR)
			continue;
		if (w <= 0)
			goto out;
		pf->reserved += (uint64_t)w;
	}
	p = pt_sys6(SYS_mmap, 0, (long)pf->len, PROT_READ | PROT_WRITE, MAP_SHARED,
	            __atomic_load_n(pf->fd, __ATOMIC_ACQUIRE), (long)pf->off);
out:
	pt_fd_use_end_raw();
	if (p < 0 && p > -4096)
		return;
	pt_sys4(SYS_madvise, p, (long)pf->len, MADV_DONTFORK, 0);
	pt_sys4(SYS_madvise, p, (long)pf->len, MADV_POPULATE_WRITE, 0);
	pf->base = (char *)p;
touch:
	/* From here the owner may take the window and write into it while
	 * the touch goes on ahead of it. */
	atomic_store_explicit(&pf->state, PT_PF_MAPPED, memory_order_release);
	for (size_t off = 0; off < pf->len; off += 4096) {
		if (atomic_load_explicit(&pf->cancel, memory_order_relaxed))
			break;
		__atomic_fetch_or((uint64_t *)(void *)(pf->base + off), 0, __ATOMIC_RELAXED);
	}
}

/* Takes the next request, marking it PREPARING; NULL when none. */
static PT_PF_NOINST pt_prefault *take(void)
{
	pt_spin_lock(&pt_pf_lock);
	pt_prefault *pf = pt_pf_queue;
	if (pf) {
		pt_pf_queue = pf->next;
		pf->next = NULL;
		atomic_store_explicit(&pf->state, PT_PF_PREPARING, memory_order_relaxed);
	}
	pt_spin_unlock(&pt_pf_lock);
	return pf;
}

static PT_PF_NOINST int helper_main(void *arg)
{
	(void)arg;
	for (;;) {
		unsigned seen = atomic_load_explicit(&pt_pf_seq, memory_order_acquire);
		pt_prefault *pf = take();
		if (!pf) {
			pt_sys4(SYS_futex, (long)&pt_pf_seq, FUTEX_WAIT_PRIVATE, (long)seen, 0);
			continue;
		}
		if (!atomic_load_explicit(&pf->cancel, memory_order_relaxed))
			prepare(pf);
		atomic_store_explicit(&pf->state, PT_PF_DONE, memory_order_release);
	}
	return 0;
}

/* glibc's clone(), under its other name: `clone` inside libtrace.so is
 * the runtime's own wrapper (fork.c). */
extern int __clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);

/* Starts the helper once per process. All signals are blocked around
 * clone() so that the helper starts with every signal blocked (it never
 * takes a process-directed signal meant for the program). */
static int start_helper(void)
{
	int expected = 0;
	if (!atomic_compare_exchange_strong(&pt_pf_started, &expected, 1))
		return expected == 1 ? 0 : -1;
	int saved = errno;
	char *stack = mmap(NULL, PT_PF_STACK, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) {
		atomic_store(&pt_pf_started, -1);
		errno = saved;
		return -1;
	}
	/* Our windows are MADV_DONTFORK; the helper's stack must be too: a fork
	 * child has no helper. */
	madvise(stack, PT_PF_STACK, MADV_DONTFORK);
	sigset_t all, old;
	sigfillset(&all);
	pt_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, _NSIG / 8);
	int tid = __clone(helper_main, stack + PT_PF_STACK,
			CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
				CLONE_SYSVSEM,
			NULL);
	int err = errno;
	pt_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, _NSIG / 8);
	errno = saved;
	if (tid < 0) {
		pt_debug(1, "prefault helper not started: %s", strerror(err));
		munmap(stack, PT_PF_STACK);
		atomic_store(&pt_pf_started, -1);
		errno = saved;
		return -1;
	}
	pt_debug(1, "prefault helper started (tid %d)", tid);
	errno = saved;
	return 0;
}

int pt_prefault_request(pt_prefault *pf)
{
	if (start_helper() != 0)
		return -1;
	atomic_store_explicit(&pf->cancel, 0, memory_order_relaxed);
	atomic_store_explicit(&pf->state, PT_PF_QUEUED, memory_order_relaxed);
	pt_spin_lock(&pt_pf_lock);
	pf->next = pt_pf_queue;
	pt_pf_queue = pf;
	pt_spin_unlock(&pt_pf_lock);
	atomic_fetch_add_explicit(&pt_pf_seq, 1, memory_order_release);
	pt_sys4(SYS_futex, (long)&pt_pf_seq, FUTEX_WAKE_PRIVATE, 1, 0);
	return 0;
}

/* Withdraws pf if the helper has not taken it yet (state DONE then). */
static void withdraw(pt_prefault *pf)
{
	pt_spin_lock(&pt_pf_lock);
	if (atomic_load_explicit(&pf->state, memory_order_relaxed) == PT_PF_QUEUED) {
		for (pt_prefault **p = &pt_pf_queue; *p; p = &(*p)->next)
			if (*p == pf) {
				*p = pf->next;
				break;
			}
		pf->next = NULL;
		atomic_store_explicit(&pf->state, PT_PF_DONE, memory_order_relaxed);
	}
	pt_spin_unlock(&pt_pf_lock);
}

int pt_prefault_mapped(pt_prefault *pf)
{
	int state = atomic_load_explicit(&pf->state, memory_order_acquire);
	if (state == PT_PF_QUEUED)
		withdraw(pf);
	while ((state = atomic_load_explicit(&pf->state, memory_order_acquire)) == PT_PF_PREPARING)
		sched_yield();
	return state == PT_PF_MAPPED;
}

void pt_prefault_wait(pt_prefault *pf)
{
	if (atomic_load_explicit(&pf->state, memory_order_acquire) == PT_PF_IDLE)
		return;
	atomic_store_explicit(&pf->cancel, 1, memory_order_relaxed);
	withdraw(pf);
	while (atomic_load_explicit(&pf->state, memory_order_acquire) != PT_PF_DONE)
		sched_yield();
	atomic_store_explicit(&pf->state, PT_PF_IDLE, memory_order_relaxed);
}

/* Fork child: no helper, no queue. */
static void prefault_fork_child(void)
{
	atomic_store(&pt_busy_logs, 0);
	pt_spin_reset(&pt_pf_lock);
	pt_pf_queue = NULL;
	atomic_store(&pt_pf_started, 0);
}

#else /* no helper on other architectures: windows are faulted by their writer */

int pt_prefault_request(pt_prefault *pf)
{
	(void)pf;
	return -1;
}

int pt_prefault_mapped(pt_prefault *pf)
{
	(void)pf;
	return 0;
}

void pt_prefault_wait(pt_prefault *pf)
{
	(void)pf;
}

static void prefault_fork_child(void)
{
	atomic_store(&pt_busy_logs, 0);
}

#endif

PT_SUBSYSTEM(prefault_part) = {
	.name = "prefault",
	.order = PT_ORDER_PREFAULT,
	.fork_child = prefault_fork_child,
};
