/* SPDX-License-Identifier: MIT */
#include "pt_throttle.h"

#include <stdlib.h>
#include <string.h>

int pt_throttles_record(pt_throttles *t, const pt_event *ev, pt_throttled *out)
{
	if (ev->kind == PT_REC_THROTTLE_COUNTS) {
		size_t n = ev->rec->arg;
		if (t->n + n > t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 64;
			while (cap < t->n + n)
				cap *= 2;
			pt_throttle_slot *s = realloc(t->slots, cap * sizeof *s);
			if (!s)
				return -1;
			t->slots = s;
			t->cap = cap;
		}
		memcpy(t->slots + t->n, ev->rec + 1, n * sizeof *t->slots);
		t->n += n;
		return 0;
	}
	if (ev->kind != PT_REC_THROTTLE)
		return 0;
	const pt_rec_throttle *r = PT_REC_PAYLOAD(ev->rec, pt_rec_throttle);
	if (!r || !r->func_id)
		return 0;
	memset(out, 0, sizeof *out);
	out->local_id = r->func_id;
	out->calls = r->calls;
	out->mean_ns = r->mean_ns;
	out->since_ns = ev->time_ns;
	/* The last slot of the function: a log throttles a function once. */
	for (size_t i = t->n; i-- > 0;)
		if (t->slots[i].func_id == r->func_id) {
			out->count = t->slots[i].count;
			break;
		}
	return 1;
}

void pt_throttles_free(pt_throttles *t)
{
	free(t->slots);
	memset(t, 0, sizeof *t);
}
