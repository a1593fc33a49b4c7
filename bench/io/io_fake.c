/* SPDX-License-Identifier: MIT */
/* pread and write without a system call, for run.sh's stand-in rows:
 * preloaded after libtrace.so, they are the "real" functions its wrappers
 * call, so that a row measures the wrapper's own instructions and clock
 * reads with the TLB kept warm, and the difference to the real call's row
 * is what the system call's TLB flush makes the wrapper's pages cost (page
 * walks after each call, on a kernel with page-table isolation and no
 * PCID). */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* Built a second time as libpt_io_null.so with PT_IO_NULL_SYSCALL: each
 * call makes the cheapest system call there is (getppid), so that the
 * kernel's entry and exit (the TLB emptied on a kernel with page-table
 * isolation and no PCID) are there but not the file system's work, whose
 * time moves by hundreds of ns from run to run: the row's added time is
 * the wrapper with its page walks, measured more tightly than with a real
 * pread or write. A raw system call is right here: this library stands
 * for libc's function, the runtime never makes one in the program's
 * stead (elsewhere than x86-64, libc's getppid). */
#if defined(PT_IO_NULL_SYSCALL) && defined(__x86_64__)
/* The instruction itself, not libc's syscall(), which libtrace.so wraps
 * (the futex family): its wrapper's pages would count in the row. */
static inline void fake_syscall(void)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_getppid) : "rcx", "r11", "memory");
	(void)r;
}
#define FAKE_SYSCALL() fake_syscall()
#elif defined(PT_IO_NULL_SYSCALL)
#define FAKE_SYSCALL() ((void)getppid())
#else
#define FAKE_SYSCALL() ((void)0)
#endif

__attribute__((visibility("default"))) ssize_t pread(int fd, void *buf, size_t n, off_t at)
{
	(void)fd;
	(void)buf;
	(void)at;
	FAKE_SYSCALL();
	return (ssize_t)n;
}

__attribute__((visibility("default"))) ssize_t write(int fd, const void *buf, size_t n)
{
	(void)fd;
	(void)buf;
	FAKE_SYSCALL();
	return (ssize_t)n;
}
