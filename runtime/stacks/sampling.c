/* SPDX-License-Identifier: MIT */
/* CPU-time sampling: PARATRACE_SAMPLING=period.
 *
 * Each thread gets a POSIX timer on its own CPU-time clock
 * (CLOCK_THREAD_CPUTIME_ID) that sends PT_SAMPLING_SIGNAL to that very
 * thread (SIGEV_THREAD_ID) every `period` of CPU time it consumes. The
 * handler records the interrupted pc and its callers (libunwind from the
 * signal's ucontext) as a SAMPLE record in the thread's own log.
 *
 * Why a real-time signal and not SIGPROF/setitimer: the program keeps its
 * own SIGPROF handler, itimers and signal masks untouched; a real-time
 * signal from a timer is never queued twice (the kernel counts overruns
 * instead), so a thread that blocks it gets no flood.
 *
 * Write protocol: the handler writes only through pt_enter(), whose
 * recursion guard is set whenever the thread is inside the runtime, and
 * which refuses while a hook's fast path is writing (in_hook). A sample
 * that lands then is dropped and counted; the count goes out as a LOST
 * record (reason REENTRANT) before the next sample that gets through, and
 * at the thread's end. A sample that lands in libtrace.so's code outside
 * those (the rest of a hook or a wrapper) is charged to its caller. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "callstack.h"
#include "pt_fd.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PT_SAMPLING_SIGNAL (SIGRTMAX - 4)
/* Frames a sample carries when PARATRACE_CALLSTACK is not set. */
#define PT_SAMPLING_DEFAULT_DEPTH 16
/* libtrace.so's frames a sample may have to skip (a wrapper and what it
 * called outside the runtime's region; a hook is one leaf frame). */
#define PT_SAMPLING_OWN_FRAMES 4

typedef struct pt_sthread {
	int active;
	pid_t pid; /* process whose timer this is: timers do not survive fork */
	timer_t timer;
	uint64_t dropped; /* samples that hit the runtime, not yet reported */
} pt_sthread;

static __thread pt_sthread pt_st __attribute__((tls_model("initial-exec")));
static int pt_sampling_on;
static int pt_sampling_depth;
/* Identifies our timers' signals among any other sender of the signal. */
static const char pt_sampling_cookie[] = "paratrace-sampling";

/* Writes the samples dropped so far as one LOST record (reason
 * reentrant), inside the runtime's region. */
static void report_dropped(pt_thread *t)
{
	if (pt_unlikely(pt_st.dropped)) {
		pt_rec_lost lost = {pt_st.dropped, 0, PT_LOST_REENTRANT, 0};
		pt_emit(t, PT_REC_LOST, 0, &lost, sizeof lost);
		pt_st.dropped = 0;
	}
}

static void sample_handler(int sig, siginfo_t *si, void *uc)
{
	if (si->si_code != SI_TIMER || si->si_value.sival_ptr != (void *)pt_sampling_cookie) {
		pt_signal_forward(sig, si, uc); /* the program's, not ours */
		return;
	}
	int saved = errno;
	/* Inside pt_enter's region (possibly mid-record, or unwinding for a
	 * CALLSTACK) or in a hook's fast path (in_hook): no record from here. */
	pt_thread *t = pt_enter();
	if (!t) {
		pt_st.dropped++;
		errno = saved;
		return;
	}
	/* Room for a few of libtrace.so's frames besides the sample's. */
	uint64_t pcs[PT_CALLSTACK_MAX + 1 + PT_SAMPLING_OWN_FRAMES];
	int cancel = pt_nocancel_begin();
	int n = pt_callstack_capture_signal(uc, pcs, pt_sampling_depth + 1 + PT_SAMPLING_OWN_FRAMES);
	pt_nocancel_end(cancel);
	/* Interrupted in libtrace.so's code outside the runtime's region (a
	 * hook, a wrapper on its way in or out): the sample is charged to the
	 * program's code that called it, as the call instruction (its return
	 * address - 1), so a hot instrumented function keeps its samples. */
	int skip = 0;
	while (skip < n && pt_callstack_in_runtime(pcs[skip]))
		skip++;
	if (skip && skip < n)
		pcs[skip]--;
	n -= skip;
	if (n > pt_sampling_depth + 1)
		n = pt_sampling_depth + 1;
	if (n <= 0) {
		pt_st.dropped++;
		pt_leave(t);
		errno = saved;
		return;
	}
	report_dropped(t);
	pt_emit(t, PT_REC_SAMPLE, (unsigned)(n - 1), pcs + skip, (size_t)n * sizeof pcs[0]);
	pt_leave(t);
	errno = saved;
}

static void sampling_init(void)
{
	const pt_config *cfg = pt_config_get();
	pt_sampling_on = 0;
	if (!cfg || cfg->sampling_ns == 0 || pt_unwind_load("sampling (PARATRACE_SAMPLING)") != 0)
		return;
	pt_sampling_depth = cfg->callstack_depth > 0 ? cfg->callstack_depth
						     : PT_SAMPLING_DEFAULT_DEPTH;
	if (pt_sampling_depth > PT_CALLSTACK_MAX)
		pt_sampling_depth = PT_CALLSTACK_MAX;
	/* The program's action for the signal (SIG_DFL, or a handler a library
	 * installed already, or one it installs later) is kept behind ours. */
	if (pt_signal_adopt(PT_SAMPLING_SIGNAL, sample_handler) != 0) {
		pt_warn("sampling off: cannot install the handler for signal %d: %s",
			PT_SAMPLING_SIGNAL, strerror(errno));
		return;
	}
	pt_sampling_on = 1;
}

static void sampling_thread_start(pt_thread *t)
{
	if (!pt_sampling_on || (pt_st.active && pt_st.pid == getpid()))
		return;
	pt_st.active = 0; /* a timer of the parent, if any: not inherited */
	const pt_config *cfg = pt_config_get();
	int saved = errno;
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = PT_SAMPLING_SIGNAL;
	sev.sigev_value.sival_ptr = (void *)pt_sampling_cookie;
	sev._sigev_un._tid = (pid_t)pt_thread_tid(t);
	timer_t timer;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &timer) != 0) {
		static int warned;
		if (!warned++)
			pt_warn("sampling: timer_create failed on thread %u: %s; that thread is "
				"not sampled",
				pt_thread_tid(t), strerror(errno));
		errno = saved;
		return;
	}
	struct itimerspec its;
	its.it_interval.tv_sec = (time_t)(cfg->sampling_ns / 1000000000u);
	its.it_interval.tv_nsec = (long)(cfg->sampling_ns % 1000000000u);
	its.it_value = its.it_interval;
	if (timer_settime(timer, 0, &its, NULL) != 0) {
		timer_delete(timer);
		errno = saved;
		return;
	}
	pt_st.timer = timer;
	pt_st.pid = getpid();
	pt_st.dropped = 0;
	pt_rec_sampling_start info = {cfg->sampling_ns, (uint32_t)PT_SAMPLING_SIGNAL,
				      (uint32_t)pt_sampling_depth};
	pt_emit(t, PT_REC_SAMPLING_START, 0, &info, sizeof info);
	pt_st.active = 1;
	errno = saved;
}

static void sampling_thread_end(pt_thread *t)
{
	if (!pt_st.active)
		return;
	int saved = errno;
	/* A signal already pending still finds pt_st inactive-safe: the
	 * handler only writes through pt_enter(), which fails here (the thread
	 * is inside the runtime) and after the thread's log is closed. */
	pt_st.active = 0;
	if (pt_in_signal_shutdown()) {
		/* In a fatal signal's handler: disarmed (timer_settime is
		 * async-signal-safe, timer_delete is not), and the process ends. */
		struct itimerspec off;
		memset(&off, 0, sizeof off);
		timer_settime(pt_st.timer, 0, &off, NULL);
	} else {
		timer_delete(pt_st.timer);
	}
	if (t)
		report_dropped(t);
	errno = saved;
}

static void sampling_fork_child(void)
{
	/* POSIX timers are not inherited: forget the parent's without deleting
	 * (its id may now name a timer of this process). One this process
	 * armed itself stays. */
	if (pt_st.pid != getpid()) {
		pt_st.active = 0;
		pt_st.dropped = 0;
	}
}

PT_SUBSYSTEM(sampling_part) = {
	.name = "sampling",
	.order = PT_ORDER_SAMPLING,
	.init = sampling_init,
	.thread_start = sampling_thread_start,
	.thread_end = sampling_thread_end,
	.fork_child = sampling_fork_child,
};
