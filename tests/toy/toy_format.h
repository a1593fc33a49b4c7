/* SPDX-License-Identifier: MIT */
/* The toy family's records: usleep(3) calls, as a family built outside the
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
	/* usleep: its begin (what was asked) and its end (what it returned) */ \
	X(TOY_SLEEP, 0x28, pt_rec_toy_sleep, sizeof(pt_rec_toy_sleep), 0, "thread", "–", "") \
	X(TOY_SLEEP_END, 0x29, pt_rec_toy_sleep_end, sizeof(pt_rec_toy_sleep_end), 0, "thread", \
	  "–", "")

typedef struct pt_rec_toy_sleep {
	uint64_t usec; /* usleep's argument */
} pt_rec_toy_sleep;
#define PT_FIELDS_TOY_SLEEP(T, F, A, S, C) F(T, U, "usec", usec, "")

typedef struct pt_rec_toy_sleep_end {
	int32_t result; /* usleep's return value */
	int32_t err;    /* errno after it, when result is -1; else 0 */
} pt_rec_toy_sleep_end;
#define PT_FIELDS_TOY_SLEEP_END(T, F, A, S, C) \
	F(T, I, "result", result, "") F(T, U, "errno", err, "")

#endif
