//===- PassFactory.cpp - Build passes by registry name --------------------===//

#include "kopt/Pipeline/Pass.h"

#include "llvm/Support/ErrorHandling.h"

namespace kopt {

#define KOPT_PASS(NAME, CLASS, SUMMARY) std::unique_ptr<Pass> create##CLASS();
#include "Passes.def"

std::unique_ptr<Pass> createPass(llvm::StringRef Name) {
#define KOPT_PASS(NAME, CLASS, SUMMARY)                                        \
  if (Name == NAME)                                                            \
    return create##CLASS();
#include "Passes.def"
  llvm::report_fatal_error("createPass: unregistered pass '" + Name + "'");
}

} // namespace kopt
