//===- BodyHazardsTest.cpp - What ties a body to its thread, hidden memory
//-===//
//
// Two questions the re-mapping passes ask before giving a loop's iterations
// to other threads (BodyHazards.h), and restrict-const's question about
// memory a kernel reaches past its parameters (HiddenPointers.h).
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/BodyHazards.h"
#include "kopt/Analysis/HiddenPointers.h"

#include "AnalyzedSource.h"

using namespace kopt;

namespace {

/// The first hazard in the body of kernel k's first for loop, of every
/// kind but ReservedName: "<kind> <name>" or "none".
std::string hazard(const std::string &LoopBody,
                   llvm::ArrayRef<BuiltinVar> Harmless = {}) {
  AnalyzedSource S("__global__ void k(float *y, int n) {\n"
                   "  for (int i = 0; i < n; ++i) {\n" +
                   LoopBody + "  }\n}\n");
  std::vector<const clang::ForStmt *> Loops = S.all<clang::ForStmt>();
  if (Loops.empty())
    return "no loop";
  using H = BodyHazard;
  std::optional<BodyHazard> B =
      firstHazard(Loops.front()->getBody(), S.ctx(),
                  {H::Return, H::Goto, H::Label, H::Break, H::Continue,
                   H::Barrier, H::WarpCollective, H::ThreadIndex},
                  "", Harmless);
  if (!B)
    return "none";
  const char *Kinds[] = {"return",     "goto",         "label",
                         "break",      "continue",     "barrier",
                         "collective", "thread-index", "reserved"};
  return std::string(Kinds[B->K]) + (B->Name.empty() ? "" : " " + B->Name);
}

std::string hidden(const std::string &Source) {
  AnalyzedSource S(Source);
  const KernelInfo *K = S.kernel();
  if (!K)
    return "no kernel";
  std::optional<std::string> Why = hiddenPointer(K->Decl, S.ctx());
  return Why ? *Why : "none";
}

} // namespace

TEST(BodyHazardsTest, WhatTiesABodyToItsThread) {
  EXPECT_EQ(hazard("    y[i] = 2.0f * y[i];\n"), "none");
  EXPECT_EQ(hazard("    if (y[i] < 0) return;\n"), "return");
  EXPECT_EQ(hazard("    if (y[i] < 0) break;\n"), "break");
  EXPECT_EQ(hazard("    if (y[i] < 0) continue;\n    y[i] = 1;\n"), "continue");
  EXPECT_EQ(hazard("    y[i] = 1;\n    __syncthreads();\n"), "barrier");
  EXPECT_EQ(hazard("    y[i] = __shfl_xor_sync(0xffffffffu, y[i], 1);\n"),
            "collective __shfl_xor_sync");
  EXPECT_EQ(hazard("    y[i] = threadIdx.x;\n"), "thread-index threadIdx");
  // A break of a loop nested in the body leaves only that loop.
  EXPECT_EQ(hazard("    for (int j = 0; j < 4; ++j) if (j == i) break;\n"),
            "none");
  // blockDim is the same for every thread of a launch: harmless if said so.
  EXPECT_EQ(hazard("    y[i] = blockDim.x;\n", {BuiltinVar::BlockDim}), "none");
}

TEST(BodyHazardsTest, CallsThatArePureAndCallsThatAreNot) {
  // The program's own helpers: pure when kopt proves them so and they take
  // and return values (a constexpr function may write through a reference;
  // only CUDA's own min/max are pure by name).
  AnalyzedSource S("__device__ float f(float v) { return 2.0f * v; }\n"
                   "__device__ int n;\n"
                   "__device__ float g(float v) { ++n; return v; }\n"
                   "__device__ constexpr float h(const float &v) "
                   "{ return v; }\n"
                   "namespace mine {\n"
                   "__device__ int max(int a, int b) { ++n; return a; }\n"
                   "}\n"
                   "__global__ void k(float *y, const float *x, int *c) {\n"
                   "  y[0] = sqrtf(x[0]);\n"
                   "  y[1] = __ldg(&x[1]);\n"
                   "  atomicAdd(c, 1);\n"
                   "  y[2] = f(x[2]);\n"
                   "  y[3] = g(x[3]);\n"
                   "  y[4] = h(x[4]);\n"
                   "  y[5] = mine::max(c[0], c[1]);\n}\n");
  std::vector<std::string> Out; // the callee and what the call may do
  for (const clang::CallExpr *C : S.all<clang::CallExpr>()) {
    std::optional<CallHazard> H = callHazard(C, S.ctx());
    const char *Kinds[] = {"launch", "unanalyzed", "effects"};
    Out.push_back(C->getDirectCallee()->getNameAsString() + ":" +
                  (H ? Kinds[H->K] : "pure"));
  }
  EXPECT_EQ(Out, (std::vector<std::string>{"sqrtf:pure", "__ldg:pure",
                                           "atomicAdd:effects", "f:pure",
                                           "g:unanalyzed", "h:unanalyzed",
                                      "max:unanalyzed"}));
}

TEST(HiddenPointersTest, MemoryPastTheParameters) {
  EXPECT_EQ(hidden("__global__ void k(const float *x, float *y) {\n"
                   "  y[0] = x[0];\n}\n"),
            "none");
  // A pointer table, a struct holding a pointer, a global pointer, an
  // integer made a pointer: each may reach a parameter's allocation.
  EXPECT_EQ(hidden("__global__ void k(float **t, float *y) {\n"
                   "  y[0] = t[0][0];\n}\n"),
            "parameter 't' (float **) holds pointers the launches' buffers "
            "say nothing about");
  EXPECT_EQ(hidden("struct P { float *p; };\n"
                   "__global__ void k(P s, float *y) { y[0] = s.p[0]; }\n"),
            "parameter 's' (P) holds pointers the launches' buffers say "
            "nothing about");
  EXPECT_EQ(hidden("__device__ float *g;\n"
                   "__global__ void k(float *y) { y[0] = g[0]; }\n"),
            "it uses 'g', a variable of static storage that holds a pointer");
  EXPECT_EQ(hidden("__global__ void k(unsigned long long a, float *y) {\n"
                   "  y[0] = *(float *)a;\n}\n"),
            "it makes a pointer from an integer");
}
