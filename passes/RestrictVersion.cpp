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
  return std::string(
             "#include <cuda.h>\n"
             "// kopt restrict-const: true when no pointer the kernel writes "
             "through ('w' in\n// kopt_modes, 'r': only read) lies in a "
             "device allocation with another\n// non-null pointer (distinct "
             "allocations never overlap; memory only read may\n// be "
             "shared); false when the driver cannot say.\n"
             "template <typename... kopt_T>\n"
             "static inline bool ") +
         DistinctAllocationsHelperName +
         "(const char *kopt_modes, const kopt_T *...kopt_p) {\n"
         "  typedef CUresult (*kopt_range_fn)(CUdeviceptr *, size_t *, "
         "CUdeviceptr);\n"
         "  static const kopt_range_fn kopt_range = []() -> kopt_range_fn {\n"
         "    void *kopt_f = nullptr;\n"
         "    cudaDriverEntryPointQueryResult kopt_q =\n"
         "        cudaDriverEntryPointSymbolNotFound;\n"
         "#if CUDART_VERSION >= 12050\n"
         "    cudaError_t kopt_e = cudaGetDriverEntryPointByVersion(\n"
         "        \"cuMemGetAddressRange\", &kopt_f, 12000, "
         "cudaEnableDefault, &kopt_q);\n"
         "#elif CUDART_VERSION >= 12000\n"
         "    cudaError_t kopt_e = cudaGetDriverEntryPoint(\n"
         "        \"cuMemGetAddressRange\", &kopt_f, cudaEnableDefault, "
         "&kopt_q);\n"
         "#else\n"
         "    cudaError_t kopt_e = cudaErrorNotSupported;\n"
         "#endif\n"
         "    return kopt_e == cudaSuccess && kopt_q == "
         "cudaDriverEntryPointSuccess\n"
         "               ? (kopt_range_fn)kopt_f\n"
         "               : nullptr;\n"
         "  }();\n"
         "  if (!kopt_range)\n"
         "    return false;\n"
         "  const void *const kopt_ptrs[] = {kopt_p...};\n"
         "  CUdeviceptr kopt_bases[sizeof...(kopt_p)];\n"
         "  bool kopt_writes[sizeof...(kopt_p)];\n"
         "  unsigned kopt_n = 0;\n"
         "  for (unsigned kopt_a = 0; kopt_a < sizeof...(kopt_p); ++kopt_a) {\n"
         "    if (!kopt_ptrs[kopt_a])\n"
         "      continue;\n"
         "    CUdeviceptr kopt_base = 0;\n"
         "    size_t kopt_size = 0;\n"
         "    if (kopt_range(&kopt_base, &kopt_size, "
         "(CUdeviceptr)kopt_ptrs[kopt_a]) !=\n"
         "        CUDA_SUCCESS)\n"
         "      return false;\n"
         "    const bool kopt_w = kopt_modes[kopt_a] != 'r';\n"
         "    for (unsigned kopt_i = 0; kopt_i < kopt_n; ++kopt_i)\n"
         "      if (kopt_bases[kopt_i] == kopt_base && "
         "(kopt_w || kopt_writes[kopt_i]))\n"
         "        return false;\n"
         "    kopt_bases[kopt_n] = kopt_base;\n"
         "    kopt_writes[kopt_n++] = kopt_w;\n"
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
