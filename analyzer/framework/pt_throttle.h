/* SPDX-License-Identifier: MIT */
/* Functions the runtime throttled on a thread (format/throttle.h): each
 * output that counts calls reads a thread's THROTTLE_COUNTS records here
 * and, at each THROTTLE, learns which function stopped being recorded,
 * from when, and how many calls it made after that: the counts of the
 * records before it, which the runtime kept adding to in place. */
#ifndef PT_THROTTLE_H
#define PT_THROTTLE_H

#include <paratrace/log.h>

#include <stddef.h>
#include <stdint.h>

typedef struct pt_throttles {
	pt_throttle_slot *slots; /* of every THROTTLE_COUNTS seen, in order */
	size_t n, cap;
} pt_throttles;

/* A THROTTLE record, read. */
typedef struct pt_throttled {
	uint32_t local_id; /* the log's function id */
	uint32_t calls;    /* recorded calls the runtime decided on */
	uint64_t mean_ns;  /* their mean duration, as the runtime measured it */
	uint64_t count;    /* calls after it, none of them recorded */
	uint64_t since_ns; /* the record's time: the first call not recorded */
} pt_throttled;

/* One record of the shard: 1 for a THROTTLE (*out filled), 0 for any
 * other (a THROTTLE_COUNTS is kept), -1 when out of memory. */
int pt_throttles_record(pt_throttles *t, const pt_event *ev, pt_throttled *out);
void pt_throttles_free(pt_throttles *t);

#endif
