/* SPDX-License-Identifier: MIT */
/* What the I/O family's parts share (Paraver: io_paraver.c, the report:
 * io_report.c, the timelines: io_timeline.c): the files named in the
 * process logs (IO_FILE), a thread's call in progress, Extrae's numbering. */
#ifndef PT_IO_COMMON_H
#define PT_IO_COMMON_H

#include <paratrace/tool.h>
#include <stdint.h>

/* Extrae's Paraver types for I/O calls (BSC's I/O cfgs read these). */
#define IO_EV_CALL 40000004u /* the call (enum pt_io_op), 0 = End */
#define IO_EV_FD 40000010u   /* its descriptor */
#define IO_EV_SIZE 40000011u /* the bytes it asked for */
#define IO_EV_FILE 40000059u /* the file (a value named in the .pcf) */
#define IO_EV_DONE 40000080u /* ours: the bytes it moved (at its end) */
#define IO_STATE 12          /* Extrae's "I/O" state */
/* ours: what the .prv's budget left out of the I/O calls, summarised on
 * the row's next line (pv_left_def): how many, their time (ns), and the
 * bytes they read and wrote */
#define IO_EV_LEFT 40000090u
#define IO_EV_LEFT_NS 40000091u
#define IO_EV_LEFT_READ 40000092u
#define IO_EV_LEFT_WRITTEN 40000093u

/* Names of files, trace-wide: a process's file id -> a value (>= 1; one
 * name, one value), named in the order the process logs are read (the
 * framework's pre-pass, serial: the same whatever -j). */
typedef struct io_names io_names;
io_names *io_names_new(size_t nprocesses);
void io_names_free(io_names *n);
/* Feed every process-log record (IO_FILE ones are kept). */
void io_names_process_event(io_names *n, size_t process, const pt_event *ev);
/* 0: not named (an IO_FILE lost, or no file). */
uint32_t io_names_value(const io_names *n, size_t process, uint32_t file);
uint32_t io_names_count(const io_names *n);
/* The process's file ids are below this (not every one named). */
uint32_t io_names_ids(const io_names *n, size_t process);
/* NULL for 0 or out of range. */
const char *io_names_name(const io_names *n, uint32_t value);
/* MPI-IO (the report's): the files MPI_File_open named (MPI_FILE) kept
 * too, as values of their own; which one handle fh named in a process at
 * a time (0: none); whether a value is such a file. */
void io_names_want_mpi(io_names *n);
uint32_t io_names_mpi_value(const io_names *n, size_t process, uint64_t fh, uint64_t at_ns);
int io_names_is_mpi(const io_names *n, uint32_t value);
/* Whether a POSIX file's name is also an MPI-IO file's. */
int io_names_mpi_twin(const io_names *n, uint32_t value);

const char *io_op_name(unsigned op);

/* A thread's I/O call in progress. */
typedef struct io_track {
	int open;
	unsigned op;
	uint64_t begin_ns, size;
	int32_t fd;
	uint32_t file; /* the process's file id */
} io_track;

/* A call that ended (io_track_step's IO_STEP_END). */
typedef struct io_done {
	unsigned op;
	uint64_t begin_ns, end_ns, size;
	uint64_t bytes; /* moved: what a read or write call returned, 0 otherwise */
	int32_t fd;
	uint32_t file; /* the process's file id: the begin's, or what an open named */
	int failed;
} io_done;

enum { IO_STEP_NONE, IO_STEP_BEGIN, IO_STEP_END };
/* One record of a thread log: which of the above it was (a damaged or
 * lone record is NONE; a begin while one is open ends the open one first,
 * in *d, as a call cut short, and is a BEGIN: check d->end_ns). */
int io_track_step(io_track *t, const pt_event *ev, io_done *d);

#endif
