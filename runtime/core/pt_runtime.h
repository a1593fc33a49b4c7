/* SPDX-License-Identifier: MIT */
/* Internal API of libtrace.so: what its parts (the interposition families,
 * counters, call stacks, sampling, GPU code) use to reach the core
 * (buffers, clock, process log, the table of parts). Nothing here is exported:
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

#include "pt_spin.h"

#include <paratrace/format.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* The one mark of what libtrace.so exports: wrappers of interposed
 * functions, the hook ABI and the manual API. The library is built with
 * -fvisibility=hidden and runtime/libtrace.map keeps, of what is marked,
 * the names it lists. */
#define PT_EXPORT __attribute__((visibility("default")))
#define PT_HIDDEN __attribute__((visibility("hidden")))
#define pt_likely(x) __builtin_expect(!!(x), 1)
/* The code and data of the wrappers' common paths, kept together: on a
 * kernel with page-table isolation and no PCID, every system call empties
 * the TLB, so each page the wrapper of a system call touches after it
 * costs a page walk (tens of ns on these VMs). PT_HOT code goes to
 * .text.hot, PT_HOT_DATA variables into one section of their own. */
#define PT_HOT __attribute__((hot))
#define PT_HOT_DATA __attribute__((section("pt_hot_data")))
/* The code of the commonest system-call wrappers' path (read, write,
 * pread, pwrite and the record writer's fast path they call) in sections
 * the linker sorts by name and places together right after .text.hot (GNU
 * ld's default script: .text.sorted.*), the first aligned to a page: the
 * path is one page of code, not three. */
#define PT_SYSCALL_TEXT(k) __attribute__((hot, section(".text.sorted.pt_syscall_" #k)))
/* A TLS variable of the runtime's, read through %fs at its offset from the
 * thread pointer, the offset kept among the hot data (PT_HOT_DATA): an
 * initial-exec access would load it from the GOT, one more page after
 * each system call. The offsets are the same in every thread (static TLS)
 * and are set before the parts that read them start. */
#if defined(__x86_64__) && defined(__SEG_FS)
#define PT_TLS_AT(type, off, var) (*(type __seg_fs *)(uintptr_t)(off))
#else
#define PT_TLS_AT(type, off, var) (var)
#endif
static inline intptr_t pt_tls_offset_of(const void *p)
{
	return (intptr_t)((const char *)p - (const char *)__builtin_thread_pointer());
}
/* pt_tls's (core.c) */
extern PT_HIDDEN intptr_t pt_tls_off;
#define pt_unlikely(x) __builtin_expect(!!(x), 0)

typedef struct pt_thread pt_thread;

/* ---- clock ------------------------------------------------------------ */
/* 1 when the run's clock is the invariant TSC (clock.c). */
extern PT_HIDDEN int pt_clock_use_tsc;
PT_HIDDEN uint64_t pt_mono_ns(void);
/* Ticks of the run's clock in a duration of ns nanoseconds (the clock's
 * calibration so far; ns itself on CLOCK_MONOTONIC). */
PT_HIDDEN uint64_t pt_ticks_of_ns(uint64_t ns);

#if defined(__x86_64__) || defined(__i386__)
/* The instruction itself, as <x86intrin.h>'s __rdtsc is: that header would
 * bring every intrinsic of the architecture (60,000 lines, three quarters
 * of the compile time of a runtime file) into each file of the runtime. */
static inline __attribute__((always_inline)) uint64_t pt_rdtsc(void)
{
	return __builtin_ia32_rdtsc();
}
#endif

/* Current time in ticks of the run's clock (rdtsc where the TSC is
 * invariant, CLOCK_MONOTONIC ns otherwise). No system call on x86-64.
 * Inline: on the wrappers' paths the clock is most of the cost. */
static inline __attribute__((always_inline)) uint64_t pt_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (pt_likely(pt_clock_use_tsc))
		return pt_rdtsc();
#endif
	return pt_mono_ns();
}

/* ---- a library call recorded whole ------------------------------------ */
/* Nonzero while this thread is inside a library call that its family
 * records as one call (an MPI call, from its MPI_CALL to its end): what
 * the library does meanwhile on this thread is its own business. The MPI
 * part does not record the library's calls of its own MPI functions, and
 * the sync family does not record the locks, condition variables,
 * semaphores, barriers and futexes the library uses (Open MPI's progress
 * loop takes and releases a mutex on every turn while a rank waits for a
 * message). The program's own synchronisation outside such a call is
 * recorded as ever. Set and cleared by the one family that records the
 * call, around the real call; a plain TLS int, so that checking it costs
 * a wrapper one load. */
extern PT_HIDDEN __thread int pt_lib_call __attribute__((tls_model("initial-exec")));

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

/* A record that has a compact form of its family's (format.h: a
 * little-endian word whose first byte is PT_COMPACT_FLAG | a kind below
 * 0x40, at any even offset, then clen bytes: 0, or even and 4 to 24),
 * stamped at ticks.
 * The compact form is `cword` with the delta since the file's previous
 * record put in at bit `shift` (it must fit in the 32 - shift bits above):
 * written, when it fits and there is room, on the calling thread's fast
 * path as a hook's record is (no pt_enter, no lock, no call out). Else
 * (cword 0, a larger delta, a window to switch, inside the runtime) the
 * full record (kind, arg, payload p of len bytes) through the runtime's
 * region, as pt_emit_at. Some compact forms stand for fields of an earlier
 * record of the file (MPI: the call of its MPI_CALL): PT_CTX_OPEN marks
 * that record, PT_CTX_NEED a compact form that may be written only while
 * the reader knows the last PT_CTX_OPEN record (no record lost since; a
 * LOST record makes readers forget it). The call need not be in the
 * runtime's region; errno is kept. Returns the ticks the record was
 * stamped with (a file's times never decrease: ticks or later), 0 when
 * the thread cannot record now (tracing off, inside the runtime). */
#define PT_CTX_OPEN 0x1u
#define PT_CTX_NEED 0x2u
PT_HIDDEN uint64_t pt_emit_compact(uint64_t ticks, uint32_t cword, unsigned shift, const void *cp,
                                   size_t clen, unsigned flags, unsigned kind, unsigned arg,
                                   const void *p, size_t len);

/* Compact and short records are little-endian words (format.h); a
 * big-endian writer keeps to the full forms. */
#define PT_WRITE_COMPACT (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

/* pt_emit_compact's fast path inline, in three steps, for a compact form
 * of at most 20 bytes of fields and no PT_CTX_* flags: no call, no copy
 * loop, the fields passed as the words they are stored as. The I/O and
 * memory wrappers write their records so (on their path the call and the
 * generic arguments were most of the instructions); 0 from pt_fast_open
 * or pt_fast_words: the caller writes the record with pt_emit_compact
 * (which also says whether the thread can record).
 *
 * pt_log_fast is the first bytes of a thread's state (core.h: pt_thread
 * starts with its log, whose first fields these are; core.c checks the
 * layout). limit is NULL whenever a record may not be written there
 * directly (inside the runtime, a LOST record to write first, a window to
 * switch, the process ending). last_obj: the object of the file's last
 * record a family's compact form may stand for (the memory family: the
 * block its last MEM_ALLOC returned, which MEM_FREE_S frees); 0: none
 * known. The writer clears it wherever a reader forgets that record (a
 * record lost, a LOST record) and when a record goes through
 * pt_emit_compact's slow path; a family sets it after its own record,
 * before pt_fast_close. */
/* may_alias: the same bytes are read and written as core.h's pt_wlog;
 * without it the compiler could assume the two types never overlap. */
typedef struct __attribute__((may_alias)) pt_log_fast {
	char *cur;
	char *limit;
	uint64_t last;
	uint64_t last_func;
	int in_hook;
	uint32_t nested_lost;
	uint64_t last_obj;
} pt_log_fast;
extern PT_HIDDEN __thread pt_thread *pt_tls __attribute__((tls_model("initial-exec")));

/* Every fast path's guard against a signal handler on the same thread
 * (the hooks', the families'): everything between pt_fast_begin and
 * pt_fast_close (loads of the position and the previous time, the
 * record's stores, their updates) happens wholly before or wholly after
 * any record the handler writes. Only compiler barriers: a handler sees
 * its own thread's stores in program order. 0 when a fast path is already
 * in progress on this thread: the record must be dropped (written, it
 * would land on the one in progress). */
static inline __attribute__((always_inline)) int pt_fast_begin(pt_log_fast *l)
{
	if (!pt_likely(!__atomic_load_n(&l->in_hook, __ATOMIC_RELAXED)))
		return 0;
	__atomic_store_n(&l->in_hook, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

static inline __attribute__((always_inline)) void pt_fast_close(pt_log_fast *l)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&l->in_hook, 0, __ATOMIC_RELAXED);
}

/* This thread's log with pt_fast_begin done, or NULL: no state yet, or a
 * fast path already in progress on this thread. */
static inline __attribute__((always_inline)) pt_log_fast *pt_fast_open(void)
{
	pt_log_fast *l = (pt_log_fast *)(void *)PT_TLS_AT(pt_thread *, pt_tls_off, pt_tls);
	return pt_likely(l && pt_fast_begin(l)) ? l : NULL;
}

/* Whether a compact record of room bytes (the bytes stored, zeros past it
 * included) may go at cur now: limit not NULL (core.h says when it is)
 * and room before it; a delta d from the previous record that fits the
 * word's 32 - shift bits (a time before that record's does not); no
 * signal handler's record dropped meanwhile (counted first). */
static inline __attribute__((always_inline)) int pt_fast_fits(const pt_log_fast *l,
                                                              const char *cur, size_t room,
                                                              uint64_t d, unsigned shift)
{
	uintptr_t limit = (uintptr_t)__atomic_load_n(&l->limit, __ATOMIC_RELAXED);
	return PT_WRITE_COMPACT && (uintptr_t)cur + room <= limit && (d >> (32 - shift)) == 0 &&
	       !__atomic_load_n(&l->nested_lost, __ATOMIC_RELAXED);
}

/* A compact record on an open log, its fields as the words they are
 * stored as: first, the first four bytes of fields (in the word's upper
 * half), w8 and w16 the 8-byte words at the record's bytes 8 and 16
 * (stored when clen > 4, clen > 12; zeros past the record). 1 when
 * written. */
static inline __attribute__((always_inline)) int pt_fast_words(pt_log_fast *l, uint64_t ticks,
                                                               uint32_t cword, unsigned shift,
                                                               uint32_t first, uint64_t w8,
                                                               uint64_t w16, unsigned clen)
{
	char *cur = l->cur;
	uint64_t d = ticks - l->last;
	/* room for the three stores below (the bytes past the record are
	 * zeros nothing was written to yet) */
	if (!pt_likely(pt_fast_fits(l, cur, 24, d, shift)))
		return 0;
	/* the fields past the first four first, then the word and those four
	 * in one store: a reader sees zeros (the end) until then */
	if (clen > 4)
		__atomic_store_n((uint64_t *)(void *)(cur + 8), w8, __ATOMIC_RELAXED);
	if (clen > 12)
		__atomic_store_n((uint64_t *)(void *)(cur + 16), w16, __ATOMIC_RELAXED);
	__atomic_store_n((uint64_t *)(void *)cur,
	                 (uint64_t)(cword | (uint32_t)d << shift) | (uint64_t)first << 32,
	                 __ATOMIC_RELEASE);
	l->last = ticks;
	__atomic_store_n(&l->cur, cur + 4 + clen, __ATOMIC_RELEASE);
	return 1;
}

/* pt_emit_compact's fast path alone for a compact form with no fields
 * (cword, its delta at bit shift): 1 when written, 0 when the caller must
 * go through pt_emit_compact. Four arguments: the common records of a
 * call (its begin, its end) without the general call's stack work. */
PT_HIDDEN int pt_emit_word(uint64_t ticks, uint32_t cword, unsigned shift, unsigned flags);

/* pt_emit_word for two compact forms with no fields at one time, the
 * second's delta 0 (cword2, as pt_emit_compact_then's): both written or
 * neither. */
PT_HIDDEN int pt_emit_words(uint64_t ticks, uint32_t cword, unsigned shift, uint32_t cword2,
                            unsigned flags);

/* Two compact records at one time (a call's message and its end): the
 * first as pt_emit_compact's, the second a word alone, cword2 with a
 * delta of 0 (its compact form has no fields and needs what the first
 * needs, flags). Both are written by one pass of the fast path, or
 * neither (0: the caller then writes each with pt_emit_compact). */
PT_HIDDEN int pt_emit_compact_then(uint64_t ticks, uint32_t cword, unsigned shift, const void *cp,
                                   size_t clen, uint32_t cword2, unsigned flags);

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
/* The same from a signal handler, which may have interrupted a writer of
 * the process log on this thread: the lock is tried for a bounded time,
 * and the record dropped if it cannot be had. */
PT_HIDDEN void pt_process_emit_from_handler(unsigned kind, const void *p, size_t len);

/* THREAD_NAME in the process log for thread `tid` (PT_THREAD_NAME_TID):
 * `name`, cut to its first `max` bytes. */
PT_HIDDEN void pt_process_thread_name(uint32_t tid, const char *name, size_t max);

/* Absolute path of `name` in this process's folder of the trace directory,
 * for parts that keep files of their own there (OpenCL kernel sources).
 * 0, or -1 when not tracing or the path does not fit in len. */
PT_HIDDEN int pt_process_file_path(const char *name, char *buf, size_t len);

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
/* Is the runtime initialised and tracing? A pure check: never initialises. */
PT_HIDDEN int pt_tracing(void);
/* Starts the runtime if nothing has yet: a call can reach an interposed
 * function before libtrace.so's constructor runs (another library's
 * constructor makes it). 1 tracing; 0 not, for good (disabled, failed,
 * ended); -1 starting on another thread, or this call came from inside
 * the start itself: ask again later. */
PT_HIDDEN int pt_tracing_start(void);
/* Makes every record written so far visible to any reader of the files: a
 * full fence, nothing more (the logs are shared file mappings, so their
 * bytes are in the page cache already). Async-signal-safe. */
PT_HIDDEN void pt_publish_fence(void);
/* The process ends: every part's shutdown (see "parts of the runtime"
 * below), which closes the logs of this process: CLOSE records where it
 * is safe, files trimmed to their data, EXIT with how and status. Runs
 * once; later calls return at once. how PT_EXIT_SIGNAL or PT_EXIT_ABORT:
 * from a fatal signal's handler, async-signal-safe; the other threads'
 * logs are then left open to them until the kernel ends the process. */
PT_HIDDEN void pt_shutdown(int how, int status);
/* 1 on the thread that runs pt_shutdown from a fatal signal's handler,
 * from then on: what the parts run there (shutdown(1), and thread_end for
 * that thread's log) must be async-signal-safe and must not wait without a
 * bound (see pt_subsystem). */
PT_HIDDEN int pt_in_signal_shutdown(void);
/* Fork: called in the parent before fork, and in parent/child after it.
 * The child gets a new process folder and fresh thread state. */
PT_HIDDEN void pt_fork_prepare(void);
PT_HIDDEN void pt_fork_parent(void);
PT_HIDDEN void pt_fork_child(void);
/* Before exec: make sure the new image of this process will write into the
 * same run (trace directory, clock calibration) through the environment. */
PT_HIDDEN void pt_exec_prepare(void);
/* Right before the exec system call (after pt_exec_prepare): the calling
 * thread's log and the process log are closed (CLOSE, trimmed), since a
 * successful exec ends them; other threads' logs are left to their
 * writers, which run on until the exec ends them. The thread stays inside
 * the runtime's region until pt_exec_failed(t), which the caller must
 * call if the exec returns: both logs then go on after their CLOSE.
 * Returns NULL (nothing closed) when the thread cannot enter the runtime. */
PT_HIDDEN pt_thread *pt_exec_close(void);
PT_HIDDEN void pt_exec_failed(pt_thread *t);

/* ---- modules ------------------------------------------------------- */
/* Rescans the loaded modules (dl_iterate_phdr) and writes MODULE_MAP /
 * MODULE_UNMAP records to the process log for what changed since the last
 * scan. Called at init, and after dlopen/dlclose by the dl family. */
PT_HIDDEN void pt_modules_sync(void);

/* The addresses a loaded object's load segments span, [*lo, *hi), for a
 * dl_iterate_phdr callback. 0 when it has none (nothing set). */
struct dl_phdr_info;
PT_HIDDEN int pt_module_extent(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi);

/* ---- parts of the runtime ---------------------------------------------
 * Each part of libtrace.so (the logs of the core, the hooks, each
 * interposition family, counters, call stacks, sampling, the prefault
 * helper, each GPU API...) describes itself with one pt_subsystem, defined
 * in its own file with PT_SUBSYSTEM. The core walks the table at each
 * moment of the process's life (docs/RUNTIME.md, "Parts of the runtime"),
 * so a part is added or left out of the build without an edit elsewhere.
 * Callbacks may be NULL. Forward (ascending `order`; parts of equal order
 * by name): init, thread_start, fork_child, exec, modules_changed.
 * Backward: thread_end, shutdown. None of them is called inside a signal
 * handler except shutdown with in_signal = 1 and, from the logs part's
 * shutdown then, thread_end of the thread that runs it
 * (pt_in_signal_shutdown()). */
/* What `join` fills in (all zero: not part of a job). */
typedef struct pt_run_job {
	uint64_t run_id;  /* the job's run id, the same in all its processes */
	char dir[128];    /* trace directory when PARATRACE_DIR is unset ("" keeps the default) */
	uint32_t rank;    /* this process's rank in the job */
	uint32_t size;    /* the job's processes */
	uint32_t world;   /* which of the run's jobs (MPI_Comm_spawn's: 1, 2...) */
} pt_run_job;

typedef struct pt_subsystem {
	const char *name;
	int order; /* enum pt_part_order */
	/* Once, when tracing starts: the configuration is read, the trace
	 * directory and the process log are open, the state is RUNNING; no
	 * thread log is open yet, unless a thread raced the main one. */
	void (*init)(void);
	/* A thread's log was just opened (THREAD_START written); on that
	 * thread, inside the runtime's region (t is pt_enter's). Also for the
	 * thread of a fork child, after every fork_child. */
	void (*thread_start)(pt_thread *t);
	/* The thread is ending (before its THREAD_END), or the process is and
	 * this is the thread that ends it; on that thread, inside its region.
	 * t NULL: the thread ends while the process shuts down, its log is not
	 * written any more; what the part holds for it (fds, timers) still
	 * goes, and nothing is recorded. While pt_in_signal_shutdown(), this
	 * runs in a fatal signal's handler: the rule of shutdown(1) holds. */
	void (*thread_end)(pt_thread *t);
	/* In the child after fork, alone in its process, before its thread
	 * starts again: forget what is the parent's (other threads, their
	 * fds, timers, logs; locks a vanished thread may have held). */
	void (*fork_child)(void);
	/* Before an exec (or system/popen) of this process. */
	void (*exec)(void);
	/* After a dlopen/dlclose, once the module map is written. */
	void (*modules_changed)(void);
	/* The process ends (exit, _exit, abort, fatal signal). Parts ordered
	 * after PT_ORDER_LOGS run while tracing is still on. in_signal: from a
	 * fatal signal's handler, which may have interrupted any code of this
	 * thread, holding any lock: async-signal-safe, nothing that blocks. */
	void (*shutdown)(int in_signal);
	/* Before the trace directory is chosen (configuration read, pid and
	 * program known, no file open): a part that finds this process is one
	 * of a parallel job's (an MPI rank started by mpirun or srun) places
	 * it in the job's run, which every process of the job derives alike
	 * without talking to the others. The first part that sets run_id wins. */
	void (*join)(pt_run_job *job);
} pt_subsystem;



/* Where a part runs among the others (see pt_subsystem). */
enum pt_part_order {
	PT_ORDER_PREFAULT = 10,  /* before the logs: their windows use it */
	PT_ORDER_LOGS = 20,      /* the core: process log, thread logs */
	PT_ORDER_HOOKS = 30,     /* function tables of instrumented modules */
	PT_ORDER_API = 31,       /* the manual API's names */
	PT_ORDER_INTERPOSE = 40, /* interposition families */
	PT_ORDER_CALLSTACK = 50,
	PT_ORDER_COUNTERS = 60,
	PT_ORDER_SAMPLING = 61,  /* its samples use call stacks */
	PT_ORDER_GPU = 70,       /* gpu/: stream logs, names, device clocks */
	PT_ORDER_GPU_API = 80,   /* CUDA, OpenCL: drain into the stream logs first */
	/* Families whose calls the other parts make themselves while they
	 * start (file I/O, memory: libpfm4 reading /sys from the counters'
	 * init): they record from the end of every part's init on, and stop
	 * first at shutdown, so that none of that is taken for the program's
	 * (nor opens a thread's log before the parts are ready for it). */
	PT_ORDER_INTERPOSE_LAST = 90,
};

/* Registers the pt_subsystem `id` defined right after it:
 *     PT_SUBSYSTEM(counters_part) = {.name = "counters", ...};
 * A pointer to it goes to the linker section pt_subsys, whose bounds the
 * core reads (__start_/__stop_pt_subsys): it works the same for a part in
 * a static library, provided that library is linked whole (nothing else
 * refers to its objects). Pointers, not the descriptors themselves: the
 * compiler may pad or over-align a large object, never a pointer. */
#define PT_SUBSYSTEM(id)                                                                   \
	static const pt_subsystem id;                                                      \
	static const pt_subsystem *const id##_entry                                        \
		__attribute__((used, section("pt_subsys"), aligned(sizeof(void *)))) = &id; \
	static const pt_subsystem id

/* The table, sorted (parts.c). pt_parts_collect reads the section (again:
 * idempotent) and returns the number of parts; the core calls it once at
 * init. pt_part_find: NULL when `name` was left out of the build. */
PT_HIDDEN size_t pt_parts_collect(void);
PT_HIDDEN size_t pt_parts_count(void);
PT_HIDDEN const pt_subsystem *pt_part_at(size_t i);
PT_HIDDEN const pt_subsystem *pt_part_find(const char *name);
/* Every part's callback, in the order above. */
PT_HIDDEN void pt_parts_init(void);
PT_HIDDEN void pt_parts_thread_start(pt_thread *t);
PT_HIDDEN void pt_parts_thread_end(pt_thread *t);
PT_HIDDEN void pt_parts_fork_child(void);
PT_HIDDEN void pt_parts_exec(void);
PT_HIDDEN void pt_parts_modules_changed(void);
PT_HIDDEN void pt_parts_shutdown(int in_signal);
PT_HIDDEN void pt_parts_join(pt_run_job *job);

/* ---- configuration (environment, read once at init) ------------------- */
/* One field per setting, declared in the settings.inc of the part it
 * belongs to (settings_list.h says how); the fields of the parts the build
 * left out are there too, and keep their defaults. */
#define PT_SETTING_CTYPE_BOOL int
#define PT_SETTING_CTYPE_INT int
#define PT_SETTING_CTYPE_SIZE uint64_t
#define PT_SETTING_CTYPE_DURATION uint64_t
#define PT_SETTING_CTYPE_ENUM int
#define PT_SETTING_CTYPE_WORD const char *
#define PT_SETTING_CTYPE_LIST unsigned
#define PT_SETTING_CTYPE_STRING const char *
#define PT_SETTING_CTYPE_PATH const char *
typedef struct pt_config {
#define PT_SETTING(kind, field, ...) PT_SETTING_CTYPE_##kind field;
#include "settings_list.h"
#undef PT_SETTING
} pt_config;
#define PT_GPU_KERNELS_OFF 0
#define PT_GPU_KERNELS_ENTRIES 1
#define PT_GPU_KERNELS_BLOCKS 2
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

/* ---- what parts offer each other through the core ---------------------
 * A part never calls another by name (either may be left out of the
 * build): the counters and call-stack parts hand the core their entry
 * points from their init, and everyone else calls these.
 *   pt_counters_at(t, PT_COUNTERS_AT_SYNC) after lock/cond/barrier records,
 *   pt_counters_at(t, PT_COUNTERS_AT_THREADS) after thread create/join
 *   records (the core: after FUNC_ENTER/EXIT with ..._FUNCTIONS);
 *   pt_callstack_emit(t) right after the record of a lock contention
 *   (LOCK_REQUEST that blocks), a COND_WAIT_BEGIN and a THREAD_CREATE;
 *   pt_counter_manual(t, name) for the manual API's PT_COUNTER(name).
 * All take t from pt_enter() (inside the runtime's region). */
#define PT_COUNTERS_AT_FUNCTIONS 0x1u
#define PT_COUNTERS_AT_SYNC 0x2u
#define PT_COUNTERS_AT_THREADS 0x4u
/* PARATRACE_COUNTERS_AT as a mask of PT_COUNTERS_AT_*, 0 when no counter is
 * open: the hot path tests it before calling out of line. */
PT_HIDDEN extern unsigned pt_counters_at_mask;
/* Reads this thread's counters and writes a COUNTERS record (deltas since
 * the previous read) right after the record just written. Set whenever
 * pt_counters_at_mask is not 0. */
PT_HIDDEN extern void (*pt_counters_reader)(pt_thread *t);
/* The off-CPU part's reader of this thread's context switches, set from
 * its init when it reads them (NULL: none): run at the synchronization and
 * thread points below, where a thread that waited has just come back, so
 * that its switches are written before its ring of them fills. */
PT_HIDDEN extern void (*pt_switches_reader)(pt_thread *t);
static inline void pt_counters_at(pt_thread *t, unsigned where)
{
	if (pt_unlikely(pt_counters_at_mask & where))
		pt_counters_reader(t);
	void (*switches)(pt_thread *) = pt_switches_reader;
	if (pt_unlikely(switches != NULL) && where != PT_COUNTERS_AT_FUNCTIONS)
		switches(t);
}
/* PT_COUNTER(name): reads counter `name` on this thread and writes a
 * COUNTER_VALUE record holding its count since this thread's first
 * PT_COUNTER(name). Returns 0, or a negative errno when the counter cannot
 * be had (warned once per name; -ENOSYS without the counters part). */
PT_HIDDEN int pt_counter_manual(pt_thread *t, const char *name);
/* The counters part, from its init: the mask and the reader (NULL: none),
 * and the PT_COUNTER reader. */
PT_HIDDEN void pt_counters_provide(unsigned at_mask, void (*reader)(pt_thread *t),
				   int (*manual)(pt_thread *t, const char *name));

/* Writes a CALLSTACK record (PARATRACE_CALLSTACK callers of the code that
 * called into the runtime, the runtime's own frames skipped) attached to
 * the record just written; nothing when call stacks are off. Always
 * inline: the emitter counts the frames it skips, this adds none. */
PT_HIDDEN extern void (*pt_callstack_emitter)(pt_thread *t);
static inline __attribute__((always_inline)) void pt_callstack_emit(pt_thread *t)
{
	void (*emit)(pt_thread *) = pt_callstack_emitter;
	if (pt_unlikely(emit != NULL))
		emit(t);
}

/* ---- signals the runtime uses itself (signals.c; sampling.c) ---------- */
/* Installs h for sig (SA_SIGINFO | SA_RESTART, every signal blocked while
 * it runs) and keeps whatever action was there, and whatever the program
 * asks later through sigaction/signal, as the program's. 0, or -1 (errno). */
PT_HIDDEN int pt_signal_adopt(int sig, void (*h)(int, siginfo_t *, void *));
/* From h, for a delivery that is not the runtime's: does what the program's
 * action for sig says (ignore, default, or its handler with its mask). */
PT_HIDDEN void pt_signal_forward(int sig, siginfo_t *si, void *uc);

/* ---- threads, exit, exec, bootstrap (for the interposition families) --- */
/* Thread lifecycle, for the pthread_create/thrd_create wrappers: call
 * pt_thread_start first thing in the new thread (before any other event) so
 * its THREAD_START carries the creator; a thread that raised an event
 * already keeps its first THREAD_START (creator unknown). pt_thread_note_end
 * stores the retval/flags that the THREAD_END written by the runtime at
 * thread exit (pthread key destructor) will carry. */
PT_HIDDEN void pt_thread_start(const pt_rec_thread_start *start);
PT_HIDDEN void pt_thread_note_end(uint64_t retval, uint32_t flags);
/* The calling thread is about to start a child that shares its memory
 * and its thread pointer (clone(CLONE_VM) without CLONE_SETTLS): from now
 * on both run with this thread's tracing state and log. Every event of
 * this state then takes the slow path, where the runtime's guard is taken
 * by compare-and-swap: the records of both land in this log, whole, and
 * an event raised while the other holds the guard is counted lost. */
PT_HIDDEN void pt_thread_share(void);
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
extern PT_HIDDEN __thread volatile int pt_in_dlsym __attribute__((tls_model("initial-exec")));
static inline int pt_real_in_progress(void)
{
	return pt_in_dlsym;
}

/* Set (a depth) on the thread inside dlclose (dl.c): a module destructor
 * that runs then is an unload, one that runs without it the process's
 * end, where the module stays mapped and other threads may still call
 * its functions (hooks.c, __paratrace_unregister_module). */
extern PT_HIDDEN __thread int pt_dlclose_depth __attribute__((tls_model("initial-exec")));
PT_HIDDEN void *pt_bump_alloc(size_t size);
/* Pages from mmap, zeroed, given back with pt_pages_free: the runtime's
 * state that outgrows a bump allocation (per-thread state, the MPI part's
 * tables), never from the program's malloc. */
PT_HIDDEN void *pt_pages_alloc(size_t size);
PT_HIDDEN void pt_pages_free(void *p, size_t size);
/* Inline: every free() wrapper asks, first. */
#define PT_BUMP_STATIC (64 * 1024)
extern PT_HIDDEN char pt_bump_static[PT_BUMP_STATIC];
static inline int pt_bump_owns(const void *p)
{
	return (uintptr_t)p - (uintptr_t)pt_bump_static < PT_BUMP_STATIC;
}
/* Bytes from p (pt_bump_owns) to the end of the bootstrap area. */
PT_HIDDEN size_t pt_bump_room(const void *p);

#endif /* PT_RUNTIME_H */
