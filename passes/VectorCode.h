//===- VectorCode.h - Text of a vectorized element computation -*- C++ -*-===//
//
// vectorize-loads writes a vectorized loop or kernel around the element
// computation of a VectorPlan: W elements loaded as one carrier each, the
// original body run once per element on the carriers, the written carriers
// stored back; the run-time alignment check that chooses it; and the
// remark's list of what was vectorized.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_VECTORCODE_H
#define KOPT_PASSES_VECTORCODE_H

#include "kopt/Analysis/ElementwiseLoop.h"
#include "kopt/Pass/Pass.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace kopt {

/// The code that loads the carriers, runs Body once per element and stores
/// the carriers back. VectorIndex names the vector (in elements / W).
/// Start names the first element of the range (empty for 0). Sets
/// BodyError (and returns "") where part of it is written in a macro.
std::string vectorCode(PassContext &Ctx, const ElementRegion &R,
                       const VectorPlan &P, llvm::StringRef VectorIndex,
                       llvm::StringRef IndexType, llvm::StringRef Indent,
                       std::string &BodyError, llvm::StringRef Start = "");

/// `reinterpret_cast<unsigned long long>(p) % 16 == 0 && ...` for every
/// pointer of P not known to be aligned; empty when all are.
std::string alignmentCheck(const VectorPlan &P,
                           const std::string &ContinuationIndent);

/// "'x' as float4 (4 x float), ..." for a remark.
std::string describeVectors(const VectorPlan &P);

} // namespace kopt

#endif // KOPT_PASSES_VECTORCODE_H
