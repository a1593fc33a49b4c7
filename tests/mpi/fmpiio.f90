! SPDX-License-Identifier: MIT
! MPI I/O in Fortran (mpi_file_open_, mpi_file_write_at_...): the same
! calls and bytes as mpiio.c. Every rank opens one file (the first
! argument), writes 64 bytes at its own offset with MPI_FILE_WRITE_AT and
! 64 more after them with MPI_FILE_IWRITE_AT, reads the first back with
! two MPI_FILE_READ_AT of 32 and MPI_FILE_READ_AT_ALL, the second with
! MPI_FILE_IREAD_AT_ALL, and closes it. Then it opens a second file (the
! second argument) and writes 32 bytes there: Open MPI gives it the
! handle the first had, which names the second file from its open on.
! Prints its calls ("expect ev"), their bytes ("expect call"), the report's
! MPI I/O row ("expect io") and each file's calls and bytes ("expect
! iofile").
program fmpiio
  use mpi
  implicit none
  integer :: ierr, rank, fh, req
  integer :: st(MPI_STATUS_SIZE)
  integer(kind=MPI_OFFSET_KIND) :: at
  integer :: wout(16), win(16)
  double precision :: dout(8), din(8)
  character(len=256) :: fname, fname2
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, fname)
  call get_command_argument(2, fname2)
  wout = rank * 100 + 7
  dout = rank + 0.5d0
  win = 0
  din = 0
  call MPI_File_open(MPI_COMM_WORLD, trim(fname), MPI_MODE_CREATE + MPI_MODE_RDWR, &
                     MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  at = rank * 128
  call MPI_File_write_at(fh, at, wout, 16, MPI_INTEGER, st, ierr)
  call MPI_File_iwrite_at(fh, at + 64, dout, 8, MPI_DOUBLE_PRECISION, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_File_read_at(fh, at, win, 8, MPI_INTEGER, st, ierr)
  call MPI_File_read_at(fh, at + 32, win(9), 8, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_read_at_all(fh, at, win, 16, MPI_INTEGER, st, ierr)
  call MPI_File_iread_at_all(fh, at + 64, din, 8, MPI_DOUBLE_PRECISION, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_File_open(MPI_COMM_WORLD, trim(fname2), MPI_MODE_CREATE + MPI_MODE_WRONLY, &
                     MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  at = rank * 32
  call MPI_File_write_at(fh, at, wout, 8, MPI_INTEGER, st, ierr)
  call MPI_File_close(fh, ierr)
  if (any(win /= wout) .or. any(din /= dout)) then
    write (0, '(A,I0,A)') 'fmpiio: rank ', rank, ' read back other bytes'
    call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
  end if
  write (*, '(A,I0,A)') 'expect ev ', rank, ' 50000005 141 2'
  write (*, '(A,I0,A)') 'expect ev ', rank, ' 50000005 149 2'
  write (*, '(A,I0,A)') 'expect ev ', rank, ' 50000005 147 2'
  write (*, '(A,I0,A)') 'expect ev ', rank, ' 50000005 142 2'
  write (*, '(A,I0,A)') 'expect ev ', rank, ' 50000005 226 1'
  write (*, '(A,I0,A)') 'expect ev ', rank, ' 50000005 148 1'
  write (*, '(A,I0,A)') 'expect ev ', rank, ' 50000005 247 1'
  write (*, '(A,I0,A)') 'expect call ', rank, ' MPI_File_write_at 2 96'
  write (*, '(A,I0,A)') 'expect call ', rank, ' MPI_File_read_at 2 64'
  write (*, '(A,I0,A)') 'expect call ', rank, ' MPI_File_iwrite_at 1 64'
  write (*, '(A,I0,A)') 'expect call ', rank, ' MPI_File_read_at_all 1 64'
  write (*, '(A,I0,A)') 'expect call ', rank, ' MPI_File_iread_at_all 1 64'
  write (*, '(A,I0,A)') 'expect io ', rank, ' 7 192 160'
  write (*, '(A,I0,A,A,A)') 'expect iofile ', rank, ' ', trim(fname), ' 6 192 128'
  write (*, '(A,I0,A,A,A)') 'expect iofile ', rank, ' ', trim(fname2), ' 1 0 32'
  call MPI_Finalize(ierr)
end program
