/* SPDX-License-Identifier: MIT */
/* A Paraver row's lines: events into the shard's event stream, states into
 * its state stream (pv.h: how the merge completes them). */
#define _GNU_SOURCE
#include "pv_codec.h"
#include "pv_internal.h"

#include <stdio.h>

/* The merge writes "2:cpu:appl:task:thread:" and the time (the key);
 * the stream stores the ":type:value..." rest. */
static inline char *line_begin(pv_shard *s, uint64_t trel, char **start)
{
	char *p = pv_stream_reserve(&s->ev, trel);
	*start = p;
	if (s->ev.last_key > s->last) /* the key, clamped so the stream stays sorted */
		s->last = s->ev.last_key;
	return p;
}

static inline char *pair(char *p, uint32_t type, int64_t value)
{
	*p++ = ':';
	p = pv_u64(p, type);
	*p++ = ':';
	return pv_i64(p, value);
}

static inline void line_end(pv_shard *s, char *start, char *p)
{
	*p++ = '\n';
	pv_stream_commit(&s->ev, (size_t)(p - start));
}

void pv_events(pv_shard *s, uint64_t time_ns, size_t n, const uint32_t *types,
               const int64_t *values)
{
	if (!pv_in_window(s, time_ns))
		return;
	if (s->acct)
		pv_acct_text(s);
	uint64_t t = pv_rel(s, time_ns);
	while (n) {
		/* ~40 bytes per pair: stay well inside PV_LINE_MAX */
		size_t k = n > 64 ? 64 : n;
		char *start, *p = line_begin(s, t, &start);
		for (size_t i = 0; i < k; i++)
			p = pair(p, types[i], values[i]);
		line_end(s, start, p);
		types += k;
		values += k;
		n -= k;
	}
}

void pv_sync_events(pv_shard *s, uint64_t time_ns, size_t n, const uint32_t *types,
                    const int64_t *values, unsigned kind, uint32_t obj)
{
	if (!kind) {
		pv_events(s, time_ns, n, types, values);
		return;
	}
	if (!pv_in_window(s, time_ns))
		return;
	char *start = pv_stream_reserve_sync(&s->ev, pv_rel(s, time_ns), kind, obj), *p = start;
	if (s->ev.last_key > s->last)
		s->last = s->ev.last_key;
	for (size_t i = 0; i < n; i++)
		p = pair(p, types[i], values[i]);
	line_end(s, start, p);
	if (s->acct)
		pv_acct_sync(s, kind, (size_t)(p + 1 - start));
}

/* A family call's line (pv_call_begin, pv_call_end): its record marks it
 * for the budget (pv_thin.c), which may leave it out. */
static void call_line(pv_shard *s, uint64_t time_ns, size_t n, const uint32_t *types,
                      const int64_t *values, unsigned kind, uint32_t aux, const uint64_t *tally)
{
	const pv_left_def *d = pv_ext(s->ext_now)->left;
	size_t nt = kind == PV_FC_END ? d->ntally : 0;
	char *start = pv_stream_reserve_call(&s->ev, pv_rel(s, time_ns), kind, s->ext_now, aux, nt,
	                                     tally),
	     *p = start;
	if (s->ev.last_key > s->last)
		s->last = s->ev.last_key;
	for (size_t i = 0; i < n && i < 8; i++)
		p = pair(p, types[i], values[i]);
	line_end(s, start, p);
	if (s->acct)
		pv_acct_call(s, kind, (size_t)(p + 1 - start), d, aux);
}

unsigned pv_call_begin(pv_shard *s, uint64_t time_ns, size_t n, const uint32_t *types,
                       const int64_t *values, unsigned state)
{
	unsigned was = s->state;
	if (!pv_ext(s->ext_now)->left || !pv_in_window(s, time_ns))
		pv_events(s, time_ns, n, types, values);
	else
		call_line(s, time_ns, n, types, values, PV_FC_BEGIN, PV_FC_STATES(was, state),
		          NULL);
	/* after the line: the state begins at its key (which a tie may have
	 * moved), where the thinning looks for it */
	pv_set_state(s, time_ns, state);
	return was;
}

void pv_call_end(pv_shard *s, uint64_t time_ns, size_t n, const uint32_t *types,
                 const int64_t *values, unsigned state, const uint64_t *tally)
{
	if (!pv_ext(s->ext_now)->left || !pv_in_window(s, time_ns))
		pv_events(s, time_ns, n, types, values);
	else
		call_line(s, time_ns, n, types, values, PV_FC_END, 0, tally);
	pv_set_state(s, time_ns, state);
}

void pv_event(pv_shard *s, uint64_t time_ns, uint32_t type, int64_t value)
{
	pv_events(s, time_ns, 1, &type, &value);
}

void pv_state_line(pv_shard *s, uint64_t b, uint64_t e, unsigned state)
{
	if (e > s->win_end)
		e = s->win_end;
	if (b >= e)
		return;
	char *start = pv_stream_reserve(&s->st, b), *p = start;
	*p++ = ':';
	p = pv_u64(p, e);
	*p++ = ':';
	p = pv_u64(p, state);
	*p++ = '\n';
	pv_stream_commit(&s->st, (size_t)(p - start));
	if (e > s->last)
		s->last = e;
}

void pv_set_state(pv_shard *s, uint64_t time_ns, unsigned state)
{
	uint64_t t = pv_rel(s, time_ns);
	if (t < s->ev.last_key)
		t = s->ev.last_key; /* not before an event line a tie moved */
	if (t < s->state_begin)
		t = s->state_begin;
	if (state == s->state)
		return;
	/* Extrae drops empty states; so do we (begin == end) */
	if (s->state != PV_STATE_IDLE && t > s->state_begin)
		pv_state_line(s, s->state_begin, t, s->state);
	s->state = state;
	s->state_begin = t;
}

/* n frames end at t: exit pairs, up to PV_POP_MAX a line. */
void pv_pop_line(pv_shard *s, uint64_t t, size_t n)
{
	if (!pv_in_window(s, t))
		return;
	while (n) {
		uint32_t k = n > PV_POP_MAX ? PV_POP_MAX : (uint32_t)n;
		if (k == 1)
			pv_stream_func(&s->ev, pv_rel(s, t), 0);
		else
			pv_stream_pop(&s->ev, pv_rel(s, t), k);
		if (s->ev.last_key > s->last)
			s->last = s->ev.last_key;
		if (s->acct)
			pv_acct_pop(s, k, 0);
		n -= k;
	}
}

/* Frames ids[lo .. hi) (outermost first) cut by lost data at t: each ends
 * with PV_EV_FUNC_CUT = its function, innermost first, 21 a line. */
void pv_cut_line(pv_shard *s, uint64_t t, const uint32_t *ids, size_t lo, size_t hi)
{
	if (!pv_in_window(s, t))
		return;
	while (hi > lo) {
		size_t k = hi - lo > 21 ? 21 : hi - lo;
		char *start = pv_stream_reserve_cut(&s->ev, pv_rel(s, t), (uint32_t)k), *p = start;
		if (s->ev.last_key > s->last)
			s->last = s->ev.last_key;
		for (size_t i = 0; i < k; i++) {
			p = pair(p, PV_EV_USER_FUNC, 0);
			p = pair(p, PV_EV_USER_FUNC_LINE, 0);
			p = pair(p, PV_EV_FUNC_CUT, ids[--hi]);
		}
		line_end(s, start, p);
		if (s->acct)
			pv_acct_pop(s, k, 1);
	}
}

int pv_fail(pv_shard *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof s->err, fmt, ap);
	va_end(ap);
	return -1;
}
