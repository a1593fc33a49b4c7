/* A program whose timings are known by construction, for the analyzer's
 * end-to-end test (tests/analyzer/test_real.py):
 *   phase 1: main holds `gate` for HOLD_MS while T workers block on it, so
 *            each worker's first acquisition waits about HOLD_MS; each
 *            worker then holds it HELD_MS (so the others wait for that too);
 *   phase 2: each worker calls sleep_fixed() N times; it sleeps SLEEP_MS.
 *   then main forks a child that calls sleep_fixed() N times and exits;
 *   main waits for it.
 * Usage: timed T N   (prints the parameters it used, one "key value" a line)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HOLD_MS 50
#define HELD_MS 5
#define SLEEP_MS 2

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static int calls;

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts))
		;
}

__attribute__((noinline)) void sleep_fixed(void)
{
	sleep_ms(SLEEP_MS);
}

__attribute__((noinline)) void hold_gate(void)
{
	pthread_mutex_lock(&gate);
	sleep_ms(HELD_MS);
	pthread_mutex_unlock(&gate);
}

static void *worker(void *arg)
{
	(void)arg;
	hold_gate();
	for (int i = 0; i < calls; i++)
		sleep_fixed();
	return NULL;
}

int main(int argc, char **argv)
{
	int t = argc > 1 ? atoi(argv[1]) : 4;
	calls = argc > 2 ? atoi(argv[2]) : 10;
	pthread_t th[64];
	if (t < 1 || t > 64)
		return 2;
	pthread_mutex_lock(&gate);
	for (int i = 0; i < t; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	sleep_ms(HOLD_MS);
	pthread_mutex_unlock(&gate);
	for (int i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		for (int i = 0; i < calls; i++)
			sleep_fixed();
		_exit(0);
	}
	int status = 0;
	if (child > 0)
		waitpid(child, &status, 0);
	printf("child_ok %d\n", child > 0 && WIFEXITED(status));
	printf("threads %d\ncalls %d\nhold_ms %d\nheld_ms %d\nsleep_ms %d\n", t, calls, HOLD_MS,
	       HELD_MS, SLEEP_MS);
	return 0;
}
