/* SPDX-License-Identifier: MIT */
/* What a row (a thread or a device's stream) is called: one definition for
 * the Paraver .row file and the pictures of `paratrace plot` / `report
 * --html`, so that both name a row the same way (a device row that a family
 * names, a GPU stream from its definition, is named by the family's parts).
 * The labels are the trace's bytes: each output escapes them its own way
 * (pt_text.h). */
#ifndef PT_ROW_LABEL_H
#define PT_ROW_LABEL_H

#include <paratrace/tool.h>
#include <stddef.h>
#include <stdint.h>

/* "PROGRAM pid P tid T (WHAT)": WHAT is the thread's name (THREAD_NAME),
 * else "main", else its start routine's name, else "created by TID",
 * else "thread". name may be NULL; routine and creator 0 when unknown
 * (THREAD_START's start_routine and creator_tid). */
void pt_thread_row_label(const pt_trace_ctx *ctx, const pt_shard_info *s, const char *name,
                         int main, uint64_t routine, uint32_t creator, char *buf, size_t len);

/* A device row (PT_FILE_GPU) no family named: "PROGRAM pid P GPU stream S". */
void pt_device_row_label(const pt_trace_ctx *ctx, const pt_shard_info *s, char *buf, size_t len);

#endif
