/* SPDX-License-Identifier: MIT */
/* PT_COUNTER(name) through the manual API (e2e_counters.sh, case "manual"):
 * page faults between two reads, and a name no machine has. */
#include <paratrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100, page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	PT_COUNTER("page-faults");
	for (size_t i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
	PT_COUNTER("page-faults");
	PT_COUNTER("no-such-counter-abc");
	PT_COUNTER("no-such-counter-abc");
	printf("manual done\n");
	return 0;
}
