//===- NamesTest.cpp - Names, calls, block guards, cacheable reads --------===//
//
// The small questions passes ask of a file: which names a kernel uses (to
// pick fresh ones: Names.h), who references a function (CallSites.h),
// whether specialize-block's guard leads a kernel (BlockGuard.h), and
// whether reads through a pointer may be kept between loops
// (CachedPointers.h).
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/Names.h"
#include "kopt/Analysis/BlockGuard.h"
#include "kopt/Analysis/CachedPointers.h"
#include "kopt/Analysis/CallSites.h"

#include "AnalyzedSource.h"

using namespace kopt;

namespace {

/// Why reads through parameter `x` of kernel k cannot be cached, or "".
std::string whyNot(const std::string &Params, const std::string &Body) {
  AnalyzedSource S("__global__ void k(" + Params + ") {\n" + Body + "}\n");
  const KernelInfo *K = S.kernel();
  if (!K)
    return "no kernel";
  for (const clang::ParmVarDecl *P : K->Decl->parameters())
    if (P->getName() == "x")
      return whyNotCacheable(P, P, *K, S.ctx());
  return "no x";
}

} // namespace

TEST(NamesTest, FreshNamesAvoidWhatTheKernelUses) {
  AnalyzedSource S("#define N 4\n"
                   "__global__ void k(float *kopt_v, int n) {\n"
                   "  int kopt_v_2 = n;\n  kopt_v[kopt_v_2] = N;\n}\n");
  const KernelInfo *K = S.kernel();
  ASSERT_TRUE(K);
  std::set<std::string> Used = namesUsedIn(K->Decl, S.ctx());
  EXPECT_TRUE(Used.count("kopt_v") && Used.count("kopt_v_2") &&
              Used.count("n"));
  EXPECT_EQ(freshName(Used, "kopt_s"), "kopt_s");
  EXPECT_EQ(freshName(Used, "kopt_v"), "kopt_v_3");
  EXPECT_EQ(freshName(Used, "kopt_s"), "kopt_s_2"); // kopt_s joined Used
}

TEST(CallSitesTest, CallsAndEscapingAddresses) {
  AnalyzedSource S("__device__ float f(float v) { return 2 * v; }\n"
                   "__device__ float g(float v) { return f(v) + f(1); }\n"
                   "typedef float (*Fn)(float);\n"
                   "__device__ Fn h() { return &f; }\n"
                   "__global__ void k(float *y) { y[0] = g(y[1]); }\n");
  FunctionUses U = findFunctionUses(S.ctx());
  std::vector<std::string> Defined;
  for (const clang::FunctionDecl *D : U.Definitions)
    Defined.push_back(D->getNameAsString());
  EXPECT_EQ(Defined, (std::vector<std::string>{"f", "g", "h", "k"}));
  const clang::FunctionDecl *F = U.Definitions.front()->getCanonicalDecl();
  ASSERT_EQ(U.Uses[F].size(), 3u); // two calls in g, the address in h
  EXPECT_EQ(U.Uses[F][0].Caller->getName(), "g");
  EXPECT_NE(U.Uses[F][0].Call, nullptr);
  EXPECT_EQ(U.Uses[F][2].Caller->getName(), "h");
  EXPECT_EQ(U.Uses[F][2].Call, nullptr); // an escaping address
}

TEST(BlockGuardTest, SpecializeBlocksGuard) {
  AnalyzedSource S(
      "__global__ void k(float *y) {\n"
      "  if (blockDim.x != 256u || blockDim.y != 1u || blockDim.z != 1u)\n"
      "    __trap();\n  y[threadIdx.x] = 0;\n}\n"
      "__global__ void partial(float *y) {\n"
      "  if (blockDim.x != 256u) __trap();\n  y[threadIdx.x] = 0;\n}\n");
  std::optional<BlockExtents> B = findBlockGuard(S.kernel()->Decl);
  ASSERT_TRUE(B);
  EXPECT_EQ(B->X, 256);
  EXPECT_EQ(B->Y, 1);
  EXPECT_EQ(B->Z, 1);
  // Every extent must be checked.
  EXPECT_FALSE(findBlockGuard(S.kernel("partial")->Decl));
}

TEST(CachedPointersTest, ReadsKeptBetweenLoops) {
  EXPECT_EQ(whyNot("const float *__restrict__ x, float *y, int n",
                   "  const float *row = x + blockIdx.x * n;\n"
                   "  y[0] = row[0] + __ldg(&x[1]);\n"),
            "");
  // Not restrict, or written through.
  EXPECT_EQ(whyNot("const float *x, float *y, int n", "  y[0] = x[0];\n"),
            "'x' is not __restrict__: a store through another pointer may "
            "change its elements between the loops");
  EXPECT_EQ(whyNot("float *__restrict__ x, float *y, int n",
                   "  y[0] = x[0];\n  x[1] = 0;\n"),
            "'x' is written (at 3:3)");
}
