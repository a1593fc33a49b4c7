/* SPDX-License-Identifier: MIT */
/* Private to the runtime core (clock, writer, hooks, process log, config).
 * Other runtime families use pt_runtime.h only. */
#ifndef PT_CORE_H
#define PT_CORE_H

#include "pt_count.h"
#include "pt_runtime.h"

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* ---- clock ---------------------------------------------------------- */
typedef struct pt_clock_cal {
	uint32_t source; /* enum pt_clock_source */
	uint32_t shift;
	uint64_t mult;
	/* TSC: the (ticks, CLOCK_MONOTONIC ns) pair read when the run started,
	 * which mult is measured from; 0 when not known (inherited from a
	 * runtime that did not pass it). */
	uint64_t anchor_ticks, anchor_ns;
} pt_clock_cal;

extern PT_HIDDEN pt_clock_cal pt_clock;

/* Chooses the clock and calibrates it. `want`: "auto", "tsc" or
 * "monotonic". `inherited` (may be NULL): a calibration handed down by the
 * parent image through PARATRACE_RUN, reused when this machine can read
 * the same clock. Returns 0, or -1 with a message in err. */
PT_HIDDEN int pt_clock_init(const char *want, const pt_clock_cal *inherited, char *err,
			    size_t errlen);
PT_HIDDEN void pt_clock_pair_now(pt_clock_pair *p);
/* Is the invariant-TSC bit set in CPUID (x86 only)? */
PT_HIDDEN int pt_clock_tsc_invariant(void);
/* The best calibration now (TSC: measured from the run's anchor to a pair
 * read here, which *at is set to; 0 when nothing was measured: the
 * monotonic clock, or a calibration inherited without an anchor). */
PT_HIDDEN void pt_clock_current(pt_clock_cal *cal, uint64_t *at);
/* Before a fork: the calibration the child inherits, measured now. */
PT_HIDDEN void pt_clock_fork_prepare(void);
/* In a fork child: its CLOCK_MONOTONIC checked against the run's (a child
 * may be in another time namespace), as an exec'd image's at init. */
PT_HIDDEN void pt_clock_fork_child(void);
/* This process's CLOCK_MONOTONIC minus the run's, taken off its readings
 * (0: the same clock). */
extern PT_HIDDEN int64_t pt_clock_mono_offset;

/* ---- writer ---------------------------------------------------------- */
/* One log file written through a shared mapping of a window of the file.
 * The file is reserved (written zeros) ahead of the data, so the bytes after
 * the last record are zeros: the format's END marker, also after SIGKILL.
 *
 * Invariants: base <= cur <= end; [base, end) maps file bytes
 * [win_off, win_off + (end - base)); everything in the file below
 * win_off + (cur - base) is complete records; `last` is the time of the
 * previous record. `limit` is what the hot path compares against: equal to
 * `end` while the fast path may append, NULL to force every event through
 * the slow path (closed, closing, forking, no space). */
/* A log's next window, prepared by the prefault helper (prefault.c). */
enum { PT_PF_IDLE, PT_PF_QUEUED, PT_PF_PREPARING, PT_PF_MAPPED, PT_PF_DONE };
typedef struct pt_prefault {
	atomic_int state;
	atomic_int cancel;
	const int *fd;     /* the log's descriptor slot (pt_fd.h) */
	uint64_t off;      /* file offset and length of the window */
	size_t len;
	uint64_t reserved; /* the log's reserved bytes, advanced by the helper */
	char *base;        /* the mapping (the owner's to unmap), NULL if it failed;
			    * set by the owner when it asks only for the touch */
	struct pt_prefault *next; /* the helper's queue */
} pt_prefault;

/* Queues pf (fd, off, len, reserved filled in; base too when the window is
 * mapped already) for the helper thread, started on first use. 0, or -1 when there is no helper. */
PT_HIDDEN int pt_prefault_request(pt_prefault *pf);
/* Waits until pf's window is mapped (the touch may go on: the owner can
 * write into it meanwhile). A request the helper has not started is
 * withdrawn (state DONE). 1 if the helper is still touching. */
PT_HIDDEN int pt_prefault_mapped(pt_prefault *pf);
/* Returns once the helper is done with pf, stopping a touch early and
 * withdrawing a request not started; pf is then the caller's again (IDLE).
 * Call before pf's window is unmapped or the file shrinks. */
PT_HIDDEN void pt_prefault_wait(pt_prefault *pf);
/* PARATRACE_PREFAULT: -1 auto, 0 off, 1 on. */
extern PT_HIDDEN int pt_prefault_mode;
/* Whether a log that just became busy should use the helper: with `auto`,
 * only while fewer logs are busy than the process has CPUs, so that the
 * helper runs on a CPU the program leaves idle instead of taking one from
 * it. `busy` is the log's flag, counted once. */
PT_HIDDEN int pt_prefault_worth_it(int *busy);
PT_HIDDEN void pt_prefault_log_done(int *busy);

typedef struct pt_wlog {
	char *cur;
	char *limit;
	uint64_t last;
	/* The function of the log's most recent function record, which a short
	 * record (format 3.0) enters or exits again: an ABI function id, or a
	 * -finstrument-functions address | PT_FUNC_KEY_PC; 0 when there is
	 * none or one may have been lost. */
	uint64_t last_func;
	/* Set while a hook's fast path is between its first load of this log's
	 * state and its last store (hooks.c): an event raised then by a signal
	 * handler on this thread is dropped, not written over the record in
	 * progress. */
	int in_hook;
	uint32_t nested_lost; /* see pt_wlog_note_nested */
	/* pt_log_fast's last_obj (pt_runtime.h): the object a family's
	 * compact record may stand for, 0 when none is known */
	uint64_t last_obj;
	/* Signals held back by a window switch of the thread's own log until
	 * the thread leaves the runtime (writer.c, map_window_masked): masked
	 * says they are, saved_mask what pt_wlog_unmask restores. */
	int masked;
	uint64_t saved_mask;
	char *base;
	char *end;
	uint64_t win_off;
	size_t map_len;    /* bytes mapped at base (end may stop short of it: the size cap) */
	uint64_t reserved; /* file bytes allocated so far */
	uint64_t written_back; /* writeback started for [0, written_back) */
	uint64_t dropped;      /* page cache released for [0, dropped) */
	int fd;
	int dead;      /* closed or trimmed: never write again (unless suspended) */
	int suspended; /* closed for an exec: pt_wlog_resume goes on after the CLOSE */
	int writer_lock; /* the file is flock'ed (PT_HDR_FLAG_WRITER_LOCK) */
	/* Object of the most recent LOCK_ACQUIRED in the file (0: none, or one
	 * may have been lost): a release of it is written as its head alone. */
	uint64_t last_acquired;
	/* A family's compact records may refer to the file's last record
	 * written with PT_CTX_OPEN (pt_emit_compact): set when one is stored,
	 * cleared when a record is lost or a LOST record stored, as readers
	 * forget it there. */
	int ctx;
	int slow;      /* keep limit NULL: every event takes the slow path */
	uint32_t kind; /* enum pt_file_kind */
	/* data that never reached the file, written as PT_REC_LOST when space returns */
	uint64_t lost_records, lost_bytes;
	uint32_t lost_reason;
	uint32_t retry_countdown; /* events to drop before trying to map again */
	/* Time (ticks) after which the next record refreshes the header's
	 * calibration (writer.c, refresh_clock); UINT64_MAX: never. */
	uint64_t next_cal;
	atomic_int busy;          /* a non-hot-path writer is inside (pt_log_file, process log) */
	/* The next window, asked of the prefault helper once the log is busy:
	 * `ahead` says a request is out (or done and not yet taken). */
	int ahead;
	int map_self;   /* the helper fell behind: map ahead here, it only touches */
	pt_prefault pf[2]; /* pf[cur_pf]: the current window's (its touch may go on) */
	int busy_counted;  /* counted in the prefault helper's busy logs */
	int cur_pf;
	/* A log closed while its owner lives on (pt_wlog_close_quiet, at the
	 * process's end): where its CLOSE record starts, and that record, so
	 * that the events the owner raises afterwards are counted in a LOST
	 * record put in front of it (pt_wlog_note_after_close). close_off 0:
	 * not closed that way. */
	uint64_t close_off;
	char close_rec[PT_REC_SIZE(CLOSE)];
	uint64_t after_close; /* events counted since (atomic) */
} pt_wlog;

typedef struct pt_file_params {
	uint32_t kind;
	uint32_t tid;
	uint64_t gpu_stream;
} pt_file_params;

/* Creates `name` in the folder whose descriptor is in *dirfd (O_EXCL,
 * O_NOFOLLOW, 0600), maps the first window, writes the header and the
 * first PT_REC_TIME. l must stay where it is until closed or forgotten: it
 * keeps the file's descriptor (pt_fd.h). 0, or -errno. */
PT_HIDDEN int pt_wlog_create(pt_wlog *l, const int *dirfd, const char *name,
			     const pt_file_params *p);
/* Appends one record (see pt_emit). `ticks` is clamped to >= l->last. */
PT_HIDDEN void pt_wlog_put(pt_wlog *l, uint64_t ticks, unsigned kind, unsigned arg,
			   const void *p1, size_t len1, const void *p2, size_t len2);
/* A 16-byte record (head + one word of payload), the most common kind
 * after FUNC records (locks): stored in place when the window has room,
 * else through pt_wlog_put. */
PT_HIDDEN void pt_wlog_put_word(pt_wlog *l, uint64_t ticks, unsigned kind, unsigned arg,
				uint64_t word);
/* A lock record (see pt_lock_emit_at): a release of last_acquired is 8
 * bytes, every other one 16 (24 with a non-zero result). */
PT_HIDDEN void pt_wlog_put_lock(pt_wlog *l, uint64_t ticks, unsigned kind, unsigned type,
				uint64_t obj, int result);
/* An event dropped because a signal handler raised it while this thread
 * was inside a hook's fast path or the runtime: counted in nested_lost (an
 * atomic add, whatever the interrupted code was doing with the log), which
 * the next record written folds into a LOST record (reason REENTRANT). */
PT_HIDDEN void pt_wlog_note_nested(pt_wlog *l);
/* Restores the signal mask a window switch of the thread's own log held
 * back, if it did: pt_leave calls it once the guard is down (a pending
 * signal is delivered there), and so does the log's close. */
PT_HIDDEN void pt_wlog_unmask(pt_wlog *l);
/* A family's compact record (pt_emit_compact) in place: word with the
 * delta at bit shift, then len bytes (0, or even and 4 to 24). 1 when stored; 0 when it
 * does not fit (room, delta, a LOST pending, PT_CTX_NEED without ctx). */
PT_HIDDEN int pt_wlog_put_compact(pt_wlog *l, uint64_t ticks, uint32_t word, unsigned shift,
                                  const void *p, size_t len, unsigned flags);
/* Slow path of the 8-byte FUNC records. */
PT_HIDDEN void pt_wlog_put_func(pt_wlog *l, uint64_t ticks, unsigned kind, uint32_t id);
/* CLOSE record, trim to the data, unmap, close the fd. */
PT_HIDDEN void pt_wlog_close(pt_wlog *l);
/* Before an exec: CLOSE and trim like pt_wlog_close, but the descriptor and
 * the window stay, so that if the exec fails pt_wlog_resume (also called by
 * the next pt_wlog_put or pt_wlog_put_final: another writer of a shared log)
 * extends the file again and the log goes on after its CLOSE. The reader
 * takes a CLOSE followed by more records as a log that went on. resume: 0,
 * or -1 when the log cannot go on (no space: it stays as closed). */
PT_HIDDEN void pt_wlog_suspend(pt_wlog *l);
PT_HIDDEN int pt_wlog_resume(pt_wlog *l);
/* The log of a thread that lives on but will never write into it again
 * (the process is ending): CLOSE, trimmed, the window and the descriptor
 * kept for pt_wlog_note_after_close. The owner is not writing into it
 * meanwhile: it is the caller, or it is outside the runtime and its hooks'
 * fast path, which cannot start again (limit NULL, seen by it). */
PT_HIDDEN void pt_wlog_close_quiet(pt_wlog *l);
/* A log whose owner may be inside its hooks' fast path, storing one
 * record with the limit it read before limit was set NULL (a fast path
 * stores at most PT_FAST_STORE_MAX bytes at the position it read): the file is trimmed
 * just past that record, which lands whole in the file or not at all
 * (zeros: the end mark). The log stays the owner's: it closes it with
 * pt_wlog_close_quiet, which first extends the file again. */
PT_HIDDEN void pt_wlog_trim_live(pt_wlog *l);
/* An event the owner of a log closed by pt_wlog_close_quiet raised after
 * the close: counted, and the count written in a LOST record (reason
 * ENDED) just before the CLOSE, so the log stays complete and says how
 * much it lost. Owner only (a signal handler of the owner included). */
PT_HIDDEN void pt_wlog_note_after_close(pt_wlog *l);
/* Fork child: forget a log of the parent (unmapped already: windows are
 * MADV_DONTFORK), close the fd without touching the file. */
PT_HIDDEN void pt_wlog_forget(pt_wlog *l);
/* Bytes of data (header included). */
PT_HIDDEN uint64_t pt_wlog_length(const pt_wlog *l);

/* The last bytes of every window are kept for the records that end a log
 * (a pending LOST, THREAD_END or EXIT, CLOSE, each possibly after a TIME,
 * and the pads before the first: 6 + 32 + 16 + 24 + 16 + 32 = 126 at most): even when no
 * more space can be had (disk full, PARATRACE_MAX_SIZE), a log still ends
 * complete and says how much it lost. */
#define PT_TAIL_RESERVE 128
/* The most bytes a fast path stores at the position it read: a hook's
 * 16, a family's compact record's 28 (pt_emit_compact). */
#define PT_FAST_STORE_MAX 32
/* Bytes a record may need beyond its size: the pads that align it after a
 * short or compact record. */
#define PT_REC_ALIGN_SLACK 6
#define PT_FUNC_KEY_PC (1ull << 63)
/* Where the fast path must stop: the window's end less the tail reserve. */
static inline char *pt_wlog_fast_end(const pt_wlog *l)
{
	return l->end ? l->end - PT_TAIL_RESERVE : NULL;
}
/* The fast paths' view of a log (pt_runtime.h: pt_fast_begin,
 * pt_fast_fits, pt_fast_words; core.c checks the layout). limit, while it
 * is not NULL, is the window's fast end of an open log with nothing lost
 * to say first: pt_leave sets it so, not while lost_records is not 0;
 * pt_enter, closing and a failed window switch clear it. */
static inline pt_log_fast *pt_wlog_fast(pt_wlog *l)
{
	return (pt_log_fast *)(void *)l;
}
/* Like pt_wlog_put, for a record that ends a log (THREAD_END, EXIT): may
 * use the tail reserve. */
PT_HIDDEN void pt_wlog_put_final(pt_wlog *l, uint64_t ticks, unsigned kind, unsigned arg,
				 const void *p1, size_t len1, const void *p2, size_t len2);

/* Zeros to reserve log space with (writer.c): a read-only mapping of
 * pt_zero_len bytes, set up by the first large reservation of the process,
 * at the latest before the first request to the prefault helper. */
extern PT_HIDDEN const char *pt_zero_src;
extern PT_HIDDEN size_t pt_zero_len;

/* Writer-wide settings, from the configuration. */
extern PT_HIDDEN size_t pt_window_size;
extern PT_HIDDEN uint64_t pt_max_file_size;
/* Totals over all logs, for the warning at exit. */
extern PT_HIDDEN atomic_uint_fast64_t pt_total_lost_records;
extern PT_HIDDEN atomic_uint_fast64_t pt_total_lost_bytes;

/* ---- threads --------------------------------------------------------- */
/* pt_tls_state. CREATING: the thread is opening its log; an event raised
 * then (a signal handler) is dropped rather than re-entering the registry. */
enum { PT_TLS_NEW = 0, PT_TLS_ACTIVE = 1, PT_TLS_FINISHED = 2, PT_TLS_CREATING = 3 };

/* A recorded call open on a thread: its function, and where the stack was
 * at its entry hook (the entry hook's CFA: its caller's stack pointer at
 * the call). */
#define PT_OPEN_CALLS_MAX 128u
typedef struct pt_open_call {
	uintptr_t cfa;
	uint32_t id;
	uint32_t pad;
} pt_open_call;

struct pt_thread {
	pt_wlog log; /* first: the hot path reaches cur/limit/last at offset 0 */
	uint32_t tid;
	atomic_int guard;   /* inside the runtime (recursion guard) */
	atomic_int closed;  /* log closed or sealed */
	int forking;
	/* Another thread runs with this state: a child of clone(CLONE_VM)
	 * without a TLS of its own (pt_thread_share). */
	int shared;
	/* What the process's end (exit, _exit) did with this thread's log
	 * while the thread lives on (shutdown.c, seal_others): PT_FATE_*. */
	atomic_int exit_fate;
	uint64_t end_retval;
	uint32_t end_flags;
	/* The recorded calls open on this thread, outermost first, for
	 * throttling's sums (hooks.c, "Open calls"): open_depth of them, the
	 * first PT_OPEN_CALLS_MAX in open_calls, the deeper ones only counted. */
	uint32_t open_depth;
	pt_open_call open_calls[PT_OPEN_CALLS_MAX];
	struct pt_thread *next, *prev; /* registry, under pt_registry_lock */
};

extern PT_HIDDEN __thread pt_thread *pt_tls __attribute__((tls_model("initial-exec")));
extern PT_HIDDEN __thread int pt_tls_state __attribute__((tls_model("initial-exec")));

/* Creates this thread's state (first event). NULL when tracing is off. */
PT_HIDDEN pt_thread *pt_thread_create(const pt_rec_thread_start *start);
/* An event pt_enter() refused because it was raised inside the runtime or
 * a hook's fast path (a signal handler interrupting them): counted as lost
 * (reason REENTRANT). Nothing otherwise (tracing off, thread not traced). */
PT_HIDDEN void pt_note_nested_event(void);
/* Hook slow path: a FUNC_ENTER/EXIT or FUNC_LANDED record of id (pc == 0),
 * or a PC record. Returns id (a tail call for the hooks, which return it). */
PT_HIDDEN uint32_t pt_hook_slow(unsigned kind, uint32_t id, uint64_t pc);

/* ---- throttling (throttle.c) ------------------------------------------ */
/* A thread's state of one function, indexed by function id (hooks.c's
 * fast path). Once `count` is set the function is throttled on this
 * thread: an entry adds 1 to *count (a slot of a THROTTLE_COUNTS record,
 * in the log's shared mapping); neither hook reads the clock. Hook ABI 2
 * calls no exit hook for such a call. With ABI 1 the entry also adds 1 to
 * tdepth and an exit with tdepth > 0 takes 1 from it. The other fields measure the
 * recorded calls for the decision: n calls entered since the last one,
 * open of them not exited yet, acc the sum of their exit times minus the
 * sum of their entry times (ticks). */
typedef struct pt_fstat {
	uint64_t *count;
	int64_t acc;
	uint32_t n;
	uint32_t open;
	uint32_t tdepth;
	uint32_t pad;
} pt_fstat;

/* This thread's table: entry id is dir[id >> PT_FCHUNK_SHIFT][id &
 * PT_FCHUNK_MASK] for id < cap (0: no table); grow: the table should grow
 * to hold a larger id (throttling on and this thread traced). Entries
 * never move while the thread lives: a signal handler's hook may grow the
 * table between the moment an interrupted hook finds its entry and the
 * moment it uses it (throttle.c, pt_throttle_grow). One TLS object: the
 * hooks find all three through one address. */
#define PT_FCHUNK_SHIFT 7u
#define PT_FCHUNK (1u << PT_FCHUNK_SHIFT)
#define PT_FCHUNK_MASK (PT_FCHUNK - 1u)
typedef struct pt_ftable {
	pt_fstat **dir;
	uint32_t cap;
	int grow;
} pt_ftable;
extern PT_HIDDEN __thread pt_ftable pt_ft __attribute__((tls_model("initial-exec")));

/* The table's capacity, read before its directory: a grow publishes the
 * directory first, so the directory read after it holds every id below
 * it (an older directory stays mapped, and names the same chunks). */
static inline __attribute__((always_inline)) uint32_t pt_ft_cap(void)
{
	uint32_t cap = __atomic_load_n(&pt_ft.cap, __ATOMIC_RELAXED);
	atomic_signal_fence(memory_order_acquire);
	return cap;
}

/* Entry id, for id < pt_ft_cap(). */
static inline __attribute__((always_inline)) pt_fstat *pt_fstat_of(uint32_t id)
{
	return &__atomic_load_n(&pt_ft.dir, __ATOMIC_RELAXED)[id >> PT_FCHUNK_SHIFT]
	                                                      [id & PT_FCHUNK_MASK];
}

/* PARATRACE_THROTTLE's calls (0: off). */
extern PT_HIDDEN uint32_t pt_throttle_calls;
/* The hooks' slow paths: the table grown to hold id (or pt_fgrow
 * cleared); the decision at a recorded entry once n reached
 * pt_throttle_calls, on a thread inside the runtime (pt_enter): 1 when the
 * function is throttled from this call on (counted; v1: its exit hook
 * will come, tdepth counts it), 0 when it is not (the stats start a new
 * round; the caller records the entry). */
PT_HIDDEN void pt_throttle_grow(uint32_t id);
PT_HIDDEN int pt_throttle_decide(pt_thread *t, pt_fstat *s, uint32_t id, uint64_t now, int v1);
/* Stops throttling on this thread's TLS (a clone sharing it). */
PT_HIDDEN void pt_throttle_stop(void);
/* "off", or "CALLS:DURATION" (DURATION as pt_parse_duration_ns reads it):
 * 0, or -1 when s is neither. calls 0: off. */
PT_HIDDEN int pt_throttle_parse(const char *s, uint32_t *calls, uint64_t *dur_ns);
/* The registered module that holds function id (hooks.c): its first id
 * in *base, and in *key a token for the registration (a module loaded
 * again registers anew). NULL when none, or once it was unregistered. */
struct pt_abi_module;
PT_HIDDEN const struct pt_abi_module *pt_func_module(uint32_t id, uint32_t *base,
                                                     const void **key);
/* Throttling without a call (hook ABI 3, throttle_tls.c): function id,
 * throttled on this thread with its count at *count, is counted by its
 * module's own code from now on, where the module has a counts pointer. */
PT_HIDDEN void pt_throttle_tls_bind(uint32_t id, uint64_t *count);
/* The module of registration key is being unloaded (dlclose): its TLS
 * goes away, no thread touches its counts pointer again. */
PT_HIDDEN void pt_throttle_tls_unloaded(const void *key);
/* Every counts pointer this thread set goes back to its module's array
 * of NULLs (before the counts it led to are unmapped); drop also frees
 * the arrays. */
PT_HIDDEN void pt_throttle_tls_clear(int drop);
/* Fork child: the forking thread's pointers cleared, every array freed. */
PT_HIDDEN void pt_throttle_tls_fork_child(void);
/* The highest function id handed out so far, plus one (hooks.c). */
PT_HIDDEN uint32_t pt_func_ids_end(void);

/* ---- global state ------------------------------------------------------ */
enum {
	PT_STATE_UNINIT = 0,
	PT_STATE_INITIALIZING,
	PT_STATE_RUNNING,
	PT_STATE_OFF,     /* disabled by configuration or an error */
	PT_STATE_CLOSING, /* pt_shutdown in progress or done */
	/* A fatal signal's handler ended tracing (pt_shutdown): that thread's
	 * log and the process log are closed; the other threads go on writing
	 * their own logs (pt_enter lets them) until the kernel ends them. */
	PT_STATE_DYING,
};
/* pt_enter's test: a thread may write into its own log. */
static inline int pt_state_writable(int s)
{
	return s == PT_STATE_RUNNING || s == PT_STATE_DYING;
}
extern PT_HIDDEN atomic_int pt_state;

typedef struct pt_run {
	int dirfd;  /* trace directory */
	int pdirfd; /* this process's folder */
	char dir[4096];
	char pdir_name[64];
	uint64_t run_id;
	uint32_t pid, ppid;
	uint32_t hdr_flags; /* PT_HDR_FLAG_* of this process */
	char program[64];
	/* A process of a parallel job (pt_run_job): rank + 1 (0: none) and
	 * size, in the headers; its process folder is p<pid>-r<rank>. */
	uint32_t job_rank1, job_size, job_world;
} pt_run;
extern PT_HIDDEN pt_run pt_run_info;

PT_HIDDEN void pt_init(void);
/* Initialises the runtime if nothing has yet (constructor not run yet, or
 * the first event of any thread); 1 when it is tracing then. An init
 * running on another thread is not waited for (0). */
static inline int pt_ensure_initialized(void)
{
	int s = atomic_load_explicit(&pt_state, memory_order_acquire);
	if (pt_likely(s == PT_STATE_RUNNING))
		return 1;
	if (s == PT_STATE_UNINIT) {
		pt_init();
		return atomic_load_explicit(&pt_state, memory_order_acquire) == PT_STATE_RUNNING;
	}
	return 0;
}

extern PT_HIDDEN pt_spin pt_registry_lock;
extern PT_HIDDEN pt_thread *pt_registry;

/* ---- config ------------------------------------------------------------ */
/* Parses the PARATRACE_* variables through `get` (getenv in the runtime, a
 * table in tests). Returns 0, or -1 with one line in err naming the
 * variable and what was expected. */
PT_HIDDEN int pt_config_parse(pt_config *c, const char *(*get)(const char *name), char *err,
			      size_t errlen);
/* "4096", "64K", "4M", "1G" (K/M/G = 1024^n; an optional trailing B or iB). */
PT_HIDDEN int pt_parse_size(const char *s, uint64_t *out);
/* "500000" (ns), "10us", "1ms", "2s". */
PT_HIDDEN int pt_parse_duration_ns(const char *s, uint64_t *out);
/* PARATRACE_CLOCK: auto|tsc|monotonic, validated by pt_config_parse. */
extern PT_HIDDEN const char *pt_config_clock;
extern PT_HIDDEN pt_config pt_cfg;

/* ---- process log, modules --------------------------------------------- */
PT_HIDDEN int pt_process_open(int forked);
PT_HIDDEN void pt_process_close(int how, int status);
PT_HIDDEN void pt_modules_reset(void);
/* dl_iterate_phdr scan; `initial`: modules are not flagged DLOPEN. */
PT_HIDDEN void pt_modules_scan(int initial);
/* Module map state is lost across exec only; fork keeps it but the child's
 * process log is new, so the child rescans from nothing. */

/* ---- PARATRACE_RUN ---------------------------------------------------- */
#define PT_RUN_ENV "PARATRACE_RUN"
/* Parses "v2:<run_id hex>:<source>:<mult>:<shift>:<anchor ticks>:<anchor ns>:<dir>"
 * (and v1, without the anchor). 0 on success. */
PT_HIDDEN int pt_run_env_parse(const char *s, uint64_t *run_id, pt_clock_cal *cal, char *dir,
			       size_t dirlen);
PT_HIDDEN int pt_run_env_format(char *buf, size_t len);

/* ---- bump allocator -------------------------------------------------- */
/* Zeroed, 16-byte aligned, never freed; works before anything else. */
PT_HIDDEN void *pt_bump_alloc(size_t size);

PT_HIDDEN uint32_t pt_gettid(void);

/* ---- glue between core files ------------------------------------------ */
/* Like pt_ensure_initialized, but waits for an init running on another
 * thread. */
PT_HIDDEN int pt_ensure_initialized_wait(void);
/* n consecutive function ids (first returned), 0 when the id space is full. */
PT_HIDDEN uint32_t pt_func_ids_alloc(uint32_t n);
PT_HIDDEN void pt_emit_func_def(uint32_t id, const char *name, const char *file, uint32_t line,
				uint64_t module_base);
PT_HIDDEN void pt_process_lock_fork(void);
/* 1 when the runtime's state belongs to this process; in a child of a raw
 * fork or clone (no atfork handler ran), it is rebuilt for the child first,
 * or tracing is turned off there (0). Not from a signal handler. */
PT_HIDDEN int pt_state_is_mine(void);
PT_HIDDEN int pt_process_trylock_fork(void); /* 0 when taken */
PT_HIDDEN void pt_process_unlock_fork(int child);
/* exec: the process log ends with CLOSE, trimmed; resumed if the exec
 * fails (pt_wlog_suspend). */
PT_HIDDEN void pt_process_suspend(void);
PT_HIDDEN void pt_process_resume(void);
PT_HIDDEN void pt_log_files_seal(void);
/* exec: the extra logs (GPU streams) closed like the calling thread's
 * (pt_wlog_suspend), and reopened if the exec fails; a log whose writer is
 * inside it is left as it is (tried for a bounded time: the exec may come
 * from a signal handler that interrupted that writer). */
PT_HIDDEN void pt_log_files_suspend(void);
PT_HIDDEN void pt_log_files_resume(void);
PT_HIDDEN void pt_log_files_forget(void);

/* ---- trace directory and process folder (rundir.c) -------------------- */
PT_HIDDEN int pt_open_trace_dir(const char *path, int *slot, char *err, size_t errlen);
PT_HIDDEN int pt_make_process_dir(char *err, size_t errlen);
PT_HIDDEN void pt_default_dir(char *out, size_t len);
PT_HIDDEN void pt_absolutize(char *path, size_t len);

#endif /* PT_CORE_H */
