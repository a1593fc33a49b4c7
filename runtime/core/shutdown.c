/* SPDX-License-Identifier: MIT */
/* The process's end: exit(), _exit() or a fatal signal (pt_shutdown, the
 * logs part's shutdown), and what the threads that live on meanwhile see
 * (their events, their own end). Apart from core.c because it is a
 * protocol of its own (the asymmetric fence, the fate of each log) that
 * reads best in one place. */
#define _GNU_SOURCE
#include "core.h"
#include "core_life.h"
#include "pt_fd.h"
#include "pt_sys.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

/* ---- the process's end, seen by the threads that live on ------------ */

/* What seal_others did with a thread's log (pt_thread.exit_fate). NONE:
 * not yet (or it never will, once pt_exit_sealed is set: as LEFT). */
enum { PT_FATE_NONE = 0, PT_FATE_SEALED, PT_FATE_LEFT };
/* Set once seal_others is done with every thread it will look at. */
static atomic_int pt_exit_sealed;
/* How long a thread waits for seal_others to decide about its log. */
#define PT_FATE_WAIT_NS (50u * 1000 * 1000)

/* The thread's log, which seal_others left to it (LEFT), closed by the
 * thread itself: nothing can be writing into it meanwhile. */
static void close_left(pt_thread *t)
{
	atomic_store(&t->guard, 1);
	atomic_store(&t->closed, 1);
	pt_wlog_close_quiet(&t->log);
	atomic_store_explicit(&t->exit_fate, PT_FATE_SEALED, memory_order_release);
	atomic_store(&t->guard, 0);
}

/* Writes THREAD_END + CLOSE into the calling thread's own log. */
static void close_own(pt_thread *t, uint32_t extra_flags)
{
	pt_parts_thread_end(t);
	pt_rec_thread_end e = {t->end_retval, t->end_flags | extra_flags, 0};
	pt_wlog_put_final(&t->log, pt_now(), PT_REC_THREAD_END, 0, &e, sizeof e, NULL, 0);
	atomic_store(&t->closed, 1);
	pt_wlog_close(&t->log);
}

/* pthread key destructor: runs at thread exit (return, pthread_exit or
 * cancellation), after the thread's last user code and before its TLS goes
 * away. Never a cancellation point: a thread that returns while a cancel
 * is pending ends with its own return value, as untraced. */
void pt_thread_destructor(void *arg)
{
	pt_thread *t = arg;
	int saved = errno;
	int cancel = pt_nocancel_begin();
	pt_tls_state = PT_TLS_FINISHED;
	atomic_store(&t->guard, 1);
	int state = atomic_load(&pt_state);
	/* (Left to it by the process's end: it closes its log itself.) */
	if (state == PT_STATE_CLOSING && pt_process_is_mine() && !atomic_load(&t->closed) &&
	    (atomic_load(&t->exit_fate) == PT_FATE_LEFT ||
	     (atomic_load(&t->exit_fate) == PT_FATE_NONE && atomic_load(&pt_exit_sealed))))
		close_left(t);
	if (!pt_state_writable(state) || atomic_load(&t->closed) || !pt_process_is_mine()) {
		/* Shutdown owns the remaining logs now: nothing is written.
		 * What the parts hold for the thread goes (its counters'
		 * descriptors, its sampling timer: kept in its TLS, which goes
		 * away with it). */
		pt_parts_thread_end(NULL);
		pt_tls = NULL;
		atomic_store(&t->guard, 0);
		pt_nocancel_end(cancel);
		errno = saved;
		return;
	}
	close_own(t, 0);
	pt_tls = NULL;
	atomic_store(&t->guard, 0);
	pt_spin_lock(&pt_registry_lock);
	pt_registry_remove_locked(t);
	pt_spin_unlock(&pt_registry_lock);
	pt_thread_free(t);
	pt_nocancel_end(cancel);
	errno = saved;
}

/* pt_enter's guard and pt_shutdown's state form a Dekker pair: each side
 * stores its flag, then reads the other's. Both stores would need a full
 * fence (an xchg, ~9 ns on these VMs, twice per lock+unlock). With
 * membarrier(2) the fence is asymmetric: the rare side (shutdown) makes
 * every running thread of the process execute one, and the frequent side
 * only needs the compiler not to reorder (the pattern of liburcu's
 * urcu-memb). 0 where the kernel or a seccomp policy refuses it: plain
 * seq_cst stores then. */
int pt_asym_fence;

void pt_asym_fence_register(void)
{
	pt_asym_fence =
	    pt_sys3(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

/* After a store of pt_state that threads in pt_enter must not miss: every
 * guard stored before it by another thread is now visible here. It cannot
 * fail once registered; if it did, a thread entering now could write into
 * a log being sealed, which keeps its mapping: that record would be lost,
 * nothing would break. */
static void state_store_fence(void)
{
	if (pt_asym_fence)
		pt_sys3(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}

/* An event of a thread that lives on while exit() or _exit() ends the
 * process (state CLOSING): its log is closed (by seal_others, or here)
 * and the event counted in a LOST record in front of its CLOSE, so that
 * the trace says how many calls it made after its log ended. Waits (for
 * a bounded time) only while seal_others is deciding about this log:
 * the thread's own, never the exit's. Always NULL: nothing is written. */
__attribute__((noinline, cold)) pt_thread *pt_enter_ending(pt_thread *t)
{
	if (!pt_process_is_mine())
		return NULL;
	uint64_t start = 0;
	for (unsigned n = 0;; n++) {
		int fate = atomic_load_explicit(&t->exit_fate, memory_order_acquire);
		if (fate == PT_FATE_NONE && atomic_load(&pt_exit_sealed))
			fate = PT_FATE_LEFT;
		if (fate == PT_FATE_LEFT && !atomic_load(&t->closed))
			close_left(t);
		if (fate != PT_FATE_NONE)
			break;
		/* The clock only once the pauses are over: a decision is a few
		 * microseconds away unless the ending thread was preempted. */
		if (n == PT_SPIN_PAUSES)
			start = pt_mono_ns();
		else if (n > PT_SPIN_PAUSES && pt_mono_ns() - start > PT_FATE_WAIT_NS) {
			atomic_fetch_add(&pt_total_lost_records, 1);
			return NULL;
		}
		pt_spin_wait_once(n);
	}
	pt_wlog_note_after_close(&t->log);
	return NULL;
}

/* ---- exit ------------------------------------------------------------- */

void pt_publish_fence(void)
{
	atomic_thread_fence(memory_order_seq_cst);
}

/* How and with which status the process ends, for pt_logs_shutdown. */
static int pt_end_how, pt_end_status;
/* Set on the thread that runs pt_shutdown from a fatal signal's handler. */
static __thread int pt_signal_shutdown __attribute__((tls_model("initial-exec")));

int pt_in_signal_shutdown(void)
{
	return pt_signal_shutdown;
}

void pt_shutdown(int how, int status)
{
	static atomic_int started;
	int in_signal = how == PT_EXIT_SIGNAL || how == PT_EXIT_ABORT;
	/* A child of a raw fork that raised no event yet: its state is rebuilt
	 * first (not in a signal handler: that creates files), so that it is
	 * its own logs that end here. */
	if (atomic_load(&pt_state) != PT_STATE_RUNNING ||
	    (!pt_process_is_mine() && (in_signal || !pt_adopt_child())) || atomic_exchange(&started, 1))
		return;
	int saved = errno;
	int cancel = pt_nocancel_begin();
	pt_end_how = how;
	pt_end_status = status;
	pt_signal_shutdown = in_signal;
	/* Backward: the GPU parts first, while tracing is still on (device
	 * records in flight are drained into their logs), then the logs. */
	pt_parts_shutdown(in_signal);
	uint64_t lr = atomic_load(&pt_total_lost_records);
	if (lr)
		pt_warn("%" PRIu64 " records (%" PRIu64 " bytes) were lost in %s/%s (disk full, "
		        "PARATRACE_MAX_SIZE, out of memory, or raised by a signal handler that "
		        "interrupted the tracer); see the LOST records",
		        lr, (uint64_t)atomic_load(&pt_total_lost_bytes), pt_run_info.dir,
		        pt_run_info.pdir_name);
	pt_nocancel_end(cancel);
	errno = saved;
}

/* Waits, a few microseconds at most, until thread t is outside the
 * runtime and its hooks' fast path. 0 when it is; 1 when it is still in
 * the fast path (the owner was preempted there); 2 when it is inside the
 * runtime (a window switch, an interposed call's records). */
static int wait_quiet(pt_thread *t)
{
	for (unsigned n = 0;; n++) {
		int guard = atomic_load(&t->guard);
		int hook = __atomic_load_n(&t->log.in_hook, __ATOMIC_ACQUIRE);
		if (!guard && !hook)
			return 0;
		if (n >= PT_SPIN_PAUSES + 8)
			return guard ? 2 : 1;
		pt_spin_wait_once(n);
	}
}

/* exit() or _exit() while other threads run: each of their logs is closed
 * (CLOSE, trimmed) by this thread, or left to its owner, which closes it
 * at its next event (pt_enter_ending, or its end: pt_thread_destructor); the
 * events they raise after that are counted in a LOST record (reason
 * ENDED) in front of the CLOSE. Either way every call they complete is in
 * the trace or counted, and the exit never waits for them: at most a few
 * microseconds per thread caught inside a record.
 *
 * Why this is exact: the fast path reads limit after setting in_hook, the
 * slow path reads the state after setting guard. This thread stores both
 * (limit NULL, state CLOSING), then membarrier (state_store_fence) makes
 * every other thread run a full barrier: a thread that is then outside
 * both (guard and in_hook 0) has published every record it wrote, and
 * its next event sees limit NULL and CLOSING, so it never writes into the
 * log again. A thread inside either is waited for briefly; its limit is
 * stored again once it is out (pt_leave may have re-opened it) and the
 * barrier repeated. A thread still in the fast path after that (it was
 * preempted there) stores at most one record, with the limit it read
 * before: its file is trimmed just past that record and the log left to
 * it (if it never runs again, its log ends there without CLOSE, every
 * record kept). Without membarrier (a kernel before 4.14, or a seccomp
 * policy) the fast path has no barrier to pair with: every log is left to
 * its owner, untrimmed. */
static void seal_others(pt_thread *self)
{
	if (pt_spin_trylock_for(&pt_registry_lock, 20000) != 0)
		goto done; /* every log is left to its owner */
	for (pt_thread *t = pt_registry; t; t = t->next)
		if (t != self && !atomic_load(&t->closed))
			__atomic_store_n(&t->log.limit, NULL, __ATOMIC_RELAXED);
	state_store_fence();
	for (pt_thread *t = pt_registry; t; t = t->next) {
		if (t == self || atomic_load(&t->closed))
			continue;
		int busy = pt_asym_fence ? wait_quiet(t) : 2;
		if (!busy && atomic_load(&t->log.limit)) {
			/* re-opened by pt_leave before the thread saw CLOSING */
			__atomic_store_n(&t->log.limit, NULL, __ATOMIC_RELAXED);
			state_store_fence();
			busy = wait_quiet(t);
		}
		int fate = busy ? PT_FATE_LEFT : PT_FATE_SEALED;
		if (!busy) {
			atomic_store(&t->closed, 1);
			pt_wlog_close_quiet(&t->log);
		} else if (busy == 1) {
			/* In the fast path, storing one record: the file ends just
			 * past it, in case the thread never runs again. */
			pt_wlog_trim_live(&t->log);
		}
		atomic_store_explicit(&t->exit_fate, fate, memory_order_release);
	}
	pt_spin_unlock(&pt_registry_lock);
done:
	atomic_store(&pt_exit_sealed, 1);
}

/* Every step is bounded (locks tried for a while, threads inside the
 * runtime waited for a while), and from a fatal signal's handler
 * async-signal-safe.
 *
 * From a fatal signal, the other threads' logs are left to them: they run
 * on until the kernel ends the process, a moment later, and what they
 * write meanwhile is in their files (shared mappings; the zeros after it
 * are the end mark, as after SIGKILL). Sealing them (trimmed, no more
 * writes) dropped those calls without a trace: 1,000 to 36,000 completed
 * calls per busy thread, in half the runs. On exit() and _exit() they are
 * closed, by this thread or by their owners (seal_others): the process
 * ends as soon as this thread is done, and the files end complete. */
void pt_logs_shutdown(int in_signal)
{
	atomic_store(&pt_state, in_signal ? PT_STATE_DYING : PT_STATE_CLOSING);
	state_store_fence();
	pt_thread *self = pt_tls;
	if (self && !atomic_load(&self->closed) && !atomic_load(&self->guard)) {
		atomic_store(&self->guard, 1);
		close_own(self, PT_THREAD_END_PROCESS);
	}
	if (!in_signal)
		seal_others(self);
	pt_log_files_seal();
	pt_process_close(pt_end_how, pt_end_status);
}

