/* SPDX-License-Identifier: MIT */
/* Each test program keeps its own record of the calls it makes, so that
 * the expected trace comes from the program and not from a pasted dump:
 * every instrumented function calls sl_enter/sl_exit (SL_FUNC in C++), and
 * at exit the program prints
 *   SEQ +name +name -name ...   its calls and returns, in order, and
 *                               =name where a longjmp landed in name
 *   COUNT name N                how many times it entered each function
 *   EXPECT resyncs=R open=O     frames skipped by longjmp / left open by exit()
 * and, for threads other than the main one (numbered with sl_thread(n) in
 * order of their first call), SEQn and EXPECTn lines.
 * which tests/plugin/e2e.py compares with `paratrace dump`. A name may carry
 * "@file" to tell apart static functions of the same name. These helpers
 * are no_instrument_function: if the plugin ignored the attribute they
 * would show up in the trace and the comparison would fail. */
#ifndef SELFLOG_H
#define SELFLOG_H

#define NOINSTR __attribute__((no_instrument_function))
/* Test functions must survive -O2 as calls (the pass instruments late, so
 * inlined bodies are, by design, not reported). */
#define TF __attribute__((noinline))

#ifdef __cplusplus
extern "C" {
#endif
NOINSTR void sl_enter(const char *name);
NOINSTR void sl_exit(const char *name);
/* A longjmp landed in `name`: the trace shows a FUNC_LANDED of it (the
 * pass's report of the landing), no new call. The frames it skipped are
 * the caller's to log as exits first. */
NOINSTR void sl_landed(const char *name);
NOINSTR void sl_expect(int resyncs, int open);
/* This thread is thread n (main: 0). Threads must not log at the same
 * time: the tests hand over with barriers. */
NOINSTR void sl_thread(int n);
NOINSTR void sl_expect_thread(int n, int resyncs, int open);
/* Registers the printer with atexit(); call first thing in main. */
NOINSTR void sl_init(void);
#ifdef __cplusplus
}

struct SlGuard {
	const char *name;
	NOINSTR explicit SlGuard(const char *n) : name(n) { sl_enter(n); }
	NOINSTR ~SlGuard() { sl_exit(name); }
};
#define SL_FUNC(n) SlGuard sl_guard_(n)
#endif

#endif
