/* SPDX-License-Identifier: MIT */
/* The runtime's own system calls, made with the system call instruction
 * itself rather than through libc's syscall().
 *
 * Why: inside libtrace.so, a call to syscall() binds to the runtime's own
 * exported syscall wrapper (sync/futex.c, which records futex waits), and
 * the core must never reach an interposed family (a family may be left
 * out, or record what the core does as the program's). These calls also
 * suit the places the core makes them: they touch neither errno nor any
 * other per-thread state of libc (the prefault helper, a raw clone thread,
 * has none of its own), they are never cancellation points, and they are
 * async-signal-safe.
 *
 * Each returns what the kernel returns: the result, or -errno. Always
 * inline, so that a caller's attributes (no sanitizer in the prefault
 * helper, which calls no function at all) cover them. */
#ifndef PT_SYS_H
#define PT_SYS_H

#include <sys/syscall.h>

#define PT_SYS_INLINE static inline __attribute__((always_inline, no_instrument_function))

#if defined(__x86_64__)
PT_SYS_INLINE long pt_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
	                 : "=a"(ret)
	                 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
	                 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
PT_SYS_INLINE long pt_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0"
	                 : "+r"(x0)
	                 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
	                 : "memory", "cc");
	return x0;
}
#else
/* Elsewhere, libc's syscall(): inside libtrace.so it binds to the futex
 * wrapper, which hands every call but SYS_futex on unchanged (the test
 * runtime_no_self_calls then says so: add the architecture above). */
#include <errno.h>
#include <unistd.h>
#define PT_SYS_VIA_LIBC 1
PT_SYS_INLINE long pt_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	int saved = errno;
	long r = syscall(n, a, b, c, d, e, f);
	if (r == -1)
		r = -errno;
	errno = saved;
	return r;
}
#endif

#define pt_sys0(n) pt_sys6((n), 0, 0, 0, 0, 0, 0)
#define pt_sys1(n, a) pt_sys6((n), (long)(a), 0, 0, 0, 0, 0)
#define pt_sys2(n, a, b) pt_sys6((n), (long)(a), (long)(b), 0, 0, 0, 0)
#define pt_sys3(n, a, b, c) pt_sys6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define pt_sys4(n, a, b, c, d) pt_sys6((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define pt_sys5(n, a, b, c, d, e)                                                                  \
	pt_sys6((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)

#endif /* PT_SYS_H */
