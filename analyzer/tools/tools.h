/* SPDX-License-Identifier: MIT */
/* Built-in analysis tools (each is a <paratrace/tool.h> tool). */
#ifndef PT_TOOLS_H
#define PT_TOOLS_H

#include <paratrace/tool.h>
#include <stddef.h>
#include <stdint.h>

/* Every built-in output tool, one line each: its name, then where it is
 * defined and its options. The tool is `const pt_tool *pt_tool_<name>(void)`;
 * the commands pick the ones they run (analyzer/cli/cmd_*.c). The families'
 * own tools (their report sections) are reached through their descriptors
 * (analyzer/families/pt_family.h, report/report.h). */
#define PT_BUILTIN_TOOLS(X)                                                                        \
	X(paraver)  /* paraver/paraver.c: gz, gzauto, budget=BYTES, cfgs=DIR */                    \
	X(profile)  /* report/profile.c: csv|json|short, top=N */                                  \
	X(interval) /* interval.c: csv */                                                          \
	X(chrome)   /* timeline/chrome.c: writes ctx->output */                                    \
	X(perfetto) /* timeline/perfetto.c: writes ctx->output */                                  \
	X(plot)     /* plot/plot_tool.c: writes ctx->output (SVG; HTML with html); png, html */

#define PT_DECLARE_BUILTIN_TOOL(name) const pt_tool *pt_tool_##name(void);
PT_BUILTIN_TOOLS(PT_DECLARE_BUILTIN_TOOL)
#undef PT_DECLARE_BUILTIN_TOOL

/* A duration for a table: "1.2ms", "3.45us" (fmt_dur.c). */
void pt_fmt_dur(char *buf, size_t n, uint64_t ns);
/* Bytes for a table: "4.0 MiB", "512 B" (fmt_dur.c). */
void pt_fmt_bytes(char *buf, size_t n, double bytes);

#endif
