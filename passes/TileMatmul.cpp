//===- TileMatmul.cpp - Tile a matrix product for shared memory and registers //
//
// A kernel that computes one element of C = epilogue(A B) per thread (a dot
// product loop, or the textbook 16 x 16 shared-memory tiling; see
// MatmulNest.h) reads each element of A and B from shared memory once per
// multiply-add and is bound by that, far below the FMA peak. The pass adds a
// second kernel, `<name>_kopt_tiled`, that computes a BM x BN tile of C per
// block with TM x TN elements per thread in registers (MatmulKernelText.cpp),
// and makes every launch choose it at run time:
//
//   if (kopt_matmul_tiles_fit(M, N, K, ..., A, B, C, ...))
//     name_kopt_tiled<<<dim3(ceil(N / BN), ceil(M / BM)), threads, 0,
//     s>>>(args);
//   else
//     name<<<grid, block, shmem, s>>>(args);   // as written
//
// Legality. The analysis proves what each element of C is: the epilogue of
// the sum of A(i, k) * B(k, j) over k = 0..K-1 in increasing order, one
// accumulator starting at zero, the products of the operands' own type
// (padding tiles add 0 * 0). The tiled kernel adds the same products in the
// same order into its own accumulator for each element, so the sums are
// bit for bit the same (a -0 sum may come out +0); the original guard and
// store are re-evaluated with the row, the column and the accumulator
// redeclared under their own names. The launch proves the original wrote
// every element below the guard's bounds: each axis' block extent equals
// the kernel's tile (or the kernel uses blockDim), blockDim.z is 1, and the
// grid covers the bound ((n + t - 1) / t blocks). At run time the tiled
// kernel runs only when C overlaps neither A nor B (otherwise the original's
// result would depend on which blocks ran first, and the tiled kernel's
// order is another) and its grid fits; else the original launch runs.
// Every launch of the kernel must be a statement of its own, in this file,
// with side-effect-free arguments (they are evaluated twice).
//
// math=tf32 and math=3xtf32 compute the products on tensor cores
// (MatmulMmaText.cpp) from float operands rounded to tf32 (or split into
// two tf32 parts), in another order: they change rounding, which the
// registry declares, so kopt-search tries them only where a problem's
// tolerance admits it and its correctness check decides. They need sm_80.
//
//===----------------------------------------------------------------------===//

#include "FileHelper.h"
#include "MatmulKernelText.h"
#include "Options.h"
#include "SourceLayout.h"
#include "kopt/Analysis/AffineForm.h"
#include "kopt/Analysis/IndexSets.h"
#include "kopt/Analysis/MatmulNest.h"
#include "kopt/Pass/Pass.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace llvm;

namespace kopt {

namespace {

/// The extent along Dim (0 = x, 1 = y, 2 = z) of a launch dimension: the
/// dim3 constructor's argument, or the integer for x; null when unknown.
/// Sets One when the extent is the implicit 1.
const Expr *extentOf(const LaunchDim &D, unsigned Dim, const Stmt *Scope,
                     bool &One) {
  One = false;
  if (!D.Expr)
    return nullptr;
  if (!D.IsDim3) {
    One = Dim != 0;
    return Dim == 0 ? D.Expr : nullptr;
  }
  const Expr *Init = followLocalInit(D.Expr, Scope)->IgnoreImplicit();
  const auto *C = dyn_cast<CXXConstructExpr>(Init);
  if (!C || (C->getNumArgs() >= 1 && isDim3(C->getArg(0)->getType())))
    return nullptr;
  if (Dim >= C->getNumArgs() || isa<CXXDefaultArgExpr>(C->getArg(Dim))) {
    One = true;
    return nullptr;
  }
  return C->getArg(Dim);
}

class TileMatmulPass : public KernelPass<TileMatmulOptions> {
  /// The run-time check, once a file.
  FileHelper Helper{MatmulFitsHelperName};
  void beginFile(PassContext &Ctx) override {
    Helper.beginFile(Ctx.hostContext());
  }

  MatmulTiling tiling() const {
    MatmulTiling T;
    T.BM = options().BlockM;
    T.BN = options().BlockN;
    T.BK = options().BlockK;
    T.TM = options().ThreadM;
    T.TN = options().ThreadN;
    return T;
  }

  /// Why launch L may not choose the tiled kernel.
  static std::optional<std::string>
  checkLaunch(const LaunchSite &L, const MatmulNest &N, ASTContext &HC) {
    std::string At = "the launch at " + str(L.Loc);
    if (!L.Call || !L.CallerDecl)
      return At + " is not a <<<...>>> call kopt can read";
    DynTypedNodeList P = HC.getParents(*L.Call);
    const Stmt *Parent = P.empty() ? nullptr : P[0].get<Stmt>();
    if (!Parent || !isa<CompoundStmt>(Parent))
      return At + " is not a statement of its own (it is wrapped in an "
                  "if/else)";
    for (const Expr *Arg : L.Call->arguments())
      if (hasSideEffects(Arg, HC))
        return At + " has an argument with side effects ('" +
               sourceText(Arg->getSourceRange(), HC) + "')";
    if (!isRewritable(L.Call->getSourceRange(), HC))
      return At + " is written in a macro";
    const Stmt *Scope = L.CallerDecl->getBody();
    bool One = false;
    extentOf(L.Block, 2, Scope, One);
    if (!One && evaluateDim(L.Block.Expr, HC, Scope).Z != 1)
      return At + " may start threads along z";
    AffineContext Forms(HC, Scope);
    for (const MatmulAxis *A : {&N.Row, &N.Col}) {
      std::string Name = "'" + A->Var->getName().str() + "'";
      bool BOne = false, GOne = false;
      const Expr *B = extentOf(L.Block, A->Dim, Scope, BOne);
      const Expr *G = extentOf(L.Grid, A->Dim, Scope, GOne);
      std::optional<int64_t> BV =
          BOne ? 1 : (B ? evaluateInt(B, HC, Scope) : std::nullopt);
      if (A->Tile && BV != A->Tile)
        return At + " does not use " + std::to_string(*A->Tile) +
               " threads along the dimension of " + Name +
               ", which the kernel assumes";
      unsigned Index = A->Bound->getFunctionScopeIndex();
      std::optional<AffineForm> GF =
          GOne ? AffineForm{{}, 1} : (G ? Forms.build(G) : std::nullopt);
      std::optional<AffineForm> BF =
          BOne ? AffineForm{{}, 1} : (B ? Forms.build(B) : std::nullopt);
      std::optional<AffineForm> NF = Index < L.Call->getNumArgs()
                                         ? Forms.build(L.Call->getArg(Index))
                                         : std::nullopt;
      if (!GF || !BF || !NF || !coversCount(Forms, *GF, *BF, *NF))
        return "cannot prove that " + At + " covers every " + Name +
               " below '" + A->Bound->getName().str() +
               "' (expected a grid of (n + t - 1) / t blocks of t)";
    }
    for (unsigned Dim : {0u, 1u}) {
      if (!N.SharedDims[Dim])
        continue;
      bool BOne = false;
      const Expr *B = extentOf(L.Block, Dim, Scope, BOne);
      std::optional<int64_t> BV =
          BOne ? 1 : (B ? evaluateInt(B, HC, Scope) : std::nullopt);
      if (!BV || *BV < N.SharedTile)
        return At + " does not start the " + std::to_string(N.SharedTile) +
               " threads per dimension that store each shared tile";
    }
    return std::nullopt;
  }

  void runOnKernel(KernelContext &KC) override {
    const KernelInfo &K = KC.kernel();
    ASTContext &Ctx = KC.deviceContext();
    ASTContext &HC = KC.hostContext();
    if (K.IsTemplate || StringRef(K.Name).contains("_kopt_"))
      return;
    if (KC.info().kernel(K.Name + "_kopt_tiled"))
      return KC.missed("matrix product not tiled: '" + K.Name +
                       "_kopt_tiled' exists already");
    Decision<MatmulNest> D = findMatmulNest(K.Decl, Ctx);
    if (auto *R = std::get_if<Refusal>(&D)) {
      if (!R->Message.empty())
        KC.refused(*R, "matrix product not tiled: ");
      return;
    }
    const MatmulNest &N = std::get<MatmulNest>(D);
    auto Missed = [&](const Twine &Why) {
      KC.missed(N.Loc, "matrix product not tiled: " + Why);
    };
    std::optional<MatmulMath> Math = parseMath(options().Math);
    if (!Math)
      return Missed("math='" + Twine(options().Math) +
                    "' is not f32, tf32 or 3xtf32");
    MatmulTiling T = tiling();
    T.Math = *Math;
    std::string Invalid =
        T.whyInvalid(unsigned(Ctx.getTypeSizeInChars(N.Elem).getQuantity()));
    if (!Invalid.empty())
      return Missed("parameters " + Twine(Invalid));
    std::optional<unsigned> Arch = KC.info().gpuArchNumber();
    if (T.Math != MatmulMath::Exact && (!Arch || *Arch < 80))
      return Missed("math=" + Twine(mathName(T.Math)) +
                    " needs tf32 tensor cores (sm_80 or newer); the file is "
                    "compiled for " +
                    KC.info().GpuArch);
    if (KC.info().hasUnknownLaunches(K.Name))
      return Missed("'" + K.Name + "' is referenced other than by a launch");
    std::vector<const LaunchSite *> Launches = KC.info().launchesOf(K.Name);
    if (Launches.empty())
      return Missed("no launch of '" + K.Name + "' in this file");
    for (const LaunchSite *L : Launches)
      if (std::optional<std::string> Why = checkLaunch(*L, N, HC))
        return Missed(*Why);
    std::optional<MatmulKernelParts> Parts = parts(K, N, Ctx);
    if (!Parts)
      return Missed("part of the kernel is written in a macro");
    EditSet Edits(KC.pass().source().Path);
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation End = SM.getExpansionLoc(K.Decl->getBody()->getEndLoc());
    std::string Kernel = "\n\n" + tiledMatmulKernel(*Parts, T);
    Kernel.pop_back(); // the original's own newline follows
    if (Error E = Edits.insertAfterToken(End, Kernel, Ctx))
      return Missed(toString(std::move(E)));
    // The helper once, at file scope before every function that launches
    // the kernel (before the namespace, class or `extern "C"` it is in).
    Expected<bool> Added =
        Helper.addBefore(KC.info(), matmulFitsHelper(), Edits, HC);
    if (!Added)
      return Missed(toString(Added.takeError()));
    for (const LaunchSite *L : Launches) {
      std::optional<std::string> Text = launchText(*L, N, T, HC);
      if (!Text)
        return Missed("the launch at " + str(L->Loc) +
                      " is written in a macro");
      auto Off = stmtOffsets(L->Call, HC);
      if (!Off)
        return Missed("the launch at " + str(L->Loc) +
                      " is written in a macro");
      if (Error E =
              Edits.replaceChars(Off->first, Off->second - Off->first, *Text))
        return Missed(toString(std::move(E)));
    }
    if (Error E = KC.edits().merge(Edits))
      return Missed(toString(std::move(E)));
    Helper.committed(*Added);
    std::string How =
        T.Math == MatmulMath::Exact
            ? std::to_string(T.TM) + " x " + std::to_string(T.TN) +
                  " a thread, K in steps of " + std::to_string(T.BK) +
                  "; each element's products are added in the original order"
            : "K in steps of " + std::to_string(T.BK) + "; products of " +
                  (T.Math == MatmulMath::TF32
                       ? "tf32-rounded operands"
                       : "operands split into two tf32 parts (3xtf32)") +
                  " on tensor cores (mma.sync), added in another order "
                  "(changes rounding)";
    KC.applied(N.Loc,
               "tiled the matrix product (" +
                   Twine(N.F == MatmulNest::DotLoop
                             ? "dot-product loop"
                             : "shared tiles of " + Twine(N.SharedTile)) +
                   ") into '" + Parts->Name + "': " + Twine(T.BM) + " x " +
                   Twine(T.BN) + " a block of " + Twine(T.threads()) +
                   " threads, " + How + "; the launch" +
                   (Launches.size() > 1 ? "es fall" : " falls") +
                   " back to the original when C overlaps A or B");
  }

  /// The pieces of the new kernel's text, from the original.
  static std::optional<MatmulKernelParts>
  parts(const KernelInfo &K, const MatmulNest &N, ASTContext &Ctx) {
    MatmulKernelParts P;
    P.Name = K.Decl->getName().str() + "_kopt_tiled";
    const FunctionDecl *F = K.Decl;
    SourceRange Params(F->getFunctionTypeLoc().getLParenLoc(),
                       F->getFunctionTypeLoc().getRParenLoc());
    P.Params = sourceText(Params, Ctx);
    PrintingPolicy PP = Ctx.getPrintingPolicy();
    P.Elem = N.Elem.getAsString(PP);
    P.ElemBytes = unsigned(Ctx.getTypeSizeInChars(N.Elem).getQuantity());
    P.A = N.A.Base->getName().str();
    P.B = N.B.Base->getName().str();
    auto Name = [](const PolySymbol &S) {
      return S.Decl ? S.Decl->getName().str() : std::string("?");
    };
    P.AOuter = N.A.Outer.str(Name);
    P.AReduce = N.A.Reduce.str(Name);
    P.BOuter = N.B.Outer.str(Name);
    P.BReduce = N.B.Reduce.str(Name);
    auto Unit = [](const Polynomial &X) { return X.asConstant() == 1; };
    P.AOuterUnit = Unit(N.A.Outer);
    P.AReduceUnit = Unit(N.A.Reduce);
    P.BOuterUnit = Unit(N.B.Outer);
    P.BReduceUnit = Unit(N.B.Reduce);
    P.M = N.Row.Bound->getName().str();
    P.N = N.Col.Bound->getName().str();
    P.K = N.Reduce->getName().str();
    auto Decl = [&](const VarDecl *V) {
      return V->getType().getUnqualifiedType().getAsString(PP) + " " +
             V->getName().str();
    };
    P.RowDecl = "const " + Decl(N.Row.Var);
    P.ColDecl = "const " + Decl(N.Col.Var);
    P.AccDecl = "const " + Decl(N.Acc);
    P.Guard = sourceText(N.Guard->getCond()->getSourceRange(), Ctx);
    if (N.GuardReturns && !P.Guard.empty())
      P.Guard = "!(" + P.Guard + ")";
    auto StoreAt = stmtOffsets(N.Store, Ctx);
    if (P.Params.empty() || P.Guard.empty() || !StoreAt ||
        !isRewritable(F->getBody()->getSourceRange(), Ctx) ||
        !isRewritable(Params, Ctx))
      return std::nullopt;
    StringRef Code = Ctx.getSourceManager().getBufferData(
        Ctx.getSourceManager().getMainFileID());
    P.Store = Code.slice(StoreAt->first, StoreAt->second).str();
    if (N.AccInit) {
      P.Init = sourceText(N.AccInit->getSourceRange(), Ctx);
      if (P.Init.empty() || !isRewritable(N.AccInit->getSourceRange(), Ctx))
        return std::nullopt;
    }
    return P;
  }

  /// The launch statement that picks the tiled kernel when it fits.
  static std::optional<std::string> launchText(const LaunchSite &L,
                                               const MatmulNest &N,
                                               const MatmulTiling &T,
                                               ASTContext &HC) {
    const CUDAKernelCallExpr *Call = L.Call;
    auto Arg = [&](const ParmVarDecl *P) {
      return "(" +
             oneLine(sourceText(
                 Call->getArg(P->getFunctionScopeIndex())->getSourceRange(),
                 HC)) +
             ")";
    };
    auto Name = [&](const PolySymbol &S) {
      const auto *P = dyn_cast_or_null<ParmVarDecl>(S.Decl);
      return P ? Arg(P) : std::string("?");
    };
    auto Stride = [&](const Polynomial &X) { return "(" + X.str(Name) + ")"; };
    auto Size = [&](const ParmVarDecl *P) { return "sizeof(*" + Arg(P) + ")"; };
    std::string Original = sourceText(Call->getSourceRange(), HC);
    std::string Args;
    for (const Expr *A : Call->arguments()) {
      std::string Text = sourceText(A->getSourceRange(), HC);
      if (Text.empty() || isa<CXXDefaultArgExpr>(A))
        return std::nullopt;
      Args += (Args.empty() ? "" : ", ") + Text;
    }
    const Expr *Stream =
        Call->getConfig()->getNumArgs() > 3
            ? userWrittenLaunchArg(Call->getConfig()->getArg(3))
            : nullptr;
    std::string StreamText =
        Stream ? sourceText(Stream->getSourceRange(), HC) : "0";
    if (Original.empty() || StreamText.empty())
      return std::nullopt;
    std::string M = Arg(N.Row.Bound), NN = Arg(N.Col.Bound), KK = Arg(N.Reduce);
    std::string Indent = indentOf(Call->getBeginLoc(), HC);
    std::string Out;
    Out += std::string(MatmulFitsHelperName) + "(" + M + ", " + NN + ", " + KK +
           ", " + std::to_string(T.BM) + ", " + std::to_string(T.BN) + ",\n" +
           Indent + "        " + Arg(N.A.Base) + ", " + Stride(N.A.Outer) +
           ", " + Stride(N.A.Reduce) + ", " + Size(N.A.Base) + ",\n" + Indent +
           "        " + Arg(N.B.Base) + ", " + Stride(N.B.Reduce) + ", " +
           Stride(N.B.Outer) + ", " + Size(N.B.Base) + ",\n" + Indent +
           "        " + Arg(N.C) + ", " + Stride(N.CRow) + ", " +
           Stride(N.CCol) + ", " + Size(N.C) + "))";
    // The kernel as the launch names it (`ns::mm`), for its tiled copy.
    std::string Callee = sourceText(Call->getCallee()->getSourceRange(), HC);
    if (Callee.empty())
      return std::nullopt;
    return "if (" + Out + "\n" + Indent + "  " + Callee +
           "_kopt_tiled<<<dim3((unsigned)((" + NN + " + " +
           std::to_string(T.BN - 1) + ") / " + std::to_string(T.BN) +
           "), (unsigned)((" + M + " + " + std::to_string(T.BM - 1) + ") / " +
           std::to_string(T.BM) + ")), " + std::to_string(T.threads()) +
           ", 0, " + StreamText + ">>>(" + Args + ");\n" + Indent + "else\n" +
           Indent + "  " + Original + ";";
  }
};

} // namespace

std::unique_ptr<Pass> createTileMatmulPass() {
  return std::make_unique<TileMatmulPass>();
}

} // namespace kopt
