/* SPDX-License-Identifier: MIT */
/* OpenMP (OMPT, GOMP_*): what each output shows of it. */
#include "pt_family.h"

extern const struct pv_family openmp_paraver;

const pt_family pt_family_openmp = {
	.name = "openmp",
	.paraver = &openmp_paraver,
};
