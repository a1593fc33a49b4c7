/* SPDX-License-Identifier: MIT */
/* The MPI calls paratrace records: the arg of every MPI thread record
 * (format.h, "MPI records"), and what the analyzer makes of each call.
 *
 *   X(name, id, family, state)
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
 * Calls of MPI-1 that MPI-3 removed (MPI_Address, MPI_Type_extent,
 * MPI_Type_struct...) keep their Extrae number here for the labels;
 * the runtime wraps a call only where mpi.h declares it.
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

#define PT_MPI_CALLS(X)                                                                            \
	X(Send, 1, PTOP, 4)                                                                        \
	X(Recv, 2, PTOP, 3)                                                                        \
	X(Isend, 3, PTOP, 10)                                                                      \
	X(Irecv, 4, PTOP, 11)                                                                      \
	X(Wait, 5, PTOP, 8)                                                                        \
	X(Waitall, 6, PTOP, 8)                                                                     \
	X(Bcast, 7, COLL, 13)                                                                      \
	X(Barrier, 8, COLL, 5)                                                                     \
	X(Reduce, 9, COLL, 13)                                                                     \
	X(Allreduce, 10, COLL, 13)                                                                 \
	X(Alltoall, 11, COLL, 13)                                                                  \
	X(Alltoallv, 12, COLL, 13)                                                                 \
	X(Gather, 13, COLL, 13)                                                                    \
	X(Gatherv, 14, COLL, 13)                                                                   \
	X(Scatter, 15, COLL, 13)                                                                   \
	X(Scatterv, 16, COLL, 13)                                                                  \
	X(Allgather, 17, COLL, 13)                                                                 \
	X(Allgatherv, 18, COLL, 13)                                                                \
	X(Comm_rank, 19, OTHER, 15)                                                                \
	X(Comm_size, 20, OTHER, 15)                                                                \
	X(Comm_create, 21, OTHER, 15)                                                              \
	X(Comm_dup, 22, OTHER, 15)                                                                 \
	X(Comm_split, 23, OTHER, 15)                                                               \
	X(Comm_group, 24, OTHER, 15)                                                               \
	X(Comm_free, 25, OTHER, 15)                                                                \
	X(Comm_remote_group, 26, OTHER, 15)                                                        \
	X(Comm_remote_size, 27, OTHER, 15)                                                         \
	X(Comm_test_inter, 28, OTHER, 15)                                                          \
	X(Comm_compare, 29, OTHER, 15)                                                             \
	X(Scan, 30, COLL, 13)                                                                      \
	X(Init, 31, OTHER, 15)                                                                     \
	X(Finalize, 32, OTHER, 15)                                                                 \
	X(Bsend, 33, PTOP, 4)                                                                      \
	X(Ssend, 34, PTOP, 4)                                                                      \
	X(Rsend, 35, PTOP, 4)                                                                      \
	X(Ibsend, 36, PTOP, 10)                                                                    \
	X(Issend, 37, PTOP, 10)                                                                    \
	X(Irsend, 38, PTOP, 10)                                                                    \
	X(Test, 39, OTHER, 8)                                                                      \
	X(Cancel, 40, PTOP, 15)                                                                    \
	X(Sendrecv, 41, PTOP, 16)                                                                  \
	X(Sendrecv_replace, 42, PTOP, 16)                                                          \
	X(Cart_create, 43, OTHER, 15)                                                              \
	X(Cart_shift, 44, OTHER, 15)                                                               \
	X(Cart_coords, 45, OTHER, 15)                                                              \
	X(Cart_get, 46, OTHER, 15)                                                                 \
	X(Cart_map, 47, OTHER, 15)                                                                 \
	X(Cart_rank, 48, OTHER, 15)                                                                \
	X(Cart_sub, 49, OTHER, 15)                                                                 \
	X(Cartdim_get, 50, OTHER, 15)                                                              \
	X(Dims_create, 51, OTHER, 15)                                                              \
	X(Graph_get, 52, OTHER, 15)                                                                \
	X(Graph_map, 53, OTHER, 15)                                                                \
	X(Graph_create, 54, OTHER, 15)                                                             \
	X(Graph_neighbors, 55, OTHER, 15)                                                          \
	X(Graphdims_get, 56, OTHER, 15)                                                            \
	X(Graph_neighbors_count, 57, OTHER, 15)                                                    \
	X(Topo_test, 58, OTHER, 15)                                                                \
	X(Waitany, 59, PTOP, 8)                                                                    \
	X(Waitsome, 60, PTOP, 8)                                                                   \
	X(Probe, 61, PTOP, 6)                                                                      \
	X(Iprobe, 62, PTOP, 6)                                                                     \
	X(Win_create, 63, RMA, 15)                                                                 \
	X(Win_free, 64, RMA, 15)                                                                   \
	X(Put, 65, RMA, 17)                                                                        \
	X(Get, 66, RMA, 17)                                                                        \
	X(Accumulate, 67, RMA, 17)                                                                 \
	X(Win_fence, 68, RMA, 17)                                                                  \
	X(Win_start, 69, RMA, 15)                                                                  \
	X(Win_complete, 70, RMA, 15)                                                               \
	X(Win_post, 71, RMA, 15)                                                                   \
	X(Win_wait, 72, RMA, 8)                                                                    \
	X(Win_test, 73, RMA, 6)                                                                    \
	X(Win_lock, 74, RMA, 15)                                                                   \
	X(Win_unlock, 75, RMA, 15)                                                                 \
	X(Pack, 76, OTHER, 15)                                                                     \
	X(Unpack, 77, OTHER, 15)                                                                   \
	X(Op_create, 78, OTHER, 15)                                                                \
	X(Op_free, 79, OTHER, 15)                                                                  \
	X(Reduce_scatter, 80, COLL, 13)                                                            \
	X(Attr_delete, 81, OTHER, 15)                                                              \
	X(Attr_get, 82, OTHER, 15)                                                                 \
	X(Attr_put, 83, OTHER, 15)                                                                 \
	X(Group_difference, 84, OTHER, 15)                                                         \
	X(Group_excl, 85, OTHER, 15)                                                               \
	X(Group_free, 86, OTHER, 15)                                                               \
	X(Group_incl, 87, OTHER, 15)                                                               \
	X(Group_intersection, 88, OTHER, 15)                                                       \
	X(Group_rank, 89, OTHER, 15)                                                               \
	X(Group_range_excl, 90, OTHER, 15)                                                         \
	X(Group_range_incl, 91, OTHER, 15)                                                         \
	X(Group_size, 92, OTHER, 15)                                                               \
	X(Group_translate_ranks, 93, OTHER, 15)                                                    \
	X(Group_union, 94, OTHER, 15)                                                              \
	X(Group_compare, 95, OTHER, 15)                                                            \
	X(Intercomm_create, 96, OTHER, 15)                                                         \
	X(Intercomm_merge, 97, OTHER, 15)                                                          \
	X(Keyval_free, 98, OTHER, 15)                                                              \
	X(Keyval_create, 99, OTHER, 15)                                                            \
	X(Abort, 100, OTHER, 15)                                                                   \
	X(Error_class, 101, OTHER, 15)                                                             \
	X(Errhandler_create, 102, OTHER, 15)                                                       \
	X(Errhandler_free, 103, OTHER, 15)                                                         \
	X(Errhandler_get, 104, OTHER, 15)                                                          \
	X(Error_string, 105, OTHER, 15)                                                            \
	X(Errhandler_set, 106, OTHER, 15)                                                          \
	X(Get_processor_name, 107, OTHER, 15)                                                      \
	X(Initialized, 108, OTHER, 15)                                                             \
	X(Wtick, 109, OTHER, 15)                                                                   \
	X(Wtime, 110, OTHER, 15)                                                                   \
	X(Address, 111, OTHER, 15)                                                                 \
	X(Bsend_init, 112, PTOP, 15)                                                               \
	X(Buffer_attach, 113, OTHER, 15)                                                           \
	X(Buffer_detach, 114, OTHER, 15)                                                           \
	X(Request_free, 115, OTHER, 15)                                                            \
	X(Recv_init, 116, PTOP, 15)                                                                \
	X(Send_init, 117, PTOP, 15)                                                                \
	X(Get_count, 118, OTHER, 15)                                                               \
	X(Get_elements, 119, OTHER, 15)                                                            \
	X(Pack_size, 120, OTHER, 15)                                                               \
	X(Rsend_init, 121, PTOP, 15)                                                               \
	X(Ssend_init, 122, PTOP, 15)                                                               \
	X(Start, 123, OTHER, 15)                                                                   \
	X(Startall, 124, OTHER, 15)                                                                \
	X(Testall, 125, OTHER, 8)                                                                  \
	X(Testany, 126, OTHER, 8)                                                                  \
	X(Test_cancelled, 127, OTHER, 15)                                                          \
	X(Testsome, 128, OTHER, 8)                                                                 \
	X(Type_commit, 129, OTHER, 15)                                                             \
	X(Type_contiguous, 130, OTHER, 15)                                                         \
	X(Type_extent, 131, OTHER, 15)                                                             \
	X(Type_free, 132, OTHER, 15)                                                               \
	X(Type_hindexed, 133, OTHER, 15)                                                           \
	X(Type_hvector, 134, OTHER, 15)                                                            \
	X(Type_indexed, 135, OTHER, 15)                                                            \
	X(Type_lb, 136, OTHER, 15)                                                                 \
	X(Type_size, 137, OTHER, 15)                                                               \
	X(Type_struct, 138, OTHER, 15)                                                             \
	X(Type_ub, 139, OTHER, 15)                                                                 \
	X(Type_vector, 140, OTHER, 15)                                                             \
	X(File_open, 141, IO, 12)                                                                  \
	X(File_close, 142, IO, 12)                                                                 \
	X(File_read, 143, IO, 12)                                                                  \
	X(File_read_all, 144, IO, 12)                                                              \
	X(File_write, 145, IO, 12)                                                                 \
	X(File_write_all, 146, IO, 12)                                                             \
	X(File_read_at, 147, IO, 12)                                                               \
	X(File_read_at_all, 148, IO, 12)                                                           \
	X(File_write_at, 149, IO, 12)                                                              \
	X(File_write_at_all, 150, IO, 12)                                                          \
	X(Comm_spawn, 151, OTHER, 15)                                                              \
	X(Comm_spawn_multiple, 152, OTHER, 15)                                                     \
	X(Request_get_status, 153, OTHER, 15)                                                      \
	X(Ireduce, 154, COLL, 13)                                                                  \
	X(Iallreduce, 155, COLL, 13)                                                               \
	X(Ibarrier, 156, COLL, 5)                                                                  \
	X(Ibcast, 157, COLL, 13)                                                                   \
	X(Ialltoall, 158, COLL, 13)                                                                \
	X(Ialltoallv, 159, COLL, 13)                                                               \
	X(Iallgather, 160, COLL, 13)                                                               \
	X(Iallgatherv, 161, COLL, 13)                                                              \
	X(Igather, 162, COLL, 13)                                                                  \
	X(Igatherv, 163, COLL, 13)                                                                 \
	X(Iscatter, 164, COLL, 13)                                                                 \
	X(Iscatterv, 165, COLL, 13)                                                                \
	X(Ireduce_scatter, 166, COLL, 13)                                                          \
	X(Iscan, 167, COLL, 13)                                                                    \
	X(Reduce_scatter_block, 168, COLL, 13)                                                     \
	X(Ireduce_scatter_block, 169, COLL, 13)                                                    \
	X(Alltoallw, 170, COLL, 13)                                                                \
	X(Ialltoallw, 171, COLL, 13)                                                               \
	X(Get_accumulate, 172, RMA, 17)                                                            \
	X(Dist_graph_create, 173, OTHER, 15)                                                       \
	X(Neighbor_allgather, 174, COLL, 13)                                                       \
	X(Ineighbor_allgather, 175, COLL, 13)                                                      \
	X(Neighbor_allgatherv, 176, COLL, 13)                                                      \
	X(Ineighbor_allgatherv, 177, COLL, 13)                                                     \
	X(Neighbor_alltoall, 178, COLL, 13)                                                        \
	X(Ineighbor_alltoall, 179, COLL, 13)                                                       \
	X(Neighbor_alltoallv, 180, COLL, 13)                                                       \
	X(Ineighbor_alltoallv, 181, COLL, 13)                                                      \
	X(Neighbor_alltoallw, 182, COLL, 13)                                                       \
	X(Ineighbor_alltoallw, 183, COLL, 13)                                                      \
	X(Fetch_and_op, 184, RMA, 17)                                                              \
	X(Compare_and_swap, 185, RMA, 17)                                                          \
	X(Win_flush, 186, RMA, 15)                                                                 \
	X(Win_flush_all, 187, RMA, 15)                                                             \
	X(Win_flush_local, 188, RMA, 15)                                                           \
	X(Win_flush_local_all, 189, RMA, 15)                                                       \
	X(Mprobe, 190, PTOP, 6)                                                                    \
	X(Improbe, 191, PTOP, 6)                                                                   \
	X(Mrecv, 192, PTOP, 3)                                                                     \
	X(Imrecv, 193, PTOP, 11)                                                                   \
	X(Init_thread, 194, OTHER, 15)                                                             \
	/* paratrace's own numbers */                                                              \
	X(Comm_split_type, 200, OTHER, 15)                                                         \
	X(Comm_dup_with_info, 201, OTHER, 15)                                                      \
	X(Comm_idup, 202, OTHER, 15)                                                               \
	X(Comm_create_group, 203, OTHER, 15)                                                       \
	X(Dist_graph_create_adjacent, 204, OTHER, 15)                                              \
	X(Exscan, 205, COLL, 13)                                                                   \
	X(Iexscan, 206, COLL, 13)                                                                  \
	X(Win_allocate, 207, RMA, 15)                                                              \
	X(Win_allocate_shared, 208, RMA, 15)                                                       \
	X(Win_create_dynamic, 209, RMA, 15)                                                        \
	X(Rput, 210, RMA, 17)                                                                      \
	X(Rget, 211, RMA, 17)                                                                      \
	X(Raccumulate, 212, RMA, 17)                                                               \
	X(Rget_accumulate, 213, RMA, 17)                                                           \
	X(Win_lock_all, 214, RMA, 15)                                                              \
	X(Win_unlock_all, 215, RMA, 15)                                                            \
	X(Win_sync, 216, RMA, 15)                                                                  \
	X(Comm_accept, 217, OTHER, 15)                                                             \
	X(Comm_connect, 218, OTHER, 15)                                                            \
	X(Comm_disconnect, 219, OTHER, 15)                                                         \
	X(Comm_join, 220, OTHER, 15)                                                               \
	X(File_read_shared, 221, IO, 12)                                                           \
	X(File_write_shared, 222, IO, 12)                                                          \
	X(File_iread, 223, IO, 12)                                                                 \
	X(File_iwrite, 224, IO, 12)                                                                \
	X(File_iread_at, 225, IO, 12)                                                              \
	X(File_iwrite_at, 226, IO, 12)                                                             \
	X(File_read_ordered, 227, IO, 12)                                                          \
	X(File_write_ordered, 228, IO, 12)                                                         \
	X(File_set_view, 229, IO, 12)                                                              \
	X(File_sync, 230, IO, 12)                                                                  \
	X(Finalized, 231, OTHER, 15)                                                               \
	X(Query_thread, 232, OTHER, 15)                                                            \
	X(Type_create_struct, 233, OTHER, 15)                                                      \
	X(Type_create_hvector, 234, OTHER, 15)                                                     \
	X(Type_create_hindexed, 235, OTHER, 15)                                                    \
	X(Type_create_resized, 236, OTHER, 15)                                                     \
	X(Type_get_extent, 237, OTHER, 15)                                                         \
	X(Get_address, 238, OTHER, 15)                                                             \
	X(Comm_get_attr, 239, OTHER, 15)                                                           \
	X(Comm_set_errhandler, 240, OTHER, 15)                                                     \
	X(Comm_get_parent, 241, OTHER, 15)                                                         \
	X(Type_create_subarray, 242, OTHER, 15)                                                    \
	X(Type_dup, 243, OTHER, 15)                                                                \
	X(Get_version, 244, OTHER, 15)

enum pt_mpi_call {
	PT_MPI_CALL_NONE = 0,
#define PT_MPI_CALL_ENUM_(name, id, family, state) PT_MPI_CALL_##name = id,
	PT_MPI_CALLS(PT_MPI_CALL_ENUM_)
#undef PT_MPI_CALL_ENUM_
};

#endif /* PARATRACE_MPI_CALLS_H */
