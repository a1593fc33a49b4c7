/* SPDX-License-Identifier: MIT */
/* Linked against libtrace.so (DT_NEEDED, as through /etc/ld.so.preload or a
 * program built with -ltrace), for the e2e case "secure": run setuid or with
 * a file capability, it must not be traced. Says whether the kernel ran it
 * in secure-execution mode (AT_SECURE). */
#include <stdio.h>
#include <sys/auxv.h>

int main(void)
{
	printf("secure %lu\n", getauxval(AT_SECURE));
	return 42;
}
