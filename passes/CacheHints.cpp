//===- CacheHints.cpp - Types the cache-hint intrinsics take --------------===//

#include "CacheHints.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
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

PointerUse followPointerUse(const DeclRefExpr *Ref, ParentMap &Parents) {
  PointerUse Out;
  const Stmt *Use = Ref;
  const Stmt *Parent = Parents.getParent(const_cast<Stmt *>(Use));
  while (Parent) {
    const auto *Add = dyn_cast<BinaryOperator>(Parent);
    if (!isa<CastExpr, ParenExpr>(Parent) && !(Add && Add->isAdditiveOp()))
      break;
    if (cast<Expr>(Parent)->getType()->isIntegerType()) {
      Out.K = PointerUse::Number;
      return Out;
    }
    Use = Parent;
    Parent = Parents.getParent(const_cast<Stmt *>(Use));
  }
  if (const auto *Sub = dyn_cast_or_null<ArraySubscriptExpr>(Parent);
      Sub && Sub->getBase() == Use)
    Out.Element = Sub;
  else if (const auto *U = dyn_cast_or_null<UnaryOperator>(Parent);
           U && U->getOpcode() == UO_Deref)
    Out.Element = U;
  if (Out.Element) {
    Out.K = PointerUse::Access;
    Out.Pointer = cast<Expr>(Use);
  }
  return Out;
}

} // namespace kopt
