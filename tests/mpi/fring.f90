! SPDX-License-Identifier: MIT
! A ring in Fortran (mpif.h's and "use mpi"'s entry points, mpi_send_...):
! non-blocking sends and receives completed by MPI_Waitall, blocking
! MPI_Send/MPI_Recv, and an MPI_Allreduce. Prints what it sent and its
! collective.
program fring
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, next, prev, i, n, req(2), total
  integer :: st(MPI_STATUS_SIZE)
  integer :: sbuf(64), rbuf(64)
  integer(kind=8) :: msgs, bytes
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)
  msgs = 0
  bytes = 0
  sbuf = rank
  do i = 1, 6
    n = 1 + mod(i * 5 + rank, 64)
    call MPI_Irecv(rbuf, 64, MPI_INTEGER, prev, 30, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Isend(sbuf, n, MPI_INTEGER, next, 30, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
    msgs = msgs + 1
    bytes = bytes + 4 * n
  end do
  do i = 1, 4
    if (mod(rank, 2) == 0) then
      call MPI_Send(sbuf, 8, MPI_INTEGER, next, 31, MPI_COMM_WORLD, ierr)
      call MPI_Recv(rbuf, 64, MPI_INTEGER, prev, 31, MPI_COMM_WORLD, st, ierr)
    else
      call MPI_Recv(rbuf, 64, MPI_INTEGER, prev, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(sbuf, 8, MPI_INTEGER, next, 31, MPI_COMM_WORLD, ierr)
    end if
    msgs = msgs + 1
    bytes = bytes + 32
  end do
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  write (*, '(A,I0,A,I0,A,I0)') 'expect sent ', rank, ' ', msgs, ' ', bytes
  ! one MPI_Allreduce of one INTEGER: 4 bytes given, 4 got
  write (*, '(A,I0,A)') 'expect coll ', rank, ' 1 4 4'
  call MPI_Finalize(ierr)
end program
