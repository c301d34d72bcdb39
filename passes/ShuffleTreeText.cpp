//===- ShuffleTreeText.cpp - warp-reduce's shuffle trees as text ---------===//

#include "ShuffleTreeText.h"

#include "kopt/Analysis/CudaAST.h"

#include "clang/AST/ASTContext.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace llvm;

namespace kopt {

std::string shuffleTreeText(const ReductionTree &T, ASTContext &AC,
                            StringRef In) {
  std::string A = T.Array->getNameAsString();
  const PrintingPolicy &PP = AC.getPrintingPolicy();
  // In a template's instantiation, `T` where the template says T.
  std::string ElemText = typeAsWritten(T.Element.getUnqualifiedType(), PP);
  std::string Value = sourceText(T.Value->getSourceRange(), AC);
  // An interleaved tree combines neighbours first: __shfl_down_sync with
  // offsets 1, 2, ..., 16 in each warp, then over the warp slots, adds
  // the same pairs in the same order (ReductionTree::Interleaved).
  bool Down = T.Interleaved;
  std::string Shuffle =
      std::string(Down ? "__shfl_down_sync" : "__shfl_xor_sync") +
      "(0xffffffffu, kopt_wr, kopt_o)";
  std::string Step =
      T.Add ? "kopt_wr += " + Shuffle + ";"
            : "kopt_wr = " + T.CalleeText + "(kopt_wr, " + Shuffle + ");";
  std::string Op = T.Add ? "+" : T.CalleeText;
  std::string WarpLoop = Down ? "for (int kopt_o = 1; kopt_o < 32; "
                                "kopt_o <<= 1)\n"
                              : "for (int kopt_o = 16; kopt_o > 0; "
                                "kopt_o >>= 1)\n";
  std::string SlotLoop = Down ? "for (int kopt_o = 1; kopt_o < blockDim.x / "
                                "32; kopt_o <<= 1)\n"
                              : "for (int kopt_o = blockDim.x / 64; kopt_o "
                                "> 0; kopt_o >>= 1)\n";
  // Stage 2 runs in warp 0 over the nw = blockDim.x / 32 slots (a power
  // of two): offsets below nw keep lanes < nw among themselves, so lanes
  // >= nw need no identity value; their results are not used.
  std::string Out;
  raw_string_ostream OS(Out);
  OS << "{\n"
     << In << "  // kopt warp-reduce (" << Op
     << (Down ? ", in the tree's order" : "")
     << "): shuffles in each warp, then over the warp slots\n"
     << In << "  " << ElemText << " kopt_wr = " << Value << ";\n"
     << In << "  " << WarpLoop << In << "    " << Step << "\n"
     << In << "  if (threadIdx.x % 32 == 0)\n"
     << In << "    " << A << "[threadIdx.x / 32] = kopt_wr;\n"
     << In << "  __syncthreads();\n"
     << In << "  if (threadIdx.x < 32) {\n"
     << In << "    if (threadIdx.x < blockDim.x / 32)\n"
     << In << "      kopt_wr = " << A << "[threadIdx.x];\n"
     << In << "    " << SlotLoop << In << "      " << Step << "\n"
     << In << "    if (threadIdx.x == 0)\n"
     << In << "      " << A << "[0] = kopt_wr;\n"
     << In << "  }\n"
     << In << "  __syncthreads();\n"
     << In << "}";
  return Out;
}

std::string selectionTreeText(const SelectionTree &T, ASTContext &AC,
                              StringRef In) {
  const PrintingPolicy &PP = AC.getPrintingPolicy();
  std::string VT = typeAsWritten(T.ValueType.getUnqualifiedType(), PP);
  std::string IT = typeAsWritten(T.IndexType.getUnqualifiedType(), PP);
  std::string V = T.ValueArray->getNameAsString();
  std::string I = T.IndexArray->getNameAsString();
  std::string Better = std::string("kopt_ov ") + (T.Max ? ">" : "<") +
                       " kopt_wv || (kopt_ov == kopt_wv && kopt_oi < "
                       "kopt_wi)";
  // One butterfly step over offset kopt_o, at indentation P.
  auto Step = [&](const std::string &P) {
    return P + "{\n" + P + "  " + VT +
           " kopt_ov = __shfl_xor_sync(0xffffffffu, kopt_wv, kopt_o);\n" + P +
           "  " + IT +
           " kopt_oi = __shfl_xor_sync(0xffffffffu, kopt_wi, kopt_o);\n" + P +
           "  if (" + Better + ") {\n" + P + "    kopt_wv = kopt_ov;\n" + P +
           "    kopt_wi = kopt_oi;\n" + P + "  }\n" + P + "}\n";
  };
  std::string Kind = T.Max ? "first-index max" : "first-index min";
  std::string Out;
  raw_string_ostream OS(Out);
  OS << "{\n"
     << In << "  // kopt warp-reduce (" << Kind
     << "): shuffles in each warp, then over the warp slots\n"
     << In << "  " << VT << " kopt_wv = " << T.Value->getName() << ";\n"
     << In << "  " << IT << " kopt_wi = " << T.Index->getName() << ";\n"
     << In << "  for (int kopt_o = 16; kopt_o > 0; kopt_o >>= 1)\n"
     << Step((In + "  ").str()) << In << "  if (threadIdx.x % 32 == 0) {\n"
     << In << "    " << V << "[threadIdx.x / 32] = kopt_wv;\n"
     << In << "    " << I << "[threadIdx.x / 32] = kopt_wi;\n"
     << In << "  }\n"
     << In << "  __syncthreads();\n"
     << In << "  if (threadIdx.x < 32) {\n"
     << In << "    if (threadIdx.x < blockDim.x / 32) {\n"
     << In << "      kopt_wv = " << V << "[threadIdx.x];\n"
     << In << "      kopt_wi = " << I << "[threadIdx.x];\n"
     << In << "    }\n"
     << In << "    for (int kopt_o = blockDim.x / 64; kopt_o > 0; "
     << "kopt_o >>= 1)\n"
     << Step((In + "    ").str()) << In << "    if (threadIdx.x == 0) {\n"
     << In << "      " << V << "[0] = kopt_wv;\n"
     << In << "      " << I << "[0] = kopt_wi;\n"
     << In << "    }\n"
     << In << "  }\n"
     << In << "  __syncthreads();\n"
     << In << "}";
  return Out;
}

} // namespace kopt
