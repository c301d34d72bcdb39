//===- InOrderTail.cpp - warp-reduce's in-order tail of float sums --------===//

#include "InOrderTail.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace clang;
using namespace llvm;

namespace kopt {

std::string inOrderTailText(const ReductionTree &T, ASTContext &AC,
                            StringRef In) {
  std::string A = T.Array->getNameAsString();
  std::string Elem =
      typeAsWritten(T.Element.getUnqualifiedType(), AC.getPrintingPolicy());
  std::string Value = sourceText(T.Value->getSourceRange(), AC);
  std::string Out;
  raw_string_ostream OS(Out);
  OS << "{\n"
     << In << "  // kopt warp-reduce (+, in order): the rounds of 32 and "
     << "more in shared memory,\n"
     << In << "  // the last five in warp 0, where lane t adds lane t + o's "
     << "value as the tree does\n"
     << In << "  " << A << "[threadIdx.x] = " << Value << ";\n"
     << In << "  __syncthreads();\n"
     << In << "  for (int kopt_s = blockDim.x / 2; kopt_s > 16; "
     << "kopt_s >>= 1) {\n"
     << In << "    if (threadIdx.x < kopt_s)\n"
     << In << "      " << A << "[threadIdx.x] += " << A
     << "[threadIdx.x + kopt_s];\n"
     << In << "    __syncthreads();\n"
     << In << "  }\n"
     << In << "  if (threadIdx.x < 32) {\n"
     << In << "    " << Elem << " kopt_wr = " << A << "[threadIdx.x];\n"
     << In << "    for (int kopt_o = 16; kopt_o > 0; kopt_o >>= 1)\n"
     << In << "      kopt_wr += __shfl_down_sync(0xffffffffu, kopt_wr, "
     << "kopt_o);\n"
     << In << "    if (threadIdx.x == 0)\n"
     << In << "      " << A << "[0] = kopt_wr;\n"
     << In << "  }\n"
     << In << "  __syncthreads();\n"
     << In << "}";
  return Out;
}

void checkTailResources(PassContext &Ctx, std::vector<PlannedTail> &Tails) {
  const std::string Skip = " (check-resources=false skips the check)";
  auto RefuseRest = [&](const std::string &Why) {
    for (PlannedTail &T : Tails)
      if (!T.Refused)
        T.Refused = Why + Skip;
  };
  if (std::optional<std::string> Why = Ctx.whyNoEstimate())
    return RefuseRest("cannot check the in-order tail's registers: " + *Why);
  StringRef Code = Ctx.source().Code;
  Expected<std::string> Base = Ctx.edits().apply(Code);
  if (!Base)
    return RefuseRest(toString(Base.takeError()));
  Expected<ResourceReport> Before = Ctx.estimate(*Base);
  if (!Before)
    return RefuseRest("cannot check the in-order tail's registers: the "
                      "input does not compile: " +
                      toString(Before.takeError()));
  while (true) {
    EditSet All = Ctx.edits();
    bool Any = false;
    for (PlannedTail &T : Tails) {
      if (T.Refused)
        continue;
      if (Error E = All.merge(T.Edit))
        T.Refused = toString(std::move(E));
      else
        Any = true;
    }
    if (!Any)
      return;
    Expected<std::string> NewCode = All.apply(Code);
    if (!NewCode)
      return RefuseRest(toString(NewCode.takeError()));
    Expected<ResourceReport> After = Ctx.estimate(*NewCode);
    if (!After)
      return RefuseRest("the in-order tail does not compile: " +
                        toString(After.takeError()));
    std::map<std::string, std::string> Worse, Note;
    for (const PlannedTail &T : Tails)
      for (const std::string &K : T.Kernels) {
        if (T.Refused || Worse.count(K) || Note.count(K))
          continue;
        // A template's instantiations share the tail's text: each of them
        // must not need more.
        auto Pairs = matchKernels(*Before, *After, K);
        if (Pairs.empty())
          Worse[K] = "the in-order tail was not kept: ptxas reported no "
                     "resources for '" +
                     K + "'";
        for (auto [B, A] : Pairs) {
          if (Worse.count(K))
            break;
          if (!B)
            Worse[K] = "the in-order tail was not kept: ptxas reported no "
                       "resources for '" +
                       A->Name + "' without it";
          else if (A->Registers > B->Registers)
            Worse[K] = "the in-order tail was not kept: with it '" + K +
                       "' needs " + std::to_string(A->Registers) +
                       " registers instead of " + std::to_string(B->Registers) +
                       " (ptxas), which may let fewer of its blocks run at "
                       "once";
          else if (A->moreLocalMemoryThan(*B))
            Worse[K] = "the in-order tail was not kept: with it '" + K +
                       "' uses more local memory (ptxas: " + A->localMemory() +
                       "; without it: " + B->localMemory() + ")";
          else
            Note[K] += (Note[K].empty() ? "'" + K + "' " : ", ") +
                       std::to_string(B->Registers) + " -> " +
                       std::to_string(A->Registers);
        }
      }
    if (Worse.empty()) {
      for (PlannedTail &T : Tails) {
        if (T.Refused)
          continue;
        SmallVector<std::string> Notes;
        for (const std::string &K : T.Kernels)
          Notes.push_back(Note[K]);
        T.Note = "; ptxas: " + join(Notes, ", ") + " registers";
      }
      return;
    }
    for (PlannedTail &T : Tails)
      for (const std::string &K : T.Kernels)
        if (!T.Refused && Worse.count(K))
          T.Refused = Worse[K] + Skip;
  }
}

} // namespace kopt
