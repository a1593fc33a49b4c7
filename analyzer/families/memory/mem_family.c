/* SPDX-License-Identifier: MIT */
/* Dynamic memory calls: what each output shows of them (docs/IO.md). */
#include "pt_family.h"

extern const struct pv_family mem_paraver;
extern const struct pf_family mem_report;

const pt_family pt_family_memory = {
    .name = "memory",
    .paraver = &mem_paraver,
    .report = &mem_report,
};
