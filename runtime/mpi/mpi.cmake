# SPDX-License-Identifier: MIT
# The MPI part of libtrace.so (runtime/mpi/, included by runtime/CMakeLists.txt):
# PT_MPI_SOURCES, its hand-written files and the C and Fortran wrappers
# gen_wrappers.py writes from the table of MPI calls into the build tree.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(pt_mpi_dir ${CMAKE_CURRENT_LIST_DIR})
set(pt_mpi_table ${PT_INCLUDE_DIR}/paratrace/mpi_calls.h)
set(pt_mpi_gen ${CMAKE_CURRENT_BINARY_DIR}/mpi)
file(MAKE_DIRECTORY ${pt_mpi_gen})
add_custom_command(
  OUTPUT ${pt_mpi_gen}/mpi_wrap_c.c ${pt_mpi_gen}/mpi_wrap_fortran.c
  COMMAND ${Python3_EXECUTABLE} ${pt_mpi_dir}/gen_wrappers.py ${pt_mpi_table}
    ${pt_mpi_gen}/mpi_wrap_c.c ${pt_mpi_gen}/mpi_wrap_fortran.c
  DEPENDS ${pt_mpi_dir}/gen_wrappers.py ${pt_mpi_table}
  COMMENT "MPI wrappers from include/paratrace/mpi_calls.h"
  VERBATIM)
file(GLOB PT_MPI_SOURCES CONFIGURE_DEPENDS ${pt_mpi_dir}/*.c)
list(APPEND PT_MPI_SOURCES ${pt_mpi_gen}/mpi_wrap_c.c ${pt_mpi_gen}/mpi_wrap_fortran.c)
set_source_files_properties(${PT_MPI_SOURCES} PROPERTIES
  INCLUDE_DIRECTORIES "${PT_OMPI_INCLUDE_DIRS};${pt_mpi_dir}")
