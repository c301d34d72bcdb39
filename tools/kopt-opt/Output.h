//===- Output.h - What kopt-opt writes ------------------------*- C++ -*-===//
#ifndef KOPT_TOOLS_KOPTOPT_OUTPUT_H
#define KOPT_TOOLS_KOPTOPT_OUTPUT_H

#include "kopt/Pass/Remark.h"
#include "kopt/Pipeline/Pipeline.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace kopt {

/// Writes \p Contents to \p Path ('-': stdout) through a temporary file
/// renamed into place, so a failure never leaves a partial output.
llvm::Error writeOutput(llvm::StringRef Path, llvm::StringRef Contents);

/// The --remarks document: the input, the pipeline and every remark
/// (after \p Before, remarks already in the document's form).
std::string remarksDocument(llvm::StringRef File, const Pipeline &P,
                            llvm::ArrayRef<Remark> Remarks,
                            llvm::json::Array Before = {});

} // namespace kopt

#endif // KOPT_TOOLS_KOPTOPT_OUTPUT_H
