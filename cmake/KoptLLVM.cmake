# Finds LLVM/Clang 22 and defines kopt_add_clang_tool().
#
# Debian installs LLVM 22 under /usr/lib/llvm-22; it is searched without any
# flag. Everyday builds link the shared libLLVM/libclang-cpp (fast links);
# KOPT_STATIC_TOOLS=ON links the static component libraries instead.

# LLVM's version file accepts only an exact major.minor; check the major here.
find_package(LLVM REQUIRED CONFIG
  HINTS /usr/lib/llvm-22/lib/cmake/llvm)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "kopt needs LLVM/Clang 22, found ${LLVM_PACKAGE_VERSION} "
    "at ${LLVM_DIR}; set LLVM_DIR to /usr/lib/llvm-22/lib/cmake/llvm")
endif()
find_package(Clang REQUIRED CONFIG HINTS ${LLVM_DIR}/../clang)
message(STATUS "kopt: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

# LLVM_DEFINITIONS is one string; split it or -D flags get mangled.
separate_arguments(KOPT_LLVM_DEFINITIONS NATIVE_COMMAND ${LLVM_DEFINITIONS})

# Clang's builtin headers (CUDA wrappers among them) for the frontend.
set(KOPT_CLANG_RESOURCE_DIR
  "${LLVM_LIBRARY_DIR}/clang/${LLVM_VERSION_MAJOR}" CACHE PATH
  "Clang resource directory used when none is found next to the tool")

# MLIR's Presburger library (libmlir-22-dev) answers the analysis's integer
# set questions. It is a static archive with no strong LLVM symbols of its
# own, so it links beside the shared libLLVM; MLIR's CMake package is not
# used because it insists on mlir-22-tools' executables.
find_library(KOPT_MLIR_PRESBURGER_LIB MLIRPresburger
  HINTS ${LLVM_LIBRARY_DIR} NO_DEFAULT_PATH)
if(NOT KOPT_MLIR_PRESBURGER_LIB)
  message(FATAL_ERROR "kopt needs MLIR's Presburger library "
    "(libMLIRPresburger.a): install libmlir-22-dev (scripts/install-deps)")
endif()
if(NOT EXISTS "${LLVM_INCLUDE_DIRS}/mlir/Analysis/Presburger/IntegerRelation.h")
  message(FATAL_ERROR "kopt needs MLIR's headers: install libmlir-22-dev")
endif()

# One interface target carrying LLVM/Clang include paths, definitions and libs.
add_library(kopt_llvm INTERFACE)
target_include_directories(kopt_llvm SYSTEM INTERFACE
  ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
target_compile_definitions(kopt_llvm INTERFACE ${KOPT_LLVM_DEFINITIONS})
if(NOT LLVM_ENABLE_RTTI)
  target_compile_options(kopt_llvm INTERFACE -fno-rtti)
endif()

if(KOPT_STATIC_TOOLS)
  set(KOPT_CLANG_STATIC_LIBS
    clangTooling clangFrontend clangDriver clangSerialization clangParse
    clangSema clangAnalysis clangEdit clangAST clangASTMatchers clangLex
    clangBasic clangRewrite clangToolingCore clangAPINotes clangSupport
    clangToolingInclusions clangFormat clangToolingInclusionsStdlib
    clangOptions clangAnalysisLifetimeSafety clangAnalysisFlowSensitive)
  set(KOPT_STATIC_LIB_PATHS)
  foreach(lib ${KOPT_CLANG_STATIC_LIBS})
    set(path "${LLVM_LIBRARY_DIR}/lib${lib}.a")
    if(EXISTS "${path}")
      list(APPEND KOPT_STATIC_LIB_PATHS "${path}")
    endif()
  endforeach()
  find_program(KOPT_LLVM_CONFIG llvm-config HINTS ${LLVM_TOOLS_BINARY_DIR} REQUIRED)
  execute_process(COMMAND ${KOPT_LLVM_CONFIG} --link-static --libs
    OUTPUT_VARIABLE llvm_static_libs OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${KOPT_LLVM_CONFIG} --link-static --system-libs
    OUTPUT_VARIABLE llvm_system_libs OUTPUT_STRIP_TRAILING_WHITESPACE)
  separate_arguments(llvm_static_libs NATIVE_COMMAND "${llvm_static_libs}")
  separate_arguments(llvm_system_libs NATIVE_COMMAND "${llvm_system_libs}")
  # Polly is a plugin of opt, not of a parser; dropping it avoids its deps.
  list(FILTER llvm_static_libs EXCLUDE REGEX "Polly")
  target_link_directories(kopt_llvm INTERFACE ${LLVM_LIBRARY_DIR})
  target_link_libraries(kopt_llvm INTERFACE
    -Wl,--start-group ${KOPT_STATIC_LIB_PATHS} ${KOPT_MLIR_PRESBURGER_LIB}
    ${llvm_static_libs} -Wl,--end-group
    ${llvm_system_libs} -static-libstdc++ -static-libgcc)
else()
  target_link_libraries(kopt_llvm INTERFACE ${KOPT_MLIR_PRESBURGER_LIB}
    clang-cpp LLVM)
endif()
