/* SPDX-License-Identifier: MIT */
/* Which file each descriptor of the process names, for the I/O records:
 * an id per open, named once in the process log (IO_FILE), so that a
 * thread record carries 4 bytes instead of a path.
 *
 * One 32-bit slot per descriptor number: the id in the low 24 bits and a
 * generation in the high 8. A fork child starts a new generation, which
 * makes every slot stale at once (its process log is a new one, which
 * names nothing yet) without touching the table. A descriptor the runtime
 * did not see opened (inherited, a dup, a pipe, a socket) is named when an
 * I/O call first meets it, with the kernel's name for it. */
#define _GNU_SOURCE
#include "io.h"
#include "pt_sys.h"

#include <fcntl.h>
#include <string.h>

#define IO_FDS PT_IO_FDS
#define IO_ID_BITS PT_IO_ID_BITS
#define IO_ID_MASK PT_IO_ID_MASK

PT_HOT_DATA int pt_io_on = 0;
PT_HOT_DATA uint32_t pt_io_epoch = 0;
__thread int pt_io_depth __attribute__((tls_model("initial-exec")));
__thread pt_io_fd_cache pt_io_cache __attribute__((tls_model("initial-exec")));
PT_HOT_DATA intptr_t pt_io_depth_off = 0, pt_io_cache_off = 0;

uint32_t pt_io_fd_slot[IO_FDS];
PT_HOT_DATA uint32_t pt_io_gen = 0; /* the high 8 bits of a current slot */

static void io_slots_changed(void)
{
	__atomic_add_fetch(&pt_io_epoch, 1, __ATOMIC_RELEASE);
}
static uint32_t io_next_id; /* ids given so far in this process */

/* The kernel's name of fd (a path, "pipe:[123]", "socket:[456]"). */
static size_t io_fd_name(int fd, char *buf, size_t len)
{
	char link[32] = "/proc/self/fd/";
	char digits[12];
	size_t n = 0;
	unsigned v = (unsigned)fd;
	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	size_t at = strlen(link);
	while (n)
		link[at++] = digits[--n];
	link[at] = '\0';
	long r = pt_sys4(SYS_readlinkat, AT_FDCWD, link, buf, len - 1);
	if (r <= 0) { /* not open (the call fails with EBADF), or no /proc */
		strcpy(buf, "(descriptor ");
		strcat(buf, link + 14);
		strcat(buf, ")");
		return strlen(buf);
	}
	buf[r] = '\0';
	return (size_t)r;
}

static uint32_t io_name(int fd)
{
	uint32_t id = (__atomic_add_fetch(&io_next_id, 1, __ATOMIC_RELAXED) & IO_ID_MASK);
	if (id == 0) /* 2^24 opens: ids wrap, 0 is never one */
		id = __atomic_add_fetch(&io_next_id, 1, __ATOMIC_RELAXED) & IO_ID_MASK;
	char name[4096];
	size_t len = io_fd_name(fd, name, sizeof name);
	pt_rec_io_file f = {.file = id, .fd = fd};
	pt_process_emit(PT_REC_IO_FILE, 0, &f, sizeof f, name, len + 1);
	uint32_t gen = __atomic_load_n(&pt_io_gen, __ATOMIC_RELAXED);
	__atomic_store_n(&pt_io_fd_slot[fd], gen << IO_ID_BITS | id, __ATOMIC_RELAXED);
	io_slots_changed();
	return id;
}

uint32_t pt_io_file_of(int fd)
{
	if (fd < 0 || (unsigned)fd >= IO_FDS)
		return 0;
	uint32_t slot = __atomic_load_n(&pt_io_fd_slot[fd], __ATOMIC_RELAXED);
	if (pt_likely((slot & IO_ID_MASK) != 0 &&
	              slot >> IO_ID_BITS == __atomic_load_n(&pt_io_gen, __ATOMIC_RELAXED)))
		return slot & IO_ID_MASK;
	return io_name(fd);
}

uint32_t pt_io_file_opened(int fd)
{
	if (fd < 0 || (unsigned)fd >= IO_FDS)
		return 0;
	return io_name(fd);
}

void pt_io_fd_forget(int fd)
{
	if (fd >= 0 && (unsigned)fd < IO_FDS)
		__atomic_store_n(&pt_io_fd_slot[fd], 0, __ATOMIC_RELAXED);
	io_slots_changed();
}

void pt_io_fd_forget_range(unsigned first, unsigned last)
{
	for (unsigned fd = first; fd <= last && fd < IO_FDS; fd++)
		__atomic_store_n(&pt_io_fd_slot[fd], 0, __ATOMIC_RELAXED);
	io_slots_changed();
}

int pt_io_begin_slow(unsigned op, int fd, uint64_t size)
{
	pt_thread *t = pt_enter();
	if (!t)
		return 0;
	pt_rec_io_call c = {.size = size, .fd = fd, .file = pt_io_file_of(fd)};
	pt_emit(t, PT_REC_IO_CALL, op, &c, sizeof c);
	pt_leave(t);
	return 1;
}

void pt_io_end_slow(unsigned op, int64_t result, int failed, int err, int opened_fd)
{
	pt_thread *t = pt_enter();
	if (!t)
		return;
	pt_rec_io_end e = {.result = result, .err = failed ? err : 0};
	if (opened_fd >= 0 && !failed)
		e.file = pt_io_file_opened(opened_fd);
	/* The result alone unless there is more to say (each byte of log
	 * costs). */
	pt_emit(t, PT_REC_IO_END, op, &e, e.file || e.err ? sizeof e : PT_REC_IO_END_MIN);
	pt_leave(t);
	errno = err;
}

static void io_init(void)
{
	pt_io_depth_off = pt_tls_offset_of(&pt_io_depth);
	pt_io_cache_off = pt_tls_offset_of(&pt_io_cache);
	/* release: a thread that finds the part on finds the offsets too */
	__atomic_store_n(&pt_io_on, pt_config_get()->io, __ATOMIC_RELEASE);
}

static void io_fork_child(void)
{
	/* 256 generations, then a slot of 256 forks ago would read as
	 * current: the child of so many forks names its files again. */
	uint32_t gen = (__atomic_load_n(&pt_io_gen, __ATOMIC_RELAXED) + 1) & 0xff;
	if (gen == 0)
		memset(pt_io_fd_slot, 0, sizeof pt_io_fd_slot);
	__atomic_store_n(&pt_io_gen, gen, __ATOMIC_RELAXED);
	__atomic_store_n(&io_next_id, 0, __ATOMIC_RELAXED);
	io_slots_changed();
}

static void io_shutdown(int in_signal)
{
	(void)in_signal;
	__atomic_store_n(&pt_io_on, 0, __ATOMIC_RELAXED);
}

PT_SUBSYSTEM(io_part) = {
    .name = "io",
    .order = PT_ORDER_INTERPOSE_LAST,
    .init = io_init,
    .fork_child = io_fork_child,
    .shutdown = io_shutdown,
};
