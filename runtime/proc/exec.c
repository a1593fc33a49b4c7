/* SPDX-License-Identifier: MIT */
/* The exec family. Before the real call: an EXEC record (the path) in the
 * caller's thread log, pt_exec_prepare, which puts PARATRACE_RUN (trace
 * directory, run id, clock calibration) in the environment so the new image
 * writes into the same run as a new process folder, and pt_exec_close,
 * which ends the caller's log and the process log (CLOSE, trimmed) as an
 * exit would. If the exec returns (it failed), both go on after their
 * CLOSE (pt_exec_failed). Other threads' logs are not touched: they keep
 * writing until the kernel ends them in the exec, and end with zeros, the
 * reader's end mark.
 *
 * Programs that pass their own environment (execve, execle, execvpe,
 * fexecve, execveat) get PARATRACE_RUN added to a copy of it (child_env.c),
 * but only when
 * it keeps LD_PRELOAD: a program that drops the preload means its child to
 * run untraced. glibc's exec functions call each other internally, not
 * through these symbols, so each is wrapped. On failure the real call's
 * return value and errno are returned untouched. */
#define _GNU_SOURCE
#include "pt_interpose.h"

#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern char **environ;

#define ENV_STACK_SLOTS 512
#define ARGV_STACK_SLOTS 1024

static void exec_record(const char *path)
{
	pt_thread *t = pt_enter();
	if (!t)
		return;
	const char *p = path ? path : "";
	/* at most PATH_MAX bytes with the terminating NUL, written here: a
	 * longer path (the exec fails) is cut, and not read past the cut */
	pt_emit2(t, PT_REC_EXEC, 0, p, strnlen(p, 4095), "", 1);
	pt_leave(t);
}

PT_REAL_DECL(execve);
PT_REAL_DECL(execv);
PT_REAL_DECL(execvp);
PT_REAL_DECL(execvpe);
PT_REAL_DECL(fexecve);
PT_REAL_DECL(execveat);

/* exec is async-signal-safe (and used after fork in threaded programs):
 * resolve everything at load time, never in a handler. */
__attribute__((constructor(102))) static void exec_resolve(void)
{
	(void)PT_REAL(execve);
	(void)PT_REAL(execv);
	(void)PT_REAL(execvp);
	(void)PT_REAL(execvpe);
	(void)PT_REAL(fexecve);
	(void)PT_REAL(execveat);
}

/* One exec call of the family, its environment aside. */
enum exec_kind { EXEC_VE, EXEC_VPE, EXEC_FVE, EXEC_VEAT, EXEC_V, EXEC_VP };
typedef struct exec_call {
	enum exec_kind kind;
	int fd;           /* fexecve, execveat */
	const char *path; /* path or file; the EXEC record's */
	char *const *argv;
	int flags; /* execveat */
} exec_call;

static int call_real(const exec_call *c, char *const envp[])
{
	switch (c->kind) {
	case EXEC_VE:
		return PT_REAL(execve)(c->path, c->argv, envp);
	case EXEC_VPE:
		return PT_REAL(execvpe)(c->path, c->argv, envp);
	case EXEC_FVE:
		return PT_REAL(fexecve)(c->fd, c->argv, envp);
	case EXEC_VEAT:
		return PT_REAL(execveat)(c->fd, c->path, c->argv, envp, c->flags);
	case EXEC_V:
		return PT_REAL(execv)(c->path, c->argv);
	case EXEC_VP:
		return PT_REAL(execvp)(c->path, c->argv);
	}
	errno = EINVAL;
	return -1;
}

/* envp NULL for the forms that use environ (execv, execvp), which
 * pt_exec_prepare has prepared already. An explicit envp gets
 * PARATRACE_RUN added to a copy (pt_env_with_run); when it is environ
 * itself, the prepared environ is used. */
static int exec_traced(const exec_call *c, char *const envp[])
{
	if (!pt_tracing())
		return call_real(c, envp);
	int was_environ = envp == (char *const *)environ;
	int e = errno;
	exec_record(c->path);
	pt_exec_prepare();
	/* Not in a child that shares the parent's memory (a raw
	 * clone(CLONE_VM | CLONE_VFORK)): the logs are the parent's. */
	pt_thread *t = pt_own_process() ? pt_exec_close() : NULL;
	errno = e;
	if (was_environ)
		envp = environ;
	char *buf[ENV_STACK_SLOTS];
	char *const *env = envp ? pt_env_with_run(envp, buf, ENV_STACK_SLOTS) : NULL;
	int r = call_real(c, env);
	e = errno;
	if (env)
		pt_env_free(env, envp, buf);
	pt_exec_failed(t);
	errno = e;
	return r;
}

PT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	exec_call c = {EXEC_VE, -1, path, argv, 0};
	return exec_traced(&c, envp);
}

PT_EXPORT int execv(const char *path, char *const argv[])
{
	exec_call c = {EXEC_V, -1, path, argv, 0};
	return exec_traced(&c, NULL);
}

PT_EXPORT int execvp(const char *file, char *const argv[])
{
	exec_call c = {EXEC_VP, -1, file, argv, 0};
	return exec_traced(&c, NULL);
}

PT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	exec_call c = {EXEC_VPE, -1, file, argv, 0};
	return exec_traced(&c, envp);
}

PT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	exec_call c = {EXEC_FVE, fd, argv[0] ? argv[0] : "", argv, 0};
	return exec_traced(&c, envp);
}

PT_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
                       int flags)
{
	exec_call c = {EXEC_VEAT, dirfd, path, argv, flags};
	return exec_traced(&c, envp);
}

/* The list forms: the arguments are gathered into an array on the stack
 * (mmap'ed when there are very many), then the vector form runs. E2BIG is
 * what the kernel would say for an argument list that cannot be built. */
static char **gather(const char *arg0, va_list *ap, char **stack, size_t n, size_t *bytes_out)
{
	va_list cp;
	va_copy(cp, *ap);
	size_t count = 1;
	while (va_arg(cp, const char *) != NULL)
		count++;
	va_end(cp);
	char **argv = stack;
	*bytes_out = 0;
	if (count + 1 > n) {
		size_t bytes = (count + 1) * sizeof(char *);
		void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		argv = p;
		*bytes_out = bytes;
	}
	argv[0] = (char *)arg0;
	for (size_t i = 1; i < count; i++)
		argv[i] = va_arg(*ap, char *);
	argv[count] = NULL;
	(void)va_arg(*ap, char *); /* the terminating NULL: execle's envp follows it */
	return argv;
}

static void ungather(char **argv, size_t bytes)
{
	if (bytes) {
		int e = errno;
		munmap(argv, bytes);
		errno = e;
	}
}

PT_EXPORT int execl(const char *path, const char *arg, ...)
{
	char *stack[ARGV_STACK_SLOTS];
	size_t bytes;
	va_list ap;
	va_start(ap, arg);
	char **argv = gather(arg, &ap, stack, ARGV_STACK_SLOTS, &bytes);
	va_end(ap);
	if (!argv) {
		errno = E2BIG;
		return -1;
	}
	int r = execv(path, argv);
	ungather(argv, bytes);
	return r;
}

PT_EXPORT int execlp(const char *file, const char *arg, ...)
{
	char *stack[ARGV_STACK_SLOTS];
	size_t bytes;
	va_list ap;
	va_start(ap, arg);
	char **argv = gather(arg, &ap, stack, ARGV_STACK_SLOTS, &bytes);
	va_end(ap);
	if (!argv) {
		errno = E2BIG;
		return -1;
	}
	int r = execvp(file, argv);
	ungather(argv, bytes);
	return r;
}

PT_EXPORT int execle(const char *path, const char *arg, ...)
{
	char *stack[ARGV_STACK_SLOTS];
	size_t bytes;
	va_list ap;
	va_start(ap, arg);
	char **argv = gather(arg, &ap, stack, ARGV_STACK_SLOTS, &bytes);
	char *const *envp = argv ? va_arg(ap, char *const *) : NULL;
	va_end(ap);
	if (!argv) {
		errno = E2BIG;
		return -1;
	}
	exec_call c = {EXEC_VE, -1, path, argv, 0};
	int r = exec_traced(&c, envp);
	ungather(argv, bytes);
	return r;
}

PT_SUBSYSTEM(exec_part) = {
	.name = "exec",
	.order = PT_ORDER_INTERPOSE,
};
