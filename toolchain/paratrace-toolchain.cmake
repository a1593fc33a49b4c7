# SPDX-License-Identifier: MIT
# CMake toolchain file: build a project with paratrace's compiler wrappers.
#   cmake -DCMAKE_TOOLCHAIN_FILE=<prefix>/share/paratrace/cmake/paratrace-toolchain.cmake \
#         [-DPARATRACE_INSTRUMENT_ARGS="exclude=^std::;min-size=10"] ...
# Every C and C++ source of the project is then compiled with instrument.so.
# PARATRACE_INSTRUMENT_ARGS: ;-separated KEY=VALUE options of the plugin
# (docs/PLUGIN.md), passed as --paratrace-arg=..., which the wrappers drop
# from link commands.
# Lives in <prefix>/share/paratrace/cmake (installed) or
# <build>/share/paratrace/cmake (build tree); the wrappers are in ../../../bin.
get_filename_component(_pt_bin "${CMAKE_CURRENT_LIST_DIR}/../../../bin" ABSOLUTE)
if(NOT EXISTS "${_pt_bin}/paratrace-cc")
  message(FATAL_ERROR "paratrace toolchain: no paratrace-cc in ${_pt_bin}")
endif()
set(CMAKE_C_COMPILER "${_pt_bin}/paratrace-cc")
set(CMAKE_CXX_COMPILER "${_pt_bin}/paratrace-c++")
# try_compile projects get the same setting.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES PARATRACE_INSTRUMENT_ARGS)
if(PARATRACE_INSTRUMENT_ARGS)
  foreach(_pt_arg IN LISTS PARATRACE_INSTRUMENT_ARGS)
    string(APPEND CMAKE_C_FLAGS_INIT " \"--paratrace-arg=${_pt_arg}\"")
    string(APPEND CMAKE_CXX_FLAGS_INIT " \"--paratrace-arg=${_pt_arg}\"")
  endforeach()
endif()
