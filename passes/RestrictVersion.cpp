//===- RestrictVersion.cpp - Text of restrict-const's run-time versioning -===//

#include "RestrictVersion.h"
#include "SourceLayout.h"

#include "kopt/Analysis/CudaAST.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace kopt {

const char *const DistinctAllocationsHelperName = "kopt_distinct_allocations";
const char *const RestrictCopySuffix = "_kopt_restrict";

std::string distinctAllocationsHelper() {
  // Every name is kopt_-prefixed: the file's own macros must not reach in.
  // The driver's cuMemGetAddressRange gives each pointer's allocation;
  // distinct allocations never overlap.
  return std::string(
             "#include <cuda.h>\n"
             "// kopt restrict-const: true when no pointer the kernel writes "
             "through ('w' in\n// kopt_modes; 'r': only read) lies in one "
             "device allocation with another\n// non-null pointer; false "
             "when the driver cannot say.\n"
             "template <typename... kopt_T>\n"
             "static inline bool ") +
         DistinctAllocationsHelperName +
         "(const char *kopt_modes,\n"
         "                                             const kopt_T "
         "*...kopt_p) {\n"
         "  typedef CUresult (*kopt_fn)(CUdeviceptr *, size_t *, "
         "CUdeviceptr);\n"
         "  static const kopt_fn kopt_range = [] {\n"
         "    void *kopt_f = nullptr;\n"
         "    cudaDriverEntryPointQueryResult kopt_q = "
         "cudaDriverEntryPointSymbolNotFound;\n"
         "#if CUDART_VERSION >= 12050\n"
         "    cudaGetDriverEntryPointByVersion(\"cuMemGetAddressRange\", "
         "&kopt_f, 12000,\n"
         "                                     cudaEnableDefault, &kopt_q);\n"
         "#elif CUDART_VERSION >= 12000\n"
         "    cudaGetDriverEntryPoint(\"cuMemGetAddressRange\", &kopt_f, "
         "cudaEnableDefault, &kopt_q);\n"
         "#endif\n"
         "    return kopt_q == cudaDriverEntryPointSuccess ? (kopt_fn)kopt_f "
         ": nullptr;\n"
         "  }();\n"
         "  const void *const kopt_p_[] = {kopt_p...};\n"
         "  CUdeviceptr kopt_base[sizeof...(kopt_p)];\n"
         "  size_t kopt_size;\n"
         "  for (unsigned kopt_a = 0; kopt_a < sizeof...(kopt_p); ++kopt_a) "
         "{\n"
         "    const CUdeviceptr kopt_ptr = (CUdeviceptr)kopt_p_[kopt_a];\n"
         "    if (!kopt_range || (kopt_ptr && kopt_range(&kopt_base[kopt_a], "
         "&kopt_size,\n"
         "                                               kopt_ptr) != "
         "CUDA_SUCCESS))\n"
         "      return false;\n"
         "    for (unsigned kopt_i = 0; kopt_ptr && kopt_i < kopt_a; "
         "++kopt_i)\n"
         "      if (kopt_p_[kopt_i] && kopt_base[kopt_i] == kopt_base[kopt_a] "
         "&&\n"
         "          (kopt_modes[kopt_a] != 'r' || kopt_modes[kopt_i] != 'r'))\n"
         "        return false;\n"
         "  }\n"
         "  return true;\n"
         "}\n\n";
}

std::optional<std::string> restrictCopy(const FunctionDecl *Kernel,
                                        ArrayRef<const ParmVarDecl *> Restrict,
                                        ArrayRef<const ParmVarDecl *> Const,
                                        ASTContext &Ctx, StringRef Code) {
  const SourceManager &SM = Ctx.getSourceManager();
  // From `template` on for a template's instantiation.
  std::optional<DefinitionLayout> L = definitionLayout(Kernel, Ctx);
  if (!L)
    return std::nullopt;
  unsigned Begin = L->Begin, End = L->End;
  std::vector<std::tuple<unsigned, unsigned, std::string>> Edits = {
      {L->NameEnd, 0, RestrictCopySuffix}};
  for (const ParmVarDecl *P : Restrict)
    Edits.emplace_back(SM.getFileOffset(P->getLocation()), 0, "__restrict__ ");
  for (const ParmVarDecl *P : Const) {
    PointerTypeLoc PTL = P->getTypeSourceInfo()
                             ->getTypeLoc()
                             .getUnqualifiedLoc()
                             .getAs<PointerTypeLoc>();
    if (!PTL)
      return std::nullopt;
    Edits.emplace_back(SM.getFileOffset(PTL.getPointeeLoc().getBeginLoc()), 0,
                       "const ");
  }
  for (const auto &[Offset, Length, Text] : Edits)
    if (Offset < Begin || Offset > End)
      return std::nullopt;
  llvm::stable_sort(Edits, [](const auto &A, const auto &B) {
    return std::get<0>(A) < std::get<0>(B);
  });
  return splice(Code, Begin, End, std::move(Edits));
}

std::optional<std::string> versionedLaunch(const CUDAKernelCallExpr *Call,
                                           ArrayRef<CheckedPointer> Checked,
                                           ASTContext &HC) {
  auto Launch = exprOffsets(Call, HC);
  auto Callee = exprOffsets(Call->getCallee(), HC);
  if (!Launch || !Callee || !isRewritable(Call->getSourceRange(), HC))
    return std::nullopt;
  StringRef Code = HC.getSourceManager().getBufferData(
      HC.getSourceManager().getMainFileID());
  std::string Original = Code.slice(Launch->first, Launch->second).str();
  // The copy's name goes before explicit template arguments (`k<float>`).
  unsigned NameEnd = Callee->second;
  if (const auto *Ref =
          dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreParenImpCasts());
      Ref && Ref->hasExplicitTemplateArgs()) {
    const SourceManager &SM = HC.getSourceManager();
    SourceLocation Name = Ref->getNameInfo().getEndLoc();
    if (Name.isMacroID())
      return std::nullopt;
    NameEnd = SM.getFileOffset(Name) +
              Lexer::MeasureTokenLength(Name, SM, HC.getLangOpts());
  }
  std::string Copy = splice(Code, Launch->first, Launch->second,
                            {{NameEnd, 0, RestrictCopySuffix}});
  if (Checked.size() < 2)
    return Copy + ";";
  std::string Modes, Args;
  for (const CheckedPointer &P : Checked) {
    std::string Text = sourceText(Call->getArg(P.Arg)->getSourceRange(), HC);
    if (Text.empty())
      return std::nullopt;
    Modes += P.Written ? 'w' : 'r';
    Args += ", (" + oneLine(Text) + ")";
  }
  std::string Indent = indentOf(Call->getBeginLoc(), HC);
  std::string If = "if (" + std::string(DistinctAllocationsHelperName) + "(\"" +
                   Modes + "\"" + Args + "))\n" + Indent + "  " +
                   reindent(Copy, "  ") + ";\n" + Indent + "else\n" + Indent +
                   "  " + reindent(Original, "  ") + ";";
  // The body of an unbraced if/for/while gets braces.
  DynTypedNodeList Parents = HC.getParents(*Call);
  if (!Parents.empty() && isa_and_nonnull<CompoundStmt>(Parents[0].get<Stmt>()))
    return If;
  return "{\n" + Indent + "  " + reindent(If, "  ") + "\n" + Indent + "}";
}

std::string whyNotReplaceableLaunch(const LaunchSite &L, ASTContext &HC) {
  if (!L.Call || !L.CallerDecl)
    return "is not a <<<...>>> call kopt can read";
  // The choice is host code.
  if (L.CallerDecl->hasAttr<CUDAGlobalAttr>() ||
      L.CallerDecl->hasAttr<CUDADeviceAttr>())
    return "is in device code";
  DynTypedNodeList Parents = HC.getParents(*L.Call);
  const Stmt *Parent = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
  if (!Parent || isa<Expr>(Parent))
    return "is part of a larger expression";
  return "";
}

} // namespace kopt
