/* SPDX-License-Identifier: MIT */
/* The MPI calls paratrace records: the arg of every MPI thread record
 * (format.h, "MPI records"), what the analyzer makes of each call, and the
 * wrappers of libtrace.so, generated from this table when it is built
 * (runtime/mpi/gen_wrappers.py). One row per call:
 *
 *   X(name, id, family, state) W(kind, fortran, params)
 *
 * id: the call's number in the log, which is also the value of its Paraver
 * event. 1..194 are Extrae's numbers for the calls it numbers (its merger's
 * MPI event encoding; the table ends at 194, MPI_Init_thread), so Paraver
 * configuration files written for Extrae traces work; 200..255 are
 * paratrace's own, for calls Extrae's table has no number for. 0 is "End"
 * (outside any MPI call). A value is never reused for another call.
 *
 * family: the Paraver event type the call is recorded under, as Extrae
 * does: PTOP 50000001 point-to-point, COLL 50000002 collective, OTHER
 * 50000003, RMA 50000004 one-sided, IO 50000005 MPI I/O.
 *
 * state: the Paraver state of the calling thread during the call
 * (Extrae's): 3 Waiting a message, 4 Blocking send, 5 Synchronization,
 * 6 Test/Probe, 8 Wait/WaitAll, 10 Immediate send, 11 Immediate receive,
 * 12 I/O, 13 Group communication, 15 Others, 16 Send receive, 17 Memory
 * transfer.
 *
 * kind: what the C wrapper MPI_<name> records besides the call's begin and
 * end, one body per kind in the generator: PLAIN nothing more; SEND,
 * RECV, SENDRECV... the message; COLL(rule) / ICOLL(rule) a blocking /
 * non-blocking collective whose bytes follow the rule (runtime/mpi/
 * mpi_coll.c); WAIT, TESTALL... the receives a completion finds done;
 * COMM_NEW a communicator it creates (its last parameter, newcomm); IO
 * the bytes an MPI-IO call asks to move; FILE_OPEN the file's name...
 * fortran: what the Fortran entry point mpi_<name>_ does: SAME as the
 * kind says, PLAIN the call's begin and end only, NONE there is none.
 * params: the C parameters, as mpi.h declares them; the kind's body
 * refers to them by the names MPI gives them (dest, tag, comm, status...).
 *
 * Calls of MPI-1 that MPI-3 removed (MPI_Address, MPI_Type_extent,
 * MPI_Type_struct...) keep their Extrae number here for the labels; their
 * rows have no W: Open MPI's mpi.h no longer declares them, and they are
 * not wrapped.
 */
#ifndef PARATRACE_MPI_CALLS_H
#define PARATRACE_MPI_CALLS_H

#define PT_MPI_PTOP 1
#define PT_MPI_COLL 2
#define PT_MPI_OTHER 3
#define PT_MPI_RMA 4
#define PT_MPI_IO 5
/* Paraver event type of a family: 50000000 + family */
#define PT_MPI_TYPE_BASE 50000000u

#define PT_MPI_TABLE(X, W)                                                                         \
	X(Send, 1, PTOP, 4) W(SEND, SAME,                                                          \
	  (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))   \
	X(Recv, 2, PTOP, 3) W(RECV, SAME,                                                          \
	  (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,        \
	   MPI_Status *status))                                                                    \
	X(Isend, 3, PTOP, 10) W(ISEND, SAME,                                                       \
	  (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,    \
	   MPI_Request *request))                                                                  \
	X(Irecv, 4, PTOP, 11) W(IRECV, SAME,                                                       \
	  (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,        \
	   MPI_Request *request))                                                                  \
	X(Wait, 5, PTOP, 8) W(WAIT, SAME, (MPI_Request *request, MPI_Status *status))              \
	X(Waitall, 6, PTOP, 8) W(WAITALL, SAME,                                                    \
	  (int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses))             \
	X(Bcast, 7, COLL, 13) W(COLL(BCAST), SAME,                                                 \
	  (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))               \
	X(Barrier, 8, COLL, 5) W(COLL(BARRIER), SAME, (MPI_Comm comm))                             \
	X(Reduce, 9, COLL, 13) W(COLL(REDUCE), SAME,                                               \
	  (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
	   int root, MPI_Comm comm))                                                               \
	X(Allreduce, 10, COLL, 13) W(COLL(ALLREDUCE), SAME,                                        \
	  (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
	   MPI_Comm comm))                                                                         \
	X(Alltoall, 11, COLL, 13) W(COLL(ALLTOALL), SAME,                                          \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   int recvcount, MPI_Datatype recvtype, MPI_Comm comm))                                   \
	X(Alltoallv, 12, COLL, 13) W(COLL(ALLTOALLV), SAME,                                        \
	  (const void *sendbuf, const int sendcounts[], const int sdispls[],                       \
	   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],      \
	   MPI_Datatype recvtype, MPI_Comm comm))                                                  \
	X(Gather, 13, COLL, 13) W(COLL(GATHER), SAME,                                              \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))                         \
	X(Gatherv, 14, COLL, 13) W(COLL(GATHERV), SAME,                                            \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,            \
	   MPI_Comm comm))                                                                         \
	X(Scatter, 15, COLL, 13) W(COLL(SCATTER), SAME,                                            \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))                         \
	X(Scatterv, 16, COLL, 13) W(COLL(SCATTERV), SAME,                                          \
	  (const void *sendbuf, const int sendcounts[], const int displs[],                        \
	   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,   \
	   MPI_Comm comm))                                                                         \
	X(Allgather, 17, COLL, 13) W(COLL(ALLGATHER), SAME,                                        \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   int recvcount, MPI_Datatype recvtype, MPI_Comm comm))                                   \
	X(Allgatherv, 18, COLL, 13) W(COLL(ALLGATHERV), SAME,                                      \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))      \
	X(Comm_rank, 19, OTHER, 15) W(PLAIN, SAME, (MPI_Comm comm, int *rank))                     \
	X(Comm_size, 20, OTHER, 15) W(PLAIN, SAME, (MPI_Comm comm, int *size))                     \
	X(Comm_create, 21, OTHER, 15) W(COMM_NEW, SAME,                                            \
	  (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))                                     \
	X(Comm_dup, 22, OTHER, 15) W(COMM_NEW, SAME, (MPI_Comm comm, MPI_Comm *newcomm))           \
	X(Comm_split, 23, OTHER, 15) W(COMM_NEW, SAME,                                             \
	  (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))                                  \
	X(Comm_group, 24, OTHER, 15) W(PLAIN, SAME, (MPI_Comm comm, MPI_Group *group))             \
	X(Comm_free, 25, OTHER, 15) W(COMM_FREE, SAME, (MPI_Comm *comm))                           \
	X(Comm_remote_group, 26, OTHER, 15) W(PLAIN, SAME, (MPI_Comm comm, MPI_Group *group))      \
	X(Comm_remote_size, 27, OTHER, 15) W(PLAIN, SAME, (MPI_Comm comm, int *size))              \
	X(Comm_test_inter, 28, OTHER, 15) W(PLAIN, SAME, (MPI_Comm comm, int *flag))               \
	X(Comm_compare, 29, OTHER, 15) W(PLAIN, SAME,                                              \
	  (MPI_Comm comm1, MPI_Comm comm2, int *result))                                           \
	X(Scan, 30, COLL, 13) W(COLL(ALLREDUCE), SAME,                                             \
	  (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
	   MPI_Comm comm))                                                                         \
	X(Init, 31, OTHER, 15) W(INIT, SAME, (int *argc, char ***argv))                            \
	X(Finalize, 32, OTHER, 15) W(FINALIZE, SAME, (void))                                       \
	X(Bsend, 33, PTOP, 4) W(SEND, SAME,                                                        \
	  (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))   \
	X(Ssend, 34, PTOP, 4) W(SEND, SAME,                                                        \
	  (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))   \
	X(Rsend, 35, PTOP, 4) W(SEND, SAME,                                                        \
	  (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))   \
	X(Ibsend, 36, PTOP, 10) W(ISEND, SAME,                                                     \
	  (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,    \
	   MPI_Request *request))                                                                  \
	X(Issend, 37, PTOP, 10) W(ISEND, SAME,                                                     \
	  (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,    \
	   MPI_Request *request))                                                                  \
	X(Irsend, 38, PTOP, 10) W(ISEND, SAME,                                                     \
	  (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,    \
	   MPI_Request *request))                                                                  \
	X(Test, 39, OTHER, 8) W(TEST, SAME,                                                        \
	  (MPI_Request *request, int *flag, MPI_Status *status))                                   \
	X(Cancel, 40, PTOP, 15) W(PLAIN, SAME, (MPI_Request *request))                             \
	X(Sendrecv, 41, PTOP, 16) W(SENDRECV, SAME,                                                \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,       \
	   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,           \
	   MPI_Comm comm, MPI_Status *status))                                                     \
	X(Sendrecv_replace, 42, PTOP, 16) W(SENDRECV_REPLACE, SAME,                                \
	  (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,         \
	   int recvtag, MPI_Comm comm, MPI_Status *status))                                        \
	X(Cart_create, 43, OTHER, 15) W(COMM_NEW, SAME,                                            \
	  (MPI_Comm old_comm, int ndims, const int dims[], const int periods[], int reorder,       \
	   MPI_Comm *newcomm))                                                                     \
	X(Cart_shift, 44, OTHER, 15) W(PLAIN, SAME,                                                \
	  (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest))              \
	X(Cart_coords, 45, OTHER, 15) W(PLAIN, SAME,                                               \
	  (MPI_Comm comm, int rank, int maxdims, int coords[]))                                    \
	X(Cart_get, 46, OTHER, 15) W(PLAIN, SAME,                                                  \
	  (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))                   \
	X(Cart_map, 47, OTHER, 15) W(PLAIN, SAME,                                                  \
	  (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank))         \
	X(Cart_rank, 48, OTHER, 15) W(PLAIN, SAME,                                                 \
	  (MPI_Comm comm, const int coords[], int *rank))                                          \
	X(Cart_sub, 49, OTHER, 15) W(COMM_NEW, SAME,                                               \
	  (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm))                             \
	X(Cartdim_get, 50, OTHER, 15) W(PLAIN, SAME, (MPI_Comm comm, int *ndims))                  \
	X(Dims_create, 51, OTHER, 15) W(PLAIN, SAME, (int nnodes, int ndims, int dims[]))          \
	X(Graph_get, 52, OTHER, 15) W(PLAIN, SAME,                                                 \
	  (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))                   \
	X(Graph_map, 53, OTHER, 15) W(PLAIN, SAME,                                                 \
	  (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank))         \
	X(Graph_create, 54, OTHER, 15) W(COMM_NEW, SAME,                                           \
	  (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,       \
	   MPI_Comm *newcomm))                                                                     \
	X(Graph_neighbors, 55, OTHER, 15) W(PLAIN, SAME,                                           \
	  (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))                            \
	X(Graphdims_get, 56, OTHER, 15) W(PLAIN, SAME, (MPI_Comm comm, int *nnodes, int *nedges))  \
	X(Graph_neighbors_count, 57, OTHER, 15) W(PLAIN, SAME,                                     \
	  (MPI_Comm comm, int rank, int *nneighbors))                                              \
	X(Topo_test, 58, OTHER, 15) W(PLAIN, SAME, (MPI_Comm comm, int *status))                   \
	X(Waitany, 59, PTOP, 8) W(WAITANY, SAME,                                                   \
	  (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status))            \
	X(Waitsome, 60, PTOP, 8) W(WAITSOME, SAME,                                                 \
	  (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],    \
	   MPI_Status array_of_statuses[]))                                                        \
	X(Probe, 61, PTOP, 6) W(PLAIN, SAME,                                                       \
	  (int source, int tag, MPI_Comm comm, MPI_Status *status))                                \
	X(Iprobe, 62, PTOP, 6) W(PLAIN, SAME,                                                      \
	  (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))                     \
	X(Win_create, 63, RMA, 15) W(PLAIN, SAME,                                                  \
	  (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win))  \
	X(Win_free, 64, RMA, 15) W(WIN_FREE, PLAIN, (MPI_Win *win))                                \
	X(Put, 65, RMA, 17) W(RMA, PLAIN,                                                          \
	  (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,                \
	   int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,  \
	   MPI_Win win))                                                                           \
	X(Get, 66, RMA, 17) W(RMA, PLAIN,                                                          \
	  (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,     \
	   MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))     \
	X(Accumulate, 67, RMA, 17) W(RMA, PLAIN,                                                   \
	  (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,                \
	   int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,  \
	   MPI_Op op, MPI_Win win))                                                                \
	X(Win_fence, 68, RMA, 17) W(PLAIN, SAME, (int assert, MPI_Win win))                        \
	X(Win_start, 69, RMA, 15) W(PLAIN, SAME, (MPI_Group group, int assert, MPI_Win win))       \
	X(Win_complete, 70, RMA, 15) W(PLAIN, SAME, (MPI_Win win))                                 \
	X(Win_post, 71, RMA, 15) W(PLAIN, SAME, (MPI_Group group, int assert, MPI_Win win))        \
	X(Win_wait, 72, RMA, 8) W(PLAIN, SAME, (MPI_Win win))                                      \
	X(Win_test, 73, RMA, 6) W(PLAIN, SAME, (MPI_Win win, int *flag))                           \
	X(Win_lock, 74, RMA, 15) W(RMA_LOCK, PLAIN,                                                \
	  (int lock_type, int rank, int assert, MPI_Win win))                                      \
	X(Win_unlock, 75, RMA, 15) W(RMA_LOCK, PLAIN, (int rank, MPI_Win win))                     \
	X(Pack, 76, OTHER, 15) W(PLAIN, SAME,                                                      \
	  (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,       \
	   int *position, MPI_Comm comm))                                                          \
	X(Unpack, 77, OTHER, 15) W(PLAIN, SAME,                                                    \
	  (const void *inbuf, int insize, int *position, void *outbuf, int outcount,               \
	   MPI_Datatype datatype, MPI_Comm comm))                                                  \
	X(Op_create, 78, OTHER, 15) W(PLAIN, SAME,                                                 \
	  (MPI_User_function *function, int commute, MPI_Op *op))                                  \
	X(Op_free, 79, OTHER, 15) W(PLAIN, SAME, (MPI_Op *op))                                     \
	X(Reduce_scatter, 80, COLL, 13) W(COLL(REDUCE_SCATTER), SAME,                              \
	  (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,      \
	   MPI_Op op, MPI_Comm comm))                                                              \
	X(Attr_delete, 81, OTHER, 15) W(PLAIN, SAME, (MPI_Comm comm, int keyval))                  \
	X(Attr_get, 82, OTHER, 15) W(PLAIN, SAME,                                                  \
	  (MPI_Comm comm, int keyval, void *attribute_val, int *flag))                             \
	X(Attr_put, 83, OTHER, 15) W(PLAIN, SAME,                                                  \
	  (MPI_Comm comm, int keyval, void *attribute_val))                                        \
	X(Group_difference, 84, OTHER, 15) W(PLAIN, SAME,                                          \
	  (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))                               \
	X(Group_excl, 85, OTHER, 15) W(PLAIN, SAME,                                                \
	  (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))                        \
	X(Group_free, 86, OTHER, 15) W(PLAIN, SAME, (MPI_Group *group))                            \
	X(Group_incl, 87, OTHER, 15) W(PLAIN, SAME,                                                \
	  (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))                        \
	X(Group_intersection, 88, OTHER, 15) W(PLAIN, SAME,                                        \
	  (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))                               \
	X(Group_rank, 89, OTHER, 15) W(PLAIN, SAME, (MPI_Group group, int *rank))                  \
	X(Group_range_excl, 90, OTHER, 15) W(PLAIN, SAME,                                          \
	  (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))                          \
	X(Group_range_incl, 91, OTHER, 15) W(PLAIN, SAME,                                          \
	  (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))                          \
	X(Group_size, 92, OTHER, 15) W(PLAIN, SAME, (MPI_Group group, int *size))                  \
	X(Group_translate_ranks, 93, OTHER, 15) W(PLAIN, SAME,                                     \
	  (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]))           \
	X(Group_union, 94, OTHER, 15) W(PLAIN, SAME,                                               \
	  (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))                               \
	X(Group_compare, 95, OTHER, 15) W(PLAIN, SAME,                                             \
	  (MPI_Group group1, MPI_Group group2, int *result))                                       \
	X(Intercomm_create, 96, OTHER, 15) W(COMM_NEW, SAME,                                       \
	  (MPI_Comm local_comm, int local_leader, MPI_Comm bridge_comm, int remote_leader,         \
	   int tag, MPI_Comm *newcomm))                                                            \
	X(Intercomm_merge, 97, OTHER, 15) W(COMM_NEW, SAME,                                        \
	  (MPI_Comm intercomm, int high, MPI_Comm *newcomm))                                       \
	X(Keyval_free, 98, OTHER, 15) W(PLAIN, SAME, (int *keyval))                                \
	X(Keyval_create, 99, OTHER, 15) W(PLAIN, SAME,                                             \
	  (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,                \
	   void *extra_state))                                                                     \
	X(Abort, 100, OTHER, 15) W(PLAIN, SAME, (MPI_Comm comm, int errorcode))                    \
	X(Error_class, 101, OTHER, 15) W(PLAIN, SAME, (int errorcode, int *errorclass))            \
	X(Errhandler_create, 102, OTHER, 15)                                                       \
	X(Errhandler_free, 103, OTHER, 15) W(PLAIN, SAME, (MPI_Errhandler *errhandler))            \
	X(Errhandler_get, 104, OTHER, 15)                                                          \
	X(Error_string, 105, OTHER, 15) W(PLAIN, SAME,                                             \
	  (int errorcode, char *string, int *resultlen))                                           \
	X(Errhandler_set, 106, OTHER, 15)                                                          \
	X(Get_processor_name, 107, OTHER, 15) W(PLAIN, SAME, (char *name, int *resultlen))         \
	X(Initialized, 108, OTHER, 15) W(PLAIN, SAME, (int *flag))                                 \
	X(Wtick, 109, OTHER, 15) W(DOUBLE, SAME, (void))                                           \
	X(Wtime, 110, OTHER, 15) W(DOUBLE, SAME, (void))                                           \
	X(Address, 111, OTHER, 15)                                                                 \
	X(Bsend_init, 112, PTOP, 15) W(SEND_INIT, SAME,                                            \
	  (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,    \
	   MPI_Request *request))                                                                  \
	X(Buffer_attach, 113, OTHER, 15) W(PLAIN, SAME, (void *buffer, int size))                  \
	X(Buffer_detach, 114, OTHER, 15) W(PLAIN, SAME, (void *buffer, int *size))                 \
	X(Request_free, 115, OTHER, 15) W(REQUEST_FREE, SAME, (MPI_Request *request))              \
	X(Recv_init, 116, PTOP, 15) W(RECV_INIT, SAME,                                             \
	  (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,        \
	   MPI_Request *request))                                                                  \
	X(Send_init, 117, PTOP, 15) W(SEND_INIT, SAME,                                             \
	  (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,    \
	   MPI_Request *request))                                                                  \
	X(Get_count, 118, OTHER, 15) W(PLAIN, SAME,                                                \
	  (const MPI_Status *status, MPI_Datatype datatype, int *count))                           \
	X(Get_elements, 119, OTHER, 15) W(PLAIN, SAME,                                             \
	  (const MPI_Status *status, MPI_Datatype datatype, int *count))                           \
	X(Pack_size, 120, OTHER, 15) W(PLAIN, SAME,                                                \
	  (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size))                          \
	X(Rsend_init, 121, PTOP, 15) W(SEND_INIT, SAME,                                            \
	  (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,    \
	   MPI_Request *request))                                                                  \
	X(Ssend_init, 122, PTOP, 15) W(SEND_INIT, SAME,                                            \
	  (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,    \
	   MPI_Request *request))                                                                  \
	X(Start, 123, OTHER, 15) W(START, SAME, (MPI_Request *request))                            \
	X(Startall, 124, OTHER, 15) W(STARTALL, SAME,                                              \
	  (int count, MPI_Request array_of_requests[]))                                            \
	X(Testall, 125, OTHER, 8) W(TESTALL, SAME,                                                 \
	  (int count, MPI_Request array_of_requests[], int *flag,                                  \
	   MPI_Status array_of_statuses[]))                                                        \
	X(Testany, 126, OTHER, 8) W(TESTANY, SAME,                                                 \
	  (int count, MPI_Request array_of_requests[], int *index, int *flag,                      \
	   MPI_Status *status))                                                                    \
	X(Test_cancelled, 127, OTHER, 15) W(PLAIN, SAME, (const MPI_Status *status, int *flag))    \
	X(Testsome, 128, OTHER, 8) W(TESTSOME, SAME,                                               \
	  (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],    \
	   MPI_Status array_of_statuses[]))                                                        \
	X(Type_commit, 129, OTHER, 15) W(PLAIN, SAME, (MPI_Datatype *type))                        \
	X(Type_contiguous, 130, OTHER, 15) W(PLAIN, SAME,                                          \
	  (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))                                \
	X(Type_extent, 131, OTHER, 15)                                                             \
	X(Type_free, 132, OTHER, 15) W(TYPE_FREE, SAME, (MPI_Datatype *datatype))                  \
	X(Type_hindexed, 133, OTHER, 15)                                                           \
	X(Type_hvector, 134, OTHER, 15)                                                            \
	X(Type_indexed, 135, OTHER, 15) W(PLAIN, SAME,                                             \
	  (int count, const int array_of_blocklengths[], const int array_of_displacements[],       \
	   MPI_Datatype oldtype, MPI_Datatype *newtype))                                           \
	X(Type_lb, 136, OTHER, 15)                                                                 \
	X(Type_size, 137, OTHER, 15) W(PLAIN, SAME, (MPI_Datatype type, int *size))                \
	X(Type_struct, 138, OTHER, 15)                                                             \
	X(Type_ub, 139, OTHER, 15)                                                                 \
	X(Type_vector, 140, OTHER, 15) W(PLAIN, SAME,                                              \
	  (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype))   \
	X(File_open, 141, IO, 12) W(FILE_OPEN, SAME,                                               \
	  (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh))           \
	X(File_close, 142, IO, 12) W(PLAIN, SAME, (MPI_File *fh))                                  \
	X(File_read, 143, IO, 12) W(IO, SAME,                                                      \
	  (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))          \
	X(File_read_all, 144, IO, 12) W(IO, SAME,                                                  \
	  (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))          \
	X(File_write, 145, IO, 12) W(IO, SAME,                                                     \
	  (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))    \
	X(File_write_all, 146, IO, 12) W(IO, SAME,                                                 \
	  (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))    \
	X(File_read_at, 147, IO, 12) W(IO, SAME,                                                   \
	  (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,            \
	   MPI_Status *status))                                                                    \
	X(File_read_at_all, 148, IO, 12) W(IO, SAME,                                               \
	  (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,            \
	   MPI_Status *status))                                                                    \
	X(File_write_at, 149, IO, 12) W(IO, SAME,                                                  \
	  (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,      \
	   MPI_Status *status))                                                                    \
	X(File_write_at_all, 150, IO, 12) W(IO, SAME,                                              \
	  (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,      \
	   MPI_Status *status))                                                                    \
	X(Comm_spawn, 151, OTHER, 15) W(COMM_NEW, PLAIN,                                           \
	  (const char *command, char *argv[], int maxprocs, MPI_Info info, int root,               \
	   MPI_Comm comm, MPI_Comm *newcomm, int array_of_errcodes[]))                             \
	X(Comm_spawn_multiple, 152, OTHER, 15) W(COMM_NEW, PLAIN,                                  \
	  (int count, char *array_of_commands[], char **array_of_argv[],                           \
	   const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,                \
	   MPI_Comm comm, MPI_Comm *newcomm, int array_of_errcodes[]))                             \
	X(Request_get_status, 153, OTHER, 15) W(PLAIN, SAME,                                       \
	  (MPI_Request request, int *flag, MPI_Status *status))                                    \
	X(Ireduce, 154, COLL, 13) W(ICOLL(REDUCE), PLAIN,                                          \
	  (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
	   int root, MPI_Comm comm, MPI_Request *request))                                         \
	X(Iallreduce, 155, COLL, 13) W(ICOLL(ALLREDUCE), PLAIN,                                    \
	  (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
	   MPI_Comm comm, MPI_Request *request))                                                   \
	X(Ibarrier, 156, COLL, 5) W(ICOLL(BARRIER), PLAIN, (MPI_Comm comm, MPI_Request *request))  \
	X(Ibcast, 157, COLL, 13) W(ICOLL(BCAST), PLAIN,                                            \
	  (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,                \
	   MPI_Request *request))                                                                  \
	X(Ialltoall, 158, COLL, 13) W(ICOLL(ALLTOALL), PLAIN,                                      \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))             \
	X(Ialltoallv, 159, COLL, 13) W(ICOLL(ALLTOALLV), PLAIN,                                    \
	  (const void *sendbuf, const int sendcounts[], const int sdispls[],                       \
	   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],      \
	   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))                            \
	X(Iallgather, 160, COLL, 13) W(ICOLL(ALLGATHER), PLAIN,                                    \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))             \
	X(Iallgatherv, 161, COLL, 13) W(ICOLL(ALLGATHERV), PLAIN,                                  \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,       \
	   MPI_Request *request))                                                                  \
	X(Igather, 162, COLL, 13) W(ICOLL(GATHER), PLAIN,                                          \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))   \
	X(Igatherv, 163, COLL, 13) W(ICOLL(GATHERV), PLAIN,                                        \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,            \
	   MPI_Comm comm, MPI_Request *request))                                                   \
	X(Iscatter, 164, COLL, 13) W(ICOLL(SCATTER), PLAIN,                                        \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))   \
	X(Iscatterv, 165, COLL, 13) W(ICOLL(SCATTERV), PLAIN,                                      \
	  (const void *sendbuf, const int sendcounts[], const int displs[],                        \
	   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,   \
	   MPI_Comm comm, MPI_Request *request))                                                   \
	X(Ireduce_scatter, 166, COLL, 13) W(ICOLL(REDUCE_SCATTER), PLAIN,                          \
	  (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,      \
	   MPI_Op op, MPI_Comm comm, MPI_Request *request))                                        \
	X(Iscan, 167, COLL, 13) W(ICOLL(ALLREDUCE), PLAIN,                                         \
	  (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
	   MPI_Comm comm, MPI_Request *request))                                                   \
	X(Reduce_scatter_block, 168, COLL, 13) W(COLL(REDUCE_SCATTER_BLOCK), SAME,                 \
	  (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,    \
	   MPI_Comm comm))                                                                         \
	X(Ireduce_scatter_block, 169, COLL, 13) W(ICOLL(REDUCE_SCATTER_BLOCK), PLAIN,              \
	  (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,    \
	   MPI_Comm comm, MPI_Request *request))                                                   \
	X(Alltoallw, 170, COLL, 13) W(COLL(ALLTOALLW), PLAIN,                                      \
	  (const void *sendbuf, const int sendcounts[], const int sdispls[],                       \
	   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],                  \
	   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))                    \
	X(Ialltoallw, 171, COLL, 13) W(ICOLL(ALLTOALLW), PLAIN,                                    \
	  (const void *sendbuf, const int sendcounts[], const int sdispls[],                       \
	   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],                  \
	   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,                     \
	   MPI_Request *request))                                                                  \
	X(Get_accumulate, 172, RMA, 17) W(RMA, PLAIN,                                              \
	  (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,                \
	   void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,     \
	   MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,        \
	   MPI_Win win))                                                                           \
	X(Dist_graph_create, 173, OTHER, 15) W(COMM_NEW, SAME,                                     \
	  (MPI_Comm comm_old, int n, const int nodes[], const int degrees[], const int targets[],  \
	   const int weights[], MPI_Info info, int reorder, MPI_Comm *newcomm))                    \
	X(Neighbor_allgather, 174, COLL, 13) W(COLL(NEIGHBOR_ALLGATHER), PLAIN,                    \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   int recvcount, MPI_Datatype recvtype, MPI_Comm comm))                                   \
	X(Ineighbor_allgather, 175, COLL, 13) W(ICOLL(NEIGHBOR_ALLGATHER), PLAIN,                  \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))             \
	X(Neighbor_allgatherv, 176, COLL, 13) W(COLL(NEIGHBOR_ALLGATHERV), PLAIN,                  \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))      \
	X(Ineighbor_allgatherv, 177, COLL, 13) W(ICOLL(NEIGHBOR_ALLGATHERV), PLAIN,                \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,       \
	   MPI_Request *request))                                                                  \
	X(Neighbor_alltoall, 178, COLL, 13) W(COLL(NEIGHBOR_ALLTOALL), PLAIN,                      \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   int recvcount, MPI_Datatype recvtype, MPI_Comm comm))                                   \
	X(Ineighbor_alltoall, 179, COLL, 13) W(ICOLL(NEIGHBOR_ALLTOALL), PLAIN,                    \
	  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
	   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))             \
	X(Neighbor_alltoallv, 180, COLL, 13) W(COLL(NEIGHBOR_ALLTOALLV), PLAIN,                    \
	  (const void *sendbuf, const int sendcounts[], const int sdispls[],                       \
	   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],      \
	   MPI_Datatype recvtype, MPI_Comm comm))                                                  \
	X(Ineighbor_alltoallv, 181, COLL, 13) W(ICOLL(NEIGHBOR_ALLTOALLV), PLAIN,                  \
	  (const void *sendbuf, const int sendcounts[], const int sdispls[],                       \
	   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],      \
	   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))                            \
	X(Neighbor_alltoallw, 182, COLL, 13) W(COLL(NEIGHBOR_ALLTOALLW), PLAIN,                    \
	  (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],                  \
	   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],                  \
	   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))               \
	X(Ineighbor_alltoallw, 183, COLL, 13) W(ICOLL(NEIGHBOR_ALLTOALLW), PLAIN,                  \
	  (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],                  \
	   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],                  \
	   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,                \
	   MPI_Request *request))                                                                  \
	X(Fetch_and_op, 184, RMA, 17) W(RMA_ATOMIC, PLAIN,                                         \
	  (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,     \
	   MPI_Aint target_disp, MPI_Op op, MPI_Win win))                                          \
	X(Compare_and_swap, 185, RMA, 17) W(RMA_ATOMIC, PLAIN,                                     \
	  (const void *origin_addr, const void *compare_addr, void *result_addr,                   \
	   MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win))             \
	X(Win_flush, 186, RMA, 15) W(PLAIN, SAME, (int rank, MPI_Win win))                         \
	X(Win_flush_all, 187, RMA, 15) W(PLAIN, SAME, (MPI_Win win))                               \
	X(Win_flush_local, 188, RMA, 15) W(PLAIN, SAME, (int rank, MPI_Win win))                   \
	X(Win_flush_local_all, 189, RMA, 15) W(PLAIN, SAME, (MPI_Win win))                         \
	X(Mprobe, 190, PTOP, 6) W(MPROBE, PLAIN,                                                   \
	  (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status))          \
	X(Improbe, 191, PTOP, 6) W(IMPROBE, PLAIN,                                                 \
	  (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,                    \
	   MPI_Status *status))                                                                    \
	X(Mrecv, 192, PTOP, 3) W(MRECV, PLAIN,                                                     \
	  (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,                      \
	   MPI_Status *status))                                                                    \
	X(Imrecv, 193, PTOP, 11) W(IMRECV, PLAIN,                                                  \
	  (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,                      \
	   MPI_Request *request))                                                                  \
	X(Init_thread, 194, OTHER, 15) W(INIT_THREAD, SAME,                                        \
	  (int *argc, char ***argv, int required, int *provided))                                  \
	/* paratrace's own numbers */                                                              \
	X(Comm_split_type, 200, OTHER, 15) W(COMM_NEW, SAME,                                       \
	  (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm))              \
	X(Comm_dup_with_info, 201, OTHER, 15) W(COMM_NEW, SAME,                                    \
	  (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm))                                       \
	X(Comm_idup, 202, OTHER, 15) W(PLAIN, SAME,                                                \
	  (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request))                                \
	X(Comm_create_group, 203, OTHER, 15) W(COMM_NEW, SAME,                                     \
	  (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm))                            \
	X(Dist_graph_create_adjacent, 204, OTHER, 15) W(COMM_NEW, SAME,                            \
	  (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],        \
	   int outdegree, const int destinations[], const int destweights[], MPI_Info info,        \
	   int reorder, MPI_Comm *newcomm))                                                        \
	X(Exscan, 205, COLL, 13) W(COLL(ALLREDUCE), SAME,                                          \
	  (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
	   MPI_Comm comm))                                                                         \
	X(Iexscan, 206, COLL, 13) W(ICOLL(ALLREDUCE), PLAIN,                                       \
	  (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
	   MPI_Comm comm, MPI_Request *request))                                                   \
	X(Win_allocate, 207, RMA, 15) W(PLAIN, SAME,                                               \
	  (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,              \
	   MPI_Win *win))                                                                          \
	X(Win_allocate_shared, 208, RMA, 15) W(PLAIN, SAME,                                        \
	  (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,              \
	   MPI_Win *win))                                                                          \
	X(Win_create_dynamic, 209, RMA, 15) W(PLAIN, SAME,                                         \
	  (MPI_Info info, MPI_Comm comm, MPI_Win *win))                                            \
	X(Rput, 210, RMA, 17) W(RMA, PLAIN,                                                        \
	  (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,                \
	   int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,  \
	   MPI_Win win, MPI_Request *request))                                                     \
	X(Rget, 211, RMA, 17) W(RMA, PLAIN,                                                        \
	  (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,     \
	   MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,      \
	   MPI_Request *request))                                                                  \
	X(Raccumulate, 212, RMA, 17) W(RMA, PLAIN,                                                 \
	  (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,                \
	   int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,  \
	   MPI_Op op, MPI_Win win, MPI_Request *request))                                          \
	X(Rget_accumulate, 213, RMA, 17) W(RMA, PLAIN,                                             \
	  (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,                \
	   void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,     \
	   MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,        \
	   MPI_Win win, MPI_Request *request))                                                     \
	X(Win_lock_all, 214, RMA, 15) W(PLAIN, SAME, (int assert, MPI_Win win))                    \
	X(Win_unlock_all, 215, RMA, 15) W(PLAIN, SAME, (MPI_Win win))                              \
	X(Win_sync, 216, RMA, 15) W(PLAIN, SAME, (MPI_Win win))                                    \
	X(Comm_accept, 217, OTHER, 15) W(COMM_NEW, PLAIN,                                          \
	  (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm))      \
	X(Comm_connect, 218, OTHER, 15) W(COMM_NEW, PLAIN,                                         \
	  (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm))      \
	X(Comm_disconnect, 219, OTHER, 15) W(COMM_FREE, SAME, (MPI_Comm *comm))                    \
	X(Comm_join, 220, OTHER, 15) W(COMM_NEW, NONE, (int fd, MPI_Comm *newcomm))                \
	X(File_read_shared, 221, IO, 12) W(IO, SAME,                                               \
	  (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))          \
	X(File_write_shared, 222, IO, 12) W(IO, SAME,                                              \
	  (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))    \
	X(File_iread, 223, IO, 12) W(IO, SAME,                                                     \
	  (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))        \
	X(File_iwrite, 224, IO, 12) W(IO, SAME,                                                    \
	  (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))  \
	X(File_iread_at, 225, IO, 12) W(IO, SAME,                                                  \
	  (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,            \
	   MPI_Request *request))                                                                  \
	X(File_iwrite_at, 226, IO, 12) W(IO, SAME,                                                 \
	  (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,      \
	   MPI_Request *request))                                                                  \
	X(File_read_ordered, 227, IO, 12) W(IO, SAME,                                              \
	  (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))          \
	X(File_write_ordered, 228, IO, 12) W(IO, SAME,                                             \
	  (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))    \
	X(File_set_view, 229, IO, 12) W(PLAIN, SAME,                                               \
	  (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,                \
	   const char *datarep, MPI_Info info))                                                    \
	X(File_sync, 230, IO, 12) W(PLAIN, SAME, (MPI_File fh))                                    \
	X(Finalized, 231, OTHER, 15) W(PLAIN, SAME, (int *flag))                                   \
	X(Query_thread, 232, OTHER, 15) W(PLAIN, SAME, (int *provided))                            \
	X(Type_create_struct, 233, OTHER, 15) W(PLAIN, SAME,                                       \
	  (int count, const int array_of_block_lengths[],                                          \
	   const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],           \
	   MPI_Datatype *newtype))                                                                 \
	X(Type_create_hvector, 234, OTHER, 15) W(PLAIN, SAME,                                      \
	  (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,                      \
	   MPI_Datatype *newtype))                                                                 \
	X(Type_create_hindexed, 235, OTHER, 15) W(PLAIN, SAME,                                     \
	  (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],  \
	   MPI_Datatype oldtype, MPI_Datatype *newtype))                                           \
	X(Type_create_resized, 236, OTHER, 15) W(PLAIN, SAME,                                      \
	  (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype))             \
	X(Type_get_extent, 237, OTHER, 15) W(PLAIN, SAME,                                          \
	  (MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent))                                     \
	X(Get_address, 238, OTHER, 15) W(PLAIN, SAME, (const void *location, MPI_Aint *address))   \
	X(Comm_get_attr, 239, OTHER, 15) W(PLAIN, SAME,                                            \
	  (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag))                        \
	X(Comm_set_errhandler, 240, OTHER, 15) W(PLAIN, SAME,                                      \
	  (MPI_Comm comm, MPI_Errhandler errhandler))                                              \
	X(Comm_get_parent, 241, OTHER, 15) W(PLAIN, SAME, (MPI_Comm *parent))                      \
	X(Type_create_subarray, 242, OTHER, 15) W(PLAIN, SAME,                                     \
	  (int ndims, const int size_array[], const int subsize_array[], const int start_array[],  \
	   int order, MPI_Datatype oldtype, MPI_Datatype *newtype))                                \
	X(Type_dup, 243, OTHER, 15) W(PLAIN, SAME, (MPI_Datatype type, MPI_Datatype *newtype))     \
	X(Get_version, 244, OTHER, 15) W(PLAIN, SAME, (int *version, int *subversion))            \
	X(File_iread_all, 245, IO, 12) W(IO, SAME,                                                 \
	  (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))        \
	X(File_iwrite_all, 246, IO, 12) W(IO, SAME,                                                \
	  (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))  \
	X(File_iread_at_all, 247, IO, 12) W(IO, SAME,                                              \
	  (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,            \
	   MPI_Request *request))                                                                  \
	X(File_iwrite_at_all, 248, IO, 12) W(IO, SAME,                                             \
	  (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,      \
	   MPI_Request *request))

/* The calls as the log and the analyzer know them: X(name, id, family, state). */
#define PT_MPI_CALLS(X) PT_MPI_TABLE(X, PT_MPI_NO_WRAPPER_)
#define PT_MPI_NO_WRAPPER_(kind, fortran, params)

enum pt_mpi_call {
	PT_MPI_CALL_NONE = 0,
#define PT_MPI_CALL_ENUM_(name, id, family, state) PT_MPI_CALL_##name = id,
	PT_MPI_CALLS(PT_MPI_CALL_ENUM_)
#undef PT_MPI_CALL_ENUM_
};

#endif /* PARATRACE_MPI_CALLS_H */
