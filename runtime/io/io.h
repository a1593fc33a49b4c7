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
#include <string.h>

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

/* The descriptor -> file table (io_files.c): one 32-bit slot per
 * descriptor number, the id in the low 24 bits and the process's
 * generation in the high 8. */
#define PT_IO_FDS (1u << 16) /* descriptors past this are not named */
#define PT_IO_ID_BITS 24
#define PT_IO_ID_MASK ((1u << PT_IO_ID_BITS) - 1)
extern PT_HIDDEN uint32_t pt_io_fd_slot[PT_IO_FDS];
extern PT_HIDDEN uint32_t pt_io_gen;
/* Bumped after any slot changes (a file named or forgotten, a fork). */
extern PT_HIDDEN uint32_t pt_io_epoch;
/* The descriptor this thread's last call used and its file, valid while
 * the epoch is: a loop on one descriptor never reads the table (one page
 * fewer after each system call). */
typedef struct pt_io_fd_cache {
	int fd;
	uint32_t file; /* 0: nothing cached */
	uint32_t epoch;
} pt_io_fd_cache;
extern PT_HIDDEN __thread pt_io_fd_cache pt_io_cache __attribute__((tls_model("initial-exec")));
/* Their offsets (PT_TLS_AT), set before pt_io_on. */
extern PT_HIDDEN intptr_t pt_io_depth_off, pt_io_cache_off;

/* The file fd names when it is named already, else 0: read without
 * entering the runtime (a slot a close clears meanwhile gives the id the
 * call began with). */
static inline __attribute__((always_inline)) uint32_t pt_io_file_known(int fd)
{
	uint32_t epoch = __atomic_load_n(&pt_io_epoch, __ATOMIC_ACQUIRE);
	pt_io_fd_cache c = PT_TLS_AT(pt_io_fd_cache, pt_io_cache_off, pt_io_cache);
	if (pt_likely(c.fd == fd && c.epoch == epoch && c.file))
		return c.file;
	if ((unsigned)fd >= PT_IO_FDS)
		return 0;
	uint32_t slot = __atomic_load_n(&pt_io_fd_slot[fd], __ATOMIC_RELAXED);
	if (slot >> PT_IO_ID_BITS != __atomic_load_n(&pt_io_gen, __ATOMIC_RELAXED))
		return 0;
	PT_TLS_AT(pt_io_fd_cache, pt_io_cache_off, pt_io_cache) =
	    (pt_io_fd_cache){fd, slot & PT_IO_ID_MASK, epoch};
	return slot & PT_IO_ID_MASK;
}

/* The records' slow paths (io_files.c): inside the region, the file named
 * when it is not yet, the full records. */
PT_HIDDEN int pt_io_begin_slow(unsigned op, int fd, uint64_t size);
PT_HIDDEN void pt_io_end_slow(unsigned op, int64_t result, int failed, int err, int opened_fd);

/* IO_CALL, stamped now; 1 when recording (pt_io_end to follow), 0 when
 * not. The common call, on a named descriptor with a size below 2^32, is
 * a 12-byte compact record written inline by the thread's fast path
 * (pt_fast_words: no pt_enter, no lock, no call but for a full window). */
static inline __attribute__((always_inline)) int pt_io_begin(unsigned op, int fd, uint64_t size)
{
	if (!__atomic_load_n(&pt_io_on, __ATOMIC_ACQUIRE) ||
	    PT_TLS_AT(int, pt_io_depth_off, pt_io_depth))
		return 0;
	uint32_t file = pt_io_file_known(fd);
	if (pt_likely(file && file < (1u << 16) && size <= UINT32_MAX)) {
		pt_io_c_call c = {(uint16_t)fd, (uint16_t)file, (uint32_t)size};
		uint32_t cword = PT_COMPACT_FLAG | PT_REC_IO_CALL_C | op << 8;
		uint64_t now = pt_now();
		pt_log_fast *l = pt_fast_open();
		if (pt_likely(l)) {
			/* pt_io_c_call: fd and file in the word's upper half, the
			 * size in the next word */
			int done =
			    pt_fast_words(l, now, cword, PT_IO_C_SHIFT,
			                  c.fd | (uint32_t)c.file << 16, c.size, 0, sizeof c);
			pt_fast_close(l);
			if (pt_likely(done))
				return 1;
		}
		pt_rec_io_call r = {.size = size, .fd = fd, .file = file};
		return pt_emit_compact(now, cword, PT_IO_C_SHIFT, &c, sizeof c, 0, PT_REC_IO_CALL,
		                       op, &r, sizeof r) != 0;
	}
	return pt_io_begin_slow(op, fd, size);
}

/* pt_io_begin for a call with no descriptor yet (an open): no file to
 * look up, so the full record. Its own function, not pt_io_begin with -1:
 * GCC without optimisation inlines the lookup with that constant and
 * warns of an access before the descriptor table. */
static inline int pt_io_begin_open(unsigned op)
{
	if (!__atomic_load_n(&pt_io_on, __ATOMIC_ACQUIRE) ||
	    PT_TLS_AT(int, pt_io_depth_off, pt_io_depth))
		return 0;
	return pt_io_begin_slow(op, -1, 0);
}

/* IO_END of a call begun with pt_io_begin: its result (bytes, a
 * descriptor, -1), and err when it failed (read only then).
 * opened_fd >= 0: the call opened it (its file named here). errno is left
 * as the real call left it (err when it failed). The common end, a result
 * below 2^32, is an 8-byte compact record. */
static inline __attribute__((always_inline)) void pt_io_end(unsigned op, int64_t result, int failed,
                                                            int err, int opened_fd)
{
	if (pt_likely(!failed && opened_fd < 0 && (uint64_t)result <= UINT32_MAX)) {
		uint32_t r32 = (uint32_t)result;
		uint32_t cword = PT_COMPACT_FLAG | PT_REC_IO_END_C | op << 8;
		uint64_t now = pt_now();
		pt_log_fast *l = pt_fast_open();
		if (pt_likely(l)) {
			int done =
			    pt_fast_words(l, now, cword, PT_IO_C_SHIFT, r32, 0, 0, sizeof r32);
			pt_fast_close(l);
			if (pt_likely(done))
				return;
		}
		pt_rec_io_end e = {.result = result};
		pt_emit_compact(now, cword, PT_IO_C_SHIFT, &r32, sizeof r32, 0, PT_REC_IO_END, op,
		                &e, PT_REC_IO_END_MIN);
		return;
	}
	pt_io_end_slow(op, result, failed, err, opened_fd);
}

#endif
