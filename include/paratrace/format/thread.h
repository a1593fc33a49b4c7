/* SPDX-License-Identifier: MIT */
/* paratrace log format, records of threads: creation, start, end, names and
 * joins (thread logs). This family's rows of the record schema
 * (PT_REC_ROWS_THREAD), payload structs, their dump fields and constants.
 * <paratrace/format.h> includes it: include that, not this. */
#ifndef PARATRACE_FORMAT_THREAD_H
#define PARATRACE_FORMAT_THREAD_H

#ifndef PARATRACE_FORMAT_H
#error "include <paratrace/format.h>, not <paratrace/format/thread.h>"
#endif

#define PT_REC_ROWS_THREAD(X) \
	/* Threads (thread logs) */ \
	X(THREAD_START, 6, pt_rec_thread_start, sizeof(pt_rec_thread_start), 0, "thread", "–", "") \
	X(THREAD_END, 7, pt_rec_thread_end, sizeof(pt_rec_thread_end), 0, "thread", "–", "") \
	X(THREAD_NAME, 8, void, 0, 0, "thread, process", "0, or 1: a tid follows", "string [tid]") \
	X(THREAD_CREATE, 9, pt_rec_thread_create, sizeof(pt_rec_thread_create), 0, \
	  "creator's thread", "–", "") \
	X(THREAD_JOIN_BEGIN, 10, pt_rec_thread_join, sizeof(pt_rec_thread_join), 0, "thread", "–", \
	  "") \
	X(THREAD_JOIN_END, 11, pt_rec_thread_join, sizeof(pt_rec_thread_join), 0, "thread", "–", \
	  "")

/* THREAD_NAME: the name, NUL-terminated. In a thread log with arg 0 it
 * names the thread that wrote it (PT_THREAD_NAME). With arg
 * PT_THREAD_NAME_TID (in the process log: pthread_setname_np, prctl
 * PR_SET_NAME, and the name a thread carries when it ends) it names the
 * thread whose tid, a uint32_t, follows the string's NUL at the next
 * multiple of 4 of the payload: the analyzer knows the names of all
 * threads from the process logs, before it reads a thread's log. */
#define PT_THREAD_NAME_TID 1
#define PT_FIELDS_THREAD_NAME(T, F, A, S, C) S(0, PLAIN) C(thread_name_tid, "[tid=]")

typedef struct pt_rec_thread_start {
	uint64_t create_seq;    /* matches the creator's THREAD_CREATE; 0 = unknown creator */
	uint32_t creator_tid;   /* 0 = unknown (main thread, foreign creator) */
	uint32_t flags;         /* PT_THREAD_* */
	uint64_t start_routine; /* address, resolved offline */
} pt_rec_thread_start;
#define PT_THREAD_MAIN 0x1
#define PT_THREAD_C11 0x2 /* thrd_create */
#define PT_FIELDS_THREAD_START(T, F, A, S, C) \
	F(T, U, "creator", creator_tid, "") F(T, U, "seq", create_seq, "") \
	F(T, FLAGS, "flags", flags, "main|c11") F(T, PC, "routine", start_routine, "")

typedef struct pt_rec_thread_end {
	uint64_t retval; /* value returned / passed to pthread_exit (as an integer) */
	uint32_t flags;  /* PT_THREAD_END_* */
	uint32_t pad;
} pt_rec_thread_end;
#define PT_THREAD_END_EXIT 0x1      /* pthread_exit */
#define PT_THREAD_END_CANCELED 0x2  /* cancellation */
#define PT_THREAD_END_PROCESS 0x4   /* closed because the process exited */
#define PT_FIELDS_THREAD_END(T, F, A, S, C) \
	F(T, X, "retval", retval, "") \
	F(T, FLAGS, "flags", flags, "pthread_exit|canceled|process_exit")

typedef struct pt_rec_thread_create {
	uint64_t create_seq; /* process-unique, > 0 */
	uint64_t start_routine;
	int32_t result; /* pthread_create's return value */
	uint32_t flags; /* PT_THREAD_* */
} pt_rec_thread_create;
#define PT_FIELDS_THREAD_CREATE(T, F, A, S, C) \
	F(T, U, "seq", create_seq, "") F(T, I, "result", result, "") \
	F(T, FLAGS, "flags", flags, "main|c11") F(T, PC, "routine", start_routine, "")

typedef struct pt_rec_thread_join {
	uint64_t thread;     /* pthread_t as an integer */
	uint64_t create_seq; /* of the joined thread, 0 if unknown */
	int32_t result;      /* JOIN_END only */
	uint32_t pad;
} pt_rec_thread_join;
#define PT_FIELDS_THREAD_JOIN_BEGIN(T, F, A, S, C) \
	F(T, X, "thread", thread, "") F(T, U, "seq", create_seq, "")
#define PT_FIELDS_THREAD_JOIN_END(T, F, A, S, C) \
	PT_FIELDS_THREAD_JOIN_BEGIN(T, F, A, S, C) F(T, I, "result", result, "")

#endif /* PARATRACE_FORMAT_THREAD_H */
