/* Internal API of libtrace.so: what the interposition families (threads,
 * sync, fork/exec, signals, dl), counters, sampling and GPU code use to
 * reach the core (buffers, clock, process log). Nothing here is exported:
 * the library is built with -fvisibility=hidden and a version script.
 *
 * Contract for every caller, summarised:
 *   pt_thread *t = pt_enter();      // NULL: tracing off / inside the runtime already
 *   if (t) { pt_emit(t, PT_REC_..., arg, &payload, sizeof payload); pt_leave(t); }
 * pt_enter/pt_leave bracket a region where the runtime owns the thread; any
 * event raised inside it (e.g. an interposed pthread call made by the
 * runtime itself) sees pt_enter() == NULL and is not recorded.
 */
#ifndef PT_RUNTIME_H
#define PT_RUNTIME_H

#include <paratrace/format.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#define PT_HIDDEN __attribute__((visibility("hidden")))
#define pt_likely(x) __builtin_expect(!!(x), 1)
#define pt_unlikely(x) __builtin_expect(!!(x), 0)

typedef struct pt_thread pt_thread;

/* ---- clock ------------------------------------------------------------ */
/* 1 when the run's clock is the invariant TSC (clock.c). */
extern PT_HIDDEN int pt_clock_use_tsc;
PT_HIDDEN uint64_t pt_mono_ns(void);

/* Current time in ticks of the run's clock (rdtsc where the TSC is
 * invariant, CLOCK_MONOTONIC ns otherwise). No system call on x86-64.
 * Inline: on the wrappers' paths the clock is most of the cost. */
static inline __attribute__((always_inline)) uint64_t pt_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (pt_likely(pt_clock_use_tsc))
		return __rdtsc();
#endif
	return pt_mono_ns();
}

/* ---- per-thread logging ----------------------------------------------- */
/* This thread's state, created (and its log opened) on first use. NULL when
 * tracing is off, the runtime is not initialised or is shutting down, or
 * the thread is already inside the runtime (recursion guard, which it sets).
 * Never calls the program's malloc; preserves errno. */
PT_HIDDEN pt_thread *pt_enter(void);
PT_HIDDEN void pt_leave(pt_thread *t);
/* No hook is running on this thread any more (a longjmp out of a signal
 * handler abandoned the one it interrupted): clears the hooks' guard. */
PT_HIDDEN void pt_hooks_unwound(void);

/* Appends one record stamped now: head (kind, arg) + len bytes of payload,
 * padded with zeros to a multiple of 8. Takes no lock; on buffer switch
 * it maps more of the file (rare). If space cannot be had the record is
 * counted as lost (a LOST record is written when space returns). */
PT_HIDDEN void pt_emit(pt_thread *t, unsigned kind, unsigned arg, const void *payload,
		       size_t len);
/* Same, with two payload pieces (e.g. a struct followed by a string). */
PT_HIDDEN void pt_emit2(pt_thread *t, unsigned kind, unsigned arg, const void *p1, size_t len1,
			const void *p2, size_t len2);
/* Same with an explicit time (>= the thread's last record time; earlier
 * values are clamped to it so a file's times never decrease). */
PT_HIDDEN void pt_emit_at(pt_thread *t, uint64_t ticks, unsigned kind, unsigned arg,
			  const void *payload, size_t len);

/* A LOCK_* record at ticks (pt_lock_emit_at in pt_interpose.h). */
PT_HIDDEN void pt_emit_lock_at(pt_thread *t, uint64_t ticks, unsigned kind, unsigned type,
			       uint64_t obj, int result);

/* Linux thread id of t, and its tracing-side sequence number. */
PT_HIDDEN uint32_t pt_thread_tid(const pt_thread *t);

/* ---- process log ------------------------------------------------------ */
/* Appends to this process's process.ptl (module maps, function tables, fork,
 * exec, exit). Thread-safe (internal lock), callable from any thread that
 * is not inside a signal handler. */
PT_HIDDEN void pt_process_emit(unsigned kind, unsigned arg, const void *p1, size_t len1,
			       const void *p2, size_t len2);

/* ---- extra logs (GPU streams, ...) ------------------------------------ */
/* A log file that is not a thread's: created in this process's folder as
 * `name` (e.g. "g0-7.ptl") with the given file kind and header.gpu_stream.
 * Writes to one pt_log_file must be serialised by the caller (a single
 * writer thread, e.g. CUPTI's buffer-completed callback, is fine). */
typedef struct pt_log_file pt_log_file;
PT_HIDDEN pt_log_file *pt_log_file_open(const char *name, int file_kind, uint64_t stream);
PT_HIDDEN void pt_log_file_emit(pt_log_file *f, uint64_t ticks, unsigned kind, unsigned arg,
				const void *p1, size_t len1, const void *p2, size_t len2);
PT_HIDDEN void pt_log_file_close(pt_log_file *f);

/* ---- lifecycle (used by fork/exec/exit/signal families) -------------- */
/* Is the runtime initialised and tracing? */
PT_HIDDEN int pt_tracing(void);
/* Everything recorded so far reaches the files (async-signal-safe: the
 * buffers are shared mappings, this only publishes lengths). */
PT_HIDDEN void pt_flush_all(void);
/* Close every log of this process (exit path): writes CLOSE records where it
 * is safe, trims files to their data. Idempotent. */
PT_HIDDEN void pt_shutdown(int how, int status);
/* Fork: called in the parent before fork, and in parent/child after it.
 * The child gets a new process folder and fresh thread state. */
PT_HIDDEN void pt_fork_prepare(void);
PT_HIDDEN void pt_fork_parent(void);
PT_HIDDEN void pt_fork_child(void);
/* Before exec: make sure the new image of this process will write into the
 * same run (trace directory, clock calibration) through the environment. */
PT_HIDDEN void pt_exec_prepare(void);

/* ---- modules ------------------------------------------------------- */
/* Rescans the loaded modules (dl_iterate_phdr) and writes MODULE_MAP /
 * MODULE_UNMAP records to the process log for what changed since the last
 * scan. Called at init, and after dlopen/dlclose by the dl family. */
PT_HIDDEN void pt_modules_sync(void);

/* ---- configuration (environment, read once at init) ------------------- */
typedef struct pt_config {
	int enabled;          /* PARATRACE_ENABLE (default 1) */
	int verbose;          /* PARATRACE_VERBOSE 0..3 (default 0) */
	const char *dir;      /* PARATRACE_DIR: trace directory (default ./paratrace-<prog>-<pid>-<time>) */
	size_t buffer_size;   /* PARATRACE_BUFFER_SIZE: bytes mapped per thread at a time */
	uint64_t max_size;    /* PARATRACE_MAX_SIZE: per-file cap, 0 = none */
	/* later parts add their own fields here (counters, callstack, sampling, gpu) */
	const char *counters;  /* PARATRACE_COUNTERS */
	unsigned counters_at;  /* PARATRACE_COUNTERS_AT: PT_COUNTERS_AT_*, 0 = default */
	int callstack_depth;   /* PARATRACE_CALLSTACK */
	uint64_t sampling_ns;  /* PARATRACE_SAMPLING */
	int gpu;               /* PARATRACE_GPU (default 1) */
	int prefault;          /* PARATRACE_PREFAULT: -1 auto, 0 off (default), 1 on */
} pt_config;
PT_HIDDEN const pt_config *pt_config_get(void);

/* One-line warning on stderr, always shown ("paratrace: ..."). Uses no
 * stdio buffers (write(2)); safe in the runtime's own code paths. */
PT_HIDDEN void pt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Debug message shown only at PARATRACE_VERBOSE >= level. */
PT_HIDDEN void pt_debug(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- real functions --------------------------------------------------- */
/* dlsym(RTLD_NEXT, name), cached by the caller in a static; works during the
 * dlsym -> calloc bootstrap (the runtime has a static bump allocator). */
PT_HIDDEN void *pt_real(const char *name);

/* ---- counters, call stacks, sampling (counters.c, callstack.c, sampling.c) ----
 * Who calls what:
 *   core:      pt_counters_init() once at init, after the configuration is
 *              read and before any thread log exists; pt_counters_thread_start(t)
 *              right after a thread's log is opened (THREAD_START written);
 *              pt_counters_thread_end(t) before THREAD_END is written
 *              (NULL when the thread ends during shutdown: its log is
 *              not written any more, its counters and timer still go);
 *              pt_counters_fork_child() in the child after fork (inherited
 *              counters and timers belong to the parent's thread);
 *              pt_counters_at(t, PT_COUNTERS_AT_FUNCTIONS) after FUNC_ENTER/EXIT;
 *              pt_counter_manual(t, name) for the manual API's PT_COUNTER(name).
 *   interpose: pt_counters_at(t, PT_COUNTERS_AT_SYNC) after lock/cond/barrier
 *              records, pt_counters_at(t, PT_COUNTERS_AT_THREADS) after thread
 *              create/join records, and pt_callstack_emit(t) right after the
 *              record of a lock contention (LOCK_REQUEST that blocks), a
 *              COND_WAIT_BEGIN and a THREAD_CREATE.
 * All take t from pt_enter() (inside the runtime's region). */
#define PT_COUNTERS_AT_FUNCTIONS 0x1u
#define PT_COUNTERS_AT_SYNC 0x2u
#define PT_COUNTERS_AT_THREADS 0x4u
/* PARATRACE_COUNTERS_AT as a mask of PT_COUNTERS_AT_*, 0 when no counter is
 * open: the hot path tests it before calling out of line. */
PT_HIDDEN extern unsigned pt_counters_at_mask;
PT_HIDDEN void pt_counters_init(void);
PT_HIDDEN void pt_counters_thread_start(pt_thread *t);
PT_HIDDEN void pt_counters_thread_end(pt_thread *t);
PT_HIDDEN void pt_counters_fork_child(void);
/* Reads this thread's counters and writes a COUNTERS record (deltas since
 * the previous read) right after the record just written. */
PT_HIDDEN void pt_counters_emit(pt_thread *t);
static inline void pt_counters_at(pt_thread *t, unsigned where)
{
	if (pt_unlikely(pt_counters_at_mask & where))
		pt_counters_emit(t);
}
/* PT_COUNTER(name): reads counter `name` on this thread (opened on first use,
 * as configured counters are) and writes a COUNTER_VALUE record holding its
 * count since this thread's first PT_COUNTER(name). Returns 0, or a negative
 * errno when the counter cannot be had (warned once per name). */
PT_HIDDEN int pt_counter_manual(pt_thread *t, const char *name);
/* Writes a CALLSTACK record (PARATRACE_CALLSTACK callers of the code that
 * called into the runtime, the runtime's own frames skipped) attached to the
 * record just written. No-op when PARATRACE_CALLSTACK is 0. */
PT_HIDDEN void pt_callstack_emit(pt_thread *t);

/* Between counters.c, callstack.c and sampling.c only (pt_counters_* calls them). */
PT_HIDDEN void pt_callstack_init(void);
/* Up to max return addresses of the callers of the frame that called into
 * the runtime, innermost first. Async-signal-unsafe (libunwind's
 * unw_backtrace); not for signal handlers. */
PT_HIDDEN int pt_callstack_capture(uint64_t *pcs, int max);
/* Callers from a signal's ucontext: pcs[0] = interrupted pc, then callers;
 * at most max (pcs holds that many). */
PT_HIDDEN int pt_callstack_capture_signal(void *ucontext, uint64_t *pcs, int max);
/* Is pc in libtrace.so's own code? (Always 0 when the runtime's files are
 * linked into an executable, as in unit tests.) */
PT_HIDDEN int pt_callstack_in_runtime(uint64_t pc);
PT_HIDDEN void pt_sampling_init(void);
PT_HIDDEN void pt_sampling_thread_start(pt_thread *t);
/* t NULL: the timer goes, the count of dropped samples is not written. */
PT_HIDDEN void pt_sampling_thread_end(pt_thread *t);
PT_HIDDEN void pt_sampling_fork_child(void);

/* ---- signals the runtime uses itself (signals.c; sampling.c) ---------- */
/* Installs h for sig (SA_SIGINFO | SA_RESTART, every signal blocked while
 * it runs) and keeps whatever action was there, and whatever the program
 * asks later through sigaction/signal, as the program's. 0, or -1 (errno). */
PT_HIDDEN int pt_signal_adopt(int sig, void (*h)(int, siginfo_t *, void *));
/* From h, for a delivery that is not the runtime's: does what the program's
 * action for sig says (ignore, default, or its handler with its mask). */
PT_HIDDEN void pt_signal_forward(int sig, siginfo_t *si, void *uc);

/* ---- GPU (gpu/opencl.c, gpu/cupti.c) ----------------------------------
 * Who calls what (all are cheap no-ops when PARATRACE_GPU=0 or nothing GPU
 * is in use; none may be called from a signal handler, except
 * pt_gpu_shutdown(1)):
 *   core: pt_gpu_init() once at init, after the configuration is read;
 *         pt_gpu_modules_changed() at the end of every pt_modules_sync()
 *         (libcuda may just have been dlopen'ed: CUPTI is attached then);
 *         pt_gpu_fork_child() in the child after fork (CUPTI and OpenCL
 *         state belong to the parent);
 *         pt_gpu_shutdown() at the start of pt_shutdown(), while logs are
 *         still open: drains device records and closes the GPU logs. */
PT_HIDDEN void pt_gpu_init(void);
PT_HIDDEN void pt_gpu_modules_changed(void);
PT_HIDDEN void pt_gpu_fork_child(void);
/* in_signal: pt_shutdown runs from a fatal signal's handler. Then nothing
 * may block or call into CUPTI (which takes its own locks, possibly held
 * by the thread that crashed): the device records CUPTI still buffers are
 * lost, and a stream log whose lock is held stays as written so far. */
PT_HIDDEN void pt_gpu_shutdown(int in_signal);


/* ---- added by the core (see docs/RUNTIME.md) -------------------------- */
/* Thread lifecycle, for the pthread_create/thrd_create wrappers: call
 * pt_thread_start first thing in the new thread (before any other event) so
 * its THREAD_START carries the creator; a thread that raised an event
 * already keeps its first THREAD_START (creator unknown). pt_thread_note_end
 * stores the retval/flags that the THREAD_END written by the runtime at
 * thread exit (pthread key destructor) will carry. */
PT_HIDDEN void pt_thread_start(const pt_rec_thread_start *start);
PT_HIDDEN void pt_thread_note_end(uint64_t retval, uint32_t flags);
/* Exit wrappers: the how/status the process log's EXIT record will carry
 * (default: PT_EXIT_NORMAL with the status passed to exit(), captured with
 * on_exit). pt_shutdown(how, status) overrides both. */
PT_HIDDEN void pt_exit_status(int how, int status);
/* "PARATRACE_RUN=..." for an exec with an explicit envp (execve, execle,
 * posix_spawn): add it to the new environment. NULL when not tracing. Static
 * buffer, valid until the next call. pt_exec_prepare sets it in environ. */
PT_HIDDEN const char *pt_run_env_string(void);
/* The dlsym -> calloc bootstrap: pt_real() is running on this thread, so an
 * interposed calloc/malloc must serve from pt_bump_alloc (zeroed, never
 * freed; pt_bump_owns tells a free() wrapper to ignore such a pointer). */
PT_HIDDEN int pt_real_in_progress(void);
PT_HIDDEN void *pt_bump_alloc(size_t size);
PT_HIDDEN int pt_bump_owns(const void *p);

#endif /* PT_RUNTIME_H */
