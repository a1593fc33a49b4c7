/* SPDX-License-Identifier: MIT */
/* fork and exec: the child of a fork rebuilds its own tracing state (a new
 * process folder and logs), whatever made it; an exec hands the run on to
 * the new image. Apart from core.c because a child's rebuild is a path of
 * its own through every layer of the core. */
#define _GNU_SOURCE
#include "core.h"
#include "core_life.h"
#include "pt_fd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- fork / exec ------------------------------------------------------ */

/* Set while pt_fork_prepare holds the locks a fork child needs consistent
 * (registry, process log, descriptors), until pt_fork_parent releases
 * them: a child that finds it set (its copy) inherited them held by that
 * fork, whatever made the child. */
static int pt_fork_locks_held;
/* The child being rebuilt was made by a raw fork (pt_adopt_child): the
 * parent's other thread states are forgotten, not freed (whichever thread
 * of the child rebuilds it, another may still point at its own). */
static int pt_fork_raw;

void pt_fork_prepare(void)
{
	if ((!pt_process_is_mine() && !pt_adopt_child()) || !pt_tracing())
		return;
	pt_thread *t = pt_tls;
	if (t) {
		t->forking = 1;
		__atomic_store_n(&t->log.limit, NULL, __ATOMIC_RELAXED);
	}
	pt_clock_fork_prepare();
	pt_spin_lock(&pt_registry_lock);
	pt_process_lock_fork();
	pt_fd_fork_prepare();
	pt_fork_locks_held = 1;
}

void pt_fork_parent(void)
{
	if (!pt_tracing())
		return;
	pt_fork_locks_held = 0;
	pt_fd_fork_parent();
	pt_process_unlock_fork(0);
	pt_spin_unlock(&pt_registry_lock);
	pt_thread *t = pt_tls;
	if (t) {
		t->forking = 0;
		if (!atomic_load(&t->guard) && !t->log.dead && !t->log.slow && !t->log.lost_records)
			__atomic_store_n(&t->log.limit, pt_wlog_fast_end(&t->log), __ATOMIC_RELAXED);
	}
}

/* The parent's logs, threads and process folder are the parent's: the
 * child forgets them and starts its own folder and process log. */
static void logs_fork_child(void)
{
	pt_process_unlock_fork(1);
	pt_spin_reset(&pt_registry_lock);
	/* The registration belongs to the address space: the child has none
	 * (and is single-threaded here, so switching modes is safe). */
	pt_asym_fence_register();
	uint32_t parent = pt_run_info.pid;
	pt_run_info.pid = (uint32_t)getpid();
	pt_run_info.ppid = parent;
	pt_run_info.hdr_flags = PT_HDR_FLAG_FORKED;
	pt_run_info.job_rank1 = 0; /* a child of a rank is not that rank */
	pt_run_info.job_world = 0;
	pt_thread *self = pt_tls;
	/* Only this thread exists here. The parent's windows were not
	 * inherited (MADV_DONTFORK); drop the descriptors without touching
	 * the parent's files. This thread's state is reused by
	 * restart_thread_in_child. */
	for (pt_thread *t = pt_registry, *next; t; t = next) {
		next = t->next;
		pt_wlog_forget(&t->log);
		if (t != self && !pt_fork_raw)
			pt_thread_free(t);
	}
	pt_registry = NULL;
	pt_log_files_forget();
	char err[512];
	err[0] = '\0';
	if (pt_make_process_dir(err, sizeof err) != 0 || pt_process_open(1) != 0) {
		if (err[0])
			pt_warn("%s; the child process is not traced", err);
		atomic_store(&pt_state, PT_STATE_OFF);
	}
}

/* The forking thread, now the child's only one: a new log, started like
 * a new thread's once every part has forgotten the parent's state. */
static void restart_thread_in_child(void)
{
	pt_thread *self = pt_tls;
	if (!self || !pt_tracing())
		return;
	uint64_t retval = self->end_retval;
	uint32_t flags = self->end_flags;
	memset(self, 0, sizeof *self);
	self->end_retval = retval;
	self->end_flags = flags;
	self->tid = pt_gettid();
	atomic_store(&self->guard, 1);
	if (pt_open_thread_log(self) != 0) {
		pt_tls = NULL;
		pt_tls_state = PT_TLS_FINISHED;
		pt_thread_free(self);
		return;
	}
	pt_keep_slow_if_needed(self);
	pt_registry_add(self);
	pt_rec_thread_start s = {0, 0, PT_THREAD_MAIN, 0};
	pt_emit_thread_start(self, &s);
	pt_parts_thread_start(self);
	pt_leave(self);
}

/* The locks pt_fork_prepare takes, for a child no atfork handler ran in:
 * taken if they are free; one that is held was held by a thread of the
 * parent, which may have left what it guards half changed: 0 then. */
static int take_fork_locks(void)
{
	if (!pt_spin_trylock(&pt_registry_lock))
		return 0;
	if (pt_process_trylock_fork() != 0) {
		pt_spin_unlock(&pt_registry_lock);
		return 0;
	}
	if (pt_fd_fork_trylock() != 0) {
		pt_process_unlock_fork(0);
		pt_spin_unlock(&pt_registry_lock);
		return 0;
	}
	return 1;
}

/* The child of a fork does not trace on with the parent's state: it
 * rebuilds its own (a process folder and process log, a log for this
 * thread), as if it were a new process. After a fork that went through
 * glibc (pt_fork_child, from the atfork handler), or at the first event
 * of a child that no handler ran in (a raw fork or clone system call,
 * which shares no memory with the parent: the owner mark is zero there).
 * When that cannot be done safely (tracing was ending, or another thread
 * of the parent held a lock whose data the child would read), the child
 * runs untraced. Once per child; 1 when it is traced. */
int pt_adopt_child(void)
{
	static atomic_int adopting;
	int *mark = pt_owner_mark;
	if (mark && __atomic_load_n(mark, __ATOMIC_ACQUIRE))
		return pt_tracing(); /* rebuilt already (an atfork handler before ours) */
	if (atomic_exchange(&adopting, 1))
		return 0; /* another thread of the child is at it: this event is dropped */
	int saved = errno;
	int state = atomic_load(&pt_state);
	pt_fork_raw = !pt_fork_locks_held;
	int locked = pt_fork_locks_held || (state == PT_STATE_RUNNING && take_fork_locks());
	pt_fork_locks_held = 0;
	/* From here the state is the child's: the process log the rebuild
	 * opens is written to (pt_state_is_mine). */
	if (mark)
		__atomic_store_n(mark, 1, __ATOMIC_RELEASE);
	int ok = 0;
	if (locked) {
		/* The descriptor lock (the registry's and the process log's are
		 * the logs part's, released by its fork_child). */
		pt_fd_fork_child();
		if (state == PT_STATE_RUNNING) {
			pt_clock_fork_child();
			pt_parts_fork_child();
			restart_thread_in_child();
			ok = pt_tracing();
		} else {
			pt_process_unlock_fork(1);
			pt_spin_reset(&pt_registry_lock);
		}
	}
	/* (A child of a parent that had not started tracing yet still may.) */
	if (!ok && state != PT_STATE_UNINIT && state != PT_STATE_INITIALIZING) {
		atomic_store(&pt_state, PT_STATE_OFF);
		pt_tls = NULL;
		pt_tls_state = PT_TLS_FINISHED;
	}
	atomic_store(&adopting, 0);
	errno = saved;
	return ok;
}

/* Also when tracing ended between the prepare handler and this one: the
 * locks it took are released. */
void pt_fork_child(void)
{
	if (pt_tracing() || pt_fork_locks_held)
		pt_adopt_child();
}

/* The new image writes into the same run: PARATRACE_RUN in environ. */
static void logs_exec(void)
{
	char buf[sizeof pt_run_info.dir + 128];
	if (pt_run_env_format(buf, sizeof buf) == 0)
		setenv(PT_RUN_ENV, buf, 1);
}

void pt_exec_prepare(void)
{
	if (!pt_tracing())
		return;
	pt_parts_exec();
	pt_publish_fence();
}

pt_thread *pt_exec_close(void)
{
	if (!pt_tracing())
		return NULL;
	pt_thread *t = pt_enter();
	if (!t)
		return NULL;
	int saved = errno;
	pt_wlog_suspend(&t->log);
	pt_process_suspend();
	pt_log_files_suspend();
	pt_publish_fence();
	errno = saved;
	return t;
}

void pt_exec_failed(pt_thread *t)
{
	if (!t)
		return;
	int saved = errno;
	pt_log_files_resume();
	pt_process_resume();
	pt_wlog_resume(&t->log);
	pt_leave(t);
	errno = saved;
}

PT_SUBSYSTEM(logs_part) = {
	.name = "logs",
	.order = PT_ORDER_LOGS,
	.fork_child = logs_fork_child,
	.exec = logs_exec,
	.shutdown = pt_logs_shutdown,
};

const char *pt_run_env_string(void)
{
	static char buf[sizeof pt_run_info.dir + 128 + sizeof PT_RUN_ENV];
	if (!pt_tracing())
		return NULL;
	int n = snprintf(buf, sizeof buf, "%s=", PT_RUN_ENV);
	if (pt_run_env_format(buf + n, sizeof buf - (size_t)n) != 0)
		return NULL;
	return buf;
}
