//===- SharedMemory.cpp - The static shared memory of a kernel ------------===//

#include "kopt/Analysis/SharedMemory.h"
#include "kopt/Analysis/CudaAST.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>
#include <vector>

using namespace clang;
using namespace llvm;

namespace kopt {

std::variant<uint64_t, std::string> staticSharedBytes(const FunctionDecl *F,
                                                      ASTContext &AC) {
  SmallPtrSet<const FunctionDecl *, 8> Seen;
  SmallPtrSet<const VarDecl *, 8> Counted;
  std::vector<const FunctionDecl *> Work{F};
  uint64_t Bytes = 0;
  std::optional<std::string> Why;
  while (!Work.empty() && !Why) {
    const FunctionDecl *G = Work.back();
    Work.pop_back();
    if (!Seen.insert(G).second || !G->getBody())
      continue;
    forEachSubStmt(G->getBody(), [&](const Stmt *S) {
      if (const auto *C = dyn_cast<CallExpr>(S))
        if (const FunctionDecl *Callee = C->getDirectCallee())
          if (const FunctionDecl *Def = Callee->getDefinition())
            Work.push_back(Def);
      const auto *DS = dyn_cast<DeclStmt>(S);
      if (!DS)
        return;
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        if (!V || !V->hasAttr<CUDASharedAttr>() || !Counted.insert(V).second)
          continue;
        QualType T = V->getType();
        if (V->hasExternalStorage() || T->isIncompleteType() ||
            T->isDependentType() || !T->isConstantSizeType())
          Why = "'" + V->getNameAsString() +
                "' is a shared array of run-time size";
        else
          Bytes += AC.getTypeSizeInChars(T).getQuantity();
      }
    });
  }
  if (Why)
    return *Why;
  return Bytes;
}

} // namespace kopt
