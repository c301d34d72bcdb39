//===- HeaderPackages.cpp - Which package provides a missing header -------===//
#include "kopt/Frontend/HeaderPackages.h"

#include "llvm/ADT/StringSwitch.h"

namespace kopt {

llvm::StringRef packageProvidingHeader(llvm::StringRef Header) {
  return llvm::StringSwitch<llvm::StringRef>(Header)
      // Clang's own OpenMP headers, for the LLVM 22 kopt is built with.
      .Case("omp.h", "the Debian package libomp-22-dev")
      .Case("mpi.h", "an MPI implementation's headers (Debian: "
                     "mpi-default-dev or libopenmpi-dev)")
      .Case("Python.h", "the Debian package python3-dev")
      .Case("zlib.h", "the Debian package zlib1g-dev")
      .Case("nccl.h", "NVIDIA's NCCL (libnccl-dev; not part of the CUDA "
                      "toolkit)")
      .Case("cudnn.h", "NVIDIA's cuDNN (not part of the CUDA toolkit)")
      .Default("");
}

} // namespace kopt
