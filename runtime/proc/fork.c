/* SPDX-License-Identifier: MIT */
/* Process creation: fork, vfork, posix_spawn, posix_spawnp, system, popen,
 * and clone (for children that share the caller's thread pointer).
 *
 * The runtime's own fork handling (pt_fork_prepare/parent/child: the child
 * gets a new process folder and fresh logs, its process log starts with a
 * FORK record naming the parent) is registered with pthread_atfork, so it
 * also runs for forks glibc makes internally (daemon, forkpty), not only for
 * calls that reach the fork wrapper. The wrappers add what only they know:
 * the child's pid, as a FORK record in the parent's thread log, stamped
 * just before the child came to be.
 *
 * vfork is performed as fork. A wrapper cannot call the real vfork: the
 * child would return from the wrapper and reuse the parent's suspended
 * stack frame. A child that follows vfork's rules (only exec or _exit)
 * behaves the same; the parent just does not wait for the exec.
 *
 * posix_spawn, system and popen start new images without running any code
 * of this library in the child (glibc uses clone + exec); the children are
 * traced when LD_PRELOAD reaches them, and write into the same run because
 * PARATRACE_RUN is put in their environment. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

extern char **environ;

static pid_t owner_pid;

int pt_own_process(void)
{
	return getpid() == __atomic_load_n(&owner_pid, __ATOMIC_RELAXED);
}

static void at_prepare(void)
{
	pt_fork_prepare();
}

static void at_parent(void)
{
	pt_fork_parent();
}

static void at_child(void)
{
	__atomic_store_n(&owner_pid, getpid(), __ATOMIC_RELAXED);
	pt_fork_child();
}

PT_REAL_DECL(fork);
PT_REAL_DECL(posix_spawn);
PT_REAL_DECL(posix_spawnp);
PT_REAL_DECL(system);
PT_REAL_DECL(popen);
PT_REAL_DECL(clone);

/* Registered once, early (the runtime's constructor has priority 101), so
 * that in the child the runtime's state is rebuilt before the atfork child
 * handlers the program registers later run and possibly record events. */
__attribute__((constructor(102))) static void fork_init(void)
{
	(void)PT_REAL(fork); /* fork is async-signal-safe: resolve outside handlers */
	__atomic_store_n(&owner_pid, getpid(), __ATOMIC_RELAXED);
	pthread_atfork(at_prepare, at_parent, at_child);
}

static void fork_rec(uint64_t ticks, pid_t child, uint32_t parent, uint32_t flags)
{
	int e = errno;
	pt_thread *t = pt_enter();
	if (t) {
		pt_rec_fork rec = {(uint32_t)child, parent, flags, 0};
		pt_emit_at(t, ticks, PT_REC_FORK, 0, &rec, sizeof rec);
		pt_leave(t);
	}
	errno = e;
}

static pid_t fork_traced(uint32_t flags)
{
	pid_t (*real)(void) = PT_REAL(fork);
	if (!pt_tracing())
		return real();
	uint32_t parent = (uint32_t)getpid();
	uint64_t ticks = pt_now();
	pid_t pid = real();
	if (pid > 0)
		fork_rec(ticks, pid, parent, flags);
	return pid;
}

PT_EXPORT pid_t fork(void)
{
	return fork_traced(0);
}

/* A child that shares the caller's memory without a TLS of its own
 * (CLONE_VM without CLONE_SETTLS: not a pthread; with CLONE_VFORK the
 * caller waits, so they never run at once) runs with the caller's thread
 * pointer, hence with its tracing state and log: both would append to it
 * at once. The caller's state is made a shared one first. Such a child
 * cannot be told apart on the hot path (it has the very same TLS), so
 * its events are written as the caller's. A child made by the clone
 * system call itself (syscall(SYS_clone)) is not seen here. */
PT_EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	pid_t *parent_tid = va_arg(ap, pid_t *);
	void *tls = va_arg(ap, void *);
	pid_t *child_tid = va_arg(ap, pid_t *);
	va_end(ap);
	if ((flags & CLONE_VM) && !(flags & (CLONE_SETTLS | CLONE_VFORK)))
		pt_thread_share();
	return PT_REAL(clone)(fn, stack, flags, arg, parent_tid, tls, child_tid);
}

PT_EXPORT pid_t vfork(void)
{
	return fork_traced(PT_FORK_VFORK);
}

#define ENV_STACK_SLOTS 512

PT_EXPORT int posix_spawn(pid_t *restrict pid, const char *restrict path,
                          const posix_spawn_file_actions_t *fa,
                          const posix_spawnattr_t *restrict attr, char *const argv[restrict],
                          char *const envp[restrict])
{
	int (*real)(pid_t *, const char *, const posix_spawn_file_actions_t *,
		    const posix_spawnattr_t *, char *const[], char *const[]) =
		PT_REAL(posix_spawn);
	if (!pt_tracing())
		return real(pid, path, fa, attr, argv, envp);
	envp = pt_exec_prepare_env(envp);
	char *buf[ENV_STACK_SLOTS];
	char *const *env = pt_env_with_run(envp, buf, ENV_STACK_SLOTS);
	pid_t child = 0;
	uint64_t ticks = pt_now();
	int r = real(&child, path, fa, attr, argv, env);
	pt_env_free(env, envp, buf);
	if (r == 0 && pid)
		*pid = child; /* the real call leaves *pid alone on failure */
	if (r == 0)
		fork_rec(ticks, child, (uint32_t)getpid(), PT_FORK_SPAWN);
	return r;
}

PT_EXPORT int posix_spawnp(pid_t *restrict pid, const char *restrict file,
                           const posix_spawn_file_actions_t *fa,
                           const posix_spawnattr_t *restrict attr, char *const argv[restrict],
                           char *const envp[restrict])
{
	int (*real)(pid_t *, const char *, const posix_spawn_file_actions_t *,
		    const posix_spawnattr_t *, char *const[], char *const[]) =
		PT_REAL(posix_spawnp);
	if (!pt_tracing())
		return real(pid, file, fa, attr, argv, envp);
	envp = pt_exec_prepare_env(envp);
	char *buf[ENV_STACK_SLOTS];
	char *const *env = pt_env_with_run(envp, buf, ENV_STACK_SLOTS);
	pid_t child = 0;
	uint64_t ticks = pt_now();
	int r = real(&child, file, fa, attr, argv, env);
	pt_env_free(env, envp, buf);
	if (r == 0 && pid)
		*pid = child; /* the real call leaves *pid alone on failure */
	if (r == 0)
		fork_rec(ticks, child, (uint32_t)getpid(), PT_FORK_SPAWN);
	return r;
}

/* system and popen spawn /bin/sh with the process environment: putting the
 * run variable there (pt_exec_prepare) is all they need. Their child's pid
 * is not known here; its process log names this process as its parent. */
PT_EXPORT int system(const char *command)
{
	int (*real)(const char *) = PT_REAL(system);
	if (command && pt_tracing())
		pt_exec_prepare();
	return real(command);
}

PT_EXPORT FILE *popen(const char *command, const char *type)
{
	FILE *(*real)(const char *, const char *) = PT_REAL(popen);
	if (pt_tracing())
		pt_exec_prepare();
	return real(command, type);
}

/* Also for a child of a raw fork, whose state the core rebuilds at its
 * first event: from then on the exit wrappers end its tracing. */
static void fork_child(void)
{
	__atomic_store_n(&owner_pid, getpid(), __ATOMIC_RELAXED);
}

PT_SUBSYSTEM(fork_part) = {
	.name = "fork",
	.order = PT_ORDER_INTERPOSE,
	.fork_child = fork_child,
};
