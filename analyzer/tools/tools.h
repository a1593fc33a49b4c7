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
	X(profile)  /* report/profile.c: csv|json|short, top=N, wide, select */                    \
	X(calltree) /* report/calltree.c: json, threshold=X, callers=F|callees=F (last) */         \
	X(cost)     /* report/cost.c: json, top=N, budget, filter=PATH (last) */                   \
	X(interval) /* interval.c: csv|json */                                                     \
	X(chrome)   /* timeline/chrome.c: writes ctx->output */                                    \
	X(perfetto) /* timeline/perfetto.c: writes ctx->output */                                  \
	X(plot)     /* plot/plot_tool.c: writes ctx->output (SVG; HTML with html); png, html */

/* The OTF2 archive's tool, where the OTF2 library is built in, is declared
 * in otf2/ot.h (pt_tool_otf2), the one header that says whether it is. */

#define PT_DECLARE_BUILTIN_TOOL(name) const pt_tool *pt_tool_##name(void);
PT_BUILTIN_TOOLS(PT_DECLARE_BUILTIN_TOOL)
#undef PT_DECLARE_BUILTIN_TOOL

/* The interval tool's rows with its option json, as the JSON array the
 * profile's JSON object holds as "intervals" (the intervals are printed
 * before the results: one JSON document, not two); NULL when there are
 * none. Valid until the interval tool is destroyed. */
const char *pt_interval_json(void);

/* A duration for a table: "1.2ms", "3.45us" (fmt_dur.c). */
void pt_fmt_dur(char *buf, size_t n, uint64_t ns);
/* Bytes for a table: "4.0 MiB", "512 B" (fmt_dur.c). */
void pt_fmt_bytes(char *buf, size_t n, double bytes);

/* The calls the size budget left out of the last .prv the Paraver writer
 * wrote in this process (0: none, or no budget applied), from its finish
 * on: what the cost tool's "budget" option waits for. */
uint64_t pt_paraver_budget_cut(void);

#endif
