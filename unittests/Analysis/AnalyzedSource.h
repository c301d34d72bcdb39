//===- AnalyzedSource.h - A source as the analyses see it -------*- C++ -*-===//
//
// The analysis tests' one way to get a kernel: the source parsed by the
// test frontend and analyzed as kopt-opt does for sm_90. A source that does
// not parse, or lacks the kernel asked for, fails the test.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_UNITTESTS_ANALYSIS_ANALYZEDSOURCE_H
#define KOPT_UNITTESTS_ANALYSIS_ANALYZEDSOURCE_H

#include "kopt/Analysis/CudaAST.h"
#include "kopt/Analysis/KernelInfo.h"

#include "../ParseHelper.h"
#include "../TestHelpers.h"

#include "clang/Frontend/ASTUnit.h"

#include <string>
#include <vector>

namespace kopt {

struct AnalyzedSource {
  llvm::Expected<ParsedSource> Parsed;
  ProgramInfo Info;

  explicit AnalyzedSource(const std::string &Code)
      : Parsed(testFrontend().parse("/virtual/k.cu", Code)) {
    EXPECT_TRUE(static_cast<bool>(Parsed)) << messageOf(Parsed.takeError());
    if (Parsed)
      Info = analyzeProgram(*Parsed, "sm_90");
  }

  /// The kernel called Name, or null.
  const KernelInfo *kernel(llvm::StringRef Name = "k") const {
    for (const KernelInfo &K : Info.Kernels)
      if (K.Name == Name)
        return &K;
    ADD_FAILURE() << "no kernel '" << Name.str() << "'";
    return nullptr;
  }

  /// The statements of kind T in kernel Name's body, in source order.
  template <typename T>
  std::vector<const T *> all(llvm::StringRef Name = "k") const {
    std::vector<const T *> Out;
    if (const KernelInfo *K = kernel(Name))
      forEachSubStmt(K->Decl->getBody(), [&](const clang::Stmt *S) {
        if (const auto *X = llvm::dyn_cast<T>(S))
          Out.push_back(X);
      });
    return Out;
  }

  clang::ASTContext &ctx() { return Parsed->Device->getASTContext(); }
};

} // namespace kopt

#endif // KOPT_UNITTESTS_ANALYSIS_ANALYZEDSOURCE_H
