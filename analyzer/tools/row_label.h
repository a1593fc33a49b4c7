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

/* "PROGRAM pid P tid T (WHAT)": WHAT is the thread's name (the last one
 * the process log gives it, else `seen`: a THREAD_NAME of its own log, as
 * older traces have them; may be NULL), else "main", else its start
 * routine's name, else "created by TID", else "thread". The one label of a
 * thread in every output: the report, the .row, the pictures, the
 * timelines. Any time from the first shard callback on. */
void pt_thread_row_label(const pt_trace_ctx *ctx, const pt_shard_info *s, const char *seen,
                         char *buf, size_t len);

/* A device row (PT_FILE_GPU) no family named: "PROGRAM pid P GPU stream S". */
void pt_device_row_label(const pt_trace_ctx *ctx, const pt_shard_info *s, char *buf, size_t len);

#endif
