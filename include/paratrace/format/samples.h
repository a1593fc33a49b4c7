/* SPDX-License-Identifier: MIT */
/* paratrace log format, records of counters, call stacks and samples
 * (PT_REC_RANGE_SAMPLING, and the two counter kinds below it). This family's
 * rows of the record schema (PT_REC_ROWS_SAMPLES), payload structs, their dump
 * fields and constants. <paratrace/format.h> includes it: include that, not
 * this. */
#ifndef PARATRACE_FORMAT_SAMPLES_H
#define PARATRACE_FORMAT_SAMPLES_H

#ifndef PARATRACE_FORMAT_H
#error "include <paratrace/format.h>, not <paratrace/format/samples.h>"
#endif

#define PT_REC_ROWS_SAMPLES(X) \
	/* Counters: COUNTER_DEF names counter `arg` of the thread's set; \
	 * COUNTERS: uint64_t delta[arg], counters 0..arg-1 since the previous \
	 * COUNTERS (see "Counters, call stacks and samples" below). */ \
	X(COUNTER_DEF, 15, pt_rec_counter_def, sizeof(pt_rec_counter_def), 0, "thread", \
	  "counter index", "+ name") \
	X(COUNTERS, 16, void, 0, 8, "thread", "n", "`uint64_t delta[n]`") \
	/* Call stacks and samples (PT_REC_RANGE_SAMPLING). CALLSTACK: the \
	 * return addresses of the callers of the event in the preceding \
	 * record (innermost first, runtime frames left out), at its time. \
	 * SAMPLE: one CPU-time sample of this thread. COUNTER_VALUE: arg = \
	 * a PT_COUNTER_MANUAL COUNTER_DEF. SAMPLING_START: this thread's \
	 * samples begin (its timer is armed). */ \
	X(CALLSTACK, 0x30, void, 0, 8, "thread", "n", "`uint64_t pcs[n]`, innermost first") \
	X(SAMPLE, 0x31, pt_rec_sample, sizeof(pt_rec_sample), 8, "thread", "n", \
	  "+ `uint64_t callers[n]`, innermost first") \
	X(COUNTER_VALUE, 0x32, pt_rec_counter_value, sizeof(pt_rec_counter_value), 0, "thread", \
	  "counter index", "") \
	X(SAMPLING_START, 0x33, pt_rec_sampling_start, sizeof(pt_rec_sampling_start), 0, "thread", \
	  "–", "")

/* Counters, call stacks and samples, inside PT_REC_RANGE_SAMPLING.
 * docs/FORMAT.md "Counters, call stacks and samples" describes them.
 *
 * COUNTER_DEF (thread log, before the first COUNTERS record of that thread):
 *   arg = index of the counter in this thread's set; payload pt_rec_counter_def
 *   (flags PT_COUNTER_*) + name. COUNTERS: arg = n, uint64_t delta[n] for
 *   counters 0..n-1 since the thread's previous COUNTERS record (the first one:
 *   since the counters were opened, at thread start); it is taken right after
 *   the record that precedes it (FUNC_ENTER/EXIT, a sync or thread record),
 *   and is stamped when read, right after that record. */
#define PT_COUNTER_USER_ONLY 0x1 /* counts user space only (perf_event_paranoid) */
#define PT_COUNTER_MANUAL 0x2    /* opened by PT_COUNTER(name), read by COUNTER_VALUE */
#define PT_COUNTER_SOFTWARE 0x4  /* a kernel software event (PERF_TYPE_SOFTWARE) */

#define PT_FIELDS_COUNTERS(T, F, A, S, C) A(U, "n", "") C(counter_values, "v0= v1= ...")
#define PT_FIELDS_CALLSTACK(T, F, A, S, C) \
	A(U, "n", "") C(callstack, "pc0=0x.. pc1=0x.. ... [name=f <- g <- ...]")

typedef struct pt_rec_counter_def {
	uint64_t config; /* perf_event attr.config, for the record */
	uint32_t type;   /* perf_event attr.type */
	uint32_t flags;
	/* followed by NUL-terminated name as the user wrote it */
} pt_rec_counter_def;
#define PT_FIELDS_COUNTER_DEF(T, F, A, S, C) \
	A(U, "index", "") F(T, U, "type", type, "") F(T, X, "config", config, "") \
	F(T, X, "flags", flags, "") S(sizeof(T), PLAIN)

typedef struct pt_rec_sample {
	uint64_t pc; /* interrupted instruction (exact, not a return address) */
} pt_rec_sample;
#define PT_FIELDS_SAMPLE(T, F, A, S, C) \
	F(T, X, "pc", pc, "") A(U, "n", "") \
	C(sample_callers, "caller0=0x.. caller1=0x.. ... [name=f <- g <- ...]")

typedef struct pt_rec_sampling_start {
	uint64_t period_ns; /* CPU time between samples (PARATRACE_SAMPLING) */
	uint32_t signo;     /* signal the runtime samples with */
	uint32_t depth;     /* most callers per SAMPLE */
} pt_rec_sampling_start;
#define PT_FIELDS_SAMPLING_START(T, F, A, S, C) \
	F(T, U, "period_ns", period_ns, "") F(T, U, "signo", signo, "") F(T, U, "depth", depth, "")

typedef struct pt_rec_counter_value {
	uint64_t value; /* count since this thread's first PT_COUNTER(name) */
} pt_rec_counter_value;
#define PT_FIELDS_COUNTER_VALUE(T, F, A, S, C) A(U, "index", "") F(T, U, "value", value, "")

#define PT_CALLSTACK_MAX 64 /* most frames a CALLSTACK or SAMPLE carries */

#endif /* PARATRACE_FORMAT_SAMPLES_H */
