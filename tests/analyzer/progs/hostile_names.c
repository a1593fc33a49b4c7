/* SPDX-License-Identifier: MIT */
/* Names no output may pass on as they are (check_hostile.py runs this under
 * a file name of the same kind): terminal escapes (a window title, a screen
 * clear, colours), CR and LF, a C1 control, markup and quote characters,
 * a backslash and bytes that are not UTF-8, in a function's name and file
 * (the manual API's descriptors), a thread's name, an event type, a scope
 * and a value name. The worker waits for a mutex inside its function, so
 * that the locks table names it too: main holds the mutex until the kernel
 * shows the worker asleep in its request, so the wait happens however
 * loaded the machine is. */
#define _GNU_SOURCE
#include "asleep.h"
#include <paratrace.h>
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static paratrace_func_desc fn = {"fn\x1b[31mRED\x1b[0m\rOVERWRITE\n\xff\xfe<&>\"'\\", "f\xff\n.c",
                                 3, 0};
static paratrace_func_desc waiter = {"waiter\x1b]0;T\x07\xc2\x9b\xe6\x97", "w.c", 7, 0};

static volatile pid_t asker;

static void *worker(void *arg)
{
	(void)arg;
	PT_THREAD_NAME("worker\x1b]0;PWNED-title\x07\x1b[2J\r\nFAKE LINE\xff");
	paratrace_func_begin(&waiter);
	asker = gettid();
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	paratrace_func_end(&waiter);
	return NULL;
}

int main(void)
{
	pthread_mutex_lock(&m);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	paratrace_func_begin(&fn);
	for (int i = 0; i < 3; i++) {
		PT_EVENT("ph\x1b[2Jase\n", i + 1);
		PT_SCOPE_UPDATE("st\377ep", 5, "fi\rve\xc0");
		usleep(1000);
		PT_SCOPE_UPDATE("st\377ep", 0);
	}
	wait_asleep(&asker);
	pthread_mutex_unlock(&m);
	paratrace_func_end(&fn);
	pthread_join(t, NULL);
	return 0;
}
