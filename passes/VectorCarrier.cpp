//===- VectorCarrier.cpp - The types that carry vector accesses ----------===//

#include "VectorCarrier.h"

namespace kopt {

const char *rawCarrier(unsigned Bytes) {
  switch (Bytes) {
  case 16:
    return "uint4";
  case 8:
    return "uint2";
  case 4:
    return "unsigned int";
  default:
    return "unsigned short";
  }
}

std::string carrierType(llvm::StringRef Element, unsigned Bytes) {
  if (Element == "float")
    return Bytes == 16 ? "float4" : Bytes == 8 ? "float2" : "float";
  if (Element == "double" && Bytes == 16)
    return "double2";
  return rawCarrier(Bytes);
}

} // namespace kopt
