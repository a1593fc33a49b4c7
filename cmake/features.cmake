# SPDX-License-Identifier: MIT
# The parts of the runtime that need an optional library. Each PT_WITH_*
# option defaults to whether that library (or, for libpfm4, CUPTI and
# OpenCL, its headers) was found; OFF leaves the part out of libtrace.so altogether
# (its sources are not compiled, its headers not included) and its tests
# out of the test suite. ON with the library missing is an error.
find_package(PkgConfig)
if(PkgConfig_FOUND)
  pkg_check_modules(PT_LIBUNWIND IMPORTED_TARGET libunwind)
  # Open MPI's C binding: mpi.h for the MPI part of libtrace.so (types
  # only: it never links libmpi), libmpi for paratrace's analyzer plugin.
  pkg_check_modules(PT_OMPI IMPORTED_TARGET ompi-c)
  # The OTF2 library's writer: paratrace export --format otf2.
  pkg_check_modules(PT_OTF2LIB IMPORTED_TARGET otf2)
  # MPICH's, beside it (Debian's libmpich-dev): its mpi.h for the MPICH
  # half of the MPI part (runtime/mpi/mpi.cmake, PT_WITH_MPICH), libmpich
  # for the analyzer's plugin under MPICH's mpiexec.
  pkg_check_modules(PT_MPICH IMPORTED_TARGET mpich)
endif()
# Headers only: counters.c loads libpfm.so.4 with dlopen when counters are
# asked for (a run without it warns and goes on).
find_path(PT_LIBPFM_INCLUDE perfmon/pfmlib.h)
find_path(PT_OPENCL_INCLUDE CL/cl.h)
# Headers only: CUPTI is dlopen'ed at run time when the program uses CUDA.
find_path(PT_CUPTI_INCLUDE cupti.h PATHS /usr/local/cuda/include)

set(PT_UNWIND_FOUND ${PT_LIBUNWIND_FOUND})
if(PT_LIBPFM_INCLUDE)
  set(PT_PFM_FOUND TRUE)
endif()
if(PT_OPENCL_INCLUDE)
  set(PT_OPENCL_FOUND TRUE)
endif()
if(PT_CUPTI_INCLUDE)
  set(PT_CUPTI_FOUND TRUE)
endif()

# pt_feature(OPTION FOUND_VAR "what it is" "what it needs")
function(pt_feature option found doc needs)
  if(${found})
    set(default ON)
  else()
    set(default OFF)
  endif()
  option(${option} "${doc}" ${default})
  if(${option} AND NOT ${found})
    message(FATAL_ERROR "${option} is ON but ${needs} was not found: install it "
      "(scripts/deps.sh) or configure with -D${option}=OFF")
  endif()
  message(STATUS "${option}: ${${option}} (${doc})")
endfunction()

pt_feature(PT_WITH_UNWIND PT_UNWIND_FOUND "call stacks and sampling, through libunwind" "libunwind")
pt_feature(PT_WITH_PFM PT_PFM_FOUND "performance counters, through libpfm4 (headers only)"
  "perfmon/pfmlib.h")
pt_feature(PT_WITH_OPENCL PT_OPENCL_FOUND "OpenCL tracing (headers only)" "CL/cl.h")
pt_feature(PT_WITH_CUPTI PT_CUPTI_FOUND "CUDA tracing through CUPTI (headers only)" "cupti.h")
set(PT_MPI_FOUND ${PT_OMPI_FOUND})
pt_feature(PT_WITH_MPI PT_MPI_FOUND
  "MPI tracing (Open MPI's mpi.h; libmpi is looked up at run time) and the analyzer under mpirun"
  "Open MPI (libopenmpi-dev)")
set(PT_OTF2_FOUND ${PT_OTF2LIB_FOUND})
pt_feature(PT_WITH_OTF2 PT_OTF2_FOUND "export --format otf2, through the OTF2 library"
  "the OTF2 library (libopen-trace-format2-dev)")
