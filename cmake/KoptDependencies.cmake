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

find_package(CUDAToolkit QUIET)

find_package(GTest CONFIG QUIET)

if(KOPT_ENABLE_CLANG)
  include(KoptLLVM)
endif()
