//===- MutationTest.cpp - Variables changed, and shared memory counted ----===//
//
// Two small analyses every pass leans on: whether a variable (or what a
// pointer points to) may change in a scope, and a kernel's static shared
// memory.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/Mutation.h"
#include "kopt/Analysis/SharedMemory.h"

#include "AnalyzedSource.h"

using namespace kopt;

namespace {

/// Whether variable `v` (or, with Pointee, what pointer `v` points to) may
/// change in kernel k's body.
bool changed(const std::string &Body, bool Pointee = false,
             const std::string &Before = "") {
  AnalyzedSource S(Before + "__global__ void k(float *p, int n) {\n" + Body +
                   "}\n");
  const KernelInfo *K = S.kernel();
  if (!K)
    return false;
  for (const clang::DeclStmt *D : S.all<clang::DeclStmt>())
    for (const clang::Decl *X : D->decls())
      if (const auto *V = llvm::dyn_cast<clang::VarDecl>(X);
          V && V->getName() == "v")
        return Pointee ? isPointeeModifiedIn(V, K->Decl->getBody())
                       : isModifiedIn(V, K->Decl->getBody());
  ADD_FAILURE() << "no variable v";
  return false;
}

std::string sharedBytes(const std::string &Source) {
  AnalyzedSource S(Source);
  const KernelInfo *K = S.kernel();
  if (!K)
    return "no kernel";
  std::variant<uint64_t, std::string> B = staticSharedBytes(K->Decl, S.ctx());
  if (const std::string *Why = std::get_if<std::string>(&B))
    return "uncounted: " + *Why;
  return std::to_string(std::get<uint64_t>(B));
}

} // namespace

TEST(MutationTest, WritesAHandWrittenWalkWouldMiss) {
  EXPECT_FALSE(changed("  int v = n;\n  p[v] = 0;\n"));
  EXPECT_TRUE(changed("  int v = n;\n  v += 1;\n  p[v] = 0;\n"));
  // Through a reference, a pointer, a helper taking it by reference, a
  // lambda capturing it by reference.
  EXPECT_TRUE(changed("  int v = n;\n  int &r = v;\n  r = 2;\n  p[v] = 0;\n"));
  EXPECT_TRUE(
      changed("  int v = n;\n  int *q = &v;\n  *q = 2;\n  p[v] = 0;\n"));
  EXPECT_TRUE(changed("  int v = n;\n  bump(v);\n  p[v] = 0;\n", false,
                      "__device__ void bump(int &x) { ++x; }\n"));
  EXPECT_TRUE(changed("  int v = n;\n  auto f = [&] { v = 3; };\n  f();\n"
                      "  p[v] = 0;\n"));
  // A helper taking it by const reference or by value does not.
  EXPECT_FALSE(changed("  int v = n;\n  p[0] = look(v);\n", false,
                       "__device__ int look(const int &x) { return x; }\n"));
}

TEST(MutationTest, WhatAPointerPointsTo) {
  EXPECT_FALSE(changed("  const float *v = p + n;\n  p[0] = v[1];\n", true));
  EXPECT_TRUE(changed("  float *v = p + n;\n  v[1] = 0;\n", true));
  EXPECT_TRUE(changed("  float *v = p + n;\n  *(v + 2) += 1;\n", true));
}

TEST(SharedMemoryTest, StaticBytesOfAKernelAndItsHelpers) {
  EXPECT_EQ(sharedBytes("__global__ void k(float *y) {\n"
                        "  __shared__ float a[256];\n"
                        "  __shared__ double b[2][16];\n"
                        "  y[0] = a[0] + b[0][0];\n}\n"),
            std::to_string(256 * 4 + 2 * 16 * 8));
  // A helper the kernel calls counts too.
  EXPECT_EQ(sharedBytes("__device__ float h() {\n"
                        "  __shared__ float t[64];\n  return t[0];\n}\n"
                        "__global__ void k(float *y) { y[0] = h(); }\n"),
            "256");
  // Dynamic shared memory is sized at launch: not counted.
  EXPECT_EQ(sharedBytes("__global__ void k(float *y) {\n"
                        "  extern __shared__ float d[];\n"
                        "  y[0] = d[0];\n}\n"),
            "uncounted: 'd' is a shared array of run-time size");
}
