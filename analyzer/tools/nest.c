/* SPDX-License-Identifier: MIT */
/* Tools inside a tool (nest.h). */
#define _GNU_SOURCE
#include "nest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pt_nest_add(pt_nest *n, const pt_tool *t, const pt_trace_ctx *ctx, const char *options,
                char *err, size_t errlen)
{
	if (n->n == PT_NEST_MAX) {
		snprintf(err, errlen, "too many tools inside %s", t->name);
		return -1;
	}
	void *st = t->init(ctx, options, err, errlen);
	if (!st)
		return -1;
	n->tool[n->n] = t;
	n->state[n->n++] = st;
	return 0;
}

int pt_nest_process_event(pt_nest *n, size_t process, const pt_event *ev)
{
	for (size_t i = 0; i < n->n; i++)
		if (n->tool[i]->process_event &&
		    n->tool[i]->process_event(n->state[i], process, ev))
			return -1;
	return 0;
}

int pt_nest_shard_init(pt_nest *n, pt_nest_shard *s, const pt_shard_info *info, char *err,
                       size_t errlen)
{
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < n->n; i++) {
		if (!n->tool[i]->shard_init)
			continue;
		s->state[i] = n->tool[i]->shard_init(n->state[i], info, err, errlen);
		if (!s->state[i]) {
			/* the ones made so far end as a failed log's would */
			pt_nest_shard_exit(n, s, info->first_ns, 0);
			return -1;
		}
	}
	return 0;
}

int pt_nest_shard_event(pt_nest *n, pt_nest_shard *s, const pt_event *ev)
{
	for (size_t i = 0; i < n->n; i++)
		if (s->state[i] && n->tool[i]->shard_event(s->state[i], ev)) {
			s->failed = i + 1;
			return -1;
		}
	return 0;
}

const char *pt_nest_shard_error(pt_nest *n, pt_nest_shard *s)
{
	if (!s->failed)
		return NULL;
	size_t i = s->failed - 1;
	return n->tool[i]->shard_error ? n->tool[i]->shard_error(s->state[i]) : "failed";
}

int pt_nest_shard_exit(pt_nest *n, pt_nest_shard *s, uint64_t last_ns, int complete)
{
	int rc = 0;
	for (size_t i = 0; i < n->n; i++) {
		void *st = s->state[i];
		s->state[i] = NULL;
		if (st && n->tool[i]->shard_exit && n->tool[i]->shard_exit(st, last_ns, complete))
			rc = -1;
	}
	return rc;
}

int pt_nest_finish(pt_nest *n, char *err, size_t errlen)
{
	for (size_t i = 0; i < n->n; i++)
		if (n->tool[i]->finish && n->tool[i]->finish(n->state[i], err, errlen))
			return -1;
	return 0;
}

char *pt_nest_print(pt_nest *n, size_t i, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int bad = !f || (n->tool[i]->print_results && n->tool[i]->print_results(n->state[i], f));
	if (f && fclose(f))
		bad = 1;
	if (bad || !buf) {
		free(buf);
		snprintf(err, errlen, "%s: out of memory", n->tool[i]->name);
		return NULL;
	}
	return buf;
}

void pt_nest_destroy(pt_nest *n)
{
	for (size_t i = 0; i < n->n; i++)
		n->tool[i]->destroy(n->state[i]);
	n->n = 0;
}
