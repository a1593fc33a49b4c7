/* SPDX-License-Identifier: MIT */
/* GPU launches, copies and device times (CUDA, OpenCL) and profiles taken
 * inside kernels: what each output shows of them. */
#include "pt_family.h"

extern const struct pv_family gpu_paraver;
extern const struct tl_family gpu_timeline;

const pt_family pt_family_gpu = {
	.name = "gpu",
	.paraver = &gpu_paraver,
	.timeline = &gpu_timeline,
};
