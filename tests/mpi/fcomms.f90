! SPDX-License-Identifier: MIT
! Collectives across an intercommunicator in Fortran ("use mpi"; run with
! 4 ranks): the even and the odd world ranks, world rank 0 broadcasts 10
! integers to the odd ranks (MPI_ROOT; rank 2 passes MPI_PROC_NULL), the
! even ranks reduce 2 integers into world rank 1 (MPI_ROOT; rank 3
! MPI_PROC_NULL). Prints its collectives, the bytes it gave and got and
! the roots it was ("expect coll", "expect ev").
program fcomms
  use mpi
  implicit none
  integer :: ierr, rank, color, lr, local, inter, broot, rroot, calls, given, got, roots
  integer :: buf(10), sin(2), sout(2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  color = mod(rank, 2)
  call MPI_Comm_split(MPI_COMM_WORLD, color, rank, local, ierr)
  call MPI_Comm_rank(local, lr, ierr)
  call MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 99, inter, ierr)
  calls = 2
  given = 0
  got = 0
  roots = 0
  buf = rank
  if (color == 1) then
    broot = 0
    got = got + 40
  else if (lr == 0) then
    broot = MPI_ROOT
    given = given + 40
    roots = roots + 1
  else
    broot = MPI_PROC_NULL
  end if
  call MPI_Bcast(buf, 10, MPI_INTEGER, broot, inter, ierr)
  sin = 1
  if (color == 0) then
    rroot = 0
    given = given + 8
  else if (lr == 0) then
    rroot = MPI_ROOT
    got = got + 8
    roots = roots + 1
  else
    rroot = MPI_PROC_NULL
  end if
  call MPI_Reduce(sin, sout, 2, MPI_INTEGER, MPI_SUM, rroot, inter, ierr)
  call MPI_Comm_free(inter, ierr)
  call MPI_Comm_free(local, ierr)
  write (*, '(A,I0,A)') 'expect sent ', rank, ' 0 0'
  write (*, '(A,I0,A,I0,A,I0,A,I0)') 'expect coll ', rank, ' ', calls, ' ', given, ' ', got
  write (*, '(A,I0,A,I0)') 'expect ev ', rank, ' 50100003 1 ', roots
  call MPI_Finalize(ierr)
end program
