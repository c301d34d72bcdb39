//===- MatmulKernelText.h - The source of a tiled matrix product -*- C++ -*-===//
//
// tile-matmul's code generator: the text of a kernel that computes what a
// MatmulNest computes, with a BM x BN tile of C per block, TM x TN elements
// per thread in registers and K in steps of BK through double-buffered
// shared-memory tiles; and the host-side test that picks it at a launch.
// Only text: the pass decides whether it may be used.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_MATMULKERNELTEXT_H
#define KOPT_PASSES_MATMULKERNELTEXT_H

#include <string>

namespace kopt {

struct MatmulTiling {
  unsigned BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  unsigned threads() const { return (BM / TM) * (BN / TN); }
  /// Why these sizes cannot be generated for an element of ElemBytes
  /// bytes, or empty.
  std::string whyInvalid(unsigned ElemBytes) const;
};

/// What the generated kernel is made of, as text in the kernel's own names.
struct MatmulKernelParts {
  std::string Name;   ///< of the new kernel
  std::string Params; ///< "(const float *A, ...)" as the original declares
  std::string Elem;   ///< element and accumulator type
  unsigned ElemBytes = 4;
  std::string A, B;   ///< pointer parameters
  /// Strides: A(i, k) = A[i * AOuter + k * AReduce], B(k, j) = B[k *
  /// BReduce + j * BOuter]; expressions in the parameters.
  std::string AOuter, AReduce, BReduce, BOuter;
  bool AReduceUnit = false, AOuterUnit = false; ///< the stride is 1
  bool BReduceUnit = false, BOuterUnit = false;
  std::string M, N, K;                  ///< bound parameters
  std::string RowDecl, ColDecl, AccDecl; ///< "const int row" and so on
  std::string Guard, Store;              ///< the original's, verbatim
};

std::string tiledMatmulKernel(const MatmulKernelParts &P,
                              const MatmulTiling &T);

/// The host helper the launches call (once a file).
std::string matmulFitsHelper();
extern const char *const MatmulFitsHelperName;

} // namespace kopt

#endif // KOPT_PASSES_MATMULKERNELTEXT_H
