/* SPDX-License-Identifier: MIT */
/* Counts the records of a log with the installed reader. */
#include <paratrace/log.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char err[512];
	pt_log *log = argc == 2 ? pt_log_open_path(argv[1], 0, err, sizeof err) : NULL;
	if (!log) {
		fprintf(stderr, "%s\n", argc == 2 ? err : "usage: count <file.ptl>");
		return 2;
	}
	pt_event ev;
	unsigned long n = 0;
	while (pt_log_read(log, &ev) == 0)
		n++;
	printf("%lu %s\n", n, ev.state == PT_LOG_EOF && ev.complete ? "complete" : "incomplete");
	pt_log_close(log);
	return 0;
}
