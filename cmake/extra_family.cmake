# SPDX-License-Identifier: MIT
# A family of records built outside the product (an experiment, tests/toy/):
# its own libtrace and paratrace, beside the product's, which stay as they
# are. A family is one folder holding
#   <name>_format.h   its record kinds (PT_REC_ROWS_EXTRA, in
#                     PT_REC_RANGE_EXTRA), payloads and dump fields
#   <name>_runtime.c  its wrappers (PT_EXPORT) and its PT_SUBSYSTEM
#   <name>_family.c   its analyzer descriptor, `const pt_family pt_family_<name>`
# and a CMakeLists.txt that calls
#   pt_add_extra_family(<name> EXPORTS symbol...)
# which makes, from the objects the product's own targets compile,
#   trace_<name>      lib/libtrace-<name>.so: libtrace.so's objects, the
#                     family's wrappers, and libtrace.map with the EXPORTS
#                     added
#   paratrace_<name>  bin/paratrace-<name>: paratrace's libraries with the
#                     family last in its table of families, and the files
#                     that read the record schema (the reader, dump's field
#                     tables) compiled with its rows
# Not in a sanitizer build: libtrace's objects are instrumented there.
function(pt_add_extra_family name)
  cmake_parse_arguments(ARG "" "" "EXPORTS" ${ARGN})
  if(PT_SANITIZE_FLAGS)
    return()
  endif()
  set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  # what runtime/CMakeLists.txt's pt_runtime_setup reads from its caller
  set(PT_RUNTIME_DIR ${PROJECT_SOURCE_DIR}/runtime)
  set(format PT_FORMAT_EXTRA="${name}_format.h")

  # libtrace-<name>.so; its version script is libtrace.map's, with the
  # family's symbols among the names it keeps
  file(READ ${PT_RUNTIME_DIR}/libtrace.map map)
  string(JOIN "; " exports ${ARG_EXPORTS})
  string(REPLACE "  local:" "    /* ${name} */\n    ${exports};\n  local:" map "${map}")
  set(map_file ${CMAKE_CURRENT_BINARY_DIR}/libtrace-${name}.map)
  file(WRITE ${map_file} "${map}")
  add_library(trace_${name} SHARED ${dir}/${name}_runtime.c)
  # the object libraries' objects, and the libraries they need
  target_link_libraries(trace_${name} PRIVATE pt_core_obj pt_runtime_obj)
  if(TARGET pt_gpu_obj)
    target_link_libraries(trace_${name} PRIVATE pt_gpu_obj)
  endif()
  pt_runtime_setup(trace_${name})
  target_include_directories(trace_${name} PRIVATE ${dir})
  target_compile_definitions(trace_${name} PRIVATE ${format})
  target_link_options(trace_${name} PRIVATE -Wl,--version-script=${map_file}
    -Wl,-z,now -Wl,-z,nodelete -Wl,--no-undefined)
  set_target_properties(trace_${name} PROPERTIES OUTPUT_NAME trace-${name}
    LINK_DEPENDS ${map_file} LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)

  # paratrace-<name>: the CLI's sources (dump's field tables among them),
  # the reader and the table of families compiled again, with the family
  set(cli ${PROJECT_SOURCE_DIR}/analyzer/cli)
  get_target_property(cli_sources paratrace SOURCES) # the product's own list
  add_executable(paratrace_${name} ${cli_sources}
    ${PROJECT_SOURCE_DIR}/analyzer/reader/pt_log.c
    ${PROJECT_SOURCE_DIR}/analyzer/reader/pt_trace.c
    ${PROJECT_SOURCE_DIR}/analyzer/families/families.c
    ${dir}/${name}_family.c)
  # and the definitions the product gives single files of it (main.c's
  # version and parts, analyzer/cli/CMakeLists.txt), properties of its folder
  foreach(src ${cli_sources})
    get_property(defs SOURCE ${src} DIRECTORY ${cli} PROPERTY COMPILE_DEFINITIONS)
    if(defs)
      set_property(SOURCE ${src} PROPERTY COMPILE_DEFINITIONS ${defs})
    endif()
  endforeach()
  target_include_directories(paratrace_${name} PRIVATE ${dir} ${cli}
    ${PROJECT_SOURCE_DIR}/analyzer/reader)
  target_compile_definitions(paratrace_${name} PRIVATE ${format} PT_FAMILY_EXTRA=${name}
    $<TARGET_PROPERTY:paratrace,COMPILE_DEFINITIONS>)
  get_property(cli_libs GLOBAL PROPERTY PT_CLI_LIBS)
  target_link_libraries(paratrace_${name} PRIVATE ${cli_libs} ptsym ptlog_static)
  set_target_properties(paratrace_${name} PROPERTIES OUTPUT_NAME paratrace-${name}
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
endfunction()
