//===- HeaderPackages.h - Which package provides a missing header -*- C++ -*-//
//
// A file that includes a library header the machine lacks (omp.h, mpi.h)
// does not parse; the error names the package that provides the header, so
// the fix is one install away.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_FRONTEND_HEADERPACKAGES_H
#define KOPT_FRONTEND_HEADERPACKAGES_H

#include "llvm/ADT/StringRef.h"

namespace kopt {

/// "the Debian package libomp-22-dev" for "omp.h"; empty when unknown.
llvm::StringRef packageProvidingHeader(llvm::StringRef Header);

} // namespace kopt

#endif // KOPT_FRONTEND_HEADERPACKAGES_H
