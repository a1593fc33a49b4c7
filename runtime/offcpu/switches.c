/* SPDX-License-Identifier: MIT */
/* A thread's context switches, from the kernel: one software perf event
 * per thread (PERF_COUNT_SW_DUMMY, which counts nothing, with
 * attr.context_switch), whose ring holds a PERF_RECORD_SWITCH each time the
 * thread leaves its CPU and each time it comes back. No PMU is needed, and
 * perf_event_paranoid up to 2 allows it for the program's own threads.
 *
 * The ring is read on the thread itself, inside the runtime's region: after
 * each blocking call the runtime wraps, at the synchronization and thread
 * points where the counters are read (pt_switches_reader), and at the
 * thread's end. Each out/in pair becomes one OFFCPU record, written then:
 * after the stretch, so maybe after records that came later (a preemption
 * in the middle of the program's code). The kernel's times are taken on
 * CLOCK_MONOTONIC (attr.use_clockid) and turned into the run's ticks
 * against one clock pair read at each reading of the ring.
 *
 * A full ring loses switches (the kernel counts them in a PERF_RECORD_LOST):
 * an OFFCPU_SOURCE record says how many. The ring is small, PT_RING_PAGES,
 * because the kernel charges every thread's ring to the user's locked
 * memory (perf_event_mlock_kb); a thread whose ring cannot be had gets its
 * stretches from its calls. Per-thread state lives in initial-exec TLS,
 * touched only by its thread (and by a fork child, which closes what it
 * inherited). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "offcpu.h"
#include "pt_fd.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Data pages of a ring: 16 KiB, 1,024 records of 16 bytes, 512 switches
 * between two readings. */
#define PT_RING_PAGES 4

typedef struct pt_ring {
	int fd;
	struct perf_event_mmap_page *page;
	size_t map_len;
	uint64_t mask; /* data bytes - 1 */
	const unsigned char *data;
	/* The last switch out not yet matched by its switch in (ns, 0: none). */
	uint64_t out_ns;
	unsigned out_preempt;
	uint64_t lost;        /* switches the kernel lost, not yet written */
	struct pt_ring *next; /* pt_rings, for a fork child */
	int listed;
} pt_ring;

static __thread pt_ring pt_rg __attribute__((tls_model("initial-exec"))) = {.fd = -1};

/* Every open ring, so that a fork child can close the descriptors of the
 * parent's other threads (their mappings are not inherited:
 * MADV_DONTFORK). */
static pt_ring *pt_rings;
static pt_spin pt_rings_lock;

static void attr_init(struct perf_event_attr *a)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->context_switch = 1;
	a->sample_id_all = 1;
	a->sample_type = PERF_SAMPLE_TIME; /* every record ends with its time */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	/* A user's own threads at perf_event_paranoid 2: nothing of the
	 * kernel is measured; the switch records come all the same. */
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* The event opened here is the initialising thread's, which is traced
 * next: its ring (pt_switches_open) takes it over, one perf_event_open
 * fewer at start-up. */
int pt_switches_probe(void)
{
	pt_ring *r = &pt_rg;
	if (r->page)
		return 0;
	if (r->fd >= 0)
		pt_fd_close(&r->fd);
	struct perf_event_attr a;
	attr_init(&a);
	return pt_fd_perf_open(&r->fd, &a, NULL);
}

static void ring_forget(pt_ring *r)
{
	memset(r, 0, sizeof *r);
	r->fd = -1;
}

/* A fork child's copy of the state is forgotten by pt_switches_fork_child,
 * so a ring that is there is this process's: no getpid on these paths. */
int pt_switches_on(void)
{
	return pt_rg.page != NULL;
}

int pt_switches_open(pt_thread *t)
{
	pt_ring *r = &pt_rg;
	(void)t;
	if (r->page)
		return 1;
	/* A descriptor here is the probe's, opened on this thread at init (a
	 * fork child's copy of a ring is gone: pt_switches_fork_child). */
	int fd = r->fd;
	ring_forget(r);
	r->fd = fd;
	struct perf_event_attr a;
	attr_init(&a);
	if (r->fd < 0 && pt_fd_perf_open(&r->fd, &a, NULL) != 0)
		return 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (1 + PT_RING_PAGES) * page;
	void *m = pt_fd_mmap(&r->fd, len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	if (m == MAP_FAILED) {
		/* Locked memory (perf_event_mlock_kb, RLIMIT_MEMLOCK) used up. */
		pt_debug(1, "offcpu: no ring for thread %u: %s", pt_thread_tid(t), strerror(errno));
		pt_fd_close(&r->fd);
		return 0;
	}
	madvise(m, len, MADV_DONTFORK);
	r->page = m;
	r->map_len = len;
	r->data = (const unsigned char *)m + page;
	r->mask = PT_RING_PAGES * page - 1;
	pt_spin_lock(&pt_rings_lock);
	r->next = pt_rings;
	pt_rings = r;
	pt_spin_unlock(&pt_rings_lock);
	r->listed = 1;
	return 1;
}

/* One stretch, from CLOCK_MONOTONIC times to the run's ticks through the
 * pair (now_ticks, now_ns) read just before. */
static void write_stretch(pt_thread *t, uint64_t now_ticks, uint64_t now_ns, uint64_t out_ns,
                          uint64_t in_ns, unsigned preempt)
{
	if (in_ns < out_ns || in_ns > now_ns)
		return; /* not a stretch of this clock: dropped */
	uint64_t ago = pt_ticks_of_ns(now_ns - in_ns);
	uint64_t len = pt_ticks_of_ns(in_ns - out_ns);
	unsigned arg = pt_offcpu_arg(preempt ? PT_OFFCPU_PREEMPTED : PT_OFFCPU_BLOCKED, 0);
	if (ago <= UINT32_MAX && len <= UINT32_MAX) {
		pt_rec_offcpu s = {(uint32_t)ago, (uint32_t)len};
		pt_emit_at(t, now_ticks, PT_REC_OFFCPU, arg, &s, sizeof s);
	} else {
		uint64_t in = now_ticks > ago ? now_ticks - ago : 0;
		pt_rec_offcpu_long l = {in > len ? in - len : 0, in};
		pt_emit_at(t, now_ticks, PT_REC_OFFCPU, arg, &l, sizeof l);
	}
}

/* A record of the ring, copied out when it wraps around the end. */
static const struct perf_event_header *record_at(const pt_ring *r, uint64_t tail,
                                                 unsigned char *buf, size_t cap)
{
	const unsigned char *p = r->data + (tail & r->mask);
	const struct perf_event_header *h = (const void *)p;
	uint64_t room = r->mask + 1 - (tail & r->mask);
	if (room >= sizeof *h && room >= h->size)
		return h;
	/* The header itself may be split. */
	struct perf_event_header hh;
	for (size_t i = 0; i < sizeof hh; i++)
		((unsigned char *)&hh)[i] = r->data[(tail + i) & r->mask];
	size_t n = hh.size < cap ? hh.size : cap;
	for (size_t i = 0; i < n; i++)
		buf[i] = r->data[(tail + i) & r->mask];
	return (const void *)buf;
}

void pt_switches_read(pt_thread *t)
{
	pt_ring *r = &pt_rg;
	if (!r->page)
		return;
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->page->data_tail;
	if (head == tail && !r->lost)
		return;
	int saved = errno;
	struct timespec ts;
	uint64_t now_ticks = pt_now();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	unsigned char buf[64];
	while (tail < head) {
		const struct perf_event_header *h = record_at(r, tail, buf, sizeof buf);
		if (h->size < sizeof *h)
			break; /* never from a sound kernel: leave the rest */
		const uint64_t *body = (const uint64_t *)(const void *)(h + 1);
		size_t words = (h->size - sizeof *h) / sizeof(uint64_t);
		if (h->type == PERF_RECORD_SWITCH && words >= 1) {
			uint64_t time = body[words - 1];
			if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
				r->out_ns = time;
				r->out_preempt =
				    (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
			} else if (r->out_ns) {
				write_stretch(t, now_ticks, now_ns, r->out_ns, time,
				              r->out_preempt);
				r->out_ns = 0;
			}
		} else if (h->type == PERF_RECORD_LOST && words >= 2) {
			r->lost += body[1];
			r->out_ns = 0; /* its switch in may be among the lost */
		}
		tail += h->size;
	}
	__atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
	if (r->lost) {
		pt_rec_offcpu_source src = {(r->lost + 1) / 2}; /* a record each way */
		pt_emit_at(t, now_ticks, PT_REC_OFFCPU_SOURCE, PT_OFFCPU_SOURCE_SWITCHES, &src,
		           sizeof src);
		r->lost = 0;
	}
	errno = saved;
}

static void unlist(pt_ring *r)
{
	if (!r->listed)
		return;
	pt_spin_lock(&pt_rings_lock);
	for (pt_ring **p = &pt_rings; *p; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			break;
		}
	pt_spin_unlock(&pt_rings_lock);
	r->listed = 0;
}

void pt_switches_close(pt_thread *t)
{
	pt_ring *r = &pt_rg;
	if (!r->page)
		return;
	/* In a fatal signal's handler, which may have interrupted this very
	 * thread reading its ring or inside the list's lock: the process is
	 * ending, the kernel closes and unmaps. */
	if (pt_in_signal_shutdown())
		return;
	int saved = errno;
	if (t)
		pt_switches_read(t);
	unlist(r);
	munmap(r->page, r->map_len);
	pt_fd_close(&r->fd);
	ring_forget(r);
	errno = saved;
}

void pt_switches_fork_child(void)
{
	/* The parent's rings: their mappings stayed in the parent
	 * (MADV_DONTFORK), their descriptors came along. */
	pt_spin_reset(&pt_rings_lock);
	for (pt_ring *r = pt_rings; r; r = r->next)
		pt_fd_close(&r->fd);
	pt_rings = NULL;
	if (!pt_rg.listed && pt_rg.fd >= 0) /* the probe's, not yet a ring */
		pt_fd_close(&pt_rg.fd);
	ring_forget(&pt_rg);
}
