//===- MatmulKernelText.h - The source of a tiled matrix product -*- C++
//-*-===//
//
// tile-matmul's code generator: the text of a kernel that computes what a
// MatmulNest computes, with a BM x BN tile of C per block, TM x TN elements
// per thread in registers and K in steps of BK through double-buffered
// shared-memory tiles; and the host-side test that picks it at a launch.
// The products are f32/f64 FMAs on CUDA cores, or tensor-core mma.sync on
// tf32 operands (MatmulMmaText.cpp). Only text: the pass decides whether it
// may be used.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_MATMULKERNELTEXT_H
#define KOPT_PASSES_MATMULKERNELTEXT_H

#include <optional>
#include <string>

namespace kopt {

/// How the products are computed: exactly, in the operands' type on CUDA
/// cores; or on tensor cores with each operand rounded to tf32 (10-bit
/// mantissa), or split into two tf32 parts whose three largest cross
/// products are added (about f32's accuracy). Both tf32 forms change
/// rounding.
enum class MatmulMath { Exact, TF32, TF32x3 };

/// The `math` parameter's spelling of M, and back (nullopt: not a value).
const char *mathName(MatmulMath M);
std::optional<MatmulMath> parseMath(const std::string &S);

struct MatmulTiling {
  unsigned BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  MatmulMath Math = MatmulMath::Exact;
  unsigned threads() const { return (BM / TM) * (BN / TN); }
  /// Elements of padding a shared-memory tile row gets: 4 keeps the
  /// CUDA-core path's stores free of bank conflicts, 8 the tensor-core
  /// path's fragment reads.
  unsigned pad() const { return Math == MatmulMath::Exact ? 4 : 8; }
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
  /// The accumulator's initial value, verbatim; empty when it is zero.
  std::string Init;
};

std::string tiledMatmulKernel(const MatmulKernelParts &P,
                              const MatmulTiling &T);

/// For the output element (kopt_i, kopt_j) held in Acc: the original's
/// initial value where the element is in bounds and the guard holds (the
/// elements that are stored), with the row and column redeclared.
std::string matmulElementInit(const MatmulKernelParts &P,
                              const std::string &Acc,
                              const std::string &Indent);

/// For the output element (kopt_i, kopt_j) held in Acc: skip it outside
/// the bounds, else the original's guard and store with its row, column
/// and accumulator redeclared (inside a loop; both code paths end so).
std::string matmulElementStore(const MatmulKernelParts &P,
                               const std::string &Acc,
                               const std::string &Indent);

/// The host helper the launches call (once a file).
std::string matmulFitsHelper();
extern const char *const MatmulFitsHelperName;

} // namespace kopt

#endif // KOPT_PASSES_MATMULKERNELTEXT_H
