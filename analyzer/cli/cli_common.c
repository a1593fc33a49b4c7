/* SPDX-License-Identifier: MIT */
/* What every command uses to speak (commands.h): the program's name, an
 * error line, the exit status of a trace that could not be read. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "commands.h"

const char *pt_cli_progname = "paratrace";

void pt_cli_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", pt_cli_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int pt_cli_scan_status(int scan_errno)
{
	return scan_errno == EBADMSG || scan_errno == ENOMEM ? 1 : 2;
}
