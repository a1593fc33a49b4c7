/* SPDX-License-Identifier: MIT */
/* Off-CPU time (runtime/offcpu/): where a thread's stretches off its CPU
 * come from, shared by the two files of the part.
 *
 *   switches.c  the kernel's context-switch records of each thread (a
 *               software perf event, PERF_COUNT_SW_DUMMY with
 *               context_switch, read from its ring): every stretch, for
 *               whatever reason the thread left its CPU;
 *   calls.c     the blocking calls the runtime wraps (sleeps, poll,
 *               select, epoll_wait) and the part: after such a call, the
 *               thread's switches are read, or, on a thread without them,
 *               the call itself is the stretch.
 * PARATRACE_OFFCPU chooses (auto, switches, calls, off). */
#ifndef PT_OFFCPU_H
#define PT_OFFCPU_H

#include "pt_runtime.h"

/* PARATRACE_OFFCPU's values, in the order of its words. */
enum { PT_OFFCPU_AUTO, PT_OFFCPU_SWITCHES, PT_OFFCPU_CALLS, PT_OFFCPU_OFF };

/* What this process records: PT_OFFCPU_SWITCHES, _CALLS or _OFF (the
 * setting, once the kernel was asked). Set by the part's init. */
extern PT_HIDDEN int pt_offcpu_mode;

/* switches.c. At init: 0 when this thread can have its context switches,
 * or -errno (nothing warned). The event stays open for this thread's ring. */
PT_HIDDEN int pt_switches_probe(void);
/* On the thread, at its start: opens its ring. 1 when open (its
 * stretches come from there), 0 when not (from its calls). */
PT_HIDDEN int pt_switches_open(pt_thread *t);
/* Writes OFFCPU records for every stretch in the ring that is over. */
PT_HIDDEN void pt_switches_read(pt_thread *t);
/* This thread's ring is open. */
PT_HIDDEN int pt_switches_on(void);
/* At the thread's end (t NULL: nothing written), and in a fork child for
 * the rings it inherited. */
PT_HIDDEN void pt_switches_close(pt_thread *t);
PT_HIDDEN void pt_switches_fork_child(void);

#endif
