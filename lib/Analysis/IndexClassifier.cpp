//===- IndexClassifier.cpp - How an index varies across threads -----------===//

#include "kopt/Analysis/IndexClassifier.h"
#include "kopt/Analysis/AffineForm.h"
#include "kopt/Analysis/IndexSets.h"

using namespace clang;

namespace kopt {

llvm::StringRef IndexClass::kindName() const {
  switch (K) {
  case Uniform:
    return "uniform";
  case Contiguous:
    return "contiguous";
  case Strided:
    return "strided";
  case Unknown:
    return "unknown";
  }
  llvm_unreachable("bad index class");
}

IndexClass classifyIndex(const Expr *Index, const FunctionDecl *Function,
                         const ASTContext &Ctx) {
  IndexClass Result;
  if (!Function || !Function->getBody())
    return Result;
  AffineContext A(Ctx, Function->getBody());
  std::optional<AffineForm> F = A.build(Index);
  if (!F)
    return Result;
  if (A.isUniform(*F)) {
    Result.K = IndexClass::Uniform;
    Result.Stride = 0;
    return Result;
  }
  // threadIdx.x times a run-time value: strided, by a stride only known at
  // run time (when nothing else varies between threads).
  unsigned Tid = A.builtin(BuiltinVar::ThreadIdx, 0);
  bool Scaled = false;
  for (unsigned S : A.symbolsOf(*F)) {
    const AffineSymbol &Sym = A.symbol(S);
    if (Sym.ScalesThreadIdx)
      Scaled = true;
    else if (!Sym.Uniform && S != Tid && Sym.K != AffineSymbol::FloorDiv &&
             Sym.K != AffineSymbol::Mod)
      return Result;
  }
  if (Scaled) {
    Result.K = IndexClass::Strided;
    return Result;
  }
  std::optional<int64_t> Stride = strideAcrossWarp(A, *F);
  if (!Stride)
    return Result;
  Result.Stride = *Stride;
  Result.K = *Stride == 0   ? IndexClass::Uniform
             : *Stride == 1 ? IndexClass::Contiguous
                            : IndexClass::Strided;
  return Result;
}

} // namespace kopt
