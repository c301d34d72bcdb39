//===- ParseHelper.h - Parse CUDA snippets in unit tests --------*- C++ -*-===//

#ifndef KOPT_UNITTESTS_PARSEHELPER_H
#define KOPT_UNITTESTS_PARSEHELPER_H

#include "kopt/Frontend/CudaFrontend.h"

namespace kopt {

/// A frontend with the resource directory kopt was configured with.
inline CudaFrontend testFrontend() {
  FrontendOptions Opts;
  Opts.ResourceDir = KOPT_CLANG_RESOURCE_DIR;
  return CudaFrontend(Opts);
}

} // namespace kopt

#endif // KOPT_UNITTESTS_PARSEHELPER_H
