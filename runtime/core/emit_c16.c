/* SPDX-License-Identifier: MIT */
/* pt_emit_c16 (pt_runtime.h): the writer's fast path for a compact form
 * whose fields come in two words, as compact.c's fast path writes one (the
 * same checks and the same bytes) without its copy loop. Its own file and
 * section: it is the code every read, write, pread and pwrite wrapper runs
 * after its system call, kept on their page (PT_SYSCALL_TEXT). */
#include "core.h"

PT_SYSCALL_TEXT(0)
__attribute__((aligned(4096))) int pt_emit_c16(uint64_t ticks, uint32_t cword, unsigned shift,
                                               uint64_t f0, uint64_t f1, unsigned clen)
{
	pt_log_fast *l = pt_fast_open();
	if (!l)
		return 0;
	int done = pt_fast_c16(l, ticks, cword, shift, f0, f1, clen);
	pt_fast_close(l);
	return done;
}
