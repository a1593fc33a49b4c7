/* SPDX-License-Identifier: MIT */
/* Fatal signals (SEGV, BUS, FPE, ILL, ABRT, TERM, INT): the logs are
 * complete when the process dies of one, and the program sees no
 * difference.
 *
 * The runtime's handler is what the kernel has installed for these signals;
 * the program's own dispositions are kept in a table, "behind" it:
 *  - sigaction/signal on one of these signals store the program's action
 *    and install the runtime's handler with the program's flags and mask (so
 *    SA_RESTART, SA_NODEFER, SA_ONSTACK, SA_RESETHAND and the blocked set
 *    behave as asked), and report the program's previous action, never the
 *    runtime's handler;
 *  - SIG_IGN is installed for real (it is inherited across exec, and an
 *    ignored signal is not fatal).
 * On delivery: a SIGNAL record in the receiving thread's log (in the
 * process log, naming the thread, when the signal interrupted the runtime
 * on that thread: record_signal), then
 *  - the program has a handler: logs published, its handler runs (1- or
 *    3-argument form as it asked), errno as the handler leaves it;
 *  - SIG_DFL: the logs are closed (EXIT record, how = signal or abort),
 *    SIG_DFL is installed and the signal raised again (a hardware fault is
 *    simply re-executed), so the process dies of the same signal with the
 *    same exit status and core dump as without tracing.
 * SIGKILL cannot be caught: what survives it is described in docs/INTERPOSE.md.
 *
 * The same table keeps the program's action for a signal the runtime uses
 * itself (the sampling timers' real-time signal, pt_signal_adopt): the
 * runtime's handler stays installed whatever the program asks, and hands
 * every delivery that is not the runtime's to the program's action
 * (pt_signal_forward), so a program that uses that signal too, or installs
 * a handler for it later, sees what it would see untraced. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <signal.h>
#include <string.h>
#include <ucontext.h>

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT};

/* The program's action per signal, double-buffered: writers (sigaction,
 * serialised by `table_lock` with every signal blocked, so a handler on the
 * same thread can never find it taken) fill the slot not in use, then flip
 * `cur`; the handler reads the slot `cur` names. */
typedef struct app_action {
	struct sigaction slot[2];
	int cur;
} app_action;
static app_action table[NSIG];
static pt_spin table_lock;
static int installed; /* handlers installed: sigaction goes through the table */
static int adopted;   /* the runtime's own signal (pt_signal_adopt), 0 if none */
PT_HIDDEN int pt_abort_called;

PT_REAL_DECL(sigaction);

static int managed(int sig)
{
	if (sig > 0 && sig == __atomic_load_n(&adopted, __ATOMIC_ACQUIRE))
		return 1;
	if (!__atomic_load_n(&installed, __ATOMIC_ACQUIRE))
		return 0;
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
		if (fatal_signals[i] == sig)
			return 1;
	return 0;
}

static int is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

static void lock_table(sigset_t *saved)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, saved);
	pt_spin_lock(&table_lock);
}

static void unlock_table(const sigset_t *saved)
{
	pt_spin_unlock(&table_lock);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static void table_get(int sig, struct sigaction *out)
{
	int c = __atomic_load_n(&table[sig].cur, __ATOMIC_ACQUIRE);
	*out = table[sig].slot[c];
}

/* Caller holds the table lock. */
static void table_set(int sig, const struct sigaction *act)
{
	int next = !table[sig].cur;
	table[sig].slot[next] = *act;
	__atomic_store_n(&table[sig].cur, next, __ATOMIC_RELEASE);
}

static void handler(int sig, siginfo_t *si, void *uc);

/* The kernel-side action standing for the program's `app`. */
static struct sigaction ours_for(const struct sigaction *app)
{
	struct sigaction k = *app;
	if (app->sa_handler == SIG_IGN)
		return k;
	k.sa_sigaction = handler;
	k.sa_flags = app->sa_flags | SA_SIGINFO;
	if (app->sa_handler == SIG_DFL)
		k.sa_flags |= SA_ONSTACK; /* a stack overflow still gets its logs closed */
	return k;
}

static struct sigaction default_action(void)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	return dfl;
}

/* The program's default action for sig: logs closed, then the same death
 * as untraced. A fault raised by the kernel happens again when the
 * faulting instruction is re-executed on return; anything else (kill,
 * raise, abort, a terminal's ^C, sigqueue) is sent again. It stays pending
 * while the handler runs and kills the process on return. */
static void die_by_default(int sig, int how, const siginfo_t *si)
{
	int (*real)(int, const struct sigaction *, struct sigaction *) = PT_REAL(sigaction);
	pt_shutdown(how, sig);
	struct sigaction dfl = default_action();
	real(sig, &dfl, NULL);
	if (!(is_fault(sig) && si && si->si_code > 0))
		raise(sig);
}

/* Runs the program's handler as the kernel would have (SA_RESETHAND: the
 * disposition is reset to the default first). */
static void run_program_handler(const struct sigaction *app, int sig, siginfo_t *si, void *uc)
{
	if (app->sa_flags & SA_RESETHAND) {
		sigset_t saved;
		struct sigaction dfl = default_action();
		lock_table(&saved);
		table_set(sig, &dfl);
		unlock_table(&saved);
	}
	if (app->sa_flags & SA_SIGINFO)
		app->sa_sigaction(sig, si, uc);
	else
		app->sa_handler(sig);
}

/* SIGNAL in the thread's log; in the process log when the signal came
 * while the thread was inside the runtime (pt_enter refuses then: its log
 * holds a record in progress), so that a fatal signal is never missing
 * from the trace, whatever the thread was doing. */
static void record_signal(int sig, const siginfo_t *si)
{
	pt_rec_signal rec = {sig, si ? si->si_code : 0, 0, 0, 0};
	if (si && is_fault(sig))
		rec.addr = pt_ptr(si->si_addr);
	pt_thread *t = pt_enter();
	if (t) {
		rec.tid = pt_thread_tid(t);
		pt_emit(t, PT_REC_SIGNAL, 0, &rec, sizeof rec);
		pt_leave(t);
	} else if (pt_tracing()) {
		rec.tid = (uint32_t)gettid();
		pt_process_emit_from_handler(PT_REC_SIGNAL, &rec, sizeof rec);
	}
}

static void handler(int sig, siginfo_t *si, void *uc)
{
	int e = errno;
	int (*real)(int, const struct sigaction *, struct sigaction *) = PT_REAL(sigaction);
	record_signal(sig, si);
	struct sigaction app;
	table_get(sig, &app);
	if (app.sa_handler == SIG_DFL || app.sa_handler == SIG_IGN) {
		/* SIG_IGN: only if the program ignored it while this very
		 * signal was being delivered; ignoring it now is what it asked. */
		if (app.sa_handler == SIG_IGN) {
			real(sig, &app, NULL);
			errno = e;
			return;
		}
		int abort = sig == SIGABRT && __atomic_load_n(&pt_abort_called, __ATOMIC_RELAXED);
		die_by_default(sig, abort ? PT_EXIT_ABORT : PT_EXIT_SIGNAL, si);
		errno = e;
		return;
	}
	pt_publish_fence();
	errno = e;
	/* (With SA_RESETHAND the kernel has just reset the disposition.) */
	run_program_handler(&app, sig, si, uc);
	/* errno is left as the program's handler left it, as without tracing. */
}

/* Resolved at load, traced or not, not in a handler (a program's handler
 * may call sigaction, and dlsym is not async-signal-safe). */
__attribute__((constructor(102))) static void signals_resolve(void)
{
	(void)PT_REAL(sigaction);
}

/* When tracing starts. The current dispositions (SIG_DFL, or a handler a
 * library constructor installed already) become the program's table
 * entries. */
static void signals_init(void)
{
	int (*real)(int, const struct sigaction *, struct sigaction *) = PT_REAL(sigaction);
	sigset_t saved;
	lock_table(&saved);
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
		int sig = fatal_signals[i];
		struct sigaction cur;
		if (real(sig, NULL, &cur) != 0)
			continue;
		table_set(sig, &cur);
		if (cur.sa_handler != SIG_IGN) {
			struct sigaction k = ours_for(&cur);
			real(sig, &k, NULL);
		}
	}
	__atomic_store_n(&installed, 1, __ATOMIC_RELEASE);
	unlock_table(&saved);
}

PT_EXPORT int sigaction(int sig, const struct sigaction *restrict act,
                        struct sigaction *restrict oact)
{
	int (*real)(int, const struct sigaction *, struct sigaction *) = PT_REAL(sigaction);
	if (!managed(sig))
		return real(sig, act, oact);
	sigset_t saved;
	struct sigaction old;
	int r = 0;
	lock_table(&saved);
	table_get(sig, &old);
	if (act && sig == adopted) {
		table_set(sig, act); /* the runtime's handler stays; it forwards */
	} else if (act) {
		struct sigaction k = ours_for(act);
		r = real(sig, &k, NULL);
		if (r == 0)
			table_set(sig, act);
	}
	int e = errno;
	unlock_table(&saved);
	if (r == 0 && oact)
		*oact = old;
	errno = e;
	return r;
}

/* glibc's signal() and sysv_signal() set dispositions through its internal
 * sigaction, so they are wrapped too, with the same semantics (BSD:
 * SA_RESTART and the signal blocked in its handler; System V: one-shot, not
 * blocked). */
static __sighandler_t signal_via_table(int sig, __sighandler_t h, int flags, int self_mask)
{
	struct sigaction act, old;
	memset(&act, 0, sizeof act);
	act.sa_handler = h;
	sigemptyset(&act.sa_mask);
	if (self_mask)
		sigaddset(&act.sa_mask, sig);
	act.sa_flags = flags;
	if (sigaction(sig, &act, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

PT_REAL_DECL(signal);
PT_REAL_DECL(sysv_signal);

PT_EXPORT __sighandler_t signal(int sig, __sighandler_t h)
{
	__sighandler_t (*real)(int, __sighandler_t) = PT_REAL(signal);
	if (!managed(sig) || h == SIG_ERR)
		return real(sig, h);
	return signal_via_table(sig, h, SA_RESTART, 1);
}

PT_EXPORT __sighandler_t bsd_signal(int sig, __sighandler_t h)
{
	return signal(sig, h);
}

PT_EXPORT __sighandler_t sysv_signal(int sig, __sighandler_t h)
{
	__sighandler_t (*real)(int, __sighandler_t) = PT_REAL(sysv_signal);
	if (!managed(sig) || h == SIG_ERR)
		return real(sig, h);
	return signal_via_table(sig, h, SA_RESETHAND | SA_NODEFER, 0);
}

int pt_signal_adopt(int sig, void (*h)(int, siginfo_t *, void *))
{
	int (*real)(int, const struct sigaction *, struct sigaction *) = PT_REAL(sigaction);
	sigset_t saved;
	struct sigaction cur, k;
	memset(&k, 0, sizeof k);
	k.sa_sigaction = h;
	k.sa_flags = SA_SIGINFO | SA_RESTART;
	/* Nothing else runs inside it: it is short and must not nest. */
	sigfillset(&k.sa_mask);
	lock_table(&saved);
	int r = real(sig, NULL, &cur);
	if (r == 0) {
		table_set(sig, &cur); /* what the program (or a library) had */
		r = real(sig, &k, NULL);
	}
	if (r == 0)
		__atomic_store_n(&adopted, sig, __ATOMIC_RELEASE);
	int e = errno;
	unlock_table(&saved);
	errno = e;
	return r;
}

void pt_signal_forward(int sig, siginfo_t *si, void *uc)
{
	struct sigaction app;
	table_get(sig, &app);
	if (app.sa_handler == SIG_IGN)
		return;
	if (app.sa_handler == SIG_DFL) {
		/* A real-time signal's default action ends the process. */
		die_by_default(sig, PT_EXIT_SIGNAL, si);
		return;
	}
	/* The mask the program's handler would run with: the interrupted one,
	 * plus its sa_mask, plus the signal itself unless SA_NODEFER (the
	 * runtime's handler runs with everything blocked). */
	sigset_t mask = ((ucontext_t *)uc)->uc_sigmask;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&app.sa_mask, s) == 1)
			sigaddset(&mask, s);
	if (!(app.sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	run_program_handler(&app, sig, si, uc);
}

/* The table's lock may have been held by a thread that is not in the
 * child (it is held only with every signal blocked, so not by this one). */
static void signals_fork_child(void)
{
	pt_spin_reset(&table_lock);
}

PT_SUBSYSTEM(signals_part) = {
	.name = "signals",
	.order = PT_ORDER_INTERPOSE,
	.init = signals_init,
	.fork_child = signals_fork_child,
};
