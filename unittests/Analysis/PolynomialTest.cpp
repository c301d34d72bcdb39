//===- PolynomialTest.cpp - Integer index expressions as polynomials ------===//

#include "kopt/Analysis/Polynomial.h"

#include "AnalyzedSource.h"

#include <limits>

using namespace kopt;

namespace {

/// Names a symbol as the source does ("threadIdx.x" for a builtin).
std::string name(const PolySymbol &S) {
  if (!S.isBuiltin())
    return S.Decl->getNameAsString();
  const char *Var[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
  return std::string(Var[unsigned(S.Var)]) + "." + "xyz"[S.Dim];
}

/// The polynomial of the index of the first subscript of `y[...]` in
/// kernel k of Source, written out; "none" when it has none.
std::string indexOf(const std::string &Source,
                    const std::vector<std::string> &Whole = {}) {
  AnalyzedSource S(Source);
  const KernelInfo *K = S.kernel();
  if (!K)
    return "no kernel";
  PolyBuilder B(S.ctx(), K->Decl->getBody());
  for (const clang::DeclStmt *D : S.all<clang::DeclStmt>())
    for (const clang::Decl *X : D->decls())
      if (const auto *V = llvm::dyn_cast<clang::VarDecl>(X))
        for (const std::string &W : Whole)
          if (V->getName() == W)
            B.keepWhole(V);
  for (const clang::ArraySubscriptExpr *A : S.all<clang::ArraySubscriptExpr>())
    if (sourceText(A->getBase()->getSourceRange(), S.ctx()) == "y") {
      std::optional<Polynomial> P = B.build(A->getIdx());
      return P ? P->str(name) : "none";
    }
  return "no access";
}

std::string kernel(const std::string &Body) {
  return "__global__ void k(const float *x, float *y, int M, int N, int K) "
         "{\n" +
         Body + "}\n";
}

} // namespace

TEST(PolynomialTest, MatrixIndicesThroughLocals) {
  // The locals are replaced by what they hold; products distribute.
  std::string Row =
      indexOf(kernel("  int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                     "  int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                     "  y[row * N + col] = 0;\n"));
  EXPECT_EQ(Row, "blockIdx.y * blockDim.y * N + blockIdx.x * blockDim.x + "
                 "threadIdx.y * N + threadIdx.x");
  // A local kept whole stays a symbol.
  EXPECT_EQ(indexOf(kernel("  int row = blockIdx.x;\n"
                           "  y[row * N + 2 * (K - 1) - K] = 0;\n"),
                    {"row"}),
            indexOf(kernel("  int row = blockIdx.x;\n"
                           "  y[row * N + K - 2] = 0;\n"),
                    {"row"}));
}

TEST(PolynomialTest, WhatIsNotAPolynomial) {
  // Division, a memory read and a changed local are not.
  EXPECT_EQ(indexOf(kernel("  y[N / 2] = 0;\n")), "none");
  EXPECT_EQ(indexOf(kernel("  y[(int)x[0]] = 0;\n")), "none");
  EXPECT_EQ(indexOf(kernel("  int r = N;\n  r += 1;\n  y[r] = 0;\n")), "none");
}

TEST(PolynomialTest, Arithmetic) {
  PolySymbol TX = PolySymbol::builtin(BuiltinVar::ThreadIdx, 0);
  PolySymbol BX = PolySymbol::builtin(BuiltinVar::BlockIdx, 0);
  Polynomial T = Polynomial::symbol(TX), B = Polynomial::symbol(BX);
  // (bx + 3) * (tx - 1) = bx*tx - bx + 3tx - 3
  std::optional<Polynomial> P = multiply(*add(B, Polynomial::constant(3)),
                                         *add(T, Polynomial::constant(1), -1));
  ASSERT_TRUE(P);
  EXPECT_FALSE(P->asConstant());
  std::optional<Polynomial> Coeff = P->coefficientOf(TX);
  ASSERT_TRUE(Coeff); // bx + 3
  EXPECT_EQ(*Coeff, *add(B, Polynomial::constant(3)));
  // What does not mention tx: -bx - 3.
  EXPECT_EQ(P->without(TX), *add(Polynomial::constant(-3), B, -1));
  // tx := 2: 2bx - bx + 6 - 3 = bx + 3.
  std::optional<Polynomial> At2 = P->substitute(TX, Polynomial::constant(2));
  ASSERT_TRUE(At2);
  EXPECT_EQ(*At2, *add(B, Polynomial::constant(3)));
  // x - x is zero; a squared symbol has no coefficient; overflow is none.
  EXPECT_TRUE(add(T, T, -1)->isZero());
  EXPECT_FALSE(multiply(T, T)->coefficientOf(TX));
  Polynomial Big = Polynomial::constant(std::numeric_limits<int64_t>::max());
  EXPECT_FALSE(add(Big, Polynomial::constant(1)));
  EXPECT_FALSE(multiply(Big, Polynomial::constant(2)));
}
