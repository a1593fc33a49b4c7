/* SPDX-License-Identifier: MIT */
/* Counters, call stacks and samples (PARATRACE_COUNTERS, PARATRACE_CALLSTACK,
 * PARATRACE_SAMPLING): what each output shows of them. */
#include "pt_family.h"

extern const struct pv_family counters_paraver;

const pt_family pt_family_counters = {
	.name = "counters",
	.paraver = &counters_paraver,
};
