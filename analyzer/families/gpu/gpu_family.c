/* SPDX-License-Identifier: MIT */
/* GPU launches, copies and device times (CUDA, OpenCL) and profiles taken
 * inside kernels: what each output shows of them. */
#include "gpu_common.h"
#include "ot.h"
#include "pt_family.h"
#include "report.h"

extern const struct pv_family gpu_paraver;
extern const struct tl_family gpu_timeline;
extern const struct pl_family gpu_plot;
#ifdef PT_WITH_OTF2
extern const ot_family gpu_otf2;
#endif

/* Kernels and transfers (gpu_report.c); what instrumented kernels did
 * inside (gpu_kernels.c), last. */
static const pf_family gpu_report = {
	.sections = {{.tool = pt_tool_gpu, .in = PF_IN_ANALYZE | PF_IN_TEXT},
	             {.tool = pt_tool_gpu_kernels,
	              .in = PF_IN_TEXT | PF_IN_CSV | PF_IN_JSON,
	              .last = 1}},
};

const pt_family pt_family_gpu = {
	.name = "gpu",
	.paraver = &gpu_paraver,
	.report = &gpu_report,
	.timeline = &gpu_timeline,
	.plot = &gpu_plot,
	.otf2 = OT_PART(gpu_otf2),
};
