# kopt_tidy(TARGET [ARGS ...]): run kopt-tidy over TARGET's CUDA sources as
# part of the build, with the compile commands CMake exports. Warnings print
# in the build log; add ARGS --warnings-as-errors=* to fail the build on
# them. Needs CMAKE_EXPORT_COMPILE_COMMANDS ON (set here) and kopt-tidy on
# PATH or in KOPT_TIDY. See docs/kopt-tidy.md.
#
#   include(/path/to/kopt/cmake/KoptTidy.cmake)
#   add_library(kernels kernels.cu)
#   kopt_tidy(kernels)

set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
find_program(KOPT_TIDY kopt-tidy DOC "kopt-tidy")

function(kopt_tidy target)
  if(NOT KOPT_TIDY)
    message(FATAL_ERROR "kopt_tidy(${target}): kopt-tidy not found; "
      "set KOPT_TIDY to its path")
  endif()
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  set(cuda_sources)
  foreach(src IN LISTS sources)
    if(src MATCHES "\\.cu$")
      get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${dir}")
      list(APPEND cuda_sources "${abs}")
    endif()
  endforeach()
  if(NOT cuda_sources)
    return()
  endif()
  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/${target}.kopt-tidy.stamp")
  add_custom_command(OUTPUT "${stamp}"
    COMMAND "${KOPT_TIDY}" -p "${CMAKE_BINARY_DIR}" --quiet ${ARGN}
            ${cuda_sources}
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS ${cuda_sources}
    COMMENT "kopt-tidy: checking ${target}"
    VERBATIM)
  add_custom_target(${target}-kopt-tidy ALL DEPENDS "${stamp}")
endfunction()
