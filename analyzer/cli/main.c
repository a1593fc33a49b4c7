/* SPDX-License-Identifier: MIT */
/* paratrace: command dispatcher. The commands themselves are in cmd_*.c and
 * listed in commands.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <paratrace/format.h>

#include "commands.h"
#include "pt_text.h"

const char *pt_cli_progname = "paratrace";

typedef struct command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	void (*help)(FILE *out);
} command;

#define PT_COMMAND_ENTRY(name, summary) {#name, summary, pt_cmd_##name, pt_cmd_##name##_help},
static const command commands[] = {PT_COMMANDS(PT_COMMAND_ENTRY)};
#undef PT_COMMAND_ENTRY

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

static void usage(FILE *out)
{
	fprintf(out,
		"usage: paratrace <command> [options] [args]\n"
		"       paratrace help <command>   (or: paratrace <command> --help)\n"
		"       paratrace --version\n"
		"\n"
		"Reads the logs that libtrace.so writes (a trace directory with one p<pid>/\n"
		"folder per process, or a single .ptl log) and turns them into text, Paraver\n"
		"traces and profiles.\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nExit status: 0 success, 1 errors in the data (reported on stderr with file\n"
		     "and offset), 2 usage error or no trace to read.\n");
}

static const command *find(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *arg = argv[1];
	if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(arg, "--version")) {
		printf("paratrace %s (log format %d.%d)\n", PT_VERSION, PT_FORMAT_VERSION_MAJOR,
		       PT_FORMAT_VERSION_MINOR);
		/* The plugin only runs in the clang it was built for. */
#ifdef PT_PLUGIN_CLANG
		printf("plugin: instrument.so for clang %s\n", PT_PLUGIN_CLANG);
#else
		printf("plugin: not built\n");
#endif
		printf("built with: %s\n", PT_BUILT_PARTS);
		return 0;
	}
	if (!strcmp(arg, "help")) {
		if (argc < 3) {
			usage(stdout);
			return 0;
		}
		const command *c = find(argv[2]);
		if (!c) {
			pt_cli_error("unknown command '%s' (see 'paratrace --help')", argv[2]);
			return 2;
		}
		c->help(stdout);
		return 0;
	}
	const command *c = find(arg);
	if (!c) {
		pt_cli_error("unknown command '%s' (see 'paratrace --help')", arg);
		return 2;
	}
	return c->run(argc - 1, argv + 1);
}
