/* SPDX-License-Identifier: MIT */
/* The paratrace command table.
 *
 * Adding a command is one line in PT_COMMANDS below plus its own source
 * file(s):
 *   - analyzer/cli/cmd_<name>.c (every cmd_*.c here is built into the CLI)
 *     defining
 *         int  pt_cmd_<name>(int argc, char **argv);  // argv[0] = "<name>"; returns the exit status
 *         void pt_cmd_<name>_help(FILE *out);         // full usage text
 *   - code living elsewhere (analyzer/framework, analyzer/tools) as a library
 *     target whose CMakeLists.txt does
 *         set_property(GLOBAL APPEND PROPERTY PT_CLI_LIBS <target>)
 *
 * Exit status convention for every command: 0 success, 1 the data had
 * errors (reported on stderr, naming file and offset; a log skipped whole
 * counts), 2 usage error or no trace to read (a path that does not exist or
 * cannot be read, no logs there, several runs and no --run).
 */
#ifndef PT_CLI_COMMANDS_H
#define PT_CLI_COMMANDS_H

#include <stdio.h>

/* X(name, one-line summary) */
#define PT_COMMANDS(X) \
	X(record, "run a program traced, then say where the trace is and profile it") \
	X(dump, "print every event of a trace as one text line") \
	X(analyze, "write a Paraver trace (.prv/.pcf/.row) and print a short profile") \
	X(report, "print the profile: functions, locks, threads (--csv, --json, --html)") \
	X(export, "write a timeline for ui.perfetto.dev (--format perfetto or chrome)") \
	X(plot, "draw the timeline and a flame graph as SVG (--png), without a GUI") \
	X(diff, "compare two runs per function, lock and thread (traces or saved report --json)")

#define PT_DECLARE_COMMAND(name, summary) \
	int pt_cmd_##name(int argc, char **argv); \
	void pt_cmd_##name##_help(FILE *out);
PT_COMMANDS(PT_DECLARE_COMMAND)
#undef PT_DECLARE_COMMAND

/* Helpers for commands (cli_common.c). */
extern const char *pt_cli_progname; /* "paratrace" */
/* Every message of the command on stderr: "paratrace: KIND: MSG" (KIND
 * NULL: "paratrace: MSG"). A message may name paths, programs, threads and
 * functions of a trace, any bytes a program chose: it is written in the
 * text policy (pt_text.h), so that no escape sequence, carriage return or
 * line break in them acts on a terminal or forges a line. With `list`,
 * a line break followed by two spaces starts a line of the message's own
 * (a list under an error); every other one is escaped, as it always is in
 * a warning or note (one line each). */
void pt_cli_say(const char *kind, const char *msg, int list);
/* pt_cli_say(NULL, the formatted message, list). */
void pt_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The exit status for a trace pt_trace_scan could not use (its errno): 1
 * when logs were there but all damaged, 2 otherwise (bad input). */
int pt_cli_scan_status(int scan_errno);

/* dist.c: when mpirun started several paratrace processes, the MPI plugin
 * connecting them (pt_dist.h); NULL when alone, or with *failed set (said
 * on stderr) when several but they cannot be connected. */
struct pt_dist;
struct pt_dist *pt_cli_dist_open(int *argc, char ***argv, int *failed);
/* This process's rank among those the launcher started (its environment:
 * Open MPI, MPICH's Hydra, Slurm); 0 when alone or when it does not say. */
long pt_cli_launch_rank(void);

#endif
