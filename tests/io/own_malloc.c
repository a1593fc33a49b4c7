/* SPDX-License-Identifier: MIT */
/* A program that brings its own allocator (malloc, free, calloc, realloc
 * defined in the executable, which come before libtrace.so's wrappers),
 * allocates through it, also from a thread, writes a file through stdio
 * and prints what it counted: traced with PARATRACE_MEMORY=1, it must
 * print the same and exit 0, its allocator having served every call. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static char *arena;
static size_t used;
static unsigned long calls;

void *malloc(size_t n)
{
	if (!arena) {
		arena = mmap(NULL, 64 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		             -1, 0);
		if (arena == MAP_FAILED)
			return NULL;
	}
	size_t at = __atomic_fetch_add(&used, (n + 15) / 16 * 16 + 16, __ATOMIC_RELAXED);
	__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
	*(size_t *)(arena + at) = n;
	return arena + at + 16;
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t n, size_t size)
{
	void *p = malloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p = malloc(n);
	if (p && old) {
		size_t had = *(size_t *)((char *)old - 16);
		memcpy(p, old, had < n ? had : n);
	}
	return p;
}

static void *worker(void *arg)
{
	for (int i = 0; i < 100; i++)
		free(malloc(64));
	return arg;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "own_malloc.txt";
	pthread_t th;
	if (pthread_create(&th, NULL, worker, NULL) || pthread_join(th, NULL))
		return 2;
	FILE *f = fopen(path, "w");
	if (!f)
		return 2;
	for (int i = 0; i < 10; i++)
		fprintf(f, "%d\n", i);
	fclose(f);
	char *s = malloc(8);
	strcpy(s, "done");
	printf("%s: own allocator served %s\n", s, calls >= 101 ? "every call" : "too few calls");
	return 0;
}
