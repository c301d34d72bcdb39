//===- MatmulNestTest.cpp - Kernels that compute a dense matrix product ---===//

#include "kopt/Analysis/MatmulNest.h"

#include "AnalyzedSource.h"

using namespace kopt;

namespace {

std::string name(const PolySymbol &S) {
  return S.isBuiltin() ? "builtin" : S.Decl->getNameAsString();
}

/// "A[row*SA + k*TA] B[k*TB + col*SB] -> C[row*CR + col*CC], K=..., form"
/// written from the nest, or "refused: message" ("refused: " alone when the
/// kernel is no product at all).
std::string nest(const std::string &Source) {
  AnalyzedSource S(Source);
  const KernelInfo *K = S.kernel();
  if (!K)
    return "no kernel";
  Decision<MatmulNest> D = findMatmulNest(K->Decl, S.ctx());
  if (const Refusal *R = std::get_if<Refusal>(&D))
    return "refused: " + R->Message;
  const MatmulNest &N = std::get<MatmulNest>(D);
  auto Operand = [](const MatmulOperand &O) {
    return O.Base->getNameAsString() + "[outer " + O.Outer.str(name) +
           ", reduce " + O.Reduce.str(name) + "]";
  };
  return Operand(N.A) + " " + Operand(N.B) + " -> " + N.C->getNameAsString() +
         "[row " + N.CRow.str(name) + ", col " + N.CCol.str(name) +
         "], K=" + N.Reduce->getNameAsString() + ", " +
         (N.F == MatmulNest::DotLoop ? "dot loop" : "shared tiles");
}

/// A naive sgemm with the given A and B subscripts and loop body.
std::string naive(const std::string &AIndex = "row * K + k",
                  const std::string &BIndex = "k * N + col",
                  const std::string &Extra = "") {
  return "__global__ void k(const float *A, const float *B, float *C, int M, "
         "int N, int K) {\n"
         "  int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
         "  int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (row < M && col < N) {\n"
         "    float acc = 0.0f;\n"
         "    for (int k = 0; k < K; ++k)\n"
         "      acc += A[" +
         AIndex + "] * B[" + BIndex + "];\n" + Extra +
         "    C[row * N + col] = acc;\n"
         "  }\n}\n";
}

} // namespace

TEST(MatmulNestTest, NaiveProductsAndTransposes) {
  EXPECT_EQ(nest(naive()), "A[outer K, reduce 1] B[outer 1, reduce N] -> "
                           "C[row N, col 1], K=K, dot loop");
  // B transposed (B^T stored row-major: B[col * K + k]).
  EXPECT_EQ(nest(naive("row * K + k", "col * K + k")),
            "A[outer K, reduce 1] B[outer K, reduce 1] -> C[row N, col 1], "
            "K=K, dot loop");
  // A transposed.
  EXPECT_EQ(nest(naive("k * M + row", "k * N + col")),
            "A[outer 1, reduce M] B[outer 1, reduce N] -> C[row N, col 1], "
            "K=K, dot loop");
}

TEST(MatmulNestTest, TheTextbookSharedMemoryTiling) {
  std::string Tiled =
      "#define T 16\n"
      "__global__ void k(const float *A, const float *B, float *C, int M, "
      "int N, int K) {\n"
      "  __shared__ float As[T][T];\n  __shared__ float Bs[T][T];\n"
      "  int tx = threadIdx.x, ty = threadIdx.y;\n"
      "  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;\n"
      "  float acc = 0.0f;\n"
      "  for (int t = 0; t < K; t += T) {\n"
      "    As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : "
      "0.0f;\n"
      "    Bs[ty][tx] = (col < N && t + ty < K) ? B[(t + ty) * N + col] : "
      "0.0f;\n"
      "    __syncthreads();\n"
      "    for (int k = 0; k < T; ++k)\n"
      "      acc += As[ty][k] * Bs[k][tx];\n"
      "    __syncthreads();\n"
      "  }\n"
      "  if (row < M && col < N)\n    C[row * N + col] = acc;\n}\n";
  EXPECT_EQ(nest(Tiled), "A[outer K, reduce 1] B[outer 1, reduce N] -> "
                         "C[row N, col 1], K=K, shared tiles");
}

TEST(MatmulNestTest, WhatIsNotOneProductAThread) {
  // No `acc += x * y` in a loop: silent (an empty refusal).
  EXPECT_EQ(nest("__global__ void k(const float *A, float *C, int n) {\n"
                 "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  if (i < n) C[i] = 2.0f * A[i];\n}\n"),
            "refused: ");
  // The accumulator changed after the loop, and a product whose operand
  // does not follow k: each refused with its reason.
  EXPECT_EQ(nest(naive("row * K + k", "k * N + col", "    acc *= 0.5f;\n")),
            "refused: a statement besides declarations, the loop and the "
            "guarded store");
  EXPECT_EQ(nest(naive("row * K", "k * N + col")),
            "refused: the index of 'A' does not step through the reduction "
            "index by a fixed stride");
}

TEST(MatmulNestTest, BiasStartsAndRowPointers) {
  // llm.c's matmul_forward_kernel1: the accumulator starts at the bias, the
  // operands are read through local pointers into the parameters.
  const std::string Kernel1 =
      "__global__ void k(float *out, const float *inp, const float *weight,\n"
      "                  const float *bias, int BT, int C, int OC) {\n"
      "  int bt = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int oc = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  if (bt < BT && oc < OC) {\n"
      "    float val = (bias != NULL) ? bias[oc] : 0.0f;\n"
      "    const float *wrow = weight + oc * C;\n"
      "    const float *inp_bt = &inp[bt * C];\n"
      "    for (int i = 0; i < C; i++)\n"
      "      val += inp_bt[i] * wrow[i];\n"
      "    out[bt * OC + oc] = val;\n"
      "  }\n}\n";
  EXPECT_EQ(nest(Kernel1), "inp[outer C, reduce 1] weight[outer C, reduce 1] "
                           "-> out[row OC, col 1], K=C, dot loop");
  AnalyzedSource S(Kernel1);
  Decision<MatmulNest> D = findMatmulNest(S.kernel()->Decl, S.ctx());
  ASSERT_TRUE(std::holds_alternative<MatmulNest>(D));
  EXPECT_NE(std::get<MatmulNest>(D).AccInit, nullptr);
  // A zero start has no initial value to carry.
  AnalyzedSource Z(naive());
  Decision<MatmulNest> DZ = findMatmulNest(Z.kernel()->Decl, Z.ctx());
  ASSERT_TRUE(std::holds_alternative<MatmulNest>(DZ));
  EXPECT_EQ(std::get<MatmulNest>(DZ).AccInit, nullptr);
  // An initial value that differs per thread other than by row and column,
  // and a pointer that moves, are refused.
  std::string Builtin = naive();
  Builtin.replace(Builtin.find("0.0f"), 4, "threadIdx.z");
  EXPECT_EQ(nest(Builtin), "refused: the accumulator's initial value reads a "
                           "CUDA builtin directly");
  std::string Moving = naive("row * K + k", "k * N + col");
  Moving.replace(Moving.find("    float acc"), 0,
                 "    const float *a = A + row * K;\n    a += 1;\n");
  Moving.replace(Moving.find("A[row * K + k]"), 14, "a[k]");
  EXPECT_EQ(nest(Moving).substr(0, 8), "refused:");
}
