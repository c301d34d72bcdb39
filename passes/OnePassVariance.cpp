//===- OnePassVariance.cpp - The one-pass-variance pass -------------------===//
//
// A two-pass variance reads its elements twice: once for the mean, once
// for the squared deviations from it,
//
//   A: for (int i = threadIdx.x; i < n; i += blockDim.x) s += x[i];
//      ... combine s, mean = s / n ...
//   B: for (int i = threadIdx.x; i < n; i += blockDim.x) {
//        float d = x[i] - mean; v += d * d;
//      }
//
// For a memory-bound kernel over rows too long for the caches, the second
// read is a third of its traffic. B's contribution to v is a function of
// three sums over the same elements that A can accumulate before the mean
// is known. With K any value fixed per thread (the shift), d_i = x_i - K,
// S = sum d_i, Q = sum d_i^2, N the iteration count and c = mean - K,
//
//   sum (x_i - mean)^2 = sum (d_i - c)^2 = Q - c * (2 S - N c).
//
// The pass adds S, Q and N to A (K is the thread's first element, read
// before A at A's first index: then c is small and the difference does not
// cancel catastrophically) and replaces B by that closed form:
//
//   float kopt_var_k = 0.0f;
//   {
//     int i = threadIdx.x;
//     if (i < n)
//       kopt_var_k = x[i];
//   }
//   float kopt_var_s = 0.0f, kopt_var_q = 0.0f;
//   unsigned long long kopt_var_n = 0;
//   for (int i = threadIdx.x; i < n; i += blockDim.x) {
//     s += x[i];
//     float kopt_var_d = x[i] - kopt_var_k;
//     kopt_var_s += kopt_var_d;
//     kopt_var_q += kopt_var_d * kopt_var_d;
//     ++kopt_var_n;
//   }
//   ...
//   if (kopt_var_n != 0) {
//     const float kopt_var_c = mean - kopt_var_k;
//     v += kopt_var_q - kopt_var_c * (2.0f * kopt_var_s -
//                                     static_cast<float>(kopt_var_n) *
//                                     kopt_var_c);
//   }
//
// Legality (each failure is a missed remark):
//   * B adds the square of `element - centre` to a local floating-point
//     scalar and does nothing else (locals that feed the update aside); the
//     centre has no side effects and reads neither B's variables nor v
//     (SquaredDeviations.h): B's contribution is sum (x_i - centre)^2 over
//     its iterations, with the centre's value where B stood;
//   * A is an earlier sibling loop that loads the same element on every
//     iteration, over the same iterations, from a `__restrict__` pointer
//     the kernel only reads (ReReadLoops.h, as register-cache, in its
//     SameIterations shape: the same start, step and bound, each one value
//     for the kernel): the values A sees are the values B would have read;
//   * A declares none of the names the element is written with (its text,
//     B's counter included, is copied into A: ReReadLoops pairs only
//     elements indexed alike, so A's counter has B's counter's name);
//   * the sums are of each thread's own iterations, whichever later pass
//     divides them (cluster-split, vectorize-loads): the formula holds for
//     any set of iterations whose S, Q and N are accumulated together;
//   * reassociate=true: Q - c (2S - Nc) rounds differently from the sum of
//     squares it replaces (Rounding; kopt-search offers it where the
//     problem's tolerance admits it). An empty thread (N = 0) adds nothing,
//     as B did.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "SourceLayout.h"
#include "kopt/Analysis/Names.h"
#include "kopt/Analysis/ReReadLoops.h"
#include "kopt/Analysis/SquaredDeviations.h"
#include "kopt/Pass/Pass.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"

#include <map>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace kopt {

namespace {

const char *const Why = "variance not computed in one pass: ";

/// One B folded into its A, with the names of its sums.
struct Fold {
  SquaredDeviationLoop B;
  const ReReadGroup *G = nullptr;
  std::string Type; ///< the deviation's type, as the kernel spells it
  std::string K, S, Q, N, D, C;
};

bool inside(const ForStmt *Loop, LineCol L, ASTContext &AC) {
  LineCol Begin = lineCol(Loop->getBeginLoc(), AC);
  LineCol End = lineCol(Loop->getEndLoc(), AC);
  return std::tie(Begin.Line, Begin.Col) <= std::tie(L.Line, L.Col) &&
         std::tie(L.Line, L.Col) <= std::tie(End.Line, End.Col);
}

std::string literal(StringRef Type, StringRef Value) {
  if (Type == "float")
    return (Value + ".0f").str();
  if (Type == "double")
    return (Value + ".0").str();
  return ("static_cast<" + Type + ">(" + Value + ")").str();
}

class OnePassVariancePass : public KernelPass<OnePassVarianceOptions> {
  bool rewritesInstances() const override { return true; }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    ASTContext &AC = KC.pass().deviceContext();
    std::vector<SquaredDeviationLoop> Candidates;
    bool Refused = false;
    for (const BoundNodes &N :
         match(findAll(forStmt().bind("f")), *K.Decl->getBody(), AC)) {
      auto M = matchSquaredDeviations(N.getNodeAs<ForStmt>("f"), AC);
      if (!M)
        continue;
      const auto *R = std::get_if<Refusal>(&*M);
      Refused |= R != nullptr;
      if (R)
        KC.refused(*R, Why);
      else
        Candidates.push_back(std::get<SquaredDeviationLoop>(*M));
    }
    if (Candidates.empty()) {
      if (!Refused)
        KC.missed(std::string(Why) +
                  "no loop only adds squared deviations of elements from a "
                  "value it does not change (v += (x[i] - mean) * (x[i] - "
                  "mean))");
      return;
    }
    ReReadLoops Found = findReReadLoops(K, AC, ReReadShapes::SameIterations);
    std::set<std::string> Names = namesUsedIn(K.Decl, AC);
    PrintingPolicy PP(AC.getLangOpts());
    PP.SuppressTagKeyword = true;
    std::vector<Fold> Folds;
    for (const SquaredDeviationLoop &B : Candidates) {
      LineCol Loc = lineCol(B.Loop->getBeginLoc(), AC);
      std::string Elem = sourceText(B.Element->getSourceRange(), AC);
      const ReReadGroup *G = nullptr;
      for (const ReReadGroup &R : Found.Groups)
        if (llvm::is_contained(R.Bs, B.Loop))
          G = &R;
      if (!G) {
        bool Said = false;
        for (const Refusal &R : Found.Refusals)
          if (inside(B.Loop, R.Loc, AC)) {
            KC.refused(R, Why);
            Said = true;
          }
        if (!Said)
          KC.missed(Loc, std::string(Why) +
                             "no earlier loop of the same "
                             "compound statement reads '" +
                             Elem + "' over the same iterations");
        continue;
      }
      const auto *Base =
          dyn_cast<DeclRefExpr>(B.Load->getBase()->IgnoreParenImpCasts());
      std::string Index =
          withoutSpaces(sourceText(B.Load->getIdx()->getSourceRange(), AC));
      bool Cached = Base && llvm::any_of(G->Loads, [&](const CachedLoad &C) {
                      return C.K.Base == Base->getDecl() && C.K.Index == Index;
                    });
      LineCol ALoc = lineCol(G->A->getBeginLoc(), AC);
      if (!Cached) {
        KC.missed(Loc, std::string(Why) + "the loop at " + str(ALoc) +
                           " does not read '" + Elem +
                           "' as a cacheable element (a __restrict__ "
                           "pointer the kernel only reads, loaded on every "
                           "iteration)");
        continue;
      }
      std::set<std::string> Shadowed;
      for (const VarDecl *V : varsDeclaredIn(G->A->getBody()))
        Shadowed.insert(V->getNameAsString());
      std::string Clash;
      forEachSubStmt(B.Element, [&](const Stmt *S) {
        if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
          if (Shadowed.count(Ref->getDecl()->getNameAsString()))
            Clash = Ref->getDecl()->getNameAsString();
      });
      if (!Clash.empty()) {
        KC.missed(Loc, std::string(Why) + "the loop at " + str(ALoc) +
                           " declares '" + Clash + "', which '" + Elem +
                           "' names");
        continue;
      }
      if (!options().Reassociate) {
        KC.missed(Loc,
                  std::string(Why) + "the squared deviations of '" + Elem +
                      "' from '" + sourceText(B.Center->getSourceRange(), AC) +
                      "' would be computed from sums the loop at " + str(ALoc) +
                      " accumulates, which round differently "
                      "(reassociate=true allows it)");
        continue;
      }
      Fold F;
      F.B = B;
      F.G = G;
      QualType AccType = B.Acc->getType().getUnqualifiedType();
      F.Type = AccType.getCanonicalType() == B.Type ? typeAsWritten(AccType, PP)
                                                    : B.Type.getAsString(PP);
      F.K = freshName(Names, "kopt_var_k");
      F.S = freshName(Names, "kopt_var_s");
      F.Q = freshName(Names, "kopt_var_q");
      F.N = freshName(Names, "kopt_var_n");
      F.D = freshName(Names, "kopt_var_d");
      F.C = freshName(Names, "kopt_var_c");
      Folds.push_back(std::move(F));
    }
    if (!Folds.empty())
      rewrite(KC, Folds);
  }

  /// The element as the fold computes it: converted to the deviation's
  /// type.
  static std::string element(const Fold &F, ASTContext &AC) {
    std::string Text = sourceText(F.B.Element->getSourceRange(), AC);
    if (F.B.Element->getType().getCanonicalType().getUnqualifiedType() ==
        F.B.Type)
      return Text;
    return "static_cast<" + F.Type + ">(" + Text + ")";
  }

  /// The centre, parenthesized unless it is a name or a literal.
  static std::string center(const Fold &F, ASTContext &AC) {
    std::string Text = sourceText(F.B.Center->getSourceRange(), AC);
    const Expr *C = F.B.Center->IgnoreParenImpCasts();
    if (isa<DeclRefExpr, FloatingLiteral, IntegerLiteral, ParenExpr>(C))
      return Text;
    return "(" + Text + ")";
  }

  /// The loop's offsets, from the line of its `#pragma` when it has one
  /// (the pragma goes with the loop: before it nothing may be inserted, and
  /// B's is replaced with it).
  static std::optional<std::pair<unsigned, unsigned>>
  loopOffsets(const ForStmt *Loop, ASTContext &AC) {
    std::optional<std::pair<unsigned, unsigned>> R = stmtOffsets(Loop, AC);
    const auto *AS = dyn_cast_or_null<AttributedStmt>(
        AC.getParentMapContext().getParents(*Loop).empty()
            ? nullptr
            : AC.getParentMapContext().getParents(*Loop)[0].get<Stmt>());
    if (!R || !AS)
      return R;
    const SourceManager &SM = AC.getSourceManager();
    unsigned First = R->first;
    for (const Attr *At : AS->getAttrs()) {
      if (!isa<LoopHintAttr>(At))
        return std::nullopt;
      SourceLocation L = SM.getExpansionLoc(At->getLocation());
      if (SM.isInMainFile(L))
        First = std::min(First, SM.getFileOffset(L));
    }
    StringRef Code = SM.getBufferData(SM.getMainFileID());
    size_t Line = Code.rfind('\n', First);
    Line = Line == StringRef::npos ? 0 : Line + 1;
    size_t Hash = Code.find_first_not_of(" \t", Line);
    if (Hash == StringRef::npos || Code[Hash] != '#')
      return std::nullopt; // `_Pragma` or the pragma after other text
    return std::make_pair(unsigned(Hash), R->second);
  }

  /// The start of Offset's line when only blanks precede Offset on it.
  static std::optional<unsigned> ownLine(StringRef Code, unsigned Offset) {
    size_t Line = Code.rfind('\n', Offset);
    Line = Line == StringRef::npos ? 0 : Line + 1;
    if (!Code.slice(Line, Offset).trim().empty())
      return std::nullopt;
    return unsigned(Line);
  }

  /// A's indentation, its body's, and one level.
  struct Layout {
    std::string In, BodyIn, Step;
  };
  static Layout layout(const ForStmt *A, StringRef Code, ASTContext &AC) {
    Layout L;
    std::optional<std::pair<unsigned, unsigned>> AR = stmtOffsets(A, AC);
    L.In = AR ? indentAt(Code, AR->first) : "";
    L.BodyIn = L.In + "  ";
    if (const auto *CS = dyn_cast<CompoundStmt>(A->getBody());
        CS && !CS->body_empty())
      if (auto First = stmtOffsets(CS->body_front(), AC);
          First && indentAt(Code, First->first).size() > L.In.size() &&
          StringRef(indentAt(Code, First->first)).starts_with(L.In))
        L.BodyIn = indentAt(Code, First->first);
    L.Step = L.BodyIn.substr(L.In.size());
    return L;
  }

  /// Before A, whole lines: the shift (the element A reads first, when it
  /// runs) and the sums, zero.
  static std::string sumsBefore(const Fold &F, const ForStmt *A,
                                const Layout &L, ASTContext &AC) {
    PrintingPolicy PP(AC.getLangOpts());
    PP.SuppressTagKeyword = true;
    CountedLoop CL = *matchCountedLoop(A);
    std::string Zero = literal(F.Type, "0");
    const std::string &In = L.In, &Step = L.Step;
    return In + F.Type + " " + F.K + " = " + Zero + ";\n" + In + "{\n" + In +
           Step + typeAsWritten(CL.Var->getType().getUnqualifiedType(), PP) +
           " " + CL.Var->getNameAsString() + " = " +
           sourceText(CL.Init->getSourceRange(), AC) + ";\n" + In + Step +
           "if (" + sourceText(A->getCond()->getSourceRange(), AC) + ")\n" +
           In + Step + Step + F.K + " = " + element(F, AC) + ";\n" + In +
           "}\n" + In + F.Type + " " + F.S + " = " + Zero + ", " + F.Q + " = " +
           Zero + ";\n" + In + "unsigned long long " + F.N + " = 0;\n";
  }

  /// At the end of A's body: the shifted element into the sums.
  static std::string sumsInLoop(const Fold &F, const Layout &L,
                                ASTContext &AC) {
    const std::string &In = L.BodyIn;
    return In + F.Type + " " + F.D + " = " + element(F, AC) + " - " + F.K +
           ";\n" + In + F.S + " += " + F.D + ";\n" + In + F.Q + " += " + F.D +
           " * " + F.D + ";\n" + In + "++" + F.N + ";\n";
  }

  /// In B's place: the sum of squared deviations from the sums.
  static std::string closedForm(const Fold &F, StringRef In, StringRef Step,
                                ASTContext &AC) {
    return ("if (" + F.N + " != 0) {\n" + In + Step + "const " + F.Type + " " +
            F.C + " = " + center(F, AC) + " - " + F.K + ";\n" + In + Step +
            F.B.Acc->getNameAsString() + " += " + F.Q + " - " + F.C + " * (" +
            literal(F.Type, "2") + " * " + F.S + " - static_cast<" + F.Type +
            ">(" + F.N + ") * " + F.C + ");\n" + In + "}")
        .str();
  }

  void rewrite(KernelContext &KC, const std::vector<Fold> &Folds) {
    ASTContext &AC = KC.pass().deviceContext();
    StringRef Code = KC.pass().source().Code;
    PrintingPolicy PP(AC.getLangOpts());
    PP.SuppressTagKeyword = true;
    EditSet Edits(KC.pass().source().Path);
    // Everything one A gets, in the order of its folds.
    std::map<const ForStmt *, std::pair<std::string, std::string>> PerA;
    std::vector<const ForStmt *> Order;
    auto Fail = [&](LineCol Loc, const Twine &What) {
      KC.missed(Loc, Twine(Why) + What);
    };
    for (const Fold &F : Folds) {
      const ForStmt *A = F.G->A;
      std::optional<std::pair<unsigned, unsigned>> AR = loopOffsets(A, AC);
      std::optional<std::pair<unsigned, unsigned>> BR =
          loopOffsets(F.B.Loop, AC);
      LineCol Loc = lineCol(F.B.Loop->getBeginLoc(), AC);
      if (!AR || !BR) {
        Fail(Loc, "a loop is written in a macro");
        return;
      }
      Layout L = layout(A, Code, AC);
      auto &[Before, Tail] = PerA[A];
      if (Before.empty() && Tail.empty())
        Order.push_back(A);
      Before += sumsBefore(F, A, L, AC);
      Tail += sumsInLoop(F, L, AC);
      std::string BIn = indentAt(Code, stmtOffsets(F.B.Loop, AC)->first);
      std::string Closed = closedForm(F, BIn, L.Step, AC);
      unsigned From = BR->first;
      if (std::optional<unsigned> Line = ownLine(Code, From)) {
        From = *Line;
        Closed = BIn + Closed;
      }
      if (Error E = Edits.replaceChars(From, BR->second - From, Closed)) {
        Fail(Loc, toString(std::move(E)));
        return;
      }
    }
    for (const ForStmt *A : Order) {
      const auto &[Before, Tail] = PerA[A];
      std::optional<std::pair<unsigned, unsigned>> AR = loopOffsets(A, AC);
      std::optional<std::pair<unsigned, unsigned>> Body =
          stmtOffsets(A->getBody(), AC);
      LineCol ALoc = lineCol(A->getBeginLoc(), AC);
      if (!Body) {
        Fail(ALoc, "the loop's body is written in a macro");
        return;
      }
      std::string In = layout(A, Code, AC).In;
      std::optional<unsigned> Line = ownLine(Code, AR->first);
      Error E = Line ? Edits.replaceChars(*Line, 0, Before)
                     : Edits.replaceChars(AR->first, 0,
                                          Before.substr(In.size()) + In);
      if (!E) {
        if (isa<CompoundStmt>(A->getBody())) {
          // Before the closing brace, after the last statement.
          unsigned Close = Body->second - 1;
          size_t LineStart = Code.rfind('\n', Close);
          bool OwnLine = LineStart != StringRef::npos &&
                         Code.slice(LineStart + 1, Close).trim().empty();
          E = OwnLine ? Edits.replaceChars(LineStart + 1, 0, Tail)
                      : Edits.replaceChars(Close, 0, "\n" + Tail + In);
        } else {
          // A body of one statement gets braces, the first after the
          // loop's `)`.
          unsigned Paren =
              AC.getSourceManager().getFileOffset(A->getRParenLoc()) + 1;
          std::string Stmt = Code.slice(Body->first, Body->second).str();
          E = Edits.replaceChars(Paren, Body->second - Paren,
                                 " {\n" + In + layout(A, Code, AC).Step + Stmt +
                                     "\n" + Tail + In + "}");
        }
      }
      if (E) {
        Fail(ALoc, toString(std::move(E)));
        return;
      }
    }
    if (Error E = KC.edits().merge(Edits)) {
      Fail(KC.kernel().Loc, toString(std::move(E)));
      return;
    }
    for (const Fold &F : Folds) {
      std::string Elem = sourceText(F.B.Element->getSourceRange(), AC);
      KC.applied(lineCol(F.B.Loop->getBeginLoc(), AC),
                 "the squared deviations of '" + Elem + "' from '" +
                     sourceText(F.B.Center->getSourceRange(), AC) +
                     "' come from sums the loop at " +
                     str(lineCol(F.G->A->getBeginLoc(), AC)) +
                     " accumulates (shifted by each thread's first element): "
                     "the elements are read once instead of twice; results "
                     "may differ in rounding");
    }
  }
};

} // namespace

std::unique_ptr<Pass> createOnePassVariancePass() {
  return std::make_unique<OnePassVariancePass>();
}

} // namespace kopt
