/* SPDX-License-Identifier: MIT */
/* Counters read at function entry and exit (PARATRACE_COUNTERS_AT=functions):
 * built with instrument.so by e2e_counters.sh, case "functions". */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
__attribute__((noinline)) void touch_pages(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (size_t i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
}
__attribute__((noinline)) void caller(size_t n)
{
	touch_pages(n);
}
int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
	caller(n);
	printf("done\n");
	return 0;
}
