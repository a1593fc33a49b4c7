/* SPDX-License-Identifier: MIT */
/* The stand-in for the runtime core (runtime/core/pt_runtime.h) in the unit tests
 * of the runtime's parts: counters, call stacks and sampling
 * (tests/counters), gpu/ (tests/gpu), the interposition helpers
 * (tests/intercept). Records go to memory instead of log files: a thread's
 * to an array of its own, which a signal handler of that thread may append
 * to (no lock); the process log's and the extra logs' to one shared array.
 * The table of parts (runtime/core/parts.c) and the lock are the real ones: a
 * test drives the parts it links through pt_parts_*. */
#ifndef PT_FAKE_CORE_H
#define PT_FAKE_CORE_H

#include "pt_runtime.h"

#include <stddef.h>
#include <stdint.h>

#define FAKE_MAX_RECORDS 8192 /* per thread */
#define FAKE_MAX_SHARED 4096  /* process log and extra logs together */
#define FAKE_MAX_FILES 32
#define FAKE_MAX_PAYLOAD 544

/* Where a record went: a thread's log, the process log, or an extra log
 * (FAKE_FILE0 + its index in fake_files). */
enum { FAKE_THREAD = -2, FAKE_PROCESS = -1, FAKE_FILE0 = 0 };

typedef struct fake_rec {
	int where;
	uint64_t ticks;
	unsigned kind, arg;
	size_t len; /* payload bytes kept (at most FAKE_MAX_PAYLOAD) */
	uint64_t payload[FAKE_MAX_PAYLOAD / 8];
	size_t written; /* payload bytes the runtime wrote, kept or not */
	int last;       /* the last of them, -1 none */
} fake_rec;

struct pt_thread {
	uint32_t tid;
	int inside; /* pt_enter's recursion guard */
	size_t nrecs;
	fake_rec recs[FAKE_MAX_RECORDS];
};

typedef struct fake_file {
	char name[64];
	int kind;
	uint64_t stream;
	int open;
	uint64_t last;    /* time of its last record */
	int out_of_order; /* records whose time went back */
} fake_file;

extern fake_rec fake_recs[FAKE_MAX_SHARED];
extern size_t fake_nrecs;
extern fake_file fake_files[FAKE_MAX_FILES];
extern size_t fake_nfiles;

/* What pt_config_get returns (enabled, gpu on; the rest 0). */
extern pt_config fake_config;
/* pt_tracing(); when 0, pt_enter() returns NULL too (default 1). */
extern int fake_tracing;
/* pt_enter() on a thread without state creates it (default 0: only
 * threads that called fake_thread() are traced; never from a signal
 * handler). */
extern int fake_auto_thread;
/* The folder pt_process_file_path() names files in (default /tmp). */
extern char fake_process_dir[4096];
/* pt_warn's lines, one per warning, and their count. */
extern char fake_warnings[8192];
extern int fake_nwarnings;
/* pt_signal_forward calls: deliveries the runtime's handler passed on. */
extern _Atomic int fake_forwarded;
/* What pt_run_env_string() returns; pt_exec_prepare() calls. */
extern const char *fake_run_env;
extern int fake_exec_prepared;
/* pt_exec_close() and pt_exec_failed() calls. */
extern int fake_exec_closed, fake_exec_failed;
/* The last pt_shutdown(how, status); calls. */
extern int fake_shutdown_how, fake_shutdown_status, fake_shutdowns;
/* What pt_in_signal_shutdown() returns (default 0). */
extern int fake_signal_shutdown;

/* The clock: CLOCK_MONOTONIC ns, and trace ticks, 2 per ns (a clock that
 * is not ns, so that a missing conversion shows). */
uint64_t fake_mono_ns(void);
uint64_t fake_ticks_of_ns(uint64_t ns);

/* The calling thread's state, created on first use; freed (threads other
 * than main, before they end). */
pt_thread *fake_thread(void);
void fake_thread_free(void);
/* Forgets t's records. */
void fake_clear(pt_thread *t);
/* Forgets the calling thread's records, the shared ones, the extra logs
 * and the warnings. */
void fake_reset(void);
/* The nth record of `kind` written to `where` (FAKE_THREAD: the calling
 * thread's log), NULL if none; how many there are. */
const fake_rec *fake_find(int where, unsigned kind, size_t nth);
size_t fake_count(int where, unsigned kind);
/* Index in fake_files of the extra log `name`, -1 if none. */
int fake_file_index(const char *name);

#endif
