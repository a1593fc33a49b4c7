! SPDX-License-Identifier: MIT
! Collectives across an intercommunicator in Fortran ("use mpi"; run with
! 4 ranks): the even and the odd world ranks, world rank 0 broadcasts 10
! integers to the odd ranks (MPI_ROOT; rank 2 passes MPI_PROC_NULL), the
! even ranks reduce 2 integers into world rank 1 (MPI_ROOT; rank 3
! MPI_PROC_NULL). Prints its collectives, the bytes it gave and got and
! the roots it was ("expect coll", "expect ev"), and the world ranks of the
! members of the communicators it made ("expect comm": the split half's,
! then the intercommunicator's local|remote groups), which the trace's
! descriptions of them must list.
program fcomms
  use mpi
  implicit none
  integer :: ierr, rank, nranks, color, lr, local, inter, broot, rroot, calls, given, got, roots, i
  character(len=512) :: mine, other
  integer :: buf(10), sin(2), sout(2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
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
  ! the split keeps world order (key: the world rank) in each half
  mine = ''
  other = ''
  do i = 0, nranks - 1
    if (mod(i, 2) == color) then
      call append(mine, i)
    else
      call append(other, i)
    end if
  end do
  write (*, '(A,I0,A,A)') 'expect comm ', rank, ' ', trim(mine)
  write (*, '(A,I0,A,A,A,A)') 'expect comm ', rank, ' ', trim(mine), '|', trim(other)
  call MPI_Finalize(ierr)
contains
  subroutine append(list, r)
    character(len=*), intent(inout) :: list
    integer, intent(in) :: r
    character(len=16) :: num
    write (num, '(I0)') r
    if (len_trim(list) > 0) list = trim(list)//','
    list = trim(list)//trim(num)
  end subroutine
end program
