/* SPDX-License-Identifier: MIT */
/* The toy family's records: nice(2) calls, as a family built outside the
 * product (tests/toy/), in the kind range kept for such families
 * (PT_REC_RANGE_EXTRA in <paratrace/format.h>). The reader, the runtime and
 * paratrace of the toy's build are compiled with
 * -DPT_FORMAT_EXTRA="toy_format.h", which makes these rows part of the
 * record schema there: `paratrace dump` prints them with the fields below,
 * the reader checks their sizes. */
#ifndef PT_TOY_FORMAT_H
#define PT_TOY_FORMAT_H

#ifndef PARATRACE_FORMAT_H
#error "include <paratrace/format.h> (built with PT_FORMAT_EXTRA), not toy_format.h"
#endif

#define PT_REC_ROWS_EXTRA(X) \
	/* nice: its begin (what was asked) and its end (what it returned) */ \
	X(TOY_NICE, 0x2a, pt_rec_toy_nice, sizeof(pt_rec_toy_nice), 0, "thread", "–", "") \
	X(TOY_NICE_END, 0x2b, pt_rec_toy_nice_end, sizeof(pt_rec_toy_nice_end), 0, "thread", \
	  "–", "")

typedef struct pt_rec_toy_nice {
	int64_t inc; /* nice's argument */
} pt_rec_toy_nice;
#define PT_FIELDS_TOY_NICE(T, F, A, S, C) F(T, I, "inc", inc, "")

typedef struct pt_rec_toy_nice_end {
	int32_t result; /* nice's return value: the new nice value */
	int32_t err;    /* errno after it, when result is -1; else 0 */
} pt_rec_toy_nice_end;
#define PT_FIELDS_TOY_NICE_END(T, F, A, S, C) \
	F(T, I, "result", result, "") F(T, U, "errno", err, "")

#endif
