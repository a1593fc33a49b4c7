/* SPDX-License-Identifier: MIT */
/* Thread names: pthread_setname_np, prctl(PR_SET_NAME), and the name a
 * thread carries when it ends, however it got it (a write to
 * /proc/self/task/N/comm, a name set where no wrapper saw it). Each new
 * name is one THREAD_NAME record in the process log that carries the
 * named thread's tid (PT_THREAD_NAME_TID, format/thread.h): a thread may
 * name another, whose log only that thread writes, and the analyzer reads
 * every name from the process logs before it reads any thread's log.
 *
 * The part keeps one slot per live traced thread (pthread_t, tid, the name
 * last recorded or the one it started with): pthread_setname_np names a
 * thread by its pthread_t, and at the end a name is recorded only when it
 * changed. A thread created by a named thread starts with its creator's
 * name (the kernel copies it); that one is not recorded as its own. */
#define _GNU_SOURCE
#include "pt_interpose.h"
#include "pt_sys.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

PT_REAL_DECL(pthread_setname_np);
PT_REAL_DECL(prctl);

#define NAME_LEN 16 /* the kernel's TASK_COMM_LEN, NUL included */

typedef struct name_slot {
	uint64_t self; /* pthread_t; 0: free */
	uint32_t tid;
	char name[NAME_LEN];
	struct name_slot *next, *next_free;
} name_slot;

static name_slot *slots, *free_slots;
static pt_spin slots_lock;
static __thread name_slot *mine __attribute__((tls_model("initial-exec")));

/* The name as the kernel holds it (what `ps` shows). */
static void own_comm(char out[NAME_LEN])
{
	memset(out, 0, NAME_LEN);
	PT_REAL(prctl)(PR_GET_NAME, (unsigned long)out, 0ul, 0ul, 0ul);
	out[NAME_LEN - 1] = 0;
}

static void record(uint32_t tid, const char *name)
{
	pt_process_thread_name(tid, name, NAME_LEN - 1);
}

/* Gives the slot `name` (cut as the kernel cuts it); the tid to record it
 * for, 0 when the slot held that name already or is free. Under the lock. */
static uint32_t rename_locked(name_slot *s, const char *name)
{
	char now[NAME_LEN] = {0};
	strncpy(now, name, NAME_LEN - 1);
	if (!s->tid || !strcmp(s->name, now))
		return 0;
	memcpy(s->name, now, NAME_LEN);
	return s->tid;
}

static void rename_slot(name_slot *s, const char *name)
{
	pt_spin_lock(&slots_lock);
	uint32_t tid = rename_locked(s, name);
	pt_spin_unlock(&slots_lock);
	if (tid)
		record(tid, name);
}

static void names_thread_start(pt_thread *t)
{
	name_slot *s;
	pt_spin_lock(&slots_lock);
	s = free_slots;
	if (s)
		free_slots = s->next_free;
	pt_spin_unlock(&slots_lock);
	if (!s) {
		s = pt_bump_alloc(sizeof *s);
		if (!s)
			return;
		pt_spin_lock(&slots_lock);
		s->next = slots;
		slots = s;
		pt_spin_unlock(&slots_lock);
	}
	char comm[NAME_LEN];
	own_comm(comm);
	pt_spin_lock(&slots_lock);
	memcpy(s->name, comm, NAME_LEN);
	s->tid = pt_thread_tid(t);
	s->self = (uint64_t)pthread_self();
	pt_spin_unlock(&slots_lock);
	mine = s;
}

static void names_thread_end(pt_thread *t)
{
	name_slot *s = mine;
	if (!s)
		return;
	if (t) {
		char comm[NAME_LEN];
		own_comm(comm);
		rename_slot(s, comm);
	}
	mine = NULL;
	pt_spin_lock(&slots_lock);
	s->self = 0;
	s->tid = 0;
	s->next_free = free_slots;
	free_slots = s;
	pt_spin_unlock(&slots_lock);
}

/* The threads that live on when the process ends: the name each carries
 * then, read from /proc (only the thread itself can ask the kernel
 * otherwise). */
static void names_shutdown(int in_signal)
{
	if (in_signal)
		return;
	for (name_slot *s = slots; s; s = s->next) {
		pt_spin_lock(&slots_lock);
		uint32_t tid = s == mine ? 0 : s->tid;
		pt_spin_unlock(&slots_lock);
		if (!tid)
			continue;
		char path[64], comm[NAME_LEN + 1] = {0};
		snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
		/* the runtime's own calls: never the program's wrappers */
		long fd = pt_sys4(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
		if (fd < 0)
			continue;
		long n = pt_sys3(SYS_read, fd, comm, NAME_LEN);
		pt_sys1(SYS_close, fd);
		if (n <= 0)
			continue;
		comm[n] = 0;
		comm[strcspn(comm, "\n")] = 0;
		rename_slot(s, comm);
	}
}

/* Only this thread is left: every other slot is free again. */
static void names_fork_child(void)
{
	pt_spin_reset(&slots_lock);
	free_slots = NULL;
	for (name_slot *s = slots; s; s = s->next) {
		s->self = 0;
		s->tid = 0;
		s->next_free = free_slots;
		free_slots = s;
	}
	mine = NULL;
}

PT_SUBSYSTEM(names_part) = {
	.name = "names",
	.order = PT_ORDER_INTERPOSE,
	.thread_start = names_thread_start,
	.thread_end = names_thread_end,
	.shutdown = names_shutdown,
	.fork_child = names_fork_child,
};

PT_EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
	int (*real)(pthread_t, const char *) = PT_REAL(pthread_setname_np);
	int r = real(th, name);
	if (r != 0)
		return r;
	int saved = errno;
	pt_thread *t = pt_enter();
	if (t) {
		uint32_t tid = 0;
		pt_spin_lock(&slots_lock);
		for (name_slot *s = slots; s; s = s->next)
			if (s->tid && s->self == (uint64_t)th) {
				tid = rename_locked(s, name);
				break;
			}
		pt_spin_unlock(&slots_lock);
		/* an untraced thread has no log to name */
		if (tid)
			record(tid, name);
		pt_leave(t);
	}
	errno = saved;
	return r;
}

/* prctl's other arguments are read as glibc's own prctl reads them: four
 * words, whichever the option uses. */
PT_EXPORT int prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
	unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
	va_end(ap);
	int r = PT_REAL(prctl)(option, a2, a3, a4, a5);
	if (option != PR_SET_NAME || r != 0)
		return r;
	int saved = errno;
	pt_thread *t = pt_enter();
	if (t) {
		if (mine) {
			/* what the kernel kept: the name cut to 15 bytes */
			char comm[NAME_LEN];
			own_comm(comm);
			rename_slot(mine, comm);
		}
		pt_leave(t);
	}
	errno = saved;
	return r;
}
