/* SPDX-License-Identifier: MIT */
/* The program paratrace record runs in tests/record: what it does is
 * chosen by its arguments, so that the test can see what it was given.
 *   exit N        returns N
 *   kill          kills itself with SIGTERM
 *   args A B...   prints its arguments, one a line, and a line of stdin
 *   env NAME      prints the variable NAME
 *   wait FILE     creates FILE, then sleeps until a signal ends it
 *   threads       two threads (their creation is where --callstack records) */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A thread's work: its argument summed up a thousand times. */
static void *work(void *arg)
{
	volatile long sum = 0;
	for (long i = 0; i < 1000; i++)
		sum += (long)arg;
	return (void *)sum;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "exit") && argc > 2)
		return atoi(argv[2]);
	if (!strcmp(argv[1], "kill")) {
		raise(SIGTERM);
		return 0;
	}
	if (!strcmp(argv[1], "args")) {
		char line[256] = "";
		for (int i = 2; i < argc; i++)
			printf("[%s]\n", argv[i]);
		if (fgets(line, sizeof line, stdin))
			printf("stdin: %s", line);
		return 0;
	}
	if (!strcmp(argv[1], "env") && argc > 2) {
		const char *v = getenv(argv[2]);
		printf("%s=%s\n", argv[2], v ? v : "(unset)");
		return 0;
	}
	if (!strcmp(argv[1], "wait") && argc > 2) {
		FILE *f = fopen(argv[2], "w");
		if (f)
			fclose(f);
		for (int i = 0; i < 600; i++)
			sleep(1);
		return 0;
	}
	if (!strcmp(argv[1], "threads")) {
		pthread_t t[2];
		long total = 0;
		for (long i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, work, (void *)(i + 1));
		for (int i = 0; i < 2; i++) {
			void *r;
			pthread_join(t[i], &r);
			total += (long)r;
		}
		return total == 3000 ? 0 : 1;
	}
	return 2;
}
