//===- ReductionTreeTest.cpp - Shared-memory trees and their shapes -------===//

#include "kopt/Analysis/ReductionTree.h"

#include "../ParseHelper.h"
#include "../TestHelpers.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Frontend/ASTUnit.h"

using namespace kopt;

namespace {

/// What findReductionTrees makes of kernel `k` whose body, after
/// `__shared__ float buf[256]; unsigned t = threadIdx.x; buf[t] = x[t];
/// __syncthreads();`, is Tree: "tree" (with ", interleaved" or ", tail K"),
/// the refusal's message, or "none".
std::string shapeOf(const std::string &Tree, const std::string &Before = "") {
  llvm::Expected<ParsedSource> Parsed = testFrontend().parse(
      "/virtual/k.cu", Before +
                           "__global__ void k(const float *x, float *y) {\n"
                           "  __shared__ float buf[256];\n"
                           "  unsigned t = threadIdx.x;\n"
                           "  buf[t] = x[t];\n"
                           "  __syncthreads();\n" +
                           Tree +
                           "\n  if (t == 0) y[blockIdx.x] = buf[0];\n}\n");
  EXPECT_TRUE(static_cast<bool>(Parsed)) << messageOf(Parsed.takeError());
  if (!Parsed)
    return "not parsed";
  clang::ASTContext &AC = Parsed->Device->getASTContext();
  const clang::FunctionDecl *K = nullptr;
  for (const clang::Decl *D : AC.getTranslationUnitDecl()->decls())
    if (const auto *F = llvm::dyn_cast<clang::FunctionDecl>(D))
      if (F->getName() == "k" && F->hasBody())
        K = F;
  EXPECT_NE(K, nullptr);
  if (!K)
    return "no kernel";
  std::vector<ReductionTree> Trees;
  std::vector<Refusal> Shapeless;
  findReductionTrees(K, AC, Trees, Shapeless);
  if (!Shapeless.empty())
    return Shapeless.front().Message;
  if (Trees.empty())
    return "none";
  const ReductionTree &T = Trees.front();
  std::string Out = "tree";
  if (T.Interleaved)
    Out += ", interleaved";
  if (T.TailRounds)
    Out += ", tail " + std::to_string(T.TailRounds);
  return Out;
}

const char *Halving = "for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {\n"
                      "  if (t < s) buf[t] += buf[t + s];\n"
                      "  __syncthreads();\n"
                      "}";

TEST(ReductionTreeTest, CanonicalTree) {
  EXPECT_EQ(shapeOf(Halving), "tree");
  // A halving loop without a condition is refused, not dereferenced.
  std::string NoCond =
      shapeOf("for (unsigned s = blockDim.x / 2; ; s >>= 1) {\n"
              "  if (s == 0) break;\n"
              "  __syncthreads();\n"
              "}");
  EXPECT_NE(NoCond.find("tree loop is not"), std::string::npos) << NoCond;
  EXPECT_EQ(shapeOf(std::string("#pragma unroll\n") + Halving), "tree");
}

const char *WarpReduce =
    "__device__ void warpReduce(volatile float *s, unsigned i) {\n"
    "  s[i] += s[i + 32]; s[i] += s[i + 16]; s[i] += s[i + 8];\n"
    "  s[i] += s[i + 4]; s[i] += s[i + 2]; s[i] += s[i + 1];\n"
    "}\n";
const char *StopsAbove32 =
    "for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {\n"
    "  if (t < s) buf[t] += buf[t + s];\n"
    "  __syncthreads();\n"
    "}\n";

TEST(ReductionTreeTest, WarpSynchronousTail) {
  EXPECT_EQ(
      shapeOf(std::string(StopsAbove32) + "if (t < 32) warpReduce(buf, t);",
              WarpReduce),
      "tree, tail 32");
  // Inline on a volatile alias, __syncwarp between rounds.
  std::string Inline = "if (t < 32) {\n  volatile float *v = buf;\n";
  for (int O = 32; O >= 1; O /= 2)
    Inline += "  v[t] += v[t + " + std::to_string(O) + "]; __syncwarp();\n";
  EXPECT_EQ(shapeOf(StopsAbove32 + Inline + "}"), "tree, tail 32");
  // The tail's rounds must be K..1, in order, in the threads t < K.
  std::string Missing =
      shapeOf(std::string(StopsAbove32) +
              "if (t < 32) { buf[t] += buf[t + 32]; buf[t] += buf[t + 8]; }");
  EXPECT_NE(Missing.find("stops above 32"), std::string::npos) << Missing;
  std::string Wide =
      shapeOf(std::string(StopsAbove32) + "if (t < 64) warpReduce(buf, t);",
              WarpReduce);
  EXPECT_NE(Wide.find("stops above 32"), std::string::npos) << Wide;
}

TEST(ReductionTreeTest, InterleavedTrees) {
  EXPECT_EQ(shapeOf("for (unsigned s = 1; s < blockDim.x; s *= 2) {\n"
                    "  if (t % (2 * s) == 0) buf[t] += buf[t + s];\n"
                    "  __syncthreads();\n"
                    "}"),
            "tree, interleaved");
  EXPECT_EQ(shapeOf("for (unsigned s = 1; s < blockDim.x; s <<= 1) {\n"
                    "  int i = 2 * s * t;\n"
                    "  if (i < blockDim.x) buf[i] = buf[i] + buf[i + s];\n"
                    "  __syncthreads();\n"
                    "}"),
            "tree, interleaved");
  // t % s pairs other threads than the tree: refused.
  std::string Other = shapeOf("for (unsigned s = 1; s < blockDim.x; s *= 2) {\n"
                              "  if (t % s == 0) buf[t] += buf[t + s];\n"
                              "  __syncthreads();\n"
                              "}");
  EXPECT_NE(Other.find("interleaved tree's step"), std::string::npos) << Other;
  // A doubling loop without a condition is no tree (and no crash).
  EXPECT_EQ(shapeOf("for (unsigned s = 1; ; s *= 2) {\n"
                    "  if (s > blockDim.x) break;\n"
                    "  __syncthreads();\n"
                    "}"),
            "none");
  // Without a barrier a doubling loop is no tree.
  EXPECT_EQ(shapeOf("for (unsigned s = 1; s < blockDim.x; s *= 2)\n"
                    "  y[s] = 0;"),
            "none");
}

} // namespace
