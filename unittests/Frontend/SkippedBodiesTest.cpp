//===- SkippedBodiesTest.cpp - Helpers read again from their text ---------===//

#include "kopt/Frontend/SkippedBodies.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Stmt.h"
#include "clang/Tooling/Tooling.h"

#include "gtest/gtest.h"

using namespace clang;
using namespace kopt;

namespace {

// Every body of the file skipped, as kopt's preamble skips the headers'.
std::unique_ptr<ASTUnit> parseWithoutBodies(StringRef Code) {
  return tooling::buildASTFromCodeWithArgs(
      Code, {"-std=c++17", "-Xclang", "-skip-function-bodies",
             "-D__host__=", "-D__device__="});
}

const FunctionDecl *function(ASTUnit &AST, StringRef Name) {
  for (Decl *D : AST.getASTContext().getTranslationUnitDecl()->decls()) {
    if (auto *NS = dyn_cast<NamespaceDecl>(D))
      for (Decl *In : NS->decls())
        if (auto *F = dyn_cast<FunctionDecl>(In); F && F->getName() == Name)
          return F;
    if (auto *F = dyn_cast<FunctionDecl>(D); F && F->getName() == Name)
      return F;
  }
  return nullptr;
}

/// The text of the one `return`'s value of a definition.
std::string returned(const FunctionDecl *Def) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
  if (!Body || Body->size() != 1)
    return "";
  const auto *Ret = dyn_cast<ReturnStmt>(Body->body_front());
  const SourceManager &SM = Def->getASTContext().getSourceManager();
  SourceRange R = Ret->getRetValue()->getSourceRange();
  const char *B = SM.getCharacterData(R.getBegin());
  const char *E = SM.getCharacterData(R.getEnd());
  return std::string(B, E + 1);
}

TEST(SkippedBodiesTest, ReadsAPlainHelperAgain) {
  std::unique_ptr<ASTUnit> AST =
      parseWithoutBodies("namespace util {\n"
                         "__host__ __device__ inline int cdiv(int a, int b) {\n"
                         "  return (a + b - 1) / b;\n"
                         "}\n"
                         "}\n");
  const FunctionDecl *F = function(*AST, "cdiv");
  ASSERT_TRUE(F);
  ASSERT_TRUE(F->hasSkippedBody());
  const FunctionDecl *Def = definitionOf(F);
  ASSERT_TRUE(Def);
  EXPECT_NE(&Def->getASTContext(), &F->getASTContext());
  EXPECT_EQ(returned(Def), "(a + b - 1) / b");
  // Asked again: the same small AST.
  EXPECT_EQ(definitionOf(F), Def);
}

TEST(SkippedBodiesTest, InstantiatesATemplateWithTheCallsArguments) {
  std::unique_ptr<ASTUnit> AST = parseWithoutBodies(
      "template <class T> __host__ __device__ T ceil_div(T d, T s) {\n"
      "  return (d + s - 1) / s;\n"
      "}\n"
      "template long ceil_div<long>(long, long);\n");
  const FunctionDecl *Spec = nullptr;
  for (Decl *D : AST->getASTContext().getTranslationUnitDecl()->decls())
    if (auto *FT = dyn_cast<FunctionTemplateDecl>(D))
      for (FunctionDecl *S : FT->specializations())
        Spec = S;
  ASSERT_TRUE(Spec);
  const FunctionDecl *Def = definitionOf(Spec);
  ASSERT_TRUE(Def);
  EXPECT_TRUE(Def->getReturnType()->isSpecificBuiltinType(BuiltinType::Long));
  EXPECT_EQ(returned(Def), "(d + s - 1) / s");
}

TEST(SkippedBodiesTest, RefusesTextThatDoesNotParseAlone) {
  std::unique_ptr<ASTUnit> AST = parseWithoutBodies(
      "#define ROUND 1\n"
      "inline int round_up(int n, int m) { return (n + m - 1) / m * m; }\n"
      "inline int calls(int n, int m) { return round_up(n, m) / m; }\n"
      "inline int macro(int n) { return n + ROUND; }\n"
      "int declared(int n);\n");
  for (StringRef Name : {"calls", "macro", "declared"}) {
    const FunctionDecl *F = function(*AST, Name);
    ASSERT_TRUE(F) << Name.str();
    EXPECT_FALSE(definitionOf(F)) << Name.str();
  }
  EXPECT_TRUE(definitionOf(function(*AST, "round_up")));
  EXPECT_FALSE(definitionOf(nullptr));
}

} // namespace
