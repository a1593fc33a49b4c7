/* SPDX-License-Identifier: MIT */
/* The toy family's wrappers: usleep(3) as TOY_SLEEP (what was asked) before
 * the call and TOY_SLEEP_END (what it returned) after it. A wrapper of an
 * interposed family, the shape of pt_interpose.h: the real call, which
 * blocks, is made outside the runtime's region, and errno is what it left. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <unistd.h>

PT_REAL_DECL(usleep);

PT_EXPORT int usleep(useconds_t usec)
{
	int (*real)(useconds_t) = PT_REAL(usleep);
	pt_thread *t = pt_enter();
	if (!t)
		return real(usec);
	pt_rec_toy_sleep begin = {.usec = usec};
	pt_emit(t, PT_REC_TOY_SLEEP, 0, &begin, sizeof begin);
	pt_leave(t);
	int r = real(usec);
	int e = errno;
	if ((t = pt_enter())) {
		pt_rec_toy_sleep_end end = {.result = r, .err = r == 0 ? 0 : e};
		pt_emit(t, PT_REC_TOY_SLEEP_END, 0, &end, sizeof end);
		pt_leave(t);
	}
	errno = e;
	return r;
}

PT_SUBSYSTEM(toy_part) = {
    .name = "toy",
    .order = PT_ORDER_INTERPOSE,
};
