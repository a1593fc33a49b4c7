/* SPDX-License-Identifier: MIT */
/* The toy family's wrappers: nice(2) as TOY_NICE (what was asked) before
 * the call and TOY_NICE_END (what it returned) after it. A wrapper of an
 * interposed family, the shape of pt_interpose.h: the real call is made
 * outside the runtime's region (as one that may block must be), and errno is
 * what it left. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <unistd.h>

PT_REAL_DECL(nice);

PT_EXPORT int nice(int inc)
{
	int (*real)(int) = PT_REAL(nice);
	pt_thread *t = pt_enter();
	if (!t)
		return real(inc);
	pt_rec_toy_nice begin = {.inc = inc};
	pt_emit(t, PT_REC_TOY_NICE, 0, &begin, sizeof begin);
	pt_leave(t);
	/* nice may return -1 without an error: errno tells, set to 0 here
	 * and given back as it was when the call left it alone. */
	int before = errno;
	errno = 0;
	int r = real(inc);
	int e = errno;
	if ((t = pt_enter())) {
		pt_rec_toy_nice_end end = {.result = r, .err = e};
		pt_emit(t, PT_REC_TOY_NICE_END, 0, &end, sizeof end);
		pt_leave(t);
	}
	errno = e ? e : before;
	return r;
}

PT_SUBSYSTEM(toy_part) = {
    .name = "toy",
    .order = PT_ORDER_INTERPOSE,
};
