//===- BuiltinPasses.h - kopt's own passes ----------------------*- C++ -*-===//
//
// The registry of the passes in passes/, built from passes/Passes.def. Tools
// hand it to the pipeline parser; nothing under lib/ depends on it.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_BUILTINPASSES_H
#define KOPT_PASSES_BUILTINPASSES_H

#include "kopt/Pass/PassRegistry.h"

namespace kopt {

const PassRegistry &builtinPasses();

} // namespace kopt

#endif // KOPT_PASSES_BUILTINPASSES_H
