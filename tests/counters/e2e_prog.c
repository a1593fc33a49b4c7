/* SPDX-License-Identifier: MIT */
/* The traced program of the counters end-to-end tests (e2e_counters.sh).
 * Built without instrumentation: counters are read at sync and thread
 * events, call stacks and samples need no hooks. Modes:
 *   pages N   touch N new pages between a mutex lock and unlock
 *   sleep     sleep 5 times between a mutex lock and unlock
 *   lock      a contended lock three calls deep (outer > middle > take_lock)
 *   lock_free N  the same contended lock, then N free acquisitions of it at
 *             the same call site (no request record, no call stack)
 *   spin      ~0.3 s of CPU in spin_uninstrumented on the main thread
 *   sigprof   spin with the program's own SIGPROF handler and ITIMER_PROF;
 *             exits 3 if its handler never ran
 *   fork      the child of a fork spins ~0.2 s (its own counters and timer)
 *   rtsig     installs its own handler for SIGRTMAX-4 (the signal of the
 *             runtime's sampling timers), spins while sending itself 50 of
 *             them with values; exits 3 unless its handler got exactly its
 *             50 (no timer signal of the runtime) and sigaction reported
 *             SIG_DFL before and its own handler after
 *   rtdefault sends itself SIGRTMAX-4 with the default action: dies of it */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long sink;

__attribute__((noinline)) void take_lock(void)
{
	pthread_mutex_lock(&m); /* SITE_TAKE_LOCK */
	pthread_mutex_unlock(&m);
}
__attribute__((noinline)) void middle(void)
{
	take_lock(); /* SITE_MIDDLE */
	__asm__ volatile("" ::: "memory");
}
__attribute__((noinline)) void outer(void)
{
	middle(); /* SITE_OUTER */
	__asm__ volatile("" ::: "memory");
}

static unsigned long free_takes;

static void *contender(void *arg)
{
	(void)arg;
	outer();
	for (unsigned long i = 0; i < free_takes; i++)
		take_lock();
	return NULL;
}

__attribute__((noinline)) unsigned long spin_uninstrumented(unsigned long n)
{
	unsigned long x = 88172645463325252ul;
	for (unsigned long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void spin(double seconds)
{
	double t0 = cpu_s();
	while (cpu_s() - t0 < seconds)
		sink += spin_uninstrumented(3000000);
}

static volatile sig_atomic_t rt_got, rt_wrong;
static void on_rt(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGRTMAX - 4 && si->si_code == SI_QUEUE && si->si_value.sival_int == 1000 + rt_got)
		rt_got++;
	else
		rt_wrong++;
}

static volatile sig_atomic_t profs;
static void on_prof(int sig)
{
	(void)sig;
	profs++;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "pages") && argc > 2) {
		size_t n = strtoul(argv[2], NULL, 10), page = (size_t)sysconf(_SC_PAGESIZE);
		char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (p == MAP_FAILED)
			return 1;
		pthread_mutex_lock(&m);
		for (size_t i = 0; i < n; i++)
			((volatile char *)p)[i * page] = 1;
		pthread_mutex_unlock(&m);
	} else if (!strcmp(mode, "sleep")) {
		pthread_mutex_lock(&m);
		for (int i = 0; i < 5; i++)
			usleep(2000);
		pthread_mutex_unlock(&m);
	} else if (!strcmp(mode, "lock") || !strcmp(mode, "lock_free")) {
		if (argc > 2)
			free_takes = strtoul(argv[2], NULL, 10);
		/* Held here until the contender has surely asked for it. */
		pthread_t th;
		pthread_mutex_lock(&m);
		if (pthread_create(&th, NULL, contender, NULL))
			return 1;
		usleep(100000);
		pthread_mutex_unlock(&m);
		pthread_join(th, NULL);
	} else if (!strcmp(mode, "spin")) {
		spin(0.3);
	} else if (!strcmp(mode, "sigprof")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_prof;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGPROF, &sa, NULL);
		struct itimerval it = {{0, 5000}, {0, 5000}};
		setitimer(ITIMER_PROF, &it, NULL);
		spin(0.2);
		struct itimerval off = {{0, 0}, {0, 0}};
		setitimer(ITIMER_PROF, &off, NULL);
		printf("sigprof %d\n", (int)profs);
		return profs > 0 ? 0 : 3;
	} else if (!strcmp(mode, "rtsig")) {
		struct sigaction sa, old, now;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_rt;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		if (sigaction(SIGRTMAX - 4, &sa, &old) != 0)
			return 1;
		for (int i = 0; i < 50; i++) {
			union sigval v = {.sival_int = 1000 + i};
			if (sigqueue(getpid(), SIGRTMAX - 4, v) != 0)
				return 1;
			spin(0.004);
		}
		sigaction(SIGRTMAX - 4, NULL, &now);
		printf("rtsig %d wrong %d old %s now %s\n", (int)rt_got, (int)rt_wrong,
		       old.sa_handler == SIG_DFL ? "default" : "other",
		       now.sa_sigaction == on_rt ? "ours" : "other");
		return rt_got == 50 && !rt_wrong && old.sa_handler == SIG_DFL && now.sa_sigaction == on_rt
			       ? 0
			       : 3;
	} else if (!strcmp(mode, "rtdefault")) {
		spin(0.05);
		fflush(stdout);
		raise(SIGRTMAX - 4);
		spin(0.05);
		return 0; /* not reached: the default action ends the process */
	} else if (!strcmp(mode, "fork")) {
		spin(0.05);
		fflush(stdout);
		pid_t child = fork();
		if (child < 0)
			return 1;
		if (child == 0) {
			spin(0.2);
			printf("child done %lu\n", sink & 1);
			return 0;
		}
		int status;
		if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	} else {
		fprintf(stderr, "usage: %s pages N|sleep|lock|spin|sigprof|fork\n", argv[0]);
		return 2;
	}
	printf("%s done %lu\n", mode, sink & 1);
	return 0;
}
