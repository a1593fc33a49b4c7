/* The call-stack tracker's general path (pt_callstack.h has the rule). */
#include "pt_callstack.h"

#include <stdlib.h>
#include <string.h>

void pt_callstack_init(pt_callstack *cs)
{
	memset(cs, 0, sizeof *cs);
}

void pt_callstack_free(pt_callstack *cs)
{
	free(cs->ids);
	free(cs->at);
	memset(cs, 0, sizeof *cs);
}

static int grow(pt_callstack *cs)
{
	size_t ncap = cs->cap ? cs->cap * 2 : 64;
	uint32_t *ids = realloc(cs->ids, ncap * sizeof *ids);
	if (!ids)
		return -1;
	cs->ids = ids;
	pt_frame_at *at = realloc(cs->at, ncap * sizeof *at);
	if (!at)
		return -1;
	cs->at = at;
	cs->cap = ncap;
	cs->fast_limit = ncap;
	return 0;
}

static void push(pt_callstack *cs, uint32_t id, uint64_t t, const pt_callstack_ops *ops, void *arg)
{
	if (cs->depth == cs->cap && grow(cs)) {
		cs->oom = 1;
		return;
	}
	cs->ids[cs->depth] = id;
	cs->at[cs->depth++] = (pt_frame_at){t, 0};
	if (ops->push)
		ops->push(arg, cs);
}

static void pop(pt_callstack *cs, size_t n, uint64_t t, enum pt_call_end how,
                const pt_callstack_ops *ops, void *arg)
{
	if (!n)
		return;
	cs->depth -= n;
	if (ops->pop)
		ops->pop(arg, cs, n, t, how);
}

/* The innermost open frame of function id, as an index; -1 if none. */
static long innermost(const pt_callstack *cs, uint32_t id)
{
	for (size_t i = cs->depth; i-- > 0;)
		if (cs->ids[i] == id)
			return (long)i;
	return -1;
}

void pt_callstack_func(pt_callstack *cs, uint32_t id, int enter, uint64_t t,
                       const pt_callstack_ops *ops, void *arg)
{
	if (!id)
		return;
	if (enter) {
		push(cs, id, t, ops, arg);
		return;
	}
	long i = innermost(cs, id);
	if (i < 0)
		return; /* its entry predates the log */
	size_t n = cs->depth - (size_t)i;
	pop(cs, n, t, n == 1 ? PT_CALL_RETURNED : PT_CALL_UNWOUND, ops, arg);
}

void pt_callstack_end(pt_callstack *cs, uint64_t t, const pt_callstack_ops *ops, void *arg)
{
	pop(cs, cs->depth, t, PT_CALL_LOG_END, ops, arg);
}
