/* SPDX-License-Identifier: MIT */
/* The timeline export as a tool (timeline.c), for the encoder files only:
 * what timeline.c calls (timeline_sel.c, the families' timeline parts)
 * includes timeline.h alone, so it never depends back on the tool. */
#ifndef PT_TL_TOOL_H
#define PT_TL_TOOL_H

#include "timeline.h"

/* The tool over an encoder (writes ctx->output): each encoder file defines
 * its pt_tool with TL_TOOL(variable, its tl_encoder, name, description). */
void *tl_init(const tl_encoder *enc, const pt_trace_ctx *ctx, char *err, size_t errlen);
int tl_process_event(void *tool, size_t process, const pt_event *ev);
void *tl_shard_init(void *tool, const pt_shard_info *info, char *err, size_t errlen);
int tl_shard_event(void *st, const pt_event *ev);
int tl_shard_exit(void *st, uint64_t last_ns, int complete);
const char *tl_shard_error(void *st);
int tl_finish(void *tool, char *err, size_t errlen);
int tl_print(void *tool, FILE *out);
void tl_destroy(void *tool);

#define TL_TOOL(tool, encoder, tool_name, tool_description)                                 \
	static void *tool##_init(const pt_trace_ctx *ctx, const char *options, char *err,  \
				 size_t errlen)                                            \
	{                                                                                  \
		(void)options;                                                             \
		return tl_init(&(encoder), ctx, err, errlen);                              \
	}                                                                                  \
	static const pt_tool tool = {                                                      \
		.api_version = PT_TOOL_API_VERSION,                                        \
		.name = tool_name,                                                         \
		.description = tool_description,                                           \
		.init = tool##_init,                                                       \
		.process_event = tl_process_event,                                         \
		.shard_init = tl_shard_init,                                               \
		.shard_event = tl_shard_event,                                             \
		.shard_exit = tl_shard_exit,                                               \
		.shard_error = tl_shard_error,                                             \
		.finish = tl_finish,                                                       \
		.print_results = tl_print,                                                 \
		.destroy = tl_destroy,                                                     \
	}

#endif
