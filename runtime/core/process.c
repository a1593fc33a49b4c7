/* SPDX-License-Identifier: MIT */
/* The process log (process.ptl): who this process is, what is mapped, the
 * function tables, and how it ended. Written by any thread under a spin
 * lock; also the home of the extra logs (pt_log_file) for GPU streams. */
#define _GNU_SOURCE
#include "core.h"
#include "pt_fd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pt_wlog pt_plog = {.fd = -1, .dead = 1};
static pt_spin pt_plock;

void pt_process_lock_fork(void)
{
	pt_spin_lock(&pt_plock);
}

int pt_process_trylock_fork(void)
{
	return pt_spin_trylock(&pt_plock) ? 0 : -1;
}

void pt_process_unlock_fork(int child)
{
	if (child)
		pt_wlog_forget(&pt_plog);
	pt_spin_unlock(&pt_plock);
}

static void process_put(unsigned kind, unsigned arg, const void *p1, size_t len1, const void *p2,
			size_t len2)
{
	pt_spin_lock(&pt_plock);
	pt_wlog_put(&pt_plog, pt_now(), kind, arg, p1, len1, p2, len2);
	pt_spin_unlock(&pt_plock);
}

void pt_process_emit(unsigned kind, unsigned arg, const void *p1, size_t len1, const void *p2,
		     size_t len2)
{
	int s = atomic_load(&pt_state);
	if ((s != PT_STATE_RUNNING && s != PT_STATE_INITIALIZING) || !pt_state_is_mine())
		return;
	int saved = errno;
	process_put(kind, arg, p1, len1, p2, len2);
	errno = saved;
}

void pt_process_thread_name(uint32_t tid, const char *name, size_t max)
{
	char buf[256 + 8] = {0};
	size_t n = strnlen(name, max < 255 ? max : 255);
	memcpy(buf, name, n);
	size_t at = (n + 1 + 3) & ~(size_t)3;
	memcpy(buf + at, &tid, sizeof tid);
	pt_process_emit(PT_REC_THREAD_NAME, PT_THREAD_NAME_TID, buf, at + sizeof tid, NULL, 0);
}

void pt_process_emit_from_handler(unsigned kind, const void *p, size_t len)
{
	int s = atomic_load(&pt_state);
	if (s != PT_STATE_RUNNING || !pt_state_is_mine())
		return;
	int saved = errno;
	if (pt_spin_trylock_for(&pt_plock, 20000) == 0) {
		pt_wlog_put(&pt_plog, pt_now(), kind, 0, p, len, NULL, 0);
		pt_spin_unlock(&pt_plock);
	}
	errno = saved;
}

/* PROCESS_INFO: exe path, then argv from /proc/self/cmdline (the program
 * may have rewritten its argv[] in memory; the kernel's copy is the truth). */
static void emit_process_info(void)
{
	size_t cap = 256 * 1024;
	char *buf = pt_pages_alloc(cap + PATH_MAX + 2);
	if (!buf)
		return;
	ssize_t n = readlink("/proc/self/exe", buf, PATH_MAX);
	if (n < 0)
		n = 0;
	buf[n++] = '\0';
	size_t exe_len = (size_t)n;
	size_t args = 0;
	ssize_t got = pt_fd_read_file("/proc/self/cmdline", buf + exe_len, cap);
	if (got > 0)
		args = (size_t)got;
	/* Keep whole arguments only. */
	uint32_t argc = 0;
	size_t keep = 0;
	for (size_t i = 0; i < args; i++)
		if (buf[exe_len + i] == '\0') {
			argc++;
			keep = i + 1;
		}
	pt_rec_process_info info = {argc, pt_run_info.hdr_flags, 0};
	process_put(PT_REC_PROCESS_INFO, 0, &info, sizeof info, buf, exe_len + keep);
	pt_pages_free(buf, cap + PATH_MAX + 2);
}


int pt_process_open(int forked)
{
	pt_file_params p = {PT_FILE_PROCESS, 0, 0};
	pt_spin_lock(&pt_plock);
	int r = pt_wlog_create(&pt_plog, &pt_run_info.pdirfd, "process.ptl", &p);
	pt_spin_unlock(&pt_plock);
	if (r != 0) {
		pt_warn("cannot create %s/%s/process.ptl: %s; tracing disabled", pt_run_info.dir,
			pt_run_info.pdir_name, strerror(-r));
		atomic_store(&pt_state, PT_STATE_OFF);
		return -1;
	}
	emit_process_info();
	if (forked) {
		pt_rec_fork f = {pt_run_info.pid, pt_run_info.ppid, 0, 0};
		process_put(PT_REC_FORK, 0, &f, sizeof f, NULL, 0);
	}
	pt_modules_reset();
	pt_modules_scan(1);
	return 0;
}

void pt_process_close(int how, int status)
{
	if (pt_spin_trylock_for(&pt_plock, 20000) != 0)
		return;
	if (!pt_plog.dead) {
		pt_rec_exit e = {status, (uint32_t)how};
		pt_wlog_put_final(&pt_plog, pt_now(), PT_REC_EXIT, 0, &e, sizeof e, NULL, 0);
		pt_wlog_close(&pt_plog);
	}
	pt_spin_unlock(&pt_plock);
}

/* exec: bounded, as the exec may come from a signal handler that
 * interrupted a writer of the process log on this thread (its log then
 * keeps its zero tail, as before). A resume that does not get the lock is
 * left to the next writer (pt_wlog_put resumes a suspended log). */
void pt_process_suspend(void)
{
	if (pt_spin_trylock_for(&pt_plock, 20000) != 0)
		return;
	pt_wlog_suspend(&pt_plog);
	pt_spin_unlock(&pt_plock);
}

void pt_process_resume(void)
{
	if (pt_spin_trylock_for(&pt_plock, 20000) != 0)
		return;
	pt_wlog_resume(&pt_plog);
	pt_spin_unlock(&pt_plock);
}

/* ---- extra logs ------------------------------------------------------- */

struct pt_log_file {
	pt_wlog log;
	struct pt_log_file *next;
	atomic_int closed;
	pt_spin wlock; /* the writer's, and an exec's (pt_log_files_suspend) */
};

static pt_log_file *pt_files;
static pt_spin pt_files_lock;

pt_log_file *pt_log_file_open(const char *name, int file_kind, uint64_t stream)
{
	if (!pt_tracing() || !name || strchr(name, '/') || !pt_state_is_mine())
		return NULL;
	int saved = errno;
	pt_log_file *f = pt_pages_alloc(sizeof *f);
	if (!f)
		goto fail;
	pt_file_params p = {(uint32_t)file_kind, 0, stream};
	int r = pt_wlog_create(&f->log, &pt_run_info.pdirfd, name, &p);
	if (r != 0) {
		pt_warn("cannot create %s/%s/%s: %s", pt_run_info.dir, pt_run_info.pdir_name, name,
			strerror(-r));
		pt_pages_free(f, sizeof *f);
		goto fail;
	}
	pt_spin_lock(&pt_files_lock);
	f->next = pt_files;
	pt_files = f;
	pt_spin_unlock(&pt_files_lock);
	errno = saved;
	return f;
fail:
	errno = saved;
	return NULL;
}

void pt_log_file_emit(pt_log_file *f, uint64_t ticks, unsigned kind, unsigned arg, const void *p1,
		      size_t len1, const void *p2, size_t len2)
{
	if (!f)
		return;
	atomic_store(&f->log.busy, 1); /* seq_cst: pairs with the exit path */
	if (!atomic_load(&f->closed) && atomic_load(&pt_state) == PT_STATE_RUNNING &&
	    pt_state_is_mine()) {
		int saved = errno;
		/* (closed for an exec meanwhile: the put reopens it, as for the
		 * process log, the exec having failed or not happened yet) */
		pt_spin_lock(&f->wlock);
		pt_wlog_put(&f->log, ticks, kind, arg, p1, len1, p2, len2);
		pt_spin_unlock(&f->wlock);
		errno = saved;
	}
	atomic_store(&f->log.busy, 0);
}

void pt_log_file_close(pt_log_file *f)
{
	if (!f)
		return;
	/* In a fatal signal's handler (the GPU part's shutdown), which may
	 * have interrupted a holder of the lock on this thread: tried for a
	 * while; if not had, the log is closed all the same and left in the
	 * list (the process is ending; pt_log_files_seal skips a closed one). */
	int locked = 1;
	if (pt_in_signal_shutdown())
		locked = pt_spin_trylock_for(&pt_files_lock, 20000) == 0;
	else
		pt_spin_lock(&pt_files_lock);
	if (locked) {
		for (pt_log_file **pp = &pt_files; *pp; pp = &(*pp)->next)
			if (*pp == f) {
				*pp = f->next;
				break;
			}
		pt_spin_unlock(&pt_files_lock);
	}
	/* (not under an exec's pt_log_files_suspend, which holds wlock) */
	if (!atomic_exchange(&f->closed, 1) &&
	    pt_spin_trylock_for(&f->wlock, pt_in_signal_shutdown() ? 20000 : ~0u) == 0) {
		pt_wlog_close(&f->log);
		pt_spin_unlock(&f->wlock);
	}
	if (locked)
		pt_pages_free(f, sizeof *f);
}

/* Exit: logs still open get their data trimmed; a writer inside
 * pt_log_file_emit is waited for (bounded). */
void pt_log_files_seal(void)
{
	if (pt_spin_trylock_for(&pt_files_lock, 20000) != 0)
		return;
	for (pt_log_file *f = pt_files; f; f = f->next) {
		if (atomic_exchange(&f->closed, 1))
			continue;
		for (int i = 0; i < 2000 && atomic_load(&f->log.busy); i++)
			sched_yield();
		if (!atomic_load(&f->log.busy))
			pt_wlog_close(&f->log);
	}
	pt_spin_unlock(&pt_files_lock);
}

static void log_files_each(void (*op)(pt_wlog *))
{
	if (pt_spin_trylock_for(&pt_files_lock, 20000) != 0)
		return;
	for (pt_log_file *f = pt_files; f; f = f->next) {
		if (atomic_load(&f->closed) || pt_spin_trylock_for(&f->wlock, 20000) != 0)
			continue;
		op(&f->log);
		pt_spin_unlock(&f->wlock);
	}
	pt_spin_unlock(&pt_files_lock);
}

static void resume_one(pt_wlog *l)
{
	pt_wlog_resume(l);
}

void pt_log_files_suspend(void)
{
	log_files_each(pt_wlog_suspend);
}

void pt_log_files_resume(void)
{
	log_files_each(resume_one);
}

void pt_log_files_forget(void)
{
	pt_spin_reset(&pt_files_lock);
	for (pt_log_file *f = pt_files; f; f = f->next)
		pt_wlog_forget(&f->log);
	pt_files = NULL; /* the structures leak in the child: a few pages at most */
}
