# Finds kopt's dependencies. LLVM/Clang only when KOPT_ENABLE_CLANG is ON;
# nlohmann/json and the CUDA toolkit are optional here and checked by the
# parts that use them.

find_package(Threads REQUIRED)

# nlohmann/json: the Debian package ships a CMake config; a GPU host without
# it can point KOPT_NLOHMANN_JSON_INCLUDE_DIR at a carried json.hpp tree.
find_package(nlohmann_json 3.2 CONFIG QUIET)
if(NOT TARGET nlohmann_json::nlohmann_json)
  find_path(KOPT_NLOHMANN_JSON_INCLUDE_DIR nlohmann/json.hpp)
  if(KOPT_NLOHMANN_JSON_INCLUDE_DIR)
    add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
    set_target_properties(nlohmann_json::nlohmann_json PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES ${KOPT_NLOHMANN_JSON_INCLUDE_DIR})
  endif()
endif()

# The fuzz build (KOPT_FUZZ) fuzzes host code only.
if(NOT KOPT_FUZZ)
  find_package(CUDAToolkit QUIET)
endif()

# The evaluator's own kernels (lib/Eval/Device/DeviceData.cu: inputs and
# comparisons on the GPU) need nvcc. Shared cudart: kopt-bench, the reference
# and the candidates (built with -cudart shared) share one runtime. SASS for
# the common GPUs and PTX for later ones.
if(TARGET CUDA::cudart)
  if(NOT CMAKE_CUDA_COMPILER AND CUDAToolkit_NVCC_EXECUTABLE)
    set(CMAKE_CUDA_COMPILER ${CUDAToolkit_NVCC_EXECUTABLE})
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "80-real;90-real;100-real;120-real;120-virtual")
    endif()
    set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    enable_language(CUDA)
  endif()
endif()

find_package(GTest CONFIG QUIET)

if(KOPT_ENABLE_CLANG)
  include(KoptLLVM)
endif()
