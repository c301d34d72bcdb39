//===- VectorCarrier.h - The types that carry vector accesses ---*- C++ -*-===//
//
// vectorize-loads and staged-loads move W elements with one access of a
// carrier type of W * sizeof(element) bytes (at most 16).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_VECTORCARRIER_H
#define KOPT_PASSES_VECTORCARRIER_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace kopt {

/// An unsigned type of Bytes bytes (2, 4, 8 or 16) that moves the elements
/// as raw bits: unsigned short, unsigned int, uint2, uint4.
const char *rawCarrier(unsigned Bytes);

/// The carrier of Bytes bytes for elements of type Element: float2/float4
/// for float, double2 for double (arithmetic stays readable), else
/// rawCarrier(Bytes).
std::string carrierType(llvm::StringRef Element, unsigned Bytes);

} // namespace kopt

#endif // KOPT_PASSES_VECTORCARRIER_H
