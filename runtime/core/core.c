/* SPDX-License-Identifier: MIT */
/* Runtime lifecycle: init (constructor, or lazily at the first event of any
 * thread), the trace directory, per-thread state, exit, fork and exec. */
#define _GNU_SOURCE
#include "core.h"
#include "pt_fd.h"
#include "pt_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

atomic_int pt_state;
pt_run pt_run_info = {.dirfd = -1, .pdirfd = -1};
pt_spin pt_registry_lock;
pt_thread *pt_registry;
__thread pt_thread *pt_tls __attribute__((tls_model("initial-exec")));
__thread int pt_tls_state __attribute__((tls_model("initial-exec")));

static pthread_key_t pt_thread_key;
static int pt_init_tid;
static int pt_exit_how = PT_EXIT_NORMAL;
static int pt_exit_code;


int pt_tracing(void)
{
	return atomic_load_explicit(&pt_state, memory_order_acquire) == PT_STATE_RUNNING;
}

int pt_tracing_start(void)
{
	if (pt_ensure_initialized())
		return 1;
	int s = atomic_load_explicit(&pt_state, memory_order_acquire);
	return s == PT_STATE_RUNNING ? 1 : s == PT_STATE_INITIALIZING ? -1 : 0;
}

int pt_process_file_path(const char *name, char *buf, size_t len)
{
	if (!pt_tracing())
		return -1;
	int n = snprintf(buf, len, "%s/%s/%s", pt_run_info.dir, pt_run_info.pdir_name, name);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

uint32_t pt_thread_tid(const pt_thread *t)
{
	return t->tid;
}

/* ---- threads ------------------------------------------------------------ */

static void registry_add(pt_thread *t)
{
	pt_spin_lock(&pt_registry_lock);
	t->prev = NULL;
	t->next = pt_registry;
	if (pt_registry)
		pt_registry->prev = t;
	pt_registry = t;
	pt_spin_unlock(&pt_registry_lock);
}

static void registry_remove_locked(pt_thread *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else if (pt_registry == t)
		pt_registry = t->next;
	if (t->next)
		t->next->prev = t->prev;
	t->next = t->prev = NULL;
}

/* A thread's state straddles two pages. The fields the hooks' fast path
 * uses (the log's first PT_THREAD_HOT bytes: position, limit, previous
 * time and function, in_hook) end a page marked MADV_WIPEONFORK; the rest
 * starts the next page. A child made without the atfork handlers (a raw
 * fork or clone(SIGCHLD) system call) keeps the thread's TLS pointer, but
 * sees those fields zero: limit NULL sends its first event to the slow
 * path instead of a store into a window it does not have (MADV_DONTFORK),
 * and cur NULL tells pt_enter that this state is not the child's
 * (adopt_child). The fast path still reads one cache line. */
#define PT_THREAD_HOT offsetof(pt_wlog, masked)
_Static_assert(offsetof(pt_thread, log) == 0 && offsetof(pt_wlog, cur) < PT_THREAD_HOT &&
                   offsetof(pt_wlog, limit) < PT_THREAD_HOT &&
                   offsetof(pt_wlog, last) < PT_THREAD_HOT &&
                   offsetof(pt_wlog, last_func) < PT_THREAD_HOT &&
                   offsetof(pt_wlog, in_hook) < PT_THREAD_HOT &&
                   PT_THREAD_HOT % _Alignof(pt_thread) == 0 && PT_THREAD_HOT <= 64,
               "the fast path's fields are the first PT_THREAD_HOT bytes of a thread's state");
static size_t pt_page;

static size_t thread_span(void)
{
	return pt_page + ((sizeof(pt_thread) - PT_THREAD_HOT + pt_page - 1) & ~(pt_page - 1));
}

static pt_thread *thread_alloc(void)
{
	char *p = pt_pages_alloc(thread_span());
	if (!p)
		return NULL;
	madvise(p, pt_page, MADV_WIPEONFORK); /* best effort: kernels since 4.14 */
	return (pt_thread *)(void *)(p + pt_page - PT_THREAD_HOT);
}

static void thread_free(pt_thread *t)
{
	if (t)
		pt_pages_free((char *)t + PT_THREAD_HOT - pt_page, thread_span());
}

/* One word on a MADV_WIPEONFORK page, 1 once this process's tracing state
 * is its own: 0 in any fork child until pt_fork_child (atfork) or, after
 * a raw fork, the first event that finds it (adopt_child) has either
 * rebuilt the state for the child or turned tracing off there. NULL when
 * the page could not be had: every process then counts as its own. */
static int *pt_owner_mark;

static int process_is_mine(void)
{
	int *m = pt_owner_mark;
	return !m || __atomic_load_n(m, __ATOMIC_ACQUIRE);
}

static void owner_mark_init(void)
{
	int *m = pt_pages_alloc(pt_page);
	if (m && madvise(m, pt_page, MADV_WIPEONFORK) != 0) {
		pt_pages_free(m, pt_page);
		m = NULL;
	}
	if (m)
		*m = 1;
	pt_owner_mark = m;
}

static int adopt_child(void);

int pt_state_is_mine(void)
{
	return process_is_mine() || adopt_child();
}

/* Opens t<tid>.ptl (t<tid>.<k>.ptl when the kernel reused the tid). */
static int open_thread_log(pt_thread *t)
{
	pt_file_params p = {PT_FILE_THREAD, t->tid, 0};
	int r = -EEXIST;
	for (unsigned k = 0; k < 10000 && r == -EEXIST; k++) {
		char name[48];
		if (k)
			snprintf(name, sizeof name, "t%u.%u.ptl", t->tid, k);
		else
			snprintf(name, sizeof name, "t%u.ptl", t->tid);
		r = pt_wlog_create(&t->log, &pt_run_info.pdirfd, name, &p);
	}
	return r;
}

static void emit_thread_start(pt_thread *t, const pt_rec_thread_start *start)
{
	pt_rec_thread_start s = {0, 0, 0, 0};
	if (start)
		s = *start;
	else if (t->tid == pt_run_info.pid)
		s.flags = PT_THREAD_MAIN;
	pt_wlog_put(&t->log, pt_now(), PT_REC_THREAD_START, 0, &s, sizeof s, NULL, 0);
}

/* Counters read at every function event: keep the thread off the fast
 * path (pt_hook_slow reads them) instead of testing a flag on it. */
static void keep_slow_if_needed(pt_thread *t)
{
	if (pt_counters_at_mask & PT_COUNTERS_AT_FUNCTIONS)
		t->log.slow = 1;
}

pt_thread *pt_thread_create(const pt_rec_thread_start *start)
{
	if (pt_tls)
		return pt_tls;
	if (pt_tls_state == PT_TLS_FINISHED || pt_tls_state == PT_TLS_CREATING ||
	    !pt_ensure_initialized() || (!process_is_mine() && !adopt_child()))
		return NULL;
	if (pt_tls) /* the init just run created this (main) thread's state */
		return pt_tls;
	int saved = errno;
	int cancel = pt_nocancel_begin();
	pt_tls_state = PT_TLS_CREATING;
	pt_thread *t = thread_alloc();
	if (!t) {
		atomic_fetch_add(&pt_total_lost_records, 1);
		pt_tls_state = PT_TLS_NEW;
		pt_nocancel_end(cancel);
		errno = saved;
		return NULL;
	}
	t->tid = pt_gettid();
	atomic_store(&t->guard, 1);
	int r = open_thread_log(t);
	if (r != 0) {
		static atomic_int warned;
		if (!atomic_exchange(&warned, 1))
			pt_warn("cannot create the log of thread %u in %s/%s: %s; that thread is "
				"not traced",
				t->tid, pt_run_info.dir, pt_run_info.pdir_name, strerror(-r));
		thread_free(t);
		pt_tls_state = PT_TLS_FINISHED;
		pt_nocancel_end(cancel);
		errno = saved;
		return NULL;
	}
	/* Inside the runtime until pt_leave: hooks take the slow path. */
	__atomic_store_n(&t->log.limit, NULL, __ATOMIC_RELAXED);
	keep_slow_if_needed(t);
	registry_add(t);
	pthread_setspecific(pt_thread_key, t);
	pt_tls = t;
	pt_tls_state = PT_TLS_ACTIVE;
	emit_thread_start(t, start);
	pt_parts_thread_start(t);
	pt_leave(t);
	pt_nocancel_end(cancel);
	errno = saved;
	return t;
}

void pt_thread_start(const pt_rec_thread_start *start)
{
	if (!pt_tls)
		pt_thread_create(start);
}

void pt_thread_share(void)
{
	pt_thread *t = pt_tls;
	if (!t || t->shared)
		return;
	t->shared = 1;
	t->log.slow = 1;
	__atomic_store_n(&t->log.limit, NULL, __ATOMIC_RELAXED);
	atomic_thread_fence(memory_order_seq_cst);
}

void pt_thread_note_end(uint64_t retval, uint32_t flags)
{
	pt_thread *t = pt_tls;
	if (t) {
		t->end_retval = retval;
		t->end_flags = flags;
	}
}

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
static void thread_destructor(void *arg)
{
	pt_thread *t = arg;
	int saved = errno;
	int cancel = pt_nocancel_begin();
	pt_tls_state = PT_TLS_FINISHED;
	atomic_store(&t->guard, 1);
	int state = atomic_load(&pt_state);
	/* (Left to it by the process's end: it closes its log itself.) */
	if (state == PT_STATE_CLOSING && process_is_mine() && !atomic_load(&t->closed) &&
	    (atomic_load(&t->exit_fate) == PT_FATE_LEFT ||
	     (atomic_load(&t->exit_fate) == PT_FATE_NONE && atomic_load(&pt_exit_sealed))))
		close_left(t);
	if (!pt_state_writable(state) || atomic_load(&t->closed) || !process_is_mine()) {
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
	registry_remove_locked(t);
	pt_spin_unlock(&pt_registry_lock);
	thread_free(t);
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
static int pt_asym_fence;

static void asym_fence_register(void)
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
static __attribute__((noinline, cold)) pt_thread *enter_ending(pt_thread *t)
{
	if (!process_is_mine())
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

pt_thread *pt_enter(void)
{
	pt_thread *t = pt_tls;
	/* cur is NULL in a closed log, and in a child of a raw fork, whose
	 * copy of the thread's state is not its own (thread_alloc). */
	if (pt_unlikely(t && !t->log.cur)) {
		if (process_is_mine() || !adopt_child())
			return NULL;
		t = pt_tls;
	}
	if (pt_unlikely(!t)) {
		if (pt_tls_state == PT_TLS_FINISHED)
			return NULL;
		t = pt_thread_create(NULL);
		if (!t)
			return NULL;
	}
	/* Also not from a signal handler that interrupted a hook's fast path
	 * (in_hook): a record written now would land on the one in progress. */
	if (atomic_load_explicit(&t->guard, memory_order_relaxed) ||
	    __atomic_load_n(&t->log.in_hook, __ATOMIC_RELAXED))
		return NULL;
	if (pt_unlikely(t->shared)) {
		/* Another thread runs with this state too (pt_thread_share): the
		 * guard is a lock between them; the loser's event is counted. */
		int free_guard = 0;
		if (!atomic_compare_exchange_strong(&t->guard, &free_guard, 1))
			return NULL;
	} else if (pt_likely(pt_asym_fence)) {
		atomic_store_explicit(&t->guard, 1, memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst);
	} else {
		atomic_store(&t->guard, 1); /* seq_cst: pairs with pt_shutdown's state store */
	}
	__atomic_store_n(&t->log.limit, NULL, __ATOMIC_RELAXED);
	int s = atomic_load(&pt_state);
	if (pt_unlikely(!pt_state_writable(s) || t->log.dead)) {
		atomic_store(&t->guard, 0);
		return s == PT_STATE_CLOSING ? enter_ending(t) : NULL;
	}
	return t;
}

void pt_leave(pt_thread *t)
{
	/* Re-open the fast path (closed by pt_enter so that a hook raised by a
	 * signal handler while we write cannot append into the same bytes).
	 * Not once the process is ending: the thread's next event must come
	 * here, where its log is closed (enter_ending). */
	if (!t->log.dead && !t->log.slow && !t->forking && t->log.retry_countdown == 0 &&
	    atomic_load_explicit(&pt_state, memory_order_relaxed) != PT_STATE_CLOSING)
		__atomic_store_n(&t->log.limit, pt_wlog_fast_end(&t->log), __ATOMIC_RELAXED);
	atomic_store_explicit(&t->guard, 0, memory_order_release);
	/* Signals a window switch held back are delivered now, outside. */
	if (pt_unlikely(t->log.masked))
		pt_wlog_unmask(&t->log);
}

void pt_emit(pt_thread *t, unsigned kind, unsigned arg, const void *payload, size_t len)
{
	pt_wlog_put(&t->log, pt_now(), kind, arg, payload, len, NULL, 0);
}

void pt_emit2(pt_thread *t, unsigned kind, unsigned arg, const void *p1, size_t len1,
	      const void *p2, size_t len2)
{
	pt_wlog_put(&t->log, pt_now(), kind, arg, p1, len1, p2, len2);
}

void pt_emit_lock_at(pt_thread *t, uint64_t ticks, unsigned kind, unsigned type, uint64_t obj,
		     int result)
{
	pt_wlog_put_lock(&t->log, ticks, kind, type, obj, result);
}

void pt_emit_at(pt_thread *t, uint64_t ticks, unsigned kind, unsigned arg, const void *payload,
		size_t len)
{
	pt_wlog_put(&t->log, ticks, kind, arg, payload, len, NULL, 0);
}

/* ---- init --------------------------------------------------------------- */

static const char *env_get(const char *name)
{
	return getenv(name);
}

static int pt_on_exit_registered;

/* The end of the process. A preloaded library's constructor runs before
 * libc registers the dynamic loader's finalizer, so this handler runs
 * after every destructor (C++ statics, other libraries' fini): their
 * events are traced, and the exit status is known here. */
static void on_exit_handler(int status, void *arg)
{
	(void)arg;
	if (pt_exit_how == PT_EXIT_NORMAL)
		pt_exit_code = status;
	pt_shutdown(pt_exit_how, pt_exit_code);
}

void pt_exit_status(int how, int status)
{
	pt_exit_how = how;
	pt_exit_code = status;
}

static void fail_init(const char *msg)
{
	pt_warn("%s; tracing disabled (the program runs untraced)", msg);
	atomic_store(&pt_state, PT_STATE_OFF);
}

/* A setting for a part this build left out does nothing: say so, once. */
static void warn_absent_parts(void)
{
	static const struct {
		const char *part, *variable, *option;
	} needs[] = {
		{"counters", "PARATRACE_COUNTERS", "PT_WITH_PFM"},
		{"callstack", "PARATRACE_CALLSTACK", "PT_WITH_UNWIND"},
		{"sampling", "PARATRACE_SAMPLING", "PT_WITH_UNWIND"},
	};
	int set[] = {pt_cfg.counters && *pt_cfg.counters, pt_cfg.callstack_depth > 0,
		     pt_cfg.sampling_ns > 0};
	for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
		if (set[i] && !pt_part_find(needs[i].part))
			pt_warn("%s is ignored: this libtrace.so was built without %s (%s=OFF)",
				needs[i].variable, needs[i].part, needs[i].option);
}

void pt_init(void)
{
	int expect = PT_STATE_UNINIT;
	if (!atomic_compare_exchange_strong(&pt_state, &expect, PT_STATE_INITIALIZING))
		return;
	int saved = errno;
	int cancel = pt_nocancel_begin(); /* init may run in any thread's first event */
	pt_init_tid = (int)pt_gettid();
	/* Before any thread can find the state RUNNING and walk it. */
	pt_parts_collect();
	char err[512];
	/* setuid, setgid or file capabilities (libtrace.so reached through
	 * DT_NEEDED or /etc/ld.so.preload): the environment is the invoking
	 * user's, and acting on it with the program's privileges would create
	 * directories and files wherever PARATRACE_DIR says. */
	if (getauxval(AT_SECURE)) {
		fail_init("a privileged program (setuid, setgid or file capabilities) is never "
			  "traced");
		goto out;
	}
	if (pt_config_parse(&pt_cfg, env_get, err, sizeof err) != 0) {
		fail_init(err);
		goto out;
	}
	if (!pt_cfg.enabled) {
		atomic_store(&pt_state, PT_STATE_OFF);
		goto out;
	}
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	pt_page = ps;
	owner_mark_init();
	pt_window_size = (pt_cfg.buffer_size + ps - 1) & ~(ps - 1);
	pt_max_file_size = pt_cfg.max_size;
	pt_prefault_mode = pt_cfg.prefault;

	pt_run_info.pid = (uint32_t)getpid();
	pt_run_info.ppid = (uint32_t)getppid();
	snprintf(pt_run_info.program, sizeof pt_run_info.program, "%s",
		 program_invocation_short_name && *program_invocation_short_name
			 ? program_invocation_short_name
			 : "program");

	pt_clock_cal inherited, *inh = NULL;
	const char *run = getenv(PT_RUN_ENV);
	if (run && *run) {
		if (pt_run_env_parse(run, &pt_run_info.run_id, &inherited, pt_run_info.dir,
				     sizeof pt_run_info.dir) == 0) {
			inh = &inherited;
			pt_run_info.hdr_flags |= PT_HDR_FLAG_EXECED;
		} else {
			pt_warn("ignoring malformed %s (set by paratrace for exec'd programs); "
				"starting a new trace",
				PT_RUN_ENV);
		}
	}
	/* A rank of a parallel job: the job's run and directory */
	pt_run_job job = {0};
	pt_parts_join(&job);
	if (job.run_id) {
		pt_run_info.job_rank1 = job.rank + 1;
		pt_run_info.job_size = job.size;
		pt_run_info.job_world = job.world;
	}
	if (!inh) {
		if (job.run_id)
			pt_run_info.run_id = job.run_id;
		else if (getrandom(&pt_run_info.run_id, sizeof pt_run_info.run_id, GRND_NONBLOCK) !=
			 sizeof pt_run_info.run_id)
			pt_run_info.run_id = pt_mono_ns() ^ ((uint64_t)pt_run_info.pid << 32);
		if (pt_cfg.dir)
			snprintf(pt_run_info.dir, sizeof pt_run_info.dir, "%s", pt_cfg.dir);
		else if (job.dir[0])
			snprintf(pt_run_info.dir, sizeof pt_run_info.dir, "%s", job.dir);
		else
			pt_default_dir(pt_run_info.dir, sizeof pt_run_info.dir);
		pt_absolutize(pt_run_info.dir, sizeof pt_run_info.dir);
	}
	if (pt_clock_init(pt_config_clock, inh, err, sizeof err) != 0) {
		fail_init(err);
		goto out;
	}
	if (pt_open_trace_dir(pt_run_info.dir, &pt_run_info.dirfd, err, sizeof err) != 0) {
		fail_init(err);
		goto out;
	}
	if (pt_make_process_dir(err, sizeof err) != 0) {
		fail_init(err);
		goto out;
	}
	if (pthread_key_create(&pt_thread_key, thread_destructor) != 0) {
		fail_init("cannot create a thread key");
		goto out;
	}
	if (pt_process_open(0) != 0)
		goto out; /* warned */
	pt_on_exit_registered = on_exit(on_exit_handler, NULL) == 0;
	asym_fence_register();
	atomic_store(&pt_state, PT_STATE_RUNNING);
	pt_debug(1, "tracing to %s/%s (clock %s)", pt_run_info.dir, pt_run_info.pdir_name,
		 pt_clock.source == PT_CLOCK_TSC ? "tsc" : "monotonic");
	pt_parts_init();
	warn_absent_parts();
	/* The main thread's log exists from the start, so THREAD_START (MAIN)
	 * is its first event even if it never calls an instrumented function. */
	pt_thread_create(NULL);
out:
	pt_nocancel_end(cancel);
	errno = saved;
}

/* Waits for an init running on another thread (module registration must
 * not be skipped because it raced with a slow calibration). */
int pt_ensure_initialized_wait(void)
{
	for (;;) {
		int s = atomic_load(&pt_state);
		if (s == PT_STATE_UNINIT) {
			pt_init();
			continue;
		}
		if (s != PT_STATE_INITIALIZING)
			return s == PT_STATE_RUNNING;
		if (pt_init_tid == (int)pt_gettid())
			return 0;
		sched_yield();
	}
}

__attribute__((constructor(101))) static void pt_constructor(void)
{
	pt_init();
}

/* Only when on_exit could not be registered: the handler above does it. */
__attribute__((destructor(101))) static void pt_destructor(void)
{
	if (!pt_on_exit_registered)
		pt_shutdown(pt_exit_how, pt_exit_code);
}

/* ---- exit ------------------------------------------------------------- */

void pt_publish_fence(void)
{
	atomic_thread_fence(memory_order_seq_cst);
}

/* How and with which status the process ends, for logs_shutdown. */
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
	    (!process_is_mine() && (in_signal || !adopt_child())) || atomic_exchange(&started, 1))
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
 * at its next event (enter_ending, or its end: thread_destructor); the
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
static void logs_shutdown(int in_signal)
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

/* ---- fork / exec ------------------------------------------------------ */

/* Set while pt_fork_prepare holds the locks a fork child needs consistent
 * (registry, process log, descriptors), until pt_fork_parent releases
 * them: a child that finds it set (its copy) inherited them held by that
 * fork, whatever made the child. */
static int pt_fork_locks_held;
/* The child being rebuilt was made by a raw fork (adopt_child): the
 * parent's other thread states are forgotten, not freed (whichever thread
 * of the child rebuilds it, another may still point at its own). */
static int pt_fork_raw;

void pt_fork_prepare(void)
{
	if ((!process_is_mine() && !adopt_child()) || !pt_tracing())
		return;
	pt_thread *t = pt_tls;
	if (t) {
		t->forking = 1;
		__atomic_store_n(&t->log.limit, NULL, __ATOMIC_RELAXED);
	}
	pt_clock_fork_prepare();
	pt_spin_lock(&pt_registry_lock);
	pt_process_lock_fork();
	pt_fd_fork_prepare();
	pt_fork_locks_held = 1;
}

void pt_fork_parent(void)
{
	if (!pt_tracing())
		return;
	pt_fork_locks_held = 0;
	pt_fd_fork_parent();
	pt_process_unlock_fork(0);
	pt_spin_unlock(&pt_registry_lock);
	pt_thread *t = pt_tls;
	if (t) {
		t->forking = 0;
		if (!atomic_load(&t->guard) && !t->log.dead && !t->log.slow)
			__atomic_store_n(&t->log.limit, pt_wlog_fast_end(&t->log), __ATOMIC_RELAXED);
	}
}

/* The parent's logs, threads and process folder are the parent's: the
 * child forgets them and starts its own folder and process log. */
static void logs_fork_child(void)
{
	pt_process_unlock_fork(1);
	pt_spin_reset(&pt_registry_lock);
	/* The registration belongs to the address space: the child has none
	 * (and is single-threaded here, so switching modes is safe). */
	asym_fence_register();
	uint32_t parent = pt_run_info.pid;
	pt_run_info.pid = (uint32_t)getpid();
	pt_run_info.ppid = parent;
	pt_run_info.hdr_flags = PT_HDR_FLAG_FORKED;
	pt_run_info.job_rank1 = 0; /* a child of a rank is not that rank */
	pt_run_info.job_world = 0;
	pt_thread *self = pt_tls;
	/* Only this thread exists here. The parent's windows were not
	 * inherited (MADV_DONTFORK); drop the descriptors without touching
	 * the parent's files. This thread's state is reused by
	 * restart_thread_in_child. */
	for (pt_thread *t = pt_registry, *next; t; t = next) {
		next = t->next;
		pt_wlog_forget(&t->log);
		if (t != self && !pt_fork_raw)
			thread_free(t);
	}
	pt_registry = NULL;
	pt_log_files_forget();
	char err[512];
	err[0] = '\0';
	if (pt_make_process_dir(err, sizeof err) != 0 || pt_process_open(1) != 0) {
		if (err[0])
			pt_warn("%s; the child process is not traced", err);
		atomic_store(&pt_state, PT_STATE_OFF);
	}
}

/* The forking thread, now the child's only one: a new log, started like
 * a new thread's once every part has forgotten the parent's state. */
static void restart_thread_in_child(void)
{
	pt_thread *self = pt_tls;
	if (!self || !pt_tracing())
		return;
	uint64_t retval = self->end_retval;
	uint32_t flags = self->end_flags;
	memset(self, 0, sizeof *self);
	self->end_retval = retval;
	self->end_flags = flags;
	self->tid = pt_gettid();
	atomic_store(&self->guard, 1);
	if (open_thread_log(self) != 0) {
		pt_tls = NULL;
		pt_tls_state = PT_TLS_FINISHED;
		thread_free(self);
		return;
	}
	keep_slow_if_needed(self);
	registry_add(self);
	pt_rec_thread_start s = {0, 0, PT_THREAD_MAIN, 0};
	emit_thread_start(self, &s);
	pt_parts_thread_start(self);
	pt_leave(self);
}

/* The locks pt_fork_prepare takes, for a child no atfork handler ran in:
 * taken if they are free; one that is held was held by a thread of the
 * parent, which may have left what it guards half changed: 0 then. */
static int take_fork_locks(void)
{
	if (!pt_spin_trylock(&pt_registry_lock))
		return 0;
	if (pt_process_trylock_fork() != 0) {
		pt_spin_unlock(&pt_registry_lock);
		return 0;
	}
	if (pt_fd_fork_trylock() != 0) {
		pt_process_unlock_fork(0);
		pt_spin_unlock(&pt_registry_lock);
		return 0;
	}
	return 1;
}

/* The child of a fork does not trace on with the parent's state: it
 * rebuilds its own (a process folder and process log, a log for this
 * thread), as if it were a new process. After a fork that went through
 * glibc (pt_fork_child, from the atfork handler), or at the first event
 * of a child that no handler ran in (a raw fork or clone system call,
 * which shares no memory with the parent: the owner mark is zero there).
 * When that cannot be done safely (tracing was ending, or another thread
 * of the parent held a lock whose data the child would read), the child
 * runs untraced. Once per child; 1 when it is traced. */
static int adopt_child(void)
{
	static atomic_int adopting;
	int *mark = pt_owner_mark;
	if (mark && __atomic_load_n(mark, __ATOMIC_ACQUIRE))
		return pt_tracing(); /* rebuilt already (an atfork handler before ours) */
	if (atomic_exchange(&adopting, 1))
		return 0; /* another thread of the child is at it: this event is dropped */
	int saved = errno;
	int state = atomic_load(&pt_state);
	pt_fork_raw = !pt_fork_locks_held;
	int locked = pt_fork_locks_held || (state == PT_STATE_RUNNING && take_fork_locks());
	pt_fork_locks_held = 0;
	/* From here the state is the child's: the process log the rebuild
	 * opens is written to (pt_state_is_mine). */
	if (mark)
		__atomic_store_n(mark, 1, __ATOMIC_RELEASE);
	int ok = 0;
	if (locked) {
		/* The descriptor lock (the registry's and the process log's are
		 * the logs part's, released by its fork_child). */
		pt_fd_fork_child();
		if (state == PT_STATE_RUNNING) {
			pt_clock_fork_child();
			pt_parts_fork_child();
			restart_thread_in_child();
			ok = pt_tracing();
		} else {
			pt_process_unlock_fork(1);
			pt_spin_reset(&pt_registry_lock);
		}
	}
	/* (A child of a parent that had not started tracing yet still may.) */
	if (!ok && state != PT_STATE_UNINIT && state != PT_STATE_INITIALIZING) {
		atomic_store(&pt_state, PT_STATE_OFF);
		pt_tls = NULL;
		pt_tls_state = PT_TLS_FINISHED;
	}
	atomic_store(&adopting, 0);
	errno = saved;
	return ok;
}

/* Also when tracing ended between the prepare handler and this one: the
 * locks it took are released. */
void pt_fork_child(void)
{
	if (pt_tracing() || pt_fork_locks_held)
		adopt_child();
}

/* The new image writes into the same run: PARATRACE_RUN in environ. */
static void logs_exec(void)
{
	char buf[sizeof pt_run_info.dir + 128];
	if (pt_run_env_format(buf, sizeof buf) == 0)
		setenv(PT_RUN_ENV, buf, 1);
}

void pt_exec_prepare(void)
{
	if (!pt_tracing())
		return;
	pt_parts_exec();
	pt_publish_fence();
}

pt_thread *pt_exec_close(void)
{
	if (!pt_tracing())
		return NULL;
	pt_thread *t = pt_enter();
	if (!t)
		return NULL;
	int saved = errno;
	pt_wlog_suspend(&t->log);
	pt_process_suspend();
	pt_log_files_suspend();
	pt_publish_fence();
	errno = saved;
	return t;
}

void pt_exec_failed(pt_thread *t)
{
	if (!t)
		return;
	int saved = errno;
	pt_log_files_resume();
	pt_process_resume();
	pt_wlog_resume(&t->log);
	pt_leave(t);
	errno = saved;
}

PT_SUBSYSTEM(logs_part) = {
	.name = "logs",
	.order = PT_ORDER_LOGS,
	.fork_child = logs_fork_child,
	.exec = logs_exec,
	.shutdown = logs_shutdown,
};

const char *pt_run_env_string(void)
{
	static char buf[sizeof pt_run_info.dir + 128 + sizeof PT_RUN_ENV];
	if (!pt_tracing())
		return NULL;
	int n = snprintf(buf, sizeof buf, "%s=", PT_RUN_ENV);
	if (pt_run_env_format(buf + n, sizeof buf - (size_t)n) != 0)
		return NULL;
	return buf;
}
