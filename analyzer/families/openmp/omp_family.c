/* SPDX-License-Identifier: MIT */
/* OpenMP (OMPT, GOMP_*): what each output shows of it. */
#include "omp_common.h"
#include "pt_family.h"

extern const struct pv_family openmp_paraver;
extern const struct tl_family openmp_timeline;
extern const struct pf_family openmp_report;

/* OpenMP locks, critical, atomic, ordered: waits of the core's kind. */
static const char *lock_name(unsigned type)
{
	return pt_lock_is_omp(type) ? omp_lock_name(type) : NULL;
}

const pt_family pt_family_openmp = {
	.name = "openmp",
	.paraver = &openmp_paraver,
	.report = &openmp_report,
	.timeline = &openmp_timeline,
	.lock_name = lock_name,
};
