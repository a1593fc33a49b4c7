/* SPDX-License-Identifier: MIT */
/* The file I/O family's shared pieces (io_files.c, io_calls.c, io_open.c):
 * whether it records, the descriptor -> file table, and the two records
 * around every call.
 *
 * A call is IO_CALL (stamped before the real call: descriptor, file, bytes
 * asked), the real call outside the runtime's region (it may block, or be
 * a cancellation point), then IO_END (what it did, errno when it failed).
 * The stdio calls (fopen, fdopen, fread, fwrite, fclose) hold a per-thread
 * depth while they run: a libc or a stream whose functions reach the
 * interposed read or write from inside them (fopencookie's callbacks, a
 * libc that calls through its PLT) is not counted twice. */
#ifndef PT_IO_H
#define PT_IO_H

#include "pt_interpose.h"

#include <errno.h>
#include <stdint.h>

/* PARATRACE_IO, from the part's init: 0 until then, so that calls made
 * while the loader or another library's constructor runs go straight
 * through. */
extern PT_HIDDEN int pt_io_on;
/* Inside a stdio wrapper on this thread. */
extern PT_HIDDEN __thread int pt_io_depth __attribute__((tls_model("initial-exec")));

/* The file a descriptor names in this process (IO_FILE's id), naming it
 * first (an IO_FILE record, in the process log) when the runtime has not
 * seen it opened. 0: none (fd < 0, past the table). Inside the region. */
PT_HIDDEN uint32_t pt_io_file_of(int fd);
/* fd was just opened (open, fopen...): a new file id, named from the
 * kernel's own name of the descriptor. Inside the region. */
PT_HIDDEN uint32_t pt_io_file_opened(int fd);
/* (pt_io_fd_forget, in pt_interpose.h: a close forgets too.) */

/* IO_CALL; the thread to pass to pt_io_end, or NULL when not recording. */
static inline pt_thread *pt_io_begin(unsigned op, int fd, uint64_t size)
{
	if (!__atomic_load_n(&pt_io_on, __ATOMIC_RELAXED) || pt_io_depth)
		return NULL;
	pt_thread *t = pt_enter();
	if (!t)
		return NULL;
	pt_rec_io_call c = {.size = size, .fd = fd, .file = pt_io_file_of(fd)};
	pt_emit(t, PT_REC_IO_CALL, op, &c, sizeof c);
	pt_leave(t);
	return t;
}

/* IO_END of a call begun with pt_io_begin: its result (bytes, a
 * descriptor, -1), and err when it failed.
 * opened_fd >= 0: the call opened it (its file named here). errno kept. */
static inline void pt_io_end(unsigned op, int64_t result, int failed, int err, int opened_fd)
{
	pt_thread *t = pt_enter();
	if (!t)
		return;
	pt_rec_io_end e = {.result = result, .err = failed ? err : 0};
	if (opened_fd >= 0 && !failed)
		e.file = pt_io_file_opened(opened_fd);
	/* Most calls: the result alone (each byte of log costs). */
	pt_emit(t, PT_REC_IO_END, op, &e, e.file || e.err ? sizeof e : PT_REC_IO_END_MIN);
	pt_leave(t);
	errno = err;
}

#endif
