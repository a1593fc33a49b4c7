/* SPDX-License-Identifier: MIT */
/* MPI: what each output shows of it. */
#include "pt_family.h"

extern const struct pv_family mpi_paraver;
extern const struct tl_family mpi_timeline;

const pt_family pt_family_mpi = {
	.name = "mpi",
	.paraver = &mpi_paraver,
	.timeline = &mpi_timeline,
};
