/* SPDX-License-Identifier: MIT */
/* File I/O: what each output shows of it (docs/IO.md). */
#include "ot.h"
#include "pt_family.h"

extern const struct pv_family io_paraver;
extern const struct pf_family io_report;
extern const struct tl_family io_timeline;
#ifdef PT_WITH_OTF2
extern const ot_family io_otf2;
#endif

const pt_family pt_family_io = {
    .name = "io",
    .paraver = &io_paraver,
    .report = &io_report,
    .timeline = &io_timeline,
    .otf2 = OT_PART(io_otf2),
};
