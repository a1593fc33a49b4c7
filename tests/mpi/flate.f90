! SPDX-License-Identifier: MIT
! A send completed long after it started, in Fortran (2 ranks): rank 0
! sends 4 MB with MPI_Isend that rank 1 receives only after a pause, and
! completes it with an MPI_Wait given no receive (tests/otf2: its
! MpiIsendComplete is in that MPI_Wait). Prints what it sent.
program flate
  use mpi
  implicit none
  integer, parameter :: n = 1048576
  integer :: ierr, rank, req
  integer, allocatable :: buf(:)
  integer(kind=8) :: t0, t, rate
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  allocate(buf(n))
  buf = 0
  if (rank == 0) then
    call MPI_Isend(buf, n, MPI_INTEGER, 1, 40, MPI_COMM_WORLD, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    write (*, '(A,I0,A,I0)') 'expect sent 0 1 ', 4 * n
  else
    call system_clock(t0, rate)
    t = t0
    do while (t - t0 < rate / 10)
      call system_clock(t)
    end do
    call MPI_Recv(buf, n, MPI_INTEGER, 0, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    write (*, '(A,I0,A)') 'expect sent ', rank, ' 0 0'
  end if
  deallocate(buf)
  call MPI_Finalize(ierr)
end program flate
