/* SPDX-License-Identifier: MIT */
/* Built-in analysis tools (each is a <paratrace/tool.h> tool). */
#ifndef PT_TOOLS_H
#define PT_TOOLS_H

#include <paratrace/tool.h>
#include <stddef.h>
#include <stdint.h>

const pt_tool *pt_tool_paraver(void);  /* paraver/paraver.c; options: "gz" */
const pt_tool *pt_tool_profile(void);  /* profile.c; options: csv|json|short, top=N */
const pt_tool *pt_tool_interval(void); /* interval.c; options: csv */
const pt_tool *pt_tool_chrome(void);   /* chrome.c; writes ctx->output */
const pt_tool *pt_tool_perfetto(void); /* perfetto.c; writes ctx->output */
/* plot/plot_tool.c; writes ctx->output (SVG, or HTML with "html"); options: png, html */
const pt_tool *pt_tool_plot(void);

/* A duration for a table: "1.2ms", "3.45us" (profile_print.c). */
void pt_fmt_dur(char *buf, size_t n, uint64_t ns);

#endif
