/* SPDX-License-Identifier: MIT */
/* Paraver extensions: one line per part that turns its own record kinds
 * into Paraver records (see pv.h). Keep the list NULL-terminated. */
#include "pv.h"

extern const pv_extension pv_ext_counters; /* pv_ext_counters.c */
extern const pv_extension pv_ext_gpu;      /* pv_ext_gpu.c */
extern const pv_extension pv_ext_omp;      /* pv_ext_omp.c */
extern const pv_extension pv_ext_mpi;      /* pv_ext_mpi.c */

const pv_extension *const pv_extensions[PV_MAX_EXT + 1] = {
	&pv_ext_counters,
	&pv_ext_gpu,
	&pv_ext_omp,
	&pv_ext_mpi,
	NULL,
};

size_t pv_n_ext(void)
{
	size_t n = 0;
	while (n < PV_MAX_EXT && pv_extensions[n])
		n++;
	return n;
}
