/* SPDX-License-Identifier: MIT */
/* MPI: what each output shows of it. */
#include "mpi_common.h"
#include "ot.h"
#include "pt_family.h"
#include "report.h"

extern const struct pv_family mpi_paraver;
extern const struct tl_family mpi_timeline;
extern const pf_html mpi_html;
#ifdef PT_WITH_OTF2
extern const ot_family mpi_otf2;
#endif

/* Time per rank and call, bytes, pairs, late senders (mpi_report.c); in
 * the HTML page, its tables (mpi_html.c). */
static const pf_family mpi_report = {
	.sections = {{.tool = pt_tool_mpi, .in = PF_IN_TEXT | PF_IN_HTML, .html = &mpi_html}},
};

const pt_family pt_family_mpi = {
	.name = "mpi",
	.paraver = &mpi_paraver,
	.report = &mpi_report,
	.timeline = &mpi_timeline,
	.otf2 = OT_PART(mpi_otf2),
};
