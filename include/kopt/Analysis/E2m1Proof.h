//===- E2m1Proof.h - Is a helper exactly float -> e2m1? ---------*- C++ -*-===//
//
// NVFP4 kernels written before Blackwell round floats to e2m1 with a
// hand-written helper. The proof interprets the helper on one float of each
// cell of a partition of all floats (by the constants the helper compares
// with and the midpoints of the e2m1 grid), on each of which both the helper
// and the reference are constant, and compares it with round-to-nearest-even
// e2m1 with satfinite (what __nv_cvt_float2_to_fp4x2 computes).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_E2M1PROOF_H
#define KOPT_ANALYSIS_E2M1PROOF_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

#include <cstddef>
#include <optional>
#include <string>

namespace kopt {

/// What __nv_cvt_float_to_fp4(X, __NV_E2M1, cudaRoundNearest) returns.
int e2m1Reference(float X);

/// What the proof found about a helper.
struct E2m1Verdict {
  std::string Why; ///< empty when the helper is recognized
  /// The helper encodes -0.0 as +0 (sign from `x < 0`): the wrapper passes
  /// x + 0.0f to the intrinsic.
  bool NegZeroIsPositive = false;
  /// The helper encodes a NaN with the sign bit set as 0xF: the wrapper sets
  /// the sign bit for it (exact-nan=true).
  bool NegNaNKeepsSign = false;
  /// With exact-nan=false: some NaN encodes differently from the intrinsic.
  bool NaNDiffers = false;
  size_t Cells = 0;
};

/// Proves Helper equal to the intrinsic on every float, or says where not.
/// With ExactNaN false, NaN inputs are not compared.
E2m1Verdict proveE2m1Helper(const clang::FunctionDecl *Helper,
                            clang::ASTContext &AC, bool ExactNaN);

/// One float argument, an integer (not bool) result.
bool isFloatToInteger(const clang::FunctionDecl *FD);

/// True when Arch has the e2m1x2 conversion instruction: the family-specific
/// targets sm_100a/f to sm_12xa/f (cuda_fp8.h's
/// __CUDA_FP8_INTERNAL_CAN_RELY_ON_PTX_FOR_SHORTTYPESCVT__). std::nullopt if
/// Arch is not of the form sm_N[a|f].
std::optional<bool> hasE2m1Instruction(llvm::StringRef Arch);

/// Whether a function looks like a hand-written float -> fp8 e4m3
/// conversion: its name says so, or it compares with 448 (e4m3's largest
/// finite value).
bool looksLikeE4m3(const clang::FunctionDecl *FD);

} // namespace kopt

#endif // KOPT_ANALYSIS_E2M1PROOF_H
