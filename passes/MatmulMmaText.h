//===- MatmulMmaText.h - Tensor-core products of a tiled matmul -*- C++ -*-===//
//
// The tensor-core part of tile-matmul's generated kernel (math=tf32 and
// math=3xtf32): the warps' layout over the block's tile, the accumulators,
// one step of BK on the shared-memory tiles with mma.sync.m16n8k8 on tf32
// operands, and the epilogue over the accumulator fragments. The loads of
// the tiles into shared memory are MatmulKernelText.cpp's, as on the
// CUDA-core path.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_MATMULMMATEXT_H
#define KOPT_PASSES_MATMULMMATEXT_H

#include "MatmulKernelText.h"

#include <string>

namespace kopt {

/// Why T's sizes cannot be computed with tensor cores, or empty.
std::string whyInvalidMma(const MatmulTiling &T, unsigned ElemBytes);

/// Declarations: the warp's place in the block's tile and its accumulators
/// with their initial values.
std::string mmaSetup(const MatmulKernelParts &P, const MatmulTiling &T,
                     const std::string &Indent);

/// The products of the tiles in shared buffer kopt_cur.
std::string mmaStep(const MatmulTiling &T, const std::string &Indent);

/// Every accumulator through matmulElementStore.
std::string mmaEpilogue(const MatmulKernelParts &P, const MatmulTiling &T,
                        const std::string &Indent);

} // namespace kopt

#endif // KOPT_PASSES_MATMULMMATEXT_H
