/* SPDX-License-Identifier: MIT */
/* paratrace record's parts: the child it runs (record_child.c), the trace
 * directory it names (record_dir.c), itself run untraced (record_self.c). */
#ifndef PT_CLI_RECORD_H
#define PT_CLI_RECORD_H

#include <stddef.h>

/* Runs argv[0] (PATH looked up) with argv and waits for it, passing on the
 * signals sent to paratrace. Returns its exit status, 128 + N when signal
 * N ended it; when it could not be started (said on stderr) *ran is 0 and
 * the status a shell gives: 127 not found, 126 not runnable. */
int record_run_child(char **argv, const char *name, int *ran);

/* When LD_PRELOAD has a libtrace.so, which traces paratrace itself: runs
 * paratrace again (argv: "record" and its arguments) without it, after a
 * note. Returns if there was none, or the exec failed. */
void record_untraced_self(int argc, char **argv);

/* The program a command line runs, past wrappers that only run the next
 * word (env NAME=VALUE..., timeout DURATION, time, nice -n N): its base
 * name, within argv (never NULL). */
const char *record_program_name(char **argv);

/* The rank of this process when an MPI launcher started it, -1 if none;
 * *job (len bytes) the job's name, the same in every rank. */
int record_mpi_rank(char *job, size_t len);

/* Creates a fresh trace directory in the current one: BASE.paratrace, or
 * the first of BASE.paratrace.1, .2... that does not exist. Its absolute
 * path in out; 0, or -1 after a message. */
int record_make_dir(const char *base, char *out, size_t len);

/* Whether path is a trace directory (a process folder in it). */
int record_holds_trace(const char *path);

/* The newest trace directory in the current one (a directory holding a
 * process folder p<pid>.../process.ptl), into out; 0 or -1 if none. */
int record_newest_trace(char *out, size_t len);

#endif
