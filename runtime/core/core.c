/* SPDX-License-Identifier: MIT */
/* Runtime lifecycle: init (constructor, or lazily at the first event of any
 * thread), the trace directory, per-thread state. The process's end is in
 * shutdown.c, fork and exec in fork_exec.c (core_life.h joins the three). */
#define _GNU_SOURCE
#include "core.h"
#include "core_life.h"
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
PT_HOT_DATA intptr_t pt_tls_off = 0;
__thread int pt_tls_state __attribute__((tls_model("initial-exec")));
__thread int pt_lib_call __attribute__((tls_model("initial-exec")));

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

void pt_registry_add(pt_thread *t)
{
	pt_spin_lock(&pt_registry_lock);
	t->prev = NULL;
	t->next = pt_registry;
	if (pt_registry)
		pt_registry->prev = t;
	pt_registry = t;
	pt_spin_unlock(&pt_registry_lock);
}

void pt_registry_remove_locked(pt_thread *t)
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
 * (pt_adopt_child). The fast path still reads one cache line. */
#define PT_THREAD_HOT offsetof(pt_wlog, masked)
_Static_assert(offsetof(pt_thread, log) == 0 && offsetof(pt_wlog, cur) < PT_THREAD_HOT &&
                   offsetof(pt_wlog, limit) < PT_THREAD_HOT &&
                   offsetof(pt_wlog, last) < PT_THREAD_HOT &&
                   offsetof(pt_wlog, last_func) < PT_THREAD_HOT &&
                   offsetof(pt_wlog, in_hook) < PT_THREAD_HOT &&
                   offsetof(pt_wlog, last_obj) < PT_THREAD_HOT &&
                   PT_THREAD_HOT % _Alignof(pt_thread) == 0 && PT_THREAD_HOT <= 64,
               "the fast path's fields are the first PT_THREAD_HOT bytes of a thread's state");
/* pt_log_fast (pt_runtime.h) is the families' view of those fields. */
_Static_assert(offsetof(pt_wlog, cur) == offsetof(pt_log_fast, cur) &&
                   offsetof(pt_wlog, limit) == offsetof(pt_log_fast, limit) &&
                   offsetof(pt_wlog, last) == offsetof(pt_log_fast, last) &&
                   offsetof(pt_wlog, last_func) == offsetof(pt_log_fast, last_func) &&
                   offsetof(pt_wlog, in_hook) == offsetof(pt_log_fast, in_hook) &&
                   offsetof(pt_wlog, nested_lost) == offsetof(pt_log_fast, nested_lost) &&
                   offsetof(pt_wlog, last_obj) == offsetof(pt_log_fast, last_obj),
               "pt_log_fast is the start of pt_wlog");
static size_t pt_page;

static size_t thread_span(void)
{
	return pt_page + ((sizeof(pt_thread) - PT_THREAD_HOT + pt_page - 1) & ~(pt_page - 1));
}

/* The states of ended threads, kept for the next ones: unmapping a
 * thread's pages at its end costs a TLB flush on every CPU the process
 * runs on (an interrupt each), and the next thread's state would then be
 * mapped and marked again. A few are enough for threads that come and go;
 * the lock is only tried (a raw fork's child, or a signal handler on the
 * thread that holds it, maps and unmaps as before). */
#define PT_SPARE_THREADS 16
static pt_spin spare_lock;
static pt_thread *spare[PT_SPARE_THREADS];
static unsigned nspare;

static pt_thread *thread_alloc(void)
{
	pt_thread *t = NULL;
	if (pt_spin_trylock(&spare_lock)) {
		if (nspare)
			t = spare[--nspare];
		pt_spin_unlock(&spare_lock);
	}
	if (t) {
		/* As fresh pages are: what the thread that had it left (closed,
		 * its end's return value) would act on this one. */
		memset(t, 0, sizeof *t);
		return t;
	}
	char *p = pt_pages_alloc(thread_span());
	if (!p)
		return NULL;
	madvise(p, pt_page, MADV_WIPEONFORK); /* best effort: kernels since 4.14 */
	return (pt_thread *)(void *)(p + pt_page - PT_THREAD_HOT);
}

void pt_thread_free(pt_thread *t)
{
	if (!t)
		return;
	if (pt_spin_trylock(&spare_lock)) {
		int kept = nspare < PT_SPARE_THREADS;
		if (kept)
			spare[nspare++] = t;
		pt_spin_unlock(&spare_lock);
		if (kept)
			return;
	}
	pt_pages_free((char *)t + PT_THREAD_HOT - pt_page, thread_span());
}

/* One word on a MADV_WIPEONFORK page, 1 once this process's tracing state
 * is its own: 0 in any fork child until pt_fork_child (atfork) or, after
 * a raw fork, the first event that finds it (pt_adopt_child) has either
 * rebuilt the state for the child or turned tracing off there. NULL when
 * the page could not be had: every process then counts as its own. */
int *pt_owner_mark;

int pt_process_is_mine(void)
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

int pt_state_is_mine(void)
{
	return pt_process_is_mine() || pt_adopt_child();
}

/* Opens t<tid>.ptl (t<tid>.<k>.ptl when the kernel reused the tid). */
int pt_open_thread_log(pt_thread *t)
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

void pt_emit_thread_start(pt_thread *t, const pt_rec_thread_start *start)
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
void pt_keep_slow_if_needed(pt_thread *t)
{
	if (pt_counters_at_mask & PT_COUNTERS_AT_FUNCTIONS)
		t->log.slow = 1;
}

pt_thread *pt_thread_create(const pt_rec_thread_start *start)
{
	if (pt_tls)
		return pt_tls;
	if (pt_tls_state == PT_TLS_FINISHED || pt_tls_state == PT_TLS_CREATING ||
	    !pt_ensure_initialized() || (!pt_process_is_mine() && !pt_adopt_child()))
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
	int r = pt_open_thread_log(t);
	if (r != 0) {
		static atomic_int warned;
		if (!atomic_exchange(&warned, 1))
			pt_warn("cannot create the log of thread %u in %s/%s: %s; that thread is "
				"not traced",
				t->tid, pt_run_info.dir, pt_run_info.pdir_name, strerror(-r));
		pt_thread_free(t);
		pt_tls_state = PT_TLS_FINISHED;
		pt_nocancel_end(cancel);
		errno = saved;
		return NULL;
	}
	/* Inside the runtime until pt_leave: hooks take the slow path. */
	__atomic_store_n(&t->log.limit, NULL, __ATOMIC_RELAXED);
	pt_keep_slow_if_needed(t);
	pt_registry_add(t);
	pthread_setspecific(pt_thread_key, t);
	pt_tls = t;
	pt_tls_state = PT_TLS_ACTIVE;
	pt_emit_thread_start(t, start);
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
	pt_throttle_stop(); /* its table is in the TLS both threads use */
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


/* A thread whose state another thread shares (pt_thread_share) found the
 * guard taken: its event is dropped and counted here, at once. The
 * caller cannot count it later (pt_note_nested_event): by then the other
 * thread may have let the guard go, and the event would vanish uncounted. */
static __attribute__((noinline, cold)) pt_thread *enter_lost_shared(pt_thread *t)
{
	if (pt_state_writable(atomic_load_explicit(&pt_state, memory_order_relaxed)))
		pt_wlog_note_nested(&t->log);
	return NULL;
}

pt_thread *pt_enter(void)
{
	pt_thread *t = pt_tls;
	/* cur is NULL in a closed log, and in a child of a raw fork, whose
	 * copy of the thread's state is not its own (thread_alloc). */
	if (pt_unlikely(t && !t->log.cur)) {
		if (pt_process_is_mine() || !pt_adopt_child())
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
		return pt_unlikely(t->shared) ? enter_lost_shared(t) : NULL;
	if (pt_unlikely(t->shared)) {
		/* Another thread runs with this state too (pt_thread_share): the
		 * guard is a lock between them; the loser's event is counted. */
		int free_guard = 0;
		if (!atomic_compare_exchange_strong(&t->guard, &free_guard, 1))
			return enter_lost_shared(t);
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
		return s == PT_STATE_CLOSING ? pt_enter_ending(t) : NULL;
	}
	return t;
}

void pt_leave(pt_thread *t)
{
	/* Re-open the fast path (closed by pt_enter so that a hook raised by a
	 * signal handler while we write cannot append into the same bytes),
	 * unless records were lost and the next one must say so first.
	 * Not once the process is ending: the thread's next event must come
	 * here, where its log is closed (pt_enter_ending). */
	if (!t->log.dead && !t->log.slow && !t->forking && t->log.retry_countdown == 0 &&
	    !t->log.lost_records && /* the next record writes LOST first (writer.c) */
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
	pt_tls_off = pt_tls_offset_of(&pt_tls); /* before any part starts */
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
	if (pthread_key_create(&pt_thread_key, pt_thread_destructor) != 0) {
		fail_init("cannot create a thread key");
		goto out;
	}
	if (pt_process_open(0) != 0)
		goto out; /* warned */
	pt_on_exit_registered = on_exit(on_exit_handler, NULL) == 0;
	pt_asym_fence_register();
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

