/* SPDX-License-Identifier: MIT */
/* Many threads.
 *   manythreads concurrent N: N threads alive at once (they wait on a
 *     barrier until all exist), then joined.
 *   manythreads serial N: N short-lived threads one after the other (in
 *     waves of 8 joined together); open descriptors and resident memory
 *     are measured from /proc/self after the first 1,000 threads and at the
 *     end, and must not grow with the number of threads: at most 4 more
 *     descriptors and 1 MiB more memory (measured: none and 60-110 KiB,
 *     whatever N), so that a leak of 32 bytes per thread fails over
 *     40,000 threads (the runtime's start block of each thread, kept, adds
 *     2 MiB). */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_barrier_t bar;
static long ran;

static void *concurrent(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&bar);
	return NULL;
}

static void *short_lived(void *arg)
{
	__atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
	return arg;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long size = 0, res = 0;
	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		res = -1;
	fclose(f);
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "concurrent";
	int n = argc > 2 ? atoi(argv[2]) : 1000;
	if (strcmp(mode, "concurrent") == 0) {
		pthread_t *th = calloc((size_t)n, sizeof *th);
		pthread_attr_t a;
		pthread_attr_init(&a);
		pthread_attr_setstacksize(&a, 64 * 1024);
		pthread_barrier_init(&bar, NULL, (unsigned)n + 1);
		for (int i = 0; i < n; i++)
			if (pthread_create(&th[i], &a, concurrent, NULL) != 0) {
				fprintf(stderr, "pthread_create %d failed\n", i);
				return 1;
			}
		pthread_barrier_wait(&bar);
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		printf("expect count THREAD_CREATE == %d result=0\n", n);
		printf("expect count THREAD_START == %d\n", n + 1);
		printf("expect count THREAD_END == %d\n", n + 1);
		printf("expect linked-threads == %d\n", n);
		printf("expect count THREAD_JOIN_END == %d result=0\n", n);
		printf("expect count BARRIER_END == %d obj=%p\n", n + 1, (void *)&bar);
		printf("expect status 0\n");
		return 0;
	}
	int fds0 = 0;
	long rss0 = 0;
	for (int i = 0; i < n; i += 8) {
		pthread_t th[8];
		int k = n - i < 8 ? n - i : 8;
		for (int j = 0; j < k; j++)
			if (pthread_create(&th[j], NULL, short_lived, NULL) != 0) {
				fprintf(stderr, "pthread_create failed at %d\n", i + j);
				return 1;
			}
		for (int j = 0; j < k; j++)
			pthread_join(th[j], NULL);
		if (i + 8 >= 1000 && fds0 == 0) {
			fds0 = open_fds();
			rss0 = rss_kb();
		}
	}
	int fds1 = open_fds();
	long rss1 = rss_kb();
	fprintf(stderr, "fds %d -> %d, rss %ld -> %ld KiB\n", fds0, fds1, rss0, rss1);
	if (ran != n || fds1 > fds0 + 4 || rss1 > rss0 + 1024)
		return 1;
	printf("expect count THREAD_START == %d\n", n + 1);
	printf("expect count THREAD_END == %d\n", n + 1);
	printf("expect count THREAD_JOIN_END == %d result=0\n", n);
	printf("expect status 0\n");
	return 0;
}
