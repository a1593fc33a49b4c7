/* SPDX-License-Identifier: MIT */
/* Paraver extensions: one line per part that turns its own record kinds
 * into Paraver records (see pv.h). Keep the list NULL-terminated. */
#include "pv.h"

extern const pv_extension pv_ext_counters; /* pv_ext_counters.c */
extern const pv_extension pv_ext_gpu;      /* pv_ext_gpu.c */
extern const pv_extension pv_ext_omp;      /* pv_ext_omp.c */

const pv_extension *const pv_extensions[PV_MAX_EXT + 1] = {
	&pv_ext_counters,
	&pv_ext_gpu,
	&pv_ext_omp,
	NULL,
};
