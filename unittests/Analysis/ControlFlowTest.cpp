//===- ControlFlowTest.cpp - Values a whole block shares ------------------===//

#include "kopt/Analysis/ControlFlow.h"
#include "kopt/Analysis/KernelInfo.h"

#include "../ParseHelper.h"
#include "../TestHelpers.h"

#include "clang/AST/Stmt.h"
#include "clang/Frontend/ASTUnit.h"

using namespace kopt;

namespace {

/// Whether the condition of the first if in a function is block-uniform.
bool uniformCondition(const std::string &Function) {
  llvm::Expected<ParsedSource> Parsed =
      testFrontend().parse("/virtual/k.cu", Function);
  EXPECT_TRUE(static_cast<bool>(Parsed)) << messageOf(Parsed.takeError());
  if (!Parsed)
    return false;
  ProgramInfo Info = analyzeProgram(*Parsed, "sm_90");
  const clang::FunctionDecl *F = nullptr;
  for (const KernelInfo &K : Info.Kernels)
    F = K.Decl;
  // A device function: the first function with a body in the file.
  for (const clang::Decl *D :
       Parsed->Device->getASTContext().getTranslationUnitDecl()->decls())
    if (const auto *FD = llvm::dyn_cast<clang::FunctionDecl>(D);
        FD && FD->hasBody() && !F &&
        Parsed->Device->getSourceManager().isInMainFile(FD->getLocation()))
      F = FD;
  EXPECT_NE(F, nullptr);
  if (!F)
    return false;
  const clang::IfStmt *If = nullptr;
  forEachSubStmt(F->getBody(), [&](const clang::Stmt *S) {
    if (!If)
      If = llvm::dyn_cast<clang::IfStmt>(S);
  });
  EXPECT_NE(If, nullptr);
  return If && isBlockUniform(If->getCond(), F);
}

TEST(ControlFlowTest, BlockValuesAndKernelParametersAreUniform) {
  EXPECT_TRUE(uniformCondition("__global__ void k(int *p, int m) {\n"
                               "  int row = blockIdx.x;\n"
                               "  if (row < m) p[row] = 0;\n}\n"));
  EXPECT_TRUE(uniformCondition("__global__ void k(int *p, bool f) {\n"
                               "  if (f && blockDim.x > 32 + gridDim.x) "
                               "p[0] = 0;\n}\n"));
}

TEST(ControlFlowTest, ThreadsMemoryAndChangedVariablesAreNot) {
  EXPECT_FALSE(uniformCondition("__global__ void k(int *p, int m) {\n"
                                "  if (threadIdx.x < m) p[0] = 0;\n}\n"));
  EXPECT_FALSE(uniformCondition("__global__ void k(int *p, int m) {\n"
                                "  if (p[blockIdx.x] < m) p[0] = 0;\n}\n"));
  EXPECT_FALSE(uniformCondition("__global__ void k(int *p, int m) {\n"
                                "  int r = blockIdx.x;\n"
                                "  r += threadIdx.x;\n"
                                "  if (r < m) p[0] = 0;\n}\n"));
}

TEST(ControlFlowTest, DeviceFunctionParametersAreNot) {
  // Each thread may pass its own value.
  EXPECT_FALSE(uniformCondition("__device__ void f(int *p, int m) {\n"
                                "  if (m > 0) p[0] = 0;\n}\n"));
}

} // namespace
