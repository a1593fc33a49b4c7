/* SPDX-License-Identifier: MIT */
/* paratrace log reader (libptlog), in the shape of FreeBSD's pmclog(3).
 *
 *   pt_log *log = pt_log_open(fd, 0);          // or pt_log_open(PT_LOG_FD_NONE, 0)
 *   pt_event ev;
 *   while (pt_log_read(log, &ev) == 0) {       // ev.state == PT_LOG_OK
 *       switch (ev.kind) { case PT_REC_FUNC_ENTER: ... }
 *   }
 *   switch (ev.state) {
 *   case PT_LOG_EOF:          // ev.complete: a CLOSE record was seen;
 *                             // ev.truncated_bytes: partial last record (killed writer)
 *   case PT_LOG_ERROR:        // ev.error, ev.offset: corruption; records before it were delivered
 *   case PT_LOG_REQUIRE_DATA: // memory parser: pt_log_feed() more; file + PT_LOG_FOLLOW: retry later
 *   }
 *   pt_log_close(log);
 *
 * The format itself is in <paratrace/format.h> and docs/FORMAT.md.
 * A parser is not thread-safe; use one per thread.
 */
#ifndef PARATRACE_LOG_H
#define PARATRACE_LOG_H

#include <paratrace/format.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PT_LOG_FD_NONE (-1)

/* pt_log_open flags */
#define PT_LOG_FOLLOW 0x1 /* file parser: at the end of the data of a log
                             without CLOSE, report REQUIRE_DATA (read again
                             later: the writer may still be running) */

enum pt_log_state {
	PT_LOG_OK = 0,
	PT_LOG_EOF,          /* no more records (see complete / truncated_bytes) */
	PT_LOG_ERROR,        /* corrupted or foreign data at `offset` (see error) */
	PT_LOG_REQUIRE_DATA, /* not enough bytes for a whole record yet */
};

typedef struct pt_log pt_log;

typedef struct pt_event {
	enum pt_log_state state;
	uint32_t kind;    /* enum pt_rec_kind (PT_LOG_OK) */
	uint64_t offset;  /* byte offset of the record (or of the error) in the stream */
	uint64_t serial;  /* 0-based number of this record among those delivered */
	uint64_t ticks;   /* raw time of the record */
	uint64_t time_ns; /* the same on CLOCK_MONOTONIC nanoseconds */
	const pt_rec_head *rec; /* raw record; valid until the next read/feed/close */
	size_t size;            /* bytes of the raw record */
	uint32_t func_id;       /* FUNC_ENTER / FUNC_EXIT / FUNC_LANDED */
	/* PT_LOG_ERROR: reason; valid until pt_log_close */
	const char *error;
	/* PT_LOG_EOF */
	int complete;             /* the log ended with a CLOSE record */
	uint64_t truncated_bytes; /* bytes of an incomplete last record, dropped */
} pt_event;

/* A parser reading from fd (not closed by pt_log_close), or a memory
 * parser fed with pt_log_feed when fd is PT_LOG_FD_NONE. NULL on ENOMEM. */
pt_log *pt_log_open(int fd, unsigned flags);

/* Opens a file by path for reading. On failure returns NULL and writes a
 * message naming the path into err. */
pt_log *pt_log_open_path(const char *path, unsigned flags, char *err, size_t errlen);

/* Next record. Returns 0 when ev->state is PT_LOG_OK, -1 otherwise. After
 * PT_LOG_ERROR or PT_LOG_EOF every further call returns the same state. */
int pt_log_read(pt_log *log, pt_event *ev);

/* Memory parser: append len bytes (copied). len == 0 means end of input:
 * the parser then reports EOF instead of REQUIRE_DATA. Returns 0, or -1 for
 * a file parser or ENOMEM. */
int pt_log_feed(pt_log *log, const void *data, size_t len);

/* The file header, once the first read has parsed it; NULL before. */
const pt_file_header *pt_log_header(const pt_log *log);

void pt_log_close(pt_log *log);

/* Exact conversion documented in format.h. */
uint64_t pt_ticks_to_ns(const pt_file_header *hdr, uint64_t ticks);

/* "FUNC_ENTER", ...; "UNKNOWN" for kinds this reader does not know. */
const char *pt_rec_kind_name(unsigned kind);

/* NUL-terminated string starting `offset` bytes into the record's payload
 * (after pt_rec_head), or NULL if it does not end inside the record. */
const char *pt_event_string(const pt_event *ev, size_t offset);

/* A THREAD_NAME record's name, or NULL when it is damaged; *tid: the thread
 * it names when the record says (PT_THREAD_NAME_TID), else 0: the thread
 * whose log holds it. */
const char *pt_event_thread_name(const pt_event *ev, uint32_t *tid);

/* ---------------------------------------------------------------------- */
/* Trace directories                                                       */

typedef struct pt_trace_file {
	char *path;     /* full path */
	int kind;       /* enum pt_file_kind, from the header */
	uint32_t pid;   /* from the header */
	uint32_t tid;   /* from the header */
	uint64_t size;  /* bytes on disk when scanned */
	int process;    /* index into pt_trace.processes */
} pt_trace_file;

typedef struct pt_trace_process {
	char *dir;          /* p<pid>[.<gen>] folder */
	uint32_t pid, ppid;
	int process_log;    /* index into files of its process.ptl, -1 if missing */
	int first_file, nfiles; /* its files: files[first_file .. first_file+nfiles) */
} pt_trace_process;

typedef struct pt_trace {
	char *dir;
	size_t nfiles;
	pt_trace_file *files; /* grouped by process; process log first */
	size_t nprocesses;
	pt_trace_process *processes;
	uint64_t total_bytes;
	char *warnings; /* newline-separated messages about skipped files, or NULL */
	/* Logs skipped because they hold nothing yet: empty or zeros where the
	 * header goes (the runtime reserves a file's space before it writes its
	 * header: a process killed in between leaves zeros). Not damage: the
	 * logs of a killed run, said with the logs it did not close. */
	size_t empty_logs;
} pt_trace;

/* Scans a trace directory (or a single .ptl file). Files whose header cannot
 * be read are skipped, each with one line in trace->warnings; so are files
 * that are not regular files (never opened in a way that could block).
 * Returns NULL with a message in err when nothing usable is there, and
 * errno says why: EBADMSG when logs are there but every one is damaged;
 * ENODATA when there are none; otherwise the error of the path itself or of
 * reading it (ENOENT, EACCES, ENOTDIR...; EINVAL: neither a folder nor a
 * regular file; ENOMEM). */
pt_trace *pt_trace_scan(const char *path, char *err, size_t errlen);
void pt_trace_free(pt_trace *trace);

/* The process log of processes[process]: its own process.ptl, or for a
 * thread or GPU log scanned alone, the process.ptl beside it when that is
 * the log of the same process and run. NULL if there is none. */
const char *pt_trace_process_log(const pt_trace *t, size_t process);

/* The run id (pt_file_header.run_id) of processes[process]: every process
 * of one run of a program (its forked and exec'd children included) has
 * the same one. */
uint64_t pt_trace_run_id(const pt_trace *t, size_t process);

/* One run of a trace directory that may hold several (programs started
 * separately with the same PARATRACE_DIR). id NULL: 0 if the trace holds one
 * run; -1 with a message listing the runs (id, program, process folders) if
 * it holds more. id given (hex digits, "0x" allowed: a prefix of exactly one
 * run's id as printed, in hex without leading zeros):
 * keeps that run's processes and files, drops the others; -1 with a message
 * if no run, or more than one, matches. errno is EINVAL on failure. */
int pt_trace_pick_run(pt_trace *t, const char *id, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* PARATRACE_LOG_H */
