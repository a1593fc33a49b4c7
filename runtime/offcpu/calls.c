/* SPDX-License-Identifier: MIT */
/* Off-CPU time: the part, and the blocking calls it wraps (nanosleep,
 * clock_nanosleep, usleep, sleep, poll, ppoll, select, pselect, epoll_wait,
 * epoll_pwait). glibc's usleep and sleep reach nanosleep inside libc,
 * where no wrapper sees them, so each has its own.
 *
 * After such a call the thread has just come back to its CPU: its context
 * switches are read then (switches.c), so a sleep's stretch is written
 * before any later record. On a thread without them (PARATRACE_OFFCPU=calls,
 * or the kernel refused) the call itself, from its begin to its end, is the
 * stretch (PT_OFFCPU_IN_CALL): a call that did not block then counts its
 * few microseconds, and a wait in a call not wrapped here is not seen. A
 * call asked not to wait (a zero timeout) is not a stretch. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "offcpu.h"
#include "pt_fd.h"
#include "pt_interpose.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

int pt_offcpu_mode = PT_OFFCPU_OFF;

/* This thread's stretches come from its calls (no ring). */
static __thread int pt_offcpu_by_calls __attribute__((tls_model("initial-exec")));

/* Before a blocking call: its begin, or 0 when it is not recorded. */
static inline uint64_t call_begin(void)
{
	if (pt_offcpu_mode == PT_OFFCPU_OFF)
		return 0;
	pt_thread *t = pt_enter();
	if (!t)
		return 0;
	uint64_t now = pt_now();
	pt_leave(t);
	return now ? now : 1;
}

/* After it (errno kept by the caller): its switches, or the call. */
static void call_end(uint64_t begin, unsigned call)
{
	pt_thread *t = pt_enter();
	if (!t)
		return;
	if (pt_switches_on()) {
		pt_switches_read(t);
	} else if (pt_offcpu_by_calls) {
		uint64_t now = pt_now();
		uint64_t ago = 0, len = now > begin ? now - begin : 0;
		unsigned arg = pt_offcpu_arg(PT_OFFCPU_IN_CALL, call);
		if (len <= UINT32_MAX) {
			pt_rec_offcpu s = {(uint32_t)ago, (uint32_t)len};
			pt_emit_at(t, now, PT_REC_OFFCPU, arg, &s, sizeof s);
		} else {
			pt_rec_offcpu_long l = {begin, now};
			pt_emit_at(t, now, PT_REC_OFFCPU, arg, &l, sizeof l);
		}
	}
	pt_leave(t);
}

/* The shape of every wrapper: `blocks` says whether the call may wait. */
#define PT_OFFCPU_WRAP(ret_type, call_id, blocks, real_call)                                       \
	do {                                                                                       \
		uint64_t begin_ = (blocks) ? call_begin() : 0;                                     \
		ret_type r_ = real_call;                                                           \
		if (begin_) {                                                                      \
			int e_ = errno;                                                            \
			call_end(begin_, call_id);                                                 \
			errno = e_;                                                                \
		}                                                                                  \
		return r_;                                                                         \
	} while (0)

static int ts_zero(const struct timespec *ts)
{
	return ts && ts->tv_sec == 0 && ts->tv_nsec == 0;
}

PT_REAL_DECL(nanosleep);
PT_REAL_DECL(clock_nanosleep);
PT_REAL_DECL(usleep);
PT_REAL_DECL(sleep);
PT_REAL_DECL(poll);
PT_REAL_DECL(ppoll);
PT_REAL_DECL(select);
PT_REAL_DECL(pselect);
PT_REAL_DECL(epoll_wait);
PT_REAL_DECL(epoll_pwait);

PT_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	PT_OFFCPU_WRAP(int, PT_OFFCPU_CALL_NANOSLEEP, !ts_zero(req), PT_REAL(nanosleep)(req, rem));
}

PT_EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req,
                              struct timespec *rem)
{
	PT_OFFCPU_WRAP(int, PT_OFFCPU_CALL_CLOCK_NANOSLEEP, !ts_zero(req),
	               PT_REAL(clock_nanosleep)(clock, flags, req, rem));
}

PT_EXPORT int usleep(useconds_t usec)
{
	PT_OFFCPU_WRAP(int, PT_OFFCPU_CALL_USLEEP, usec != 0, PT_REAL(usleep)(usec));
}

PT_EXPORT unsigned int sleep(unsigned int seconds)
{
	PT_OFFCPU_WRAP(unsigned int, PT_OFFCPU_CALL_SLEEP, seconds != 0, PT_REAL(sleep)(seconds));
}

PT_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	PT_OFFCPU_WRAP(int, PT_OFFCPU_CALL_POLL, timeout != 0, PT_REAL(poll)(fds, n, timeout));
}

PT_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo, const sigset_t *mask)
{
	PT_OFFCPU_WRAP(int, PT_OFFCPU_CALL_PPOLL, !ts_zero(tmo), PT_REAL(ppoll)(fds, n, tmo, mask));
}

PT_EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
	int blocks = !(tv && tv->tv_sec == 0 && tv->tv_usec == 0);
	PT_OFFCPU_WRAP(int, PT_OFFCPU_CALL_SELECT, blocks, PT_REAL(select)(n, r, w, e, tv));
}

PT_EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
                      const sigset_t *mask)
{
	PT_OFFCPU_WRAP(int, PT_OFFCPU_CALL_PSELECT, !ts_zero(ts),
	               PT_REAL(pselect)(n, r, w, e, ts, mask));
}

PT_EXPORT int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
	PT_OFFCPU_WRAP(int, PT_OFFCPU_CALL_EPOLL_WAIT, timeout != 0,
	               PT_REAL(epoll_wait)(epfd, ev, max, timeout));
}

PT_EXPORT int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout,
                          const sigset_t *mask)
{
	PT_OFFCPU_WRAP(int, PT_OFFCPU_CALL_EPOLL_PWAIT, timeout != 0,
	               PT_REAL(epoll_pwait)(epfd, ev, max, timeout, mask));
}

/* ---- the part ------------------------------------------------------------ */

static void offcpu_init(void)
{
	const pt_config *cfg = pt_config_get();
	int want = cfg ? cfg->offcpu : PT_OFFCPU_AUTO;
	pt_offcpu_mode = want == PT_OFFCPU_AUTO ? PT_OFFCPU_SWITCHES : want;
	if (pt_offcpu_mode != PT_OFFCPU_SWITCHES)
		return;
	int r = pt_switches_probe();
	if (r != 0) {
		pt_warn("off-CPU time from the blocking calls only (sleeps, poll, select, "
		        "epoll_wait): the kernel refused this thread's context switches "
		        "(perf_event_open: %s; kernel.perf_event_paranoid is %d: at most 2 allows "
		        "them, and a seccomp filter or a container may forbid the call); set "
		        "PARATRACE_OFFCPU=calls to say so, or off",
		        strerror(-r), pt_perf_paranoid());
		pt_offcpu_mode = PT_OFFCPU_CALLS;
		return;
	}
	__atomic_store_n(&pt_switches_reader, pt_switches_read, __ATOMIC_RELEASE);
}

static void offcpu_thread_start(pt_thread *t)
{
	if (pt_offcpu_mode == PT_OFFCPU_OFF)
		return;
	int ring = pt_offcpu_mode == PT_OFFCPU_SWITCHES && pt_switches_open(t);
	pt_offcpu_by_calls = !ring;
	pt_rec_offcpu_source src = {0};
	pt_emit(t, PT_REC_OFFCPU_SOURCE, ring ? PT_OFFCPU_SOURCE_SWITCHES : PT_OFFCPU_SOURCE_CALLS,
	        &src, sizeof src);
}

static void offcpu_thread_end(pt_thread *t)
{
	pt_switches_close(t);
}

static void offcpu_fork_child(void)
{
	pt_switches_fork_child();
}

PT_SUBSYSTEM(offcpu_part) = {
    .name = "offcpu",
    .order = PT_ORDER_INTERPOSE,
    .init = offcpu_init,
    .thread_start = offcpu_thread_start,
    .thread_end = offcpu_thread_end,
    .fork_child = offcpu_fork_child,
};
