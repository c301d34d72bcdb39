//===- LocalPointersTest.cpp - Row pointers fixed to a parameter ----------===//

#include "kopt/Analysis/LocalPointers.h"

#include "AnalyzedSource.h"

#include "clang/AST/Stmt.h"

using namespace kopt;

namespace {

/// Kernel `k` of a file whose body is Body, with parameters x (read), y
/// (written), n.
std::string kernel(const std::string &Body) {
  return "__global__ void k(const float *x, float *y, int n) {\n" + Body +
         "}\n";
}

const clang::VarDecl *var(AnalyzedSource &S, llvm::StringRef Name) {
  for (const clang::DeclStmt *D : S.all<clang::DeclStmt>())
    for (const clang::Decl *X : D->decls())
      if (const auto *V = llvm::dyn_cast<clang::VarDecl>(X);
          V && V->getName() == Name)
        return V;
  ADD_FAILURE() << "no variable '" << Name.str() << "'";
  return nullptr;
}

/// V as a local pointer: "param: offset offset ..." (the offsets' source
/// text, sorted: they are a sum), or "none".
std::string local(const std::string &Body, llvm::StringRef Name = "row") {
  AnalyzedSource S(kernel(Body));
  const KernelInfo *K = S.kernel();
  const clang::VarDecl *V = var(S, Name);
  if (!K || !V)
    return "missing";
  std::optional<LocalPointer> L = matchLocalPointer(V, K->Decl);
  if (!L)
    return "none";
  std::vector<std::string> Offsets;
  for (const clang::Expr *E : L->Offsets)
    Offsets.push_back(sourceText(E->getSourceRange(), S.ctx()));
  llvm::sort(Offsets);
  std::string Out = L->Param->getNameAsString() + ":";
  for (const std::string &O : Offsets)
    Out += " " + O;
  return Out;
}

/// The root of the expression of the first return-less statement
/// `y[0] = E;` (the right-hand side's pointer root) of the body.
std::string root(const std::string &Body) {
  AnalyzedSource S(kernel(Body));
  const KernelInfo *K = S.kernel();
  if (!K)
    return "missing";
  for (const clang::BinaryOperator *B : S.all<clang::BinaryOperator>())
    if (B->isAssignmentOp())
      if (const auto *Sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(
              B->getRHS()->IgnoreParenImpCasts())) {
        const clang::ValueDecl *R =
            pointerRoot(Sub->getBase(), K->Decl->getBody());
        return R ? R->getNameAsString() : "null";
      }
  return "no access";
}

} // namespace

TEST(LocalPointersTest, RowPointersAsRealCodeWritesThem) {
  EXPECT_EQ(local("  const float *row = x + blockIdx.x * n;\n"
                  "  y[threadIdx.x] = row[threadIdx.x];\n"),
            "x: blockIdx.x * n");
  EXPECT_EQ(local("  const float *row = &x[(long long)blockIdx.x * n];\n"
                  "  y[threadIdx.x] = row[threadIdx.x];\n"),
            "x: (long long)blockIdx.x * n");
  EXPECT_EQ(local("  float *row = y + blockIdx.x * n + 1;\n"
                  "  row[threadIdx.x] = 0;\n"),
            "y: 1 blockIdx.x * n");
  // const added to a parameter's element type, and a local of a local.
  EXPECT_EQ(local("  const float *base = y + n;\n"
                  "  const float *row = base + blockIdx.x;\n"
                  "  y[0] = row[threadIdx.x];\n"),
            "y: blockIdx.x n");
  EXPECT_EQ(local("  const float *row = x;\n  y[0] = row[1];\n"), "x:");
}

TEST(LocalPointersTest, PointersThatChangeOrAreNotAParameterAreRefused) {
  // Changed after the declaration: an increment, an assignment, its
  // address taken.
  EXPECT_EQ(local("  const float *row = x + n;\n  ++row;\n  y[0] = *row;\n"),
            "none");
  EXPECT_EQ(local("  const float *row = x + n;\n  row = x;\n  y[0] = *row;\n"),
            "none");
  EXPECT_EQ(local("  const float *row = x + n;\n"
                  "  const float **p = &row;\n  y[0] = **p;\n"),
            "none");
  // Another element type, an offset with a side effect, no parameter.
  EXPECT_EQ(local("  const char *row = (const char *)x + n;\n"
                  "  y[0] = row[0];\n"),
            "none");
  EXPECT_EQ(local("  int m = n;\n  const float *row = x + m++;\n"
                  "  y[0] = row[0];\n"),
            "none");
  EXPECT_EQ(local("  __shared__ float s[32];\n  float *row = s + 1;\n"
                  "  y[0] = row[0];\n"),
            "none");
}

TEST(LocalPointersTest, AReassignedRowPointerHasTheValueLastAssigned) {
  // llm.c's softmax kernels reuse one row pointer for the input and the
  // output of a row.
  AnalyzedSource S(kernel("  const float *row;\n"
                          "  row = x + blockIdx.x * n;\n"
                          "  float a = row[threadIdx.x];\n"
                          "  row = y + blockIdx.x;\n"
                          "  y[0] = a + row[threadIdx.x];\n"));
  const KernelInfo *K = S.kernel();
  const clang::VarDecl *V = var(S, "row");
  ASSERT_TRUE(K && V);
  EXPECT_FALSE(matchLocalPointer(V, K->Decl).has_value());
  std::vector<const clang::ArraySubscriptExpr *> Uses;
  for (const clang::ArraySubscriptExpr *A : S.all<clang::ArraySubscriptExpr>())
    if (sourceText(A->getBase()->getSourceRange(), S.ctx()) == "row")
      Uses.push_back(A);
  ASSERT_EQ(Uses.size(), 2u);
  std::optional<LocalPointer> First = matchLocalPointerAt(V, Uses[0], K->Decl);
  std::optional<LocalPointer> Second = matchLocalPointerAt(V, Uses[1], K->Decl);
  ASSERT_TRUE(First && Second);
  EXPECT_EQ(First->Param->getName(), "x");
  EXPECT_EQ(Second->Param->getName(), "y");
}

TEST(LocalPointersTest, PointerRoots) {
  EXPECT_EQ(root("  y[0] = x[n];\n"), "x");
  EXPECT_EQ(root("  y[0] = (x + n)[1];\n"), "x");
  EXPECT_EQ(root("  const float *row = x + blockIdx.x * n;\n"
                 "  y[0] = row[threadIdx.x];\n"),
            "x");
  EXPECT_EQ(root("  __shared__ float s[8];\n  y[0] = s[1];\n"), "s");
  // A pointer that moves: kopt cannot follow it to a parameter.
  EXPECT_EQ(root("  const float *p = x;\n  p += n;\n  y[0] = p[1];\n"), "p");
}

TEST(LocalPointersTest, ValuesThatMayDifferBetweenBlocks) {
  AnalyzedSource S(kernel("  int r = blockIdx.x * n;\n"
                          "  int c = threadIdx.x + n;\n"
                          "  int m = n;\n  m += 1;\n"
                          "  const int u = 2 * n + 1;\n"
                          "  y[r] = 0;\n  y[c] = 1;\n  y[m] = 2;\n"
                          "  y[u] = 3;\n  y[n] = 4;\n"));
  const KernelInfo *K = S.kernel();
  ASSERT_TRUE(K);
  std::vector<std::string> Differs;
  for (const clang::ArraySubscriptExpr *A : S.all<clang::ArraySubscriptExpr>())
    Differs.push_back(sourceText(A->getIdx()->getSourceRange(), S.ctx()) + "=" +
                      (mayDifferBetweenBlocks(A->getIdx(), K->Decl->getBody())
                           ? "yes"
                           : "no"));
  // threadIdx counts too (the callers ask about values uniform to a
  // block); a parameter never changed does not.
  EXPECT_EQ(Differs, (std::vector<std::string>{"r=yes", "c=yes", "m=yes",
                                               "u=no", "n=no"}));
}
