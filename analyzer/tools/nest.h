/* SPDX-License-Identifier: MIT */
/* Tools run inside another one, in the same pass over the trace: the outer
 * tool forwards every callback to each of them, and takes what they print
 * as text (the HTML report runs the profile and the MPI tools inside the
 * plot tool, for their JSON). An inner tool's callbacks are called exactly
 * as the framework would call them (pt_tool's contract, tool.h). */
#ifndef PT_NEST_H
#define PT_NEST_H

#include <paratrace/tool.h>

#define PT_NEST_MAX 4

typedef struct pt_nest {
	const pt_tool *tool[PT_NEST_MAX];
	void *state[PT_NEST_MAX];
	size_t n;
} pt_nest;

/* One per shard: the inner tools' shard states. */
typedef struct pt_nest_shard {
	void *state[PT_NEST_MAX];
	size_t failed; /* 1 + the tool whose callback failed last, 0: none */
} pt_nest_shard;

/* Adds tool t, created with options; 0, or -1 with err. */
int pt_nest_add(pt_nest *n, const pt_tool *t, const pt_trace_ctx *ctx, const char *options,
                char *err, size_t errlen);
int pt_nest_process_event(pt_nest *n, size_t process, const pt_event *ev);
int pt_nest_shard_init(pt_nest *n, pt_nest_shard *s, const pt_shard_info *info, char *err,
                       size_t errlen);
int pt_nest_shard_event(pt_nest *n, pt_nest_shard *s, const pt_event *ev);
/* The message of the inner tool that failed last, or NULL. */
const char *pt_nest_shard_error(pt_nest *n, pt_nest_shard *s);
/* Every inner shard ends (and is freed) whatever failed; -1 if one did. */
int pt_nest_shard_exit(pt_nest *n, pt_nest_shard *s, uint64_t last_ns, int complete);
int pt_nest_finish(pt_nest *n, char *err, size_t errlen);
/* What inner tool i prints (print_results), as a malloc'ed string; NULL
 * with err on failure. */
char *pt_nest_print(pt_nest *n, size_t i, char *err, size_t errlen);
void pt_nest_destroy(pt_nest *n);

#endif
