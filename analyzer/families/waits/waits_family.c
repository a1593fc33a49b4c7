/* SPDX-License-Identifier: MIT */
/* Wait states, their causes and the critical path, across threads and MPI
 * ranks (waits.h): what each output shows of them. */
#include "pt_family.h"
#include "report.h"
#include "waits.h"

extern const struct pv_family waits_paraver;
extern const pf_html waits_html;

/* The waits by pattern, their causes, the critical path (ws_report.c). */
static const pf_family waits_report = {
    .sections = {{.tool = pt_tool_waits, .in = PF_IN_TEXT | PF_IN_CSV | PF_IN_JSON, .last = 1},
                 {.tool = pt_tool_waits_html, .in = PF_IN_HTML, .last = 1, .html = &waits_html}},
};

const pt_family pt_family_waits = {
    .name = "waits",
    .paraver = &waits_paraver,
    .report = &waits_report,
};
