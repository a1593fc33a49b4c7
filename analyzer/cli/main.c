/* SPDX-License-Identifier: MIT */
/* paratrace: command dispatcher. The commands themselves are in cmd_*.c and
 * listed in commands.h. */
#include <stdio.h>
#include <string.h>

#include <paratrace/format.h>

#include "commands.h"
#include "pt_family.h"

typedef struct command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	void (*help)(FILE *out);
} command;

#define PT_COMMAND_ENTRY(name, summary) {#name, summary, pt_cmd_##name, pt_cmd_##name##_help},
static const command commands[] = {PT_COMMANDS(PT_COMMAND_ENTRY)};
#undef PT_COMMAND_ENTRY

static void usage(FILE *out)
{
	fprintf(out,
		"usage: paratrace <command> [options] [args]\n"
		"       paratrace help <command>   (or: paratrace <command> --help)\n"
		"       paratrace --version\n"
		"\n"
		"Runs a program under libtrace.so (record), and reads the logs it writes (a\n"
		"trace directory with one p<pid>/ folder per process, or a single .ptl log),\n"
		"turning them into text, Paraver traces and profiles. Start with\n"
		"  paratrace record ./app ARGS...\n"
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
	pt_families_use(pt_family_builtin);
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
