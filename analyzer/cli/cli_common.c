/* SPDX-License-Identifier: MIT */
/* What every command uses to speak (commands.h): the program's name, an
 * error line, the exit status of a trace that could not be read. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "pt_text.h"

const char *pt_cli_progname = "paratrace";

/* A line break that starts a line of a message's own list (pt_cli_say). */
#define LIST_LINE "\n  "

void pt_cli_say(const char *kind, const char *msg, int list)
{
	fprintf(stderr, "%s: %s%s", pt_cli_progname, kind ? kind : "", kind ? ": " : "");
	/* each piece in the text policy, the list's own line breaks kept */
	const char *p = msg ? msg : "";
	for (;;) {
		const char *next = list ? strstr(p, LIST_LINE) : NULL;
		size_t n = next ? (size_t)(next - p) : strlen(p);
		char *piece = strndup(p, n);
		pt_text_put(stderr, piece ? piece : "?", 0);
		free(piece);
		if (!next)
			break;
		fputs(LIST_LINE, stderr);
		p = next + strlen(LIST_LINE);
	}
	fputc('\n', stderr);
}

void pt_cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = NULL;
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	pt_cli_say(NULL, n < 0 ? "out of memory" : msg, 1);
	free(msg);
}

int pt_cli_scan_status(int scan_errno)
{
	return scan_errno == EBADMSG || scan_errno == ENOMEM ? 1 : 2;
}
