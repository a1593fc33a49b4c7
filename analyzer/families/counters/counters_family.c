/* SPDX-License-Identifier: MIT */
/* Counters, call stacks and samples (PARATRACE_COUNTERS, PARATRACE_CALLSTACK,
 * PARATRACE_SAMPLING): what each output shows of them. */
#include "counters.h"
#include "ot.h"
#include "pt_family.h"
#include "report.h"

extern const struct pv_family counters_paraver;
#ifdef PT_WITH_OTF2
extern const ot_family counters_otf2;
#endif

/* Counter totals per function, contention by call site, the sampled flat
 * profile: tables after the profile's. */
static const pf_family counters_report = {
	.sections = {{.tool = pt_tool_counters, .in = PF_IN_ANALYZE | PF_IN_TEXT}},
};

const pt_family pt_family_counters = {
	.name = "counters",
	.paraver = &counters_paraver,
	.report = &counters_report,
	.otf2 = OT_PART(counters_otf2),
};
