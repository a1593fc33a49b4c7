/* SPDX-License-Identifier: MIT */
/* Call stacks through libunwind (callstack.c), for the parts that capture
 * them themselves: sampling.c. Everyone else uses pt_callstack_emit
 * (pt_runtime.h). Built only with PT_WITH_UNWIND. */
#ifndef PT_CALLSTACK_H
#define PT_CALLSTACK_H

#include "pt_runtime.h"

#include <stdint.h>

/* Up to max return addresses of the callers of the frame that called into
 * the runtime, innermost first. Async-signal-unsafe (libunwind's
 * unw_backtrace); not for signal handlers. */
PT_HIDDEN int pt_callstack_capture(uint64_t *pcs, int max);
/* Callers from a signal's ucontext: pcs[0] = interrupted pc, then callers.
 * Async-signal-safe. */
PT_HIDDEN int pt_callstack_capture_signal(void *ucontext, uint64_t *pcs, int max);
/* Is pc in libtrace.so's own code? (Always 0 when the runtime's files are
 * linked into an executable, as in unit tests.) Valid once pt_unwind_load
 * has succeeded, which the parts that capture do at their init. */
PT_HIDDEN int pt_callstack_in_runtime(uint64_t pc);
/* Loads libunwind (once; at a part's init only). 0, or -1 with a warning
 * that `feature` is off. Until it succeeds, the captures above return 0. */
PT_HIDDEN int pt_unwind_load(const char *feature);

#endif /* PT_CALLSTACK_H */
