/* SPDX-License-Identifier: MIT */
/* Row labels (row_label.h). */
#include "row_label.h"

#include "pt_framework.h"

#include <stdio.h>
#include <string.h>

void pt_thread_row_label(const pt_trace_ctx *ctx, const pt_shard_info *s, const char *seen,
                         char *buf, size_t len)
{
	const pt_process_info *p = &ctx->processes[s->process];
	const pt_fw_thread *th = pt_fw_thread_facts(ctx, s->index);
	const char *name = th->name ? th->name : seen;
	uint64_t routine = th->start_routine;
	uint32_t creator = th->creator;
	char what[256];
	if (name)
		snprintf(what, sizeof what, "%s", name);
	else if (th->main || s->tid == s->pid)
		snprintf(what, sizeof what, "main");
	else {
		uint32_t id = routine ? pt_ctx_func_id_pc(ctx, s->process, routine) : 0;
		const pt_func_info *fi = id ? pt_ctx_func_info(ctx, id) : NULL;
		if (fi && fi->name[0] && strncmp(fi->name, "0x", 2))
			snprintf(what, sizeof what, "%s", fi->name);
		else if (creator)
			snprintf(what, sizeof what, "created by %u", creator);
		else
			snprintf(what, sizeof what, "thread");
	}
	snprintf(buf, len, "%s pid %u tid %u (%s)", p->program, s->pid, s->tid, what);
}

void pt_device_row_label(const pt_trace_ctx *ctx, const pt_shard_info *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s pid %u GPU stream %llu", ctx->processes[s->process].program, s->pid,
	         (unsigned long long)s->gpu_stream);
}
