# SPDX-License-Identifier: MIT
# The MPI part of libtrace.so (runtime/mpi/, included by runtime/CMakeLists.txt;
# mpi_abi.h says how it is made):
#   PT_MPI_SOURCES      what is compiled once, without mpi.h: mpi_job.c and
#                       the exported entry points (mpi_dispatch.S, generated)
#   pt_mpi_halves()     one object per MPI ABI found (Open MPI's always;
#                       MPICH's where its mpi.h is installed): every other
#                       file of runtime/mpi/ and the C and Fortran wrappers
#                       gen_wrappers.py writes from the table of MPI calls,
#                       compiled against that ABI's mpi.h and linked into one
#                       relocatable object whose hidden names are made local,
#                       so that the halves' names never clash in libtrace.so.
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
add_custom_command(
  OUTPUT ${pt_mpi_gen}/mpi_dispatch.S
  COMMAND ${Python3_EXECUTABLE} ${pt_mpi_dir}/gen_wrappers.py --dispatch ${pt_mpi_table}
    ${pt_mpi_gen}/mpi_dispatch.S
  DEPENDS ${pt_mpi_dir}/gen_wrappers.py ${pt_mpi_table}
  COMMENT "MPI entry points from include/paratrace/mpi_calls.h"
  VERBATIM)

# MPICH's mpi.h, beside Open MPI's (Debian's libmpich-dev: pkg-config mpich,
# looked for in cmake/features.cmake).
set(pt_mpich_default OFF)
if(PT_MPICH_FOUND)
  set(pt_mpich_default ON)
endif()
option(PT_WITH_MPICH "MPI tracing of programs on MPICH-ABI libraries (MPICH's mpi.h)"
  ${pt_mpich_default})
if(PT_WITH_MPICH AND NOT PT_MPICH_FOUND)
  message(FATAL_ERROR "PT_WITH_MPICH is ON but MPICH's mpi.h was not found (pkg-config mpich): "
    "install libmpich-dev (scripts/deps.sh) or configure with -DPT_WITH_MPICH=OFF")
endif()
if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  message(FATAL_ERROR "the MPI part's entry points (mpi_dispatch.S) are written for x86-64: "
    "configure with -DPT_WITH_MPI=OFF")
endif()
set(PT_MPI_ABIS ompi)
set(pt_mpi_abis_built "Open MPI")
if(PT_WITH_MPICH)
  list(APPEND PT_MPI_ABIS mpich)
  set(pt_mpi_abis_built "Open MPI, MPICH")
  message(STATUS "PT_WITH_MPICH: ON (MPI tracing of MPICH-ABI libraries, ${PT_MPICH_INCLUDE_DIRS})")
else()
  message(STATUS "PT_WITH_MPICH: OFF (MPICH's mpi.h not found: libmpich-dev; programs on "
    "MPICH-ABI libraries get their MPI calls passed on untraced)")
endif()
set(PT_MPI_INCLUDE_ompi ${PT_OMPI_INCLUDE_DIRS})
set(PT_MPI_INCLUDE_mpich ${PT_MPICH_INCLUDE_DIRS})

file(GLOB pt_mpi_half_sources CONFIGURE_DEPENDS ${pt_mpi_dir}/*.c)
list(REMOVE_ITEM pt_mpi_half_sources ${pt_mpi_dir}/mpi_job.c)
list(APPEND pt_mpi_half_sources ${pt_mpi_gen}/mpi_wrap_c.c ${pt_mpi_gen}/mpi_wrap_fortran.c)
set(PT_MPI_SOURCES ${pt_mpi_dir}/mpi_job.c ${pt_mpi_gen}/mpi_dispatch.S)
set_source_files_properties(${pt_mpi_dir}/mpi_job.c PROPERTIES
  COMPILE_DEFINITIONS "PT_MPI_ABIS_BUILT=\"${pt_mpi_abis_built}\"")

# pt_mpi_halves(target): each ABI's half compiled (with the runtime's
# options, pt_runtime_setup) and linked into target.
function(pt_mpi_halves target)
  foreach(abi ${PT_MPI_ABIS})
    set(lib pt_mpi_${abi})
    add_library(${lib} OBJECT ${pt_mpi_half_sources})
    pt_runtime_setup(${lib})
    target_include_directories(${lib} PRIVATE ${PT_MPI_INCLUDE_${abi}} ${pt_mpi_dir})
    target_compile_definitions(${lib} PRIVATE "PT_MPI_ABIS_BUILT=\"${pt_mpi_abis_built}\"")
    set(half ${pt_mpi_gen}/mpi_half_${abi}.o)
    add_custom_command(OUTPUT ${half}
      COMMAND ${CMAKE_LINKER} -r -o ${half}.r $<TARGET_OBJECTS:${lib}>
      COMMAND ${CMAKE_OBJCOPY} --localize-hidden ${half}.r ${half}
      DEPENDS ${lib} $<TARGET_OBJECTS:${lib}>
      COMMENT "MPI half ${abi}: one object, its hidden names local"
      COMMAND_EXPAND_LISTS VERBATIM)
    target_sources(${target} PRIVATE ${half})
  endforeach()
endfunction()
