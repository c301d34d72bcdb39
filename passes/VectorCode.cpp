//===- VectorCode.cpp - The text of a vectorized element computation ------===//

#include "VectorCode.h"
#include "SourceLayout.h"
#include "VectorCarrier.h"
#include "kopt/Analysis/CudaAST.h"

#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace kopt {

std::string vectorCode(PassContext &Ctx, const ElementRegion &R,
                       const VectorPlan &P, StringRef VectorIndex,
                       StringRef IndexType, StringRef Indent,
                       std::string &BodyError, StringRef Start) {
  ASTContext &AC = Ctx.deviceContext();
  StringRef Code = Ctx.source().Code;
  std::optional<std::pair<unsigned, unsigned>> BodyRange =
      stmtOffsets(R.Body, AC);
  if (!BodyRange) {
    BodyError = "the element computation is written in a macro";
    return "";
  }
  std::vector<std::tuple<unsigned, unsigned, std::string>> Replacements;
  // References to the index inside the replaced accesses (none for
  // `p[i]` with `int i = off + j;` declared in the body).
  size_t ReplacedRefs = 0;
  std::string Loads, Stores;
  std::string W = std::to_string(P.Width);
  for (const VectorPointer &V :
       concat<const VectorPointer>(P.Pointers, P.SharedReads)) {
    unsigned Bytes = P.Width * V.ElementBytes;
    std::string Carrier = carrierType(V.Element, Bytes);
    bool ConstCarrier = !V.Writes;
    std::string Elem = (ConstCarrier ? "const " : "") + V.Element;
    for (const ArraySubscriptExpr *E : V.Accesses) {
      std::optional<std::pair<unsigned, unsigned>> Off = exprOffsets(E, AC);
      if (!Off || Off->first < BodyRange->first ||
          Off->second > BodyRange->second) {
        BodyError = "an access to '" + V.Name + "' is written in a macro";
        return "";
      }
      Replacements.emplace_back(Off->first, Off->second - Off->first,
                                "reinterpret_cast<" + Elem + " *>(&" +
                                    V.carrierName() + ")[kopt_e]");
      ReplacedRefs += countReferences(E, R.Var);
    }
    if (V.Reads || !V.FullyWritten) {
      std::string Load = "reinterpret_cast<const " + Carrier + " *>(" +
                         V.base() + ")[" + VectorIndex.str() + "]";
      Loads += Indent.str() + (ConstCarrier ? "const " : "") + Carrier + " " +
               V.carrierName() + " = " + Load + ";\n";
    } else {
      Loads += Indent.str() + Carrier + " " + V.carrierName() + ";\n";
    }
    if (V.Writes)
      Stores += Indent.str() + "reinterpret_cast<" + Carrier + " *>(" +
                V.base() + ")[" + VectorIndex.str() +
                "] = " + V.carrierName() + ";\n";
  }
  // A compound body's statements go straight into the element loop.
  std::string Body =
      bodyStatements(Code, R.Body, Replacements, Indent.str() + "  ", AC);
  // The element index is declared only if the body still uses it.
  std::string IndexDecl;
  if (countReferences(R.Body, R.Var) > ReplacedRefs)
    IndexDecl = Indent.str() + "  const " + IndexType.str() + " " +
                R.Var->getNameAsString() + " = " +
                (Start.empty() ? "" : Start.str() + " + ") +
                VectorIndex.str() + " * " + W + " + kopt_e;\n";
  return Loads + "#pragma unroll\n" + Indent.str() +
         "for (int kopt_e = 0; kopt_e < " + W + "; ++kopt_e) {\n" +
         IndexDecl + Indent.str() + "  " + Body + "\n" + Indent.str() +
         "}\n" + Stores;
}

std::string alignmentCheck(const VectorPlan &P,
                           const std::string &ContinuationIndent) {
  std::string S;
  for (const VectorPointer &V :
       concat<const VectorPointer>(P.Pointers, P.SharedReads)) {
    if (V.StaticallyAligned)
      continue;
    if (!S.empty())
      S += " &&\n" + ContinuationIndent;
    S += "reinterpret_cast<unsigned long long>(" + V.base() + ") % " +
         std::to_string(P.Width * V.ElementBytes) + " == 0";
  }
  return S;
}

std::string describeVectors(const VectorPlan &P) {
  std::string Names;
  for (const VectorPointer &V :
       concat<const VectorPointer>(P.Pointers, P.SharedReads))
    Names += (Names.empty() ? "'" : ", '") + V.Name + "' as " +
             carrierType(V.Element, P.Width * V.ElementBytes) + " (" +
             std::to_string(P.Width) + " x " + V.Element + ")";
  return Names;
}

} // namespace kopt
