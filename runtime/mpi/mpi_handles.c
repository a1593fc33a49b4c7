/* SPDX-License-Identifier: MIT */
/* What tells one ABI's half from the other beyond mpi.h's types (mpi_abi.h):
 * whether the loaded MPI library is of this ABI, and the predefined handles
 * the part uses, which Open MPI makes addresses of its objects and MPICH
 * constants. */
#define _GNU_SOURCE
#include "mpi_internal.h"

#include <string.h>

#ifdef PT_MPI_ABI_OMPI
int pt_mpi_abi_match(void)
{
	return pt_mpi_sym("ompi_mpi_comm_world") != NULL;
}

int pt_mpi_abi_handles(void)
{
	pt_mpi_comm_world = (MPI_Comm)pt_mpi_sym("ompi_mpi_comm_world");
	pt_mpi_comm_self = (MPI_Comm)pt_mpi_sym("ompi_mpi_comm_self");
	pt_mpi_comm_null = (MPI_Comm)pt_mpi_sym("ompi_mpi_comm_null");
	pt_mpi_byte = (MPI_Datatype)pt_mpi_sym("ompi_mpi_byte");
	pt_mpi_request_null = (MPI_Request)pt_mpi_sym("ompi_request_null");
	return pt_mpi_comm_world && pt_mpi_byte;
}
#else
/* The MPICH ABI (MPICH, and the libraries built on it that keep its ABI:
 * Intel MPI, Cray MPICH, MVAPICH): what the library says it is, which
 * MPI_Get_library_version may say before MPI_Init. No Open MPI object is
 * loaded: a library that has both is Open MPI's (asked first). */
int pt_mpi_abi_match(void)
{
	if (pt_mpi_sym("ompi_mpi_comm_world"))
		return 0;
	char v[512];
	pt_mpi_library_version(v, sizeof v);
	return strstr(v, "MPICH") || strstr(v, "MVAPICH") || strstr(v, "Intel(R) MPI");
}

int pt_mpi_abi_handles(void)
{
	pt_mpi_comm_world = MPI_COMM_WORLD;
	pt_mpi_comm_self = MPI_COMM_SELF;
	pt_mpi_comm_null = MPI_COMM_NULL;
	pt_mpi_byte = MPI_BYTE;
	pt_mpi_request_null = MPI_REQUEST_NULL;
	return 1;
}
#endif
