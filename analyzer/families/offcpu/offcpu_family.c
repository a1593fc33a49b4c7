/* SPDX-License-Identifier: MIT */
/* Off-CPU time (PARATRACE_OFFCPU): what each output shows of it. */
#include "offcpu.h"
#include "pt_family.h"
#include "report.h"

extern const struct pv_family offcpu_paraver;

/* Running, waiting and off-CPU per thread and per function: a section
 * after the profile's tables, and a member of report --json. */
static const pf_family offcpu_report = {
    .sections = {{.tool = pt_tool_offcpu, .in = PF_IN_TEXT | PF_IN_JSON}},
};

const pt_family pt_family_offcpu = {
    .name = "offcpu",
    .paraver = &offcpu_paraver,
    .report = &offcpu_report,
};
