//===- Fp4Intrinsics.cpp - e2m1 branch chains to cvt.e2m1x2 ---------------===//
//
// NVFP4 kernels written for GPUs without an FP4 conversion instruction round
// each float to e2m1 with a hand-written helper (a chain of comparisons
// against the midpoints of the e2m1 grid) and pack two codes per byte:
//
//   q[e / 2] = float_to_e2m1(v[e] * mul) | (float_to_e2m1(v[e + 1] * mul) <<
//   4);
//
// Blackwell's family-specific targets (sm_100a, sm_120a, ...) convert two
// floats in one instruction, cvt.rn.satfinite.e2m1x2.f32, which
// __nv_cvt_float2_to_fp4x2 (cuda_fp4.h) emits there; on other targets that
// intrinsic is a software emulation with the same results.
//
// Legality is a proof that the helper computes exactly what the intrinsic
// computes, for every float:
//   * The helper is interpreted on its AST, with its argument x as a symbol
//     that may only be compared with constants (directly or as fabsf(x)) or
//     reduced to its sign bit (memcpy/__float_as_uint and `>> 31`,
//     signbit, isnan). Anything else (arithmetic on x, other bits of x,
//     calls) refuses the helper.
//   * Under that restriction the helper is constant on every cell of the
//     partition of the floats by the constants it compares with (each
//     constant c, and -c for |x|, is a cell of its own; the open intervals
//     between them; +0 and -0; +-inf; NaN by sign). Adding the breakpoints of
//     e2m1 round-to-nearest-even makes the reference constant on the cells
//     too, so comparing helper and reference on one float of each cell
//     compares them on all floats. Comparisons met on the way add constants;
//     the partition is refined until no new constant appears.
//   * The reference: sign bit of x (also for -0.0), magnitude rounded to the
//     nearest of {0, 0.5, 1, 1.5, 2, 3, 4, 6} with ties to the even code,
//     6 for everything from 6 up (satfinite); a NaN gives +6 (0x7), as
//     cuda_fp4.h documents for the intrinsic and its host emulation does.
//
// Two differences are repaired rather than refused, in the emitted wrapper:
// a helper that takes the sign from `x < 0` encodes -0.0 as +0 (the
// intrinsic gets x + 0.0f, which is x except that -0.0 becomes +0.0), and a
// helper that takes the sign bit of a NaN encodes a negative NaN as 0xF (the
// wrapper sets the sign bit for it, unless exact-nan=false).
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "kopt/Analysis/E2m1Proof.h"
#include "kopt/Analysis/Matching.h"
#include "kopt/Analysis/Mutation.h"
#include "kopt/Pass/Pass.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

/// `h(a) | (h(b) << 4)`: two codes of one helper packed into a byte.
struct PairSite {
  const BinaryOperator *Or = nullptr;
  const CallExpr *Low = nullptr, *High = nullptr;
  /// Where a code is a local `T lo = h(a);` read only in the pair: its
  /// declaration, which the rewrite turns into `const float lo = a;`.
  const DeclStmt *LowDecl = nullptr, *HighDecl = nullptr;
  const FunctionDecl *Helper = nullptr;
  const FunctionDecl *Caller = nullptr;
};

/// A call of a float -> integer function outside such a pair.
struct SingleCall {
  const CallExpr *Call = nullptr;
  const FunctionDecl *Caller = nullptr;
};

const FunctionDecl *calledFunction(const Expr *E) {
  if (const auto *C = dyn_cast<CallExpr>(E->IgnoreParenImpCasts()))
    if (C->getNumArgs() == 1)
      if (const FunctionDecl *FD = C->getDirectCallee())
        return FD->getCanonicalDecl();
  return nullptr;
}

/// The pairs in the main file's functions, and every call with one
/// argument (a candidate helper call outside a pair).
struct Sites {
  std::vector<PairSite> Pairs;
  std::set<const CallExpr *> Paired;
  std::vector<SingleCall> Calls;
};

/// A code of a pair: the call `h(a)` itself, or a local read there that
/// holds it, `T v = h(a);`: the only declaration of its statement, in a
/// block, an integer of at least 8 bits, never changed and read nowhere
/// else (so the rewrite may keep the float instead of the code). Decl is
/// then that statement.
const CallExpr *pairCode(const Expr *E, const Stmt *Body, ParentMap &PM,
                         const DeclStmt *&Decl) {
  E = E->IgnoreParenImpCasts();
  Decl = nullptr;
  if (const auto *C = dyn_cast<CallExpr>(E))
    return C;
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!V || isa<ParmVarDecl>(V) || !V->hasLocalStorage() || !V->getInit() ||
      !V->getType()->isIntegerType() || V->getType()->isBooleanType() ||
      V->getType().isVolatileQualified() ||
      V->getASTContext().getTypeSize(V->getType()) < 8 ||
      isModifiedIn(V, Body) || countReferences(Body, V) != 1)
    return nullptr;
  const auto *C = dyn_cast<CallExpr>(V->getInit()->IgnoreParenImpCasts());
  for (const BoundNodes &N :
       match(findAll(declStmt().bind("d")), *Body, V->getASTContext()))
    if (const auto *DS = N.getNodeAs<DeclStmt>("d");
        DS->isSingleDecl() && DS->getSingleDecl() == V &&
        isa_and_nonnull<CompoundStmt>(PM.getParent(DS)))
      Decl = DS;
  return C && Decl ? C : nullptr;
}

/// `h(a) | (h(b) << 4)` (also with + or ^, in either order) as a pair; the
/// codes may be held in locals (pairCode).
std::optional<PairSite> matchPair(const BinaryOperator *B, const Stmt *Body,
                                  ParentMap &PM) {
  for (bool Swap : {false, true}) {
    const Expr *Plain = (Swap ? B->getRHS() : B->getLHS())->IgnoreParens();
    const Expr *Shifted = (Swap ? B->getLHS() : B->getRHS())->IgnoreParens();
    const auto *Shl = dyn_cast<BinaryOperator>(Shifted->IgnoreParenImpCasts());
    if (!Shl || Shl->getOpcode() != BO_Shl)
      continue;
    const auto *Four =
        dyn_cast<IntegerLiteral>(Shl->getRHS()->IgnoreParenImpCasts());
    PairSite P;
    P.Low = pairCode(Plain, Body, PM, P.LowDecl);
    P.High = pairCode(Shl->getLHS(), Body, PM, P.HighDecl);
    const FunctionDecl *H = P.Low ? calledFunction(P.Low) : nullptr;
    if (!Four || Four->getValue() != 4 || !H || !P.High ||
        calledFunction(P.High) != H)
      continue;
    P.Or = B;
    P.Helper = H;
    return P;
  }
  return std::nullopt;
}

Sites findSites(ASTContext &AC) {
  Sites S;
  const SourceManager &SM = AC.getSourceManager();
  for (const FunctionDecl *FD : nodesEverywhere<FunctionDecl>(
           functionDecl(isDefinition()).bind("f"), "f", AC)) {
    if (!FD->getBody() || FD->isTemplated() || FD->isTemplateInstantiation() ||
        !SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())))
      continue;
    ParentMap PM(FD->getBody());
    for (const BoundNodes &N :
         match(findAll(
                   binaryOperator(hasAnyOperatorName("|", "+", "^")).bind("b")),
               *FD->getBody(), AC))
      if (std::optional<PairSite> P =
              matchPair(N.getNodeAs<BinaryOperator>("b"), FD->getBody(), PM)) {
        P->Caller = FD;
        S.Paired.insert(P->Low);
        S.Paired.insert(P->High);
        S.Pairs.push_back(*P);
      }
    for (const BoundNodes &N :
         match(findAll(callExpr(argumentCountIs(1), callee(functionDecl()))
                           .bind("c")),
               *FD->getBody(), AC))
      S.Calls.push_back({N.getNodeAs<CallExpr>("c"), FD});
  }
  return S;
}

bool isDeviceFunction(const FunctionDecl *FD) {
  return FD->hasAttr<CUDADeviceAttr>() || FD->hasAttr<CUDAGlobalAttr>();
}

class Fp4IntrinsicsPass : public FilePass<Fp4IntrinsicsOptions> {
public:
  void runOnFile(PassContext &Ctx) override {
    Pending.clear();
    ReportedE4m3.clear();
    Unpaired.clear();
    ASTContext &AC = Ctx.deviceContext();
    Sites Finder = findSites(AC);

    StringRef ArchParam = options().Arch;
    bool Explicit = ArchParam != "auto";
    std::string Arch = Explicit ? ArchParam.str() : Ctx.info().GpuArch;
    std::optional<bool> Hardware = hasE2m1Instruction(Arch);
    bool ExactNaN = options().ExactNaN;

    // Helpers in order of their first pair.
    std::vector<const FunctionDecl *> Helpers;
    for (const PairSite &P : Finder.Pairs)
      if (!is_contained(Helpers, P.Helper))
        Helpers.push_back(P.Helper);

    std::set<const FunctionDecl *> Recognized;
    for (const FunctionDecl *H : Helpers) {
      std::vector<const PairSite *> Sites;
      for (const PairSite &P : Finder.Pairs)
        if (P.Helper == H)
          Sites.push_back(&P);
      auto MissAll = [&](const Twine &Why) {
        for (const PairSite *P : Sites)
          Ctx.missed(P->Caller->getQualifiedNameAsString(),
                     lineCol(P->Or->getBeginLoc(), AC), Why);
      };
      std::string Name = H->getNameAsString();
      if (!Hardware) {
        MissAll("arch '" + Arch + "' is not of the form sm_N");
        continue;
      }
      if (!*Hardware && !Explicit) {
        MissAll(Arch + " has no e2m1 conversion instruction; the intrinsic "
                       "would be emulated (arch=sm_100a rewrites anyway)");
        continue;
      }
      if (std::string Why = checkHelperShape(H, AC); !Why.empty()) {
        MissAll("'" + Name + "' is not a recognized e2m1 conversion: " + Why);
        continue;
      }
      const FunctionDecl *Def = H->getDefinition();
      E2m1Verdict V = proveE2m1Helper(Def, AC, ExactNaN);
      if (!V.Why.empty()) {
        MissAll("'" + Name +
                "' is not e2m1 round-to-nearest-even with "
                "saturation: " +
                V.Why);
        continue;
      }
      Recognized.insert(H);
      rewriteSites(Ctx, H, Def, V, Sites, Arch, ExactNaN);
    }
    emit(Ctx);

    // Single conversions of a recognized helper, and float -> e4m3 code.
    for (const SingleCall &C : Finder.Calls) {
      const FunctionDecl *Callee =
          C.Call->getDirectCallee()->getCanonicalDecl();
      if (Finder.Paired.count(C.Call) || !isDeviceFunction(C.Caller))
        continue;
      const FunctionDecl *Def = Callee->getDefinition();
      // A helper no pair calls is proven here, so that its calls are not
      // passed over in silence (codes packed through locals, one code a
      // byte).
      if (!Recognized.count(Callee) && !is_contained(Helpers, Callee) &&
          checkHelperShape(Callee, AC).empty()) {
        auto [It, New] = Unpaired.try_emplace(Callee, false);
        if (New)
          It->second = proveE2m1Helper(Def, AC, ExactNaN).Why.empty();
        if (It->second) {
          Ctx.missed(C.Caller->getQualifiedNameAsString(),
                     lineCol(C.Call->getBeginLoc(), AC),
                     "'" + Callee->getNameAsString() +
                         "' is an e2m1 conversion, but this call is not "
                         "packed with a second one as h(a) | (h(b) << 4), "
                         "directly or through locals declared one a "
                         "statement and read only there: left as is");
          continue;
        }
      }
      if (Recognized.count(Callee)) {
        Ctx.missed(C.Caller->getQualifiedNameAsString(),
                   lineCol(C.Call->getBeginLoc(), AC),
                   "a single '" + Callee->getNameAsString() +
                       "' conversion, not packed with a second one as "
                       "h(a) | (h(b) << 4): left as is");
        continue;
      }
      if (Def && isFloatToInteger(Def) && !Recognized.count(Callee) &&
          SM(AC).isInMainFile(SM(AC).getExpansionLoc(Def->getLocation())) &&
          looksLikeE4m3(Def) && ReportedE4m3.insert(Def).second)
        Ctx.missed(Def->getQualifiedNameAsString(),
                   lineCol(Def->getLocation(), AC),
                   "'" + Def->getNameAsString() +
                       "' looks like a hand-written float to e4m3 conversion; "
                       "fp4-intrinsics proves only e2m1 helpers: use "
                       "__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)");
    }
  }

private:
  static const SourceManager &SM(ASTContext &AC) {
    return AC.getSourceManager();
  }

  /// Why H's declaration cannot be proven or wrapped; empty if it can.
  static std::string checkHelperShape(const FunctionDecl *H, ASTContext &AC) {
    const FunctionDecl *Def = H->getDefinition();
    if (!Def)
      return "its definition is not in this file";
    if (!SM(AC).isInMainFile(SM(AC).getExpansionLoc(Def->getLocation())))
      return "it is defined in a header";
    if (!isFloatToInteger(Def))
      return "it does not take one float and return an integer";
    if (isa<CXXMethodDecl>(Def) || Def->isTemplated() ||
        !Def->getDeclContext()->getRedeclContext()->isTranslationUnit())
      return "it is not a plain function at file scope";
    return "";
  }

  /// Where the wrapper goes: after H's definition when that precedes every
  /// pair, else before H's first declaration and the comment lines above
  /// it. std::nullopt when H is written in a macro or shares a line.
  struct Placement {
    unsigned Offset = 0;
    bool AfterDefinition = false;
  };
  static std::optional<Placement>
  wrapperPlacement(const FunctionDecl *H, const FunctionDecl *Def,
                   const std::vector<const PairSite *> &Sites, ASTContext &AC,
                   StringRef Code) {
    const SourceManager &S = SM(AC);
    SourceLocation End = S.getExpansionLoc(Def->getEndLoc());
    bool DefFirst = S.isInMainFile(End);
    for (const PairSite *P : Sites)
      DefFirst &= S.isBeforeInTranslationUnit(
          End, S.getExpansionLoc(P->Or->getBeginLoc()));
    if (DefFirst) {
      unsigned Offset = S.getFileOffset(End);
      size_t LineEnd = Code.find('\n', Offset);
      if (LineEnd == StringRef::npos ||
          !Code.slice(Offset + 1, LineEnd).trim().empty())
        return std::nullopt;
      return Placement{unsigned(LineEnd + 1), true};
    }
    SourceLocation Begin =
        S.getExpansionLoc(H->getCanonicalDecl()->getBeginLoc());
    if (!S.isInMainFile(Begin))
      return std::nullopt;
    unsigned Offset = S.getFileOffset(Begin);
    size_t LineStart = Code.rfind('\n', Offset);
    LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
    if (!Code.slice(LineStart, Offset).trim().empty())
      return std::nullopt;
    // Keep the declaration's comment next to it.
    while (LineStart > 0) {
      size_t Prev = Code.rfind('\n', LineStart - 1);
      Prev = Prev == StringRef::npos ? 0 : Prev + 1;
      if (!Code.slice(Prev, LineStart).trim().starts_with("//"))
        break;
      LineStart = Prev;
    }
    return Placement{unsigned(LineStart), false};
  }

  /// Where `#include <cuda_fp4.h>` goes (after the last top-level #include
  /// before Limit), or std::nullopt when the file already includes it.
  static std::optional<unsigned> includeOffset(StringRef Code, unsigned Limit) {
    unsigned Depth = 0;
    std::optional<unsigned> After;
    size_t Pos = 0;
    while (Pos < Limit) {
      size_t End = Code.find('\n', Pos);
      if (End == StringRef::npos)
        End = Code.size();
      StringRef Line = Code.slice(Pos, End).ltrim();
      if (Line.consume_front("#")) {
        Line = Line.ltrim();
        if (Line.starts_with("if"))
          ++Depth;
        else if (Line.starts_with("endif") && Depth)
          --Depth;
        else if (Line.consume_front("include")) {
          Line = Line.trim();
          if (Line == "<cuda_fp4.h>" || Line == "\"cuda_fp4.h\"")
            return std::nullopt;
          if (Depth == 0)
            After = unsigned(std::min(End + 1, Code.size()));
        }
      }
      Pos = End + 1;
    }
    return After ? *After : Limit;
  }

  void rewriteSites(PassContext &Ctx, const FunctionDecl *H,
                    const FunctionDecl *Def, const E2m1Verdict &V,
                    const std::vector<const PairSite *> &Sites, StringRef Arch,
                    bool ExactNaN) {
    ASTContext &AC = Ctx.deviceContext();
    std::string Name = H->getNameAsString();
    std::string Wrapper = "kopt_" + Name + "_x2";
    DeclarationName WrapperName(&AC.Idents.get(Wrapper));

    // Sites that can be rewritten, and the one type of their packed value.
    std::vector<const PairSite *> Good;
    std::string PairType;
    for (const PairSite *P : Sites) {
      LineCol Loc = lineCol(P->Or->getBeginLoc(), AC);
      StringRef Caller = P->Caller->getQualifiedNameAsString();
      std::string Type =
          P->Or->getType().getCanonicalType().getUnqualifiedType().getAsString(
              AC.getPrintingPolicy());
      if (!isDeviceFunction(P->Caller)) {
        Ctx.missed(Caller, Loc,
                   "host code: the intrinsic is emulated on the host");
        continue;
      }
      if (!isRewritable(P->Or->getSourceRange(), AC) ||
          sourceText(P->Low->getArg(0)->getSourceRange(), AC).empty() ||
          sourceText(P->High->getArg(0)->getSourceRange(), AC).empty() ||
          (P->LowDecl && !isRewritable(P->LowDecl->getSourceRange(), AC)) ||
          (P->HighDecl && !isRewritable(P->HighDecl->getSourceRange(), AC))) {
        Ctx.missed(Caller, Loc, "the pair is written in a macro");
        continue;
      }
      if (hasSideEffects(P->Low->getArg(0), AC) ||
          hasSideEffects(P->High->getArg(0), AC)) {
        Ctx.missed(Caller, Loc,
                   "an argument has side effects: the pair's order of "
                   "evaluation would change");
        continue;
      }
      // Every pair of one helper has the same type: its promoted result.
      PairType = Type;
      Good.push_back(P);
    }
    if (Good.empty())
      return;
    if (!AC.getTranslationUnitDecl()->lookup(WrapperName).empty()) {
      for (const PairSite *P : Good)
        Ctx.missed(P->Caller->getQualifiedNameAsString(),
                   lineCol(P->Or->getBeginLoc(), AC),
                   "the name '" + Wrapper + "' is already taken");
      return;
    }

    StringRef Code = Ctx.source().Code;
    std::optional<Placement> At = wrapperPlacement(H, Def, Good, AC, Code);
    if (!At) {
      for (const PairSite *P : Good)
        Ctx.missed(P->Caller->getQualifiedNameAsString(),
                   lineCol(P->Or->getBeginLoc(), AC),
                   "'" + Name +
                       "' shares its line with other code or is written "
                       "in a macro: no place for the wrapper");
      return;
    }

    // The wrapper: the intrinsic, plus the repairs the proof asked for.
    bool HostToo = Def->hasAttr<CUDAHostAttr>() || H->hasAttr<CUDAHostAttr>();
    std::string Text;
    raw_string_ostream OS(Text);
    std::string Lo = V.NegZeroIsPositive ? "lo + 0.0f" : "lo";
    std::string Hi = V.NegZeroIsPositive ? "hi + 0.0f" : "hi";
    OS << "// kopt fp4-intrinsics: " << Name << "(lo) | (" << Name
       << "(hi) << 4)\n"
       << "// as one conversion (cvt.rn.satfinite.e2m1x2.f32 on sm_100a and "
          "later\n"
       << "// family-specific targets).\n";
    if (V.NegZeroIsPositive)
      OS << "// " << Name
         << " encodes -0.0 as +0: x + 0.0f turns -0.0 into +0.0 and\n"
            "// keeps every other x.\n";
    if (V.NegNaNKeepsSign && ExactNaN)
      OS << "// " << Name
         << " keeps the sign bit of a NaN (0xF), the intrinsic gives\n"
            "// +6 (0x7): set it again.\n";
    OS << "static inline " << (HostToo ? "__host__ __device__ " : "__device__ ")
       << PairType << "\n"
       << Wrapper << "(float lo, float hi) {\n"
       << "  " << PairType << " r = __nv_cvt_float2_to_fp4x2(make_float2(" << Lo
       << ", " << Hi << "),\n"
       << "      __NV_E2M1, cudaRoundNearest);\n";
    if (V.NegNaNKeepsSign && ExactNaN)
      OS << "  if (lo != lo && copysignf(1.0f, lo) < 0.0f)\n"
         << "    r |= 0x08;\n"
         << "  if (hi != hi && copysignf(1.0f, hi) < 0.0f)\n"
         << "    r |= 0x80;\n";
    OS << "  return r;\n}\n";
    Text = At->AfterDefinition ? "\n" + Text : Text + "\n";

    std::string Repairs;
    if (V.NegZeroIsPositive)
      Repairs += "; -0.0 passed as +0.0, as '" + Name + "' encodes it";
    if (V.NegNaNKeepsSign)
      Repairs += "; a NaN's sign bit kept, as '" + Name + "' does";
    if (V.NaNDiffers)
      Repairs += "; NaNs encode as +6 (0x7), not as '" + Name +
                 "' does (exact-nan=false)";
    Pending.push_back({At->Offset, std::move(Text), Wrapper, Good,
                       "two '" + Name +
                           "' conversions as one __nv_cvt_float2_to_fp4x2 "
                           "for " +
                           Arch.str() + " ('" + Name +
                           "' proven e2m1 round-to-nearest-even with "
                           "saturation on " +
                           std::to_string(V.Cells) + " cells of the floats" +
                           Repairs + ")"});
  }

  /// Adds the include, the wrappers and the rewritten pairs.
  void emit(PassContext &Ctx) {
    if (Pending.empty())
      return;
    ASTContext &AC = Ctx.deviceContext();
    auto MissAll = [&](const Wrapping &W, const Twine &Why) {
      for (const PairSite *P : W.Sites)
        Ctx.missed(P->Caller->getQualifiedNameAsString(),
                   lineCol(P->Or->getBeginLoc(), AC), Why);
    };
    // One include, before the first wrapper: after the file's last #include
    // above it, or right before it.
    auto First = std::min_element(Pending.begin(), Pending.end(),
                                  [](const Wrapping &A, const Wrapping &B) {
                                    return A.Offset < B.Offset;
                                  });
    std::optional<unsigned> Include =
        includeOffset(Ctx.source().Code, First->Offset);
    if (Include && *Include == First->Offset)
      First->Text = "#include <cuda_fp4.h>\n\n" + First->Text;
    else if (Include)
      if (Error E = Ctx.edits().replaceChars(*Include, 0,
                                             "#include <cuda_fp4.h>\n")) {
        std::string Msg = toString(std::move(E));
        for (const Wrapping &W : Pending)
          MissAll(W, Msg);
        return;
      }
    for (const Wrapping &W : Pending) {
      if (Error E = Ctx.edits().replaceChars(W.Offset, 0, W.Text)) {
        MissAll(W, toString(std::move(E)));
        continue;
      }
      for (const PairSite *P : W.Sites) {
        std::string Caller = P->Caller->getQualifiedNameAsString();
        LineCol Loc = lineCol(P->Or->getBeginLoc(), AC);
        // A code held in a local keeps the float there instead: `T lo =
        // h(a);` becomes `const float lo = a;`, evaluated where it was.
        EditSet Edits(Ctx.source().Path);
        std::string Args[2];
        Error E = Error::success();
        for (int I = 0; I < 2 && !E; ++I) {
          const CallExpr *Call = I ? P->High : P->Low;
          const DeclStmt *Decl = I ? P->HighDecl : P->LowDecl;
          std::string Arg = sourceText(Call->getArg(0)->getSourceRange(), AC);
          if (!Decl) {
            Args[I] = Arg;
            continue;
          }
          Args[I] = cast<VarDecl>(Decl->getSingleDecl())->getNameAsString();
          E = Edits.replace(Decl->getSourceRange(),
                            "const float " + Args[I] + " = " + Arg + ";", AC);
        }
        if (!E)
          E = Edits.replace(P->Or->getSourceRange(),
                            W.Name + "(" + Args[0] + ", " + Args[1] + ")", AC);
        if (!E)
          E = Ctx.edits().merge(Edits);
        if (E) {
          Ctx.missed(Caller, Loc, toString(std::move(E)));
          continue;
        }
        Ctx.applied(Caller, Loc, W.Remark);
      }
    }
  }

  /// A wrapper to insert and the pairs that call it.
  struct Wrapping {
    unsigned Offset;
    std::string Text, Name;
    std::vector<const PairSite *> Sites;
    std::string Remark;
  };
  std::vector<Wrapping> Pending;
  std::set<const FunctionDecl *> ReportedE4m3;
  /// Helpers no pair calls: whether each is proven e2m1.
  std::map<const FunctionDecl *, bool> Unpaired;
};

} // namespace

std::unique_ptr<Pass> createFp4IntrinsicsPass() {
  return std::make_unique<Fp4IntrinsicsPass>();
}

} // namespace kopt
