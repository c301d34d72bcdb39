//===- ScaledLaunch.cpp - A launch run on a grid S times larger -----------===//

#include "ScaledLaunch.h"
#include "RestrictVersion.h"

#include "kopt/Analysis/CudaAST.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace kopt {

const char *const ScaledGridName = "kopt_grid";

namespace {

/// The replacement text of launch L; none with Why set (a phrase after
/// "the launch at <loc> ") when it cannot be rewritten, or with Why empty
/// when it is written in a macro.
std::optional<std::string> scaledLaunch(const LaunchSite &L,
                                        const ScaledLaunchSpec &Spec,
                                        ASTContext &HC, std::string &Why) {
  Why = whyNotReplaceableLaunch(L, HC);
  std::optional<LaunchPieces> P =
      Why.empty() ? launchPieces(L.Call, HC) : std::nullopt;
  if (!P)
    return std::nullopt;
  const CUDAKernelCallExpr *Call = L.Call;
  for (unsigned I = 0; I < P->ConfigExprs.size(); ++I) {
    const Expr *A = P->ConfigExprs[I];
    if (I < 2 && (!A->getType()->isIntegerType() || isDim3(A->getType()))) {
      Why = "has a dim3 " + std::string(I ? "block" : "grid") +
            " (the larger grid is in x alone)";
      return std::nullopt;
    }
    if (I > 0 && hasSideEffects(A, HC)) {
      Why = "has a configuration argument with side effects";
      return std::nullopt;
    }
  }
  if (any_of(Call->arguments(),
             [&](const Expr *A) { return hasSideEffects(A, HC); })) {
    Why = "has an argument with side effects";
    return std::nullopt;
  }
  std::string Args = join(P->Args, ", ");
  std::string G = ScaledGridName;
  unsigned NewBlock = Spec.BlockThreads ? Spec.BlockThreads : Spec.PackThreads;
  std::string Rest, FastRest;
  for (std::size_t I = 1; I < P->Config.size(); ++I) {
    Rest += ", " + P->Config[I];
    FastRest +=
        ", " + (I == 1 && NewBlock ? std::to_string(NewBlock) : P->Config[I]);
  }
  std::string FastArgs = Args;
  std::string FastGrid, Cond;
  if (Spec.PackThreads) {
    std::string Pk = std::to_string(Spec.PackThreads);
    FastGrid = "(" + G + " + " + Pk + " - 1) / " + Pk;
    Cond = G + " >= 1 && " + G + " <= 2147483647 - " + Pk;
    FastArgs += std::string(Args.empty() ? "" : ", ") +
                "static_cast<unsigned>(" + G + ")";
  } else {
    std::string S = Spec.BlockThreads ? "(" + P->Config[1] + ")"
                                      : std::to_string(Spec.Factor);
    FastGrid = G + " * " + S;
    Cond = G + " >= 1 && " + G + " <= 2147483647 / " + S;
    if (Spec.BlockThreads)
      Cond = S + " >= 1 && " + Cond;
  }
  std::string In = indentOf(Call->getBeginLoc(), HC);
  if (Spec.Extra)
    if (std::string Extra = Spec.Extra(*P); !Extra.empty())
      Cond += " &&\n" + In + "      " + Extra;
  return "{\n" + In + "  // " + Spec.Comment + "\n" + In + "  const auto " + G +
         " = (" + P->Config[0] + ");\n" + In + "  if (" + Cond + ")\n" + In +
         "    " + P->callee(Spec.FastSuffix) + "<<<" + FastGrid + FastRest +
         ">>>(" + FastArgs + ");\n" + In + "  else\n" + In + "    " +
         P->callee() + "<<<" + G + Rest + ">>>(" + Args + ");\n" + In + "}";
}

} // namespace

std::optional<std::string> replaceWithScaledLaunch(const LaunchSite &L,
                                                   const ScaledLaunchSpec &Spec,
                                                   ASTContext &HC,
                                                   EditSet &Edits) {
  std::string Why;
  std::optional<std::string> Text = scaledLaunch(L, Spec, HC, Why);
  auto Off = L.Call ? stmtOffsets(L.Call, HC) : std::nullopt;
  if (!Text || !Off)
    return "the launch at " + str(L.Loc) + " " +
           (Why.empty() ? "is written in a macro" : Why);
  if (Error E = Edits.replaceChars(Off->first, Off->second - Off->first, *Text))
    return toString(std::move(E));
  return std::nullopt;
}

bool isScaledLaunch(const LaunchSite &L) {
  if (!L.Call || L.Call->getConfig()->getNumArgs() < 1)
    return false;
  const VarDecl *V = referencedVar(L.Call->getConfig()->getArg(0));
  return V && V->getIdentifier() && V->getName() == ScaledGridName;
}

} // namespace kopt
