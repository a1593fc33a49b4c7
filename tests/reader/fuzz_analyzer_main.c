/* SPDX-License-Identifier: MIT */
/* Runs the analyzer fuzz target (fuzz_analyzer.c) without libFuzzer, so
 * that it builds with any compiler and runs under the project's own
 * sanitizer build (build-asan):
 *
 *   fuzz_analyzer [--seconds N] [--seed S]     random inputs for N seconds
 *   fuzz_analyzer --seed S --input K [--save F] input K of seed S alone
 *   fuzz_analyzer FILE...                       the given inputs
 *
 * Input K of seed S is made by a generator seeded with both, so the input
 * a failure names is made again by --seed and --input; --save writes it to
 * a file. A failure (a sanitizer's report, a crash) names that input. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* the sanitizers' runtime, when linked in */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static uint64_t seed;
static volatile long current = -1;

static void say_input(void)
{
	char line[160];
	int n = snprintf(line, sizeof line,
	                 "fuzz_analyzer: failed on input %ld of seed %llu (again: --seed %llu "
	                 "--input %ld)\n",
	                 current, (unsigned long long)seed, (unsigned long long)seed, current);
	if (current >= 0 && n > 0 && write(2, line, (size_t)n) < 0)
		return;
}

static void on_signal(int sig)
{
	say_input();
	signal(sig, SIG_DFL);
	raise(sig);
}

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Input k of the seed: 1 to 4096 bytes. */
static size_t make_input(uint64_t k, uint8_t *buf, size_t cap)
{
	uint64_t x =
	    (seed ^ 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull + k * 0x94D049BB133111EBull;
	if (!x)
		x = 1;
	size_t n = 1 + next(&x) % cap;
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(next(&x) >> 24);
	return n;
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	static uint8_t buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

int main(int argc, char **argv)
{
	double seconds = 4;
	long input = -1;
	const char *save = NULL;
	int files = 0;
	seed = (uint64_t)time(NULL);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--input") && i + 1 < argc)
			input = atol(argv[++i]);
		else if (!strcmp(argv[i], "--save") && i + 1 < argc)
			save = argv[++i];
		else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: fuzz_analyzer [--seconds N] [--seed S] [--input K "
			                "[--save FILE]] [FILE...]\n");
			return 2;
		} else {
			files = 1;
			if (run_file(argv[i]))
				return 1;
		}
	}
	if (files)
		return 0;
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(say_input);
	signal(SIGSEGV, on_signal);
	signal(SIGBUS, on_signal);
	signal(SIGFPE, on_signal);
	signal(SIGABRT, on_signal);
	static uint8_t buf[4096];
	if (input >= 0) {
		size_t n = make_input((uint64_t)input, buf, sizeof buf);
		if (save) {
			FILE *f = fopen(save, "wb");
			if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) {
				perror(save);
				return 1;
			}
		}
		current = input;
		LLVMFuzzerTestOneInput(buf, n);
		return 0;
	}
	printf("fuzz_analyzer: seed %llu, %.0f s\n", (unsigned long long)seed, seconds);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	long k = 0;
	do {
		size_t n = make_input((uint64_t)k, buf, sizeof buf);
		current = k;
		LLVMFuzzerTestOneInput(buf, n);
		k++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 <
	         seconds);
	printf("fuzz_analyzer: %ld inputs\n", k);
	return 0;
}
