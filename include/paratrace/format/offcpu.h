/* SPDX-License-Identifier: MIT */
/* paratrace log format, records of off-CPU time: the stretches a thread
 * spent off its CPU (thread logs). This family's rows of the record schema
 * (PT_REC_ROWS_OFFCPU), payload structs, their dump fields and constants.
 * <paratrace/format.h> includes it: include that, not this. */
#ifndef PARATRACE_FORMAT_OFFCPU_H
#define PARATRACE_FORMAT_OFFCPU_H

#ifndef PARATRACE_FORMAT_H
#error "include <paratrace/format.h>, not <paratrace/format/offcpu.h>"
#endif

#define PT_REC_ROWS_OFFCPU(X)                                                                      \
	/* OFFCPU: one stretch off the CPU, written once it is over (so                            \
	 * after it, maybe after later records); OFFCPU_SOURCE: where this                         \
	 * thread's stretches come from, and switches the kernel dropped. */                       \
	X(OFFCPU, 0x28, pt_rec_offcpu, sizeof(pt_rec_offcpu), 0, "thread", "cause, call << 4",     \
	  "`uint32_t ago, len` (ticks), or `uint64_t out, in` (absolute ticks)")                   \
	X(OFFCPU_SOURCE, 0x29, pt_rec_offcpu_source, sizeof(pt_rec_offcpu_source), 0, "thread",    \
	  "source", "switches lost")

/* OFFCPU. The thread left its CPU at `out` and came back at `in`. Short
 * form (16 bytes): ago = record time - in, len = in - out, both in ticks
 * and below 2^32; long form (24 bytes): out and in, absolute ticks. Read
 * them with pt_rec_offcpu_span. arg bits 0..3: the cause, bits 4..7: the
 * blocking call (PT_OFFCPU_CALL_*) for PT_OFFCPU_IN_CALL, else 0. A
 * stretch never reaches before the thread's log began, but may reach
 * before records that precede it in the log: the runtime learns of it
 * only once the thread runs again in the runtime. */
typedef struct pt_rec_offcpu {
	uint32_t ago;
	uint32_t len;
} pt_rec_offcpu;
typedef struct pt_rec_offcpu_long {
	uint64_t out;
	uint64_t in;
} pt_rec_offcpu_long;

enum pt_offcpu_cause {
	PT_OFFCPU_BLOCKED = 0,   /* a context switch out of a thread that waited (kernel) */
	PT_OFFCPU_PREEMPTED = 1, /* a switch out of a thread that could have run on (kernel) */
	PT_OFFCPU_IN_CALL = 2,   /* a blocking call, from its begin to its end (no kernel record) */
};
#define PT_OFFCPU_CAUSE_NAMES "blocked|preempted|call"
/* The blocking calls the runtime wraps, for PT_OFFCPU_IN_CALL. */
#define PT_OFFCPU_CALL_NAMES                                                                       \
	"|nanosleep|clock_nanosleep|usleep|sleep|poll|ppoll|select|pselect|epoll_wait|epoll_pwait"
enum pt_offcpu_call {
	PT_OFFCPU_CALL_NANOSLEEP = 1,
	PT_OFFCPU_CALL_CLOCK_NANOSLEEP,
	PT_OFFCPU_CALL_USLEEP,
	PT_OFFCPU_CALL_SLEEP,
	PT_OFFCPU_CALL_POLL,
	PT_OFFCPU_CALL_PPOLL,
	PT_OFFCPU_CALL_SELECT,
	PT_OFFCPU_CALL_PSELECT,
	PT_OFFCPU_CALL_EPOLL_WAIT,
	PT_OFFCPU_CALL_EPOLL_PWAIT,
};
static inline unsigned pt_offcpu_arg(unsigned cause, unsigned call)
{
	return (cause & 15u) | (call & 15u) << 4;
}
static inline unsigned pt_offcpu_cause(unsigned arg)
{
	return arg & 15u;
}
static inline unsigned pt_offcpu_call(unsigned arg)
{
	return arg >> 4 & 15u;
}
#define PT_FIELDS_OFFCPU(T, F, A, S, C) C(offcpu_span, "cause= [call=] out= in= off_ns=")

/* The stretch of an OFFCPU record whose own time is rec_ticks: 0 with
 * *out <= *in (ticks), or -1 if the record is too small. */
static inline int pt_rec_offcpu_span(const pt_rec_head *h, uint64_t rec_ticks, uint64_t *out,
                                     uint64_t *in)
{
	const pt_rec_offcpu_long *l = PT_REC_PAYLOAD(h, pt_rec_offcpu_long);
	if (l) {
		*out = l->out;
		*in = l->in > l->out ? l->in : l->out;
		return 0;
	}
	const pt_rec_offcpu *s = PT_REC_PAYLOAD(h, pt_rec_offcpu);
	if (!s)
		return -1;
	*in = rec_ticks >= s->ago ? rec_ticks - s->ago : 0;
	*out = *in >= s->len ? *in - s->len : 0;
	return 0;
}

/* OFFCPU_SOURCE, at a thread's start and after switches were lost. arg:
 * PT_OFFCPU_SOURCE_*; lost: context switches the kernel could not give
 * since the previous OFFCPU_SOURCE (its ring was full), 0 at the start. */
enum pt_offcpu_source {
	PT_OFFCPU_SOURCE_SWITCHES = 1, /* the kernel's context-switch records */
	PT_OFFCPU_SOURCE_CALLS = 2,    /* the blocking calls the runtime wraps */
};
typedef struct pt_rec_offcpu_source {
	uint64_t lost;
} pt_rec_offcpu_source;
#define PT_FIELDS_OFFCPU_SOURCE(T, F, A, S, C)                                                     \
	A(ENUM, "source", "|switches|calls") F(T, U, "lost", lost, "")

#endif /* PARATRACE_FORMAT_OFFCPU_H */
