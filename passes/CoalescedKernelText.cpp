//===- CoalescedKernelText.cpp - The text coalesce writes -----------------===//

#include "CoalescedKernelText.h"
#include "SourceLayout.h"
#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/IndexClassifier.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"

#include <tuple>
#include <vector>

using namespace clang;
using namespace llvm;

namespace kopt {

uint64_t tileRows(uint64_t R, uint64_t Y) { return R * Y; }
uint64_t tilePitch(uint64_t R, uint64_t X, uint64_t Y) {
  uint64_t Rows = tileRows(R, Y);
  return X + (Rows <= 32 && 32 % Rows == 0 ? 32 / Rows : 1);
}

std::optional<std::string> coarsenedDecl(const FunctionDecl *Kernel, bool GridX,
                                         ASTContext &Ctx, StringRef Code) {
  const SourceManager &SM = Ctx.getSourceManager();
  FunctionTypeLoc FTL = Kernel->getFunctionTypeLoc();
  const auto *Body = cast<CompoundStmt>(Kernel->getBody());
  // From the name on: `__global__` itself is a macro.
  if (!FTL || Kernel->getNumParams() == 0 ||
      !isRewritable(SourceRange(Kernel->getLocation(), Body->getLBracLoc()),
                    Ctx))
    return std::nullopt;
  // From `template <...>` on for a template's instantiation.
  std::optional<DefinitionLayout> L = definitionLayout(Kernel, Ctx);
  if (!L)
    return std::nullopt;
  unsigned Begin = L->Begin, Name = L->NameEnd;
  unsigned Close = SM.getFileOffset(FTL.getRParenLoc());
  unsigned Open = SM.getFileOffset(Body->getLBracLoc());
  if (!(Begin < Name && Name < Close && Close < Open))
    return std::nullopt;
  return Code.slice(Begin, Name).str() + "_kopt_coalesced" +
         Code.slice(Name, Close).str() +
         (GridX ? ", unsigned kopt_grid_x" : "") + ", unsigned kopt_grid_y" +
         Code.slice(Close, Open).str();
}

std::optional<std::string> coarsenedBody(const FunctionDecl *Kernel,
                                         const CompoundStmt *Body,
                                         const Shape &Sh, QualType Elem, Fold F,
                                         std::optional<FixedBlock> Fixed,
                                         uint64_t Capacity, ASTContext &Ctx,
                                         StringRef Code) {
  unsigned Rows = F.Rows;
  // Several blocks along x (only with Fixed): blockIdx.x and gridDim.x
  // become the sub-tile's block and the original grid's extent too.
  bool Wide = F.Cols > 1;
  const SourceManager &SM = Ctx.getSourceManager();
  unsigned Begin = SM.getFileOffset(Body->getLBracLoc()) + 1;
  unsigned End = SM.getFileOffset(Body->getRBracLoc());
  auto Target = exprOffsets(Sh.Target, Ctx);
  auto Value = exprOffsets(Sh.Store->getRHS(), Ctx);
  std::vector<BuiltinUse> Uses = builtinUses(Body, Ctx);
  if (!Target || !Value || anyInMacro(Uses))
    return std::nullopt;
  // blockDim's extents as the new code writes them.
  std::string BX = Fixed ? std::to_string(Fixed->X) + "u" : "blockDim.x";
  std::string BY = Fixed ? std::to_string(Fixed->Y) + "u" : "blockDim.y";
  using Replacement = std::tuple<unsigned, unsigned, std::string>;
  // Replacements of one phase: blockIdx.y and gridDim.y always, threadIdx
  // when \p Threads, none inside [SkipBegin, SkipEnd); blockDim with
  // \p Fixed.
  auto Uniform = [&](bool Threads, unsigned SkipBegin, unsigned SkipEnd) {
    std::vector<Replacement> R;
    for (const BuiltinUse &U : Uses) {
      if (U.Begin >= SkipBegin && U.End <= SkipEnd)
        continue;
      std::string Text;
      if (U.Ref.Var == BuiltinVar::BlockIdx && U.Ref.Dim == 1)
        Text = "kopt_by";
      else if (U.Ref.Var == BuiltinVar::GridDim && U.Ref.Dim == 1)
        Text = "kopt_grid_y";
      else if (Wide && U.Ref.Var == BuiltinVar::BlockIdx && U.Ref.Dim == 0)
        Text = "kopt_bx";
      else if (Wide && U.Ref.Var == BuiltinVar::GridDim && U.Ref.Dim == 0)
        Text = "kopt_grid_x";
      else if (Threads && U.Ref.Var == BuiltinVar::ThreadIdx)
        Text = U.Ref.Dim == 0 ? "kopt_tx" : "kopt_ty";
      else if (Fixed && U.Ref.Var == BuiltinVar::BlockDim)
        Text = U.Ref.Dim == 0 ? BX : U.Ref.Dim == 1 ? BY : "1u";
      if (!Text.empty())
        R.push_back({U.Begin, U.End - U.Begin, Text});
    }
    return R;
  };
  // Phase 1 in two rounds: the values into registers, then into the tile
  // (written as one, ptxas waited for each load before the next: 69% of
  // the copy bandwidth against 85%, H100). The guards are evaluated
  // twice; they read no memory and nothing they read changes.
  std::vector<Replacement> LoadValues =
      Uniform(false, Target->first, Target->second);
  LoadValues.push_back(
      {Target->first, Target->second - Target->first, "kopt_in[kopt_j]"});
  auto StoreRange = exprOffsets(Sh.Store, Ctx);
  if (!StoreRange)
    return std::nullopt;
  std::vector<Replacement> StoreValues =
      Uniform(false, StoreRange->first, StoreRange->second);
  std::string R = std::to_string(Rows) + "u";
  StoreValues.push_back(
      {Target->first, Target->second - Target->first,
       Wide ? "kopt_tile[(kopt_j % " + R + " * " + BY +
                  " + threadIdx.y) * kopt_pitch + kopt_j / " + R + " * " + BX +
                  " + threadIdx.x]"
            : "kopt_tile[(kopt_j * " + BY +
                  " + threadIdx.y) * kopt_pitch + threadIdx.x]"});
  StoreValues.push_back(
      {Value->first, Value->second - Value->first, "kopt_in[kopt_j]"});
  std::vector<Replacement> Second = Uniform(true, Value->first, Value->second);
  std::vector<Replacement> Batched = Second;
  Second.push_back({Value->first, Value->second - Value->first,
                    Wide ? "kopt_tile[kopt_row * kopt_pitch + kopt_col]"
                         : "kopt_tile[kopt_row * kopt_pitch + kopt_tx]"});
  Batched.push_back(
      {Value->first, Value->second - Value->first, "kopt_val[kopt_j]"});
  std::vector<Replacement> Plain = Uniform(false, 1, 0);
  std::string Base = indentOf(Kernel->getBeginLoc(), Ctx);
  std::string I1 = Base + "  ", I2 = I1 + "  ", I3 = I2 + "  ", I4 = I3 + "  ";
  std::string Type = typeAsWritten(Elem, Ctx.getPrintingPolicy());
  // Sub-tiles: R along y, then C along x (sub-tile j is the original
  // block (blockIdx.x * C + j / R, blockIdx.y * R + j % R)).
  std::string C = std::to_string(F.Cols) + "u";
  std::string Subs = std::to_string(F.Rows * F.Cols) + "u";
  std::string InGrid = Wide ? "kopt_bx < kopt_grid_x && kopt_by < kopt_grid_y"
                            : "kopt_by < kopt_grid_y";
  auto SubTiles = [&](StringRef Indent, StringRef Inner) {
    std::string I = Indent.str();
    std::string Blocks = Wide ? I + "  const unsigned kopt_bx = blockIdx.x * " +
                                    C + " + kopt_j / " + R + ";\n" + I +
                                    "  const unsigned kopt_by = blockIdx.y * " +
                                    R + " + kopt_j % " + R + ";\n"
                              : I + "  const unsigned kopt_by = blockIdx.y * " +
                                    R + " + kopt_j;\n";
    return I + "for (unsigned kopt_j = 0; kopt_j < " + Subs +
           "; ++kopt_j) {\n" + Blocks + I + "  if (" + InGrid + ") {" +
           reindent(Inner, (Indent + "  ").str()) + I + "  }\n" + I + "}\n";
  };
  auto Stage = [&](StringRef In) {
    return In.str() + Type + " kopt_in[" + Subs + "];\n#pragma unroll\n" +
           SubTiles(In, splice(Code, Begin, End, LoadValues)) +
           "#pragma unroll\n" +
           SubTiles(In, splice(Code, Begin, End, StoreValues));
  };
  // The thread row and original block that tile row kopt_row stands for.
  auto RowOrigin = [&](StringRef In) {
    return In.str() + "const unsigned kopt_ty = kopt_row % " + BY + ";\n" +
           In.str() + "const unsigned kopt_by = blockIdx.y * " + R +
           " + kopt_row / " + BY + ";\n";
  };
  auto GuardedStores = [&](StringRef In,
                           const std::vector<Replacement> &Phase) {
    return In.str() + "if (" + InGrid + ") {" +
           reindent(splice(Code, Begin, End, Phase), In) + In.str() + "}\n";
  };
  // Round j, thread l stands for tile element t = j * N + l (N threads):
  // row t % kopt_rows, column t / kopt_rows. Where R divides blockDim.x,
  // kopt_rows divides N, so the row is l's every round and the column
  // advances by N / kopt_rows = blockDim.x / R: the divisions run once,
  // and the R shared loads are issued together before the guarded stores
  // (each index is inside the tile; a value whose store is guarded off is
  // read and never used).
  // Tile column kopt_col of a wide tile stands for thread column
  // kopt_col % blockDim.x of block blockIdx.x * C + kopt_col / blockDim.x.
  auto ColumnOrigin = [&](StringRef In, StringRef Column) {
    if (!Wide)
      return In.str() + "const unsigned kopt_tx = " + Column.str() + ";\n";
    return In.str() + "const unsigned kopt_col = " + Column.str() + ";\n" +
           In.str() + "const unsigned kopt_tx = kopt_col % " + BX + ";\n" +
           In.str() + "const unsigned kopt_bx = blockIdx.x * " + C +
           " + kopt_col / " + BX + ";\n";
  };
  auto Divisible = [&](StringRef In) {
    std::string I = In.str(), J = I + "  ";
    std::string Column =
        "kopt_j * (" + BX + " / " + R + ") + kopt_l / kopt_rows";
    return I + "const unsigned kopt_l = threadIdx.y * " + BX +
           " + threadIdx.x;\n" + I +
           "const unsigned kopt_row = kopt_l % kopt_rows;\n" + RowOrigin(I) +
           I + Type + " kopt_val[" + Subs + "];\n#pragma unroll\n" + I +
           "for (unsigned kopt_j = 0; kopt_j < " + Subs + "; ++kopt_j)\n" + J +
           "kopt_val[kopt_j] = kopt_tile[kopt_row * kopt_pitch + " + Column +
           "];\n#pragma unroll\n" + I + "for (unsigned kopt_j = 0; kopt_j < " +
           Subs + "; ++kopt_j) {\n" + ColumnOrigin(J, Column) +
           GuardedStores(J, Batched) + I + "}\n";
  };
  auto General = [&](StringRef In) {
    std::string I = In.str(), J = I + "  ";
    return I + "for (unsigned kopt_j = 0; kopt_j < " + Subs +
           "; ++kopt_j) {\n" + J + "const unsigned kopt_t = (kopt_j * " + BY +
           " + threadIdx.y) * " + BX + " + threadIdx.x;\n" + J +
           "const unsigned kopt_row = kopt_t % kopt_rows;\n" +
           ColumnOrigin(J, "kopt_t / kopt_rows") + RowOrigin(J) +
           GuardedStores(J, Second) + I + "}\n";
  };

  std::string Out = "{\n";
  Out += I1 +
         "// kopt coalesce: the store is staged through shared "
         "memory, " +
         (Wide ? std::to_string(F.Cols) + " x " : std::string()) +
         std::to_string(Rows) + " of the original blocks a block" +
         (Fixed ? " of " + std::to_string(Fixed->X) + " x " +
                      std::to_string(Fixed->Y) + " threads"
                : "") +
         "\n";
  // Sized in coarsen(): for one constant block, exactly what it needs.
  std::string Cap = std::to_string(Capacity) + "u";
  Out += I1 + "__shared__ " + Type + " kopt_tile[" + Cap + "];\n";
  if (Fixed) {
    // The launches' block fits the tile (checked), so no fallback.
    uint64_t Pitch = tilePitch(Rows, F.Cols * Fixed->X, Fixed->Y);
    Out += I1 + "const unsigned kopt_rows = " +
           std::to_string(tileRows(Rows, Fixed->Y)) + "u;\n";
    Out += I1 + "const unsigned kopt_pitch = " + std::to_string(Pitch) + "u;\n";
    Out += Stage(I1);
    Out += I1 + "__syncthreads();\n";
    Out += Fixed->X % Rows == 0 ? Divisible(I1) : General(I1);
    Out += Base + "}";
    return Out;
  }
  Out += I1 + "const unsigned kopt_rows = " + R + " * blockDim.y;\n";
  Out += I1 + "const unsigned kopt_pad = kopt_rows <= 32u && 32u % "
              "kopt_rows == 0u ? 32u / kopt_rows : 1u;\n";
  Out += I1 + "const unsigned kopt_pitch = blockDim.x + kopt_pad;\n";
  Out +=
      I1 + "if (blockDim.z == 1u && kopt_rows * kopt_pitch <= " + Cap + ") {\n";
  Out += Stage(I2);
  Out += I2 + "__syncthreads();\n";
  Out += I2 + "if (blockDim.x % " + R + " == 0u) {\n";
  Out += Divisible(I3);
  Out += I2 + "} else {\n";
  Out += General(I3);
  Out += I2 + "}\n";
  Out += I1 + "} else {\n";
  Out += SubTiles(I2, splice(Code, Begin, End, Plain));
  Out += I1 + "}\n";
  Out += Base + "}";
  return Out;
}

std::optional<std::string> coarsenedLaunch(const LaunchSite &L, Fold F,
                                           ASTContext &HC) {
  const CUDAKernelCallExpr *Call = L.Call;
  std::optional<LaunchPieces> P = launchPieces(Call, HC);
  if (!P)
    return std::nullopt;
  const std::vector<std::string> &Conf = P->Config;
  std::string Args;
  for (const std::string &A : P->Args)
    Args += A + ", ";
  std::string Copy = P->callee("_kopt_coalesced");
  std::string R = std::to_string(F.Rows) + "u";
  std::string C = std::to_string(F.Cols) + "u";
  std::string Out = "{\n";
  std::string Indent = indentOf(Call->getBeginLoc(), HC);
  bool Wide = F.Cols > 1;
  Out += Indent + "  // kopt coalesce: " +
         (Wide ? std::to_string(F.Cols) + " x " + std::to_string(F.Rows) +
                     " of the original blocks a block (along x and y)\n"
               : std::to_string(F.Rows) +
                     " of the original blocks a block along y\n");
  Out += Indent + "  const dim3 kopt_grid(" + Conf[0] + ");\n";
  Out += Indent + "  " + Copy + "<<<dim3(" +
         (Wide ? "(kopt_grid.x + " + C + " - 1u) / " + C : "kopt_grid.x") +
         ", (kopt_grid.y + " + R + " - 1u) / " + R + ", kopt_grid.z)";
  for (std::size_t I = 1; I < Conf.size(); ++I)
    Out += ", " + Conf[I];
  Out += ">>>(" + Args + (Wide ? "kopt_grid.x, " : "") + "kopt_grid.y);\n" +
         Indent + "}";
  return Out;
}

std::optional<std::string> stagedBody(const FunctionDecl *Kernel,
                                      const CompoundStmt *Body, const Shape &Sh,
                                      QualType Elem, ASTContext &Ctx,
                                      StringRef Code) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (!isRewritable(Body->getSourceRange(), Ctx))
    return std::nullopt;
  unsigned Begin = SM.getFileOffset(Body->getLBracLoc()) + 1;
  unsigned End = SM.getFileOffset(Body->getRBracLoc());
  auto Target = exprOffsets(Sh.Target, Ctx);
  auto Value = exprOffsets(Sh.Store->getRHS(), Ctx);
  if (!Target || !Value)
    return std::nullopt;
  using Replacement = std::tuple<unsigned, unsigned, std::string>;
  std::vector<Replacement> First = {
      {Target->first, Target->second - Target->first,
       "kopt_tile[threadIdx.y * kopt_pitch + threadIdx.x]"}};
  std::vector<Replacement> Second = {
      {Value->first, Value->second - Value->first,
       "kopt_tile[kopt_ty * kopt_pitch + kopt_tx]"}};
  std::vector<BuiltinUse> Uses = builtinUses(Body, Ctx);
  if (anyInMacro(Uses))
    return std::nullopt;
  for (const BuiltinUse &U : Uses)
    if (U.Ref.Var == BuiltinVar::ThreadIdx &&
        !(U.Begin >= Value->first && U.End <= Value->second))
      Second.push_back(
          {U.Begin, U.End - U.Begin, U.Ref.Dim == 0 ? "kopt_tx" : "kopt_ty"});
  std::string Base = indentOf(Kernel->getBeginLoc(), Ctx);
  std::string Indent = Base + "  ";
  std::string Type = typeAsWritten(Elem, Ctx.getPrintingPolicy());
  std::string Cap = std::to_string(TileCapacity) + "u";
  auto Block = [&](StringRef Inner) {
    return Indent + "  {" + reindent(Inner, "    ") + "  " + Indent + "}\n";
  };
  std::string Out = "{\n";
  Out += Indent + "// kopt coalesce: the store is staged through shared "
                  "memory\n";
  Out += Indent + "__shared__ " + Type + " kopt_tile[" + Cap + "];\n";
  Out += Indent + "const unsigned kopt_pad = blockDim.y <= 32u && 32u % "
                  "blockDim.y == 0u ? 32u / blockDim.y : 1u;\n";
  Out += Indent + "const unsigned kopt_pitch = blockDim.x + kopt_pad;\n";
  Out += Indent + "if (blockDim.z == 1u && blockDim.y * kopt_pitch <= " + Cap +
         ") {\n";
  Out += Block(splice(Code, Begin, End, First));
  Out += Indent + "  __syncthreads();\n";
  Out += Indent + "  const unsigned kopt_t = threadIdx.y * blockDim.x + "
                  "threadIdx.x;\n";
  Out += Indent + "  const unsigned kopt_tx = kopt_t / blockDim.y;\n";
  Out += Indent + "  const unsigned kopt_ty = kopt_t % blockDim.y;\n";
  Out += Block(splice(Code, Begin, End, Second));
  Out += Indent + "} else {" + reindent(Code.slice(Begin, End), "  ") + Indent +
         "}\n";
  Out += Base + "}";
  return Out;
}

} // namespace kopt
