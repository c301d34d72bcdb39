//===- CacheHints.cpp - Types the cache-hint intrinsics take --------------===//

#include "CacheHints.h"

#include "clang/AST/Decl.h"
#include "clang/AST/PrettyPrinter.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;
using namespace llvm;

namespace kopt {

bool hasCacheHintOverload(QualType T) {
  static const StringSet<> Names = {"char",
                                    "signed char",
                                    "unsigned char",
                                    "short",
                                    "unsigned short",
                                    "int",
                                    "unsigned int",
                                    "long",
                                    "unsigned long",
                                    "long long",
                                    "unsigned long long",
                                    "float",
                                    "double",
                                    "char2",
                                    "char4",
                                    "short2",
                                    "short4",
                                    "int2",
                                    "int4",
                                    "longlong2",
                                    "uchar2",
                                    "uchar4",
                                    "ushort2",
                                    "ushort4",
                                    "uint2",
                                    "uint4",
                                    "ulonglong2",
                                    "float2",
                                    "float4",
                                    "double2",
                                    "__half",
                                    "__half2",
                                    "__nv_bfloat16",
                                    "__nv_bfloat162"};
  T = T.getCanonicalType().getUnqualifiedType();
  if (const auto *B = T->getAs<BuiltinType>())
    return Names.contains(B->getName(PrintingPolicy(LangOptions())));
  if (const auto *R = T->getAsRecordDecl())
    return R->getIdentifier() && Names.contains(R->getName());
  return false;
}

} // namespace kopt
