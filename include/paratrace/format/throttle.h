/* SPDX-License-Identifier: MIT */
/* paratrace log format, records of the runtime's throttling of hot tiny
 * functions (docs/RUNTIME.md, "Throttling"): a function called more than a
 * threshold number of times on a thread, with a mean duration under a
 * threshold, stops being recorded on that thread; its later calls are only
 * counted, in a slot of a THROTTLE_COUNTS record that the runtime keeps
 * mapped and adds to in place (the file's bytes change after the record
 * was written: a reader takes the values it finds, the counts up to the
 * moment the file was read or the process ended, crash included). This
 * family's rows of the record schema (PT_REC_ROWS_THROTTLE), payload
 * structs, their dump fields and constants. <paratrace/format.h> includes
 * it: include that, not this. */
#ifndef PARATRACE_FORMAT_THROTTLE_H
#define PARATRACE_FORMAT_THROTTLE_H

#ifndef PARATRACE_FORMAT_H
#error "include <paratrace/format.h>, not <paratrace/format/throttle.h>"
#endif

#define PT_REC_ROWS_THROTTLE(X) \
	/* THROTTLE: from this record on, the function's calls on this \
	 * thread are not recorded but counted (its slot in a \
	 * THROTTLE_COUNTS before it). Calls open then still record their \
	 * exit. THROTTLE_COUNTS: arg slots of pt_throttle_slot, filled in \
	 * (func_id) as functions are throttled, counted in place. (3.3) */ \
	X(THROTTLE, 0x24, pt_rec_throttle, sizeof(pt_rec_throttle), 0, "thread", "–", "") \
	X(THROTTLE_COUNTS, 0x25, void, 0, sizeof(pt_throttle_slot), "thread", "slots", \
	  "`pt_throttle_slot slot[n]`: function id, calls not recorded")

typedef struct pt_rec_throttle {
	uint32_t func_id;
	uint32_t calls;   /* recorded calls the decision looked at */
	uint64_t mean_ns; /* their mean duration (calls still open counted up to now) */
} pt_rec_throttle;
#define PT_FIELDS_THROTTLE(T, F, A, S, C) \
	C(throttle_func, "id= [at=file:line] name=") F(T, U, "calls", calls, "") \
	F(T, U, "mean_ns", mean_ns, "")

/* A slot of THROTTLE_COUNTS: func_id 0 while unused. count: the function's
 * calls on this thread since its THROTTLE record, none of them recorded. */
typedef struct pt_throttle_slot {
	uint32_t func_id;
	uint32_t pad;
	uint64_t count;
} pt_throttle_slot;
#define PT_FIELDS_THROTTLE_COUNTS(T, F, A, S, C) \
	A(U, "n", "") C(throttle_slots, "id:count ...")

/* Slots per THROTTLE_COUNTS record the runtime writes (a reader takes any
 * number up to 255, the arg's range). */
#define PT_THROTTLE_SLOTS 62

#endif /* PARATRACE_FORMAT_THROTTLE_H */
