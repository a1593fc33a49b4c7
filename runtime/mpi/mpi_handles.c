/* SPDX-License-Identifier: MIT */
/* The predefined handles the part uses, which Open MPI makes addresses of
 * its objects and MPICH constants (mpi_abi.h); whether the loaded library
 * is of this half's ABI is mpi_record.c's (pt_mpi_abi_match). */
#define _GNU_SOURCE
#include "mpi_internal.h"

#ifdef PT_MPI_ABI_OMPI
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
