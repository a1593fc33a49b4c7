/* SPDX-License-Identifier: MIT */
/* OpenMP (OMPT, GOMP_*): what each output shows of it. */
#include "omp_common.h"
#include "ot.h"
#include "pt_family.h"

extern const struct pv_family openmp_paraver;
extern const struct tl_family openmp_timeline;
extern const struct pf_family openmp_report;
#ifdef PT_WITH_OTF2
extern const ot_family openmp_otf2;
#endif

const pt_family pt_family_openmp = {
	.name = "openmp",
	.paraver = &openmp_paraver,
	.report = &openmp_report,
	.timeline = &openmp_timeline,
	.otf2 = OT_PART(openmp_otf2),
	/* OpenMP locks, critical, atomic, ordered (pt_lock_is_omp) */
	.lock_first = PT_LOCK_OMP_LOCK,
	.lock_last = PT_LOCK_OMP_CRITICAL_NAMED,
	.lock_name = omp_lock_name,
};
