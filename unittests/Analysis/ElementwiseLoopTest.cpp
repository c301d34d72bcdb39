//===- ElementwiseLoopTest.cpp - Element-wise accesses as vectors ---------===//

#include "kopt/Analysis/ElementwiseLoop.h"

#include "AnalyzedSource.h"

using namespace kopt;

namespace {

/// The one-element-per-thread plan of kernel k: "width W: name(reads,
/// writes) ...", "disjoint N", or "refused: ..." / "no region".
std::string plan(const std::string &Source,
                 std::optional<uint64_t> Width = std::nullopt) {
  AnalyzedSource S(Source);
  const KernelInfo *K = S.kernel();
  if (!K)
    return "no kernel";
  std::optional<ElementRegion> R = matchOnePerThread(*K);
  if (!R)
    return "no region";
  Decision<VectorPlan> D =
      planVectorAccesses(*K, *R, S.ctx(), Width, /*AllowCarried=*/false);
  if (const Refusal *Why = std::get_if<Refusal>(&D))
    return "refused: " + Why->Message;
  const VectorPlan &P = std::get<VectorPlan>(D);
  std::string Out = "width " + std::to_string(P.Width) + ":";
  for (const VectorPointer &V : P.Pointers)
    Out += " " + V.Name + "(" + (V.Reads ? "r" : "") + (V.Writes ? "w" : "") +
           (V.Offset.empty() ? "" : ", +" + V.Offset) + ")";
  return Out;
}

std::string onePerThread(const std::string &Params, const std::string &Stmt) {
  return "__global__ void k(" + Params +
         ") {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) " +
         Stmt + "\n}\n";
}

} // namespace

TEST(ElementwiseLoopTest, WidthsFromTheElementTypes) {
  EXPECT_EQ(plan(onePerThread("const float *x, float *y, int n",
                              "y[i] = 2.0f * x[i];")),
            "width 4: x(r) y(w)");
  // 16 bytes of the widest element: doubles two at a time, and the floats
  // beside them too.
  EXPECT_EQ(plan(onePerThread("const double *x, float *y, int n",
                              "y[i] = (float)x[i];")),
            "width 2: x(r) y(w)");
  EXPECT_EQ(
      plan("#include <cuda_fp16.h>\n" +
           onePerThread("const __half *x, __half *y, int n", "y[i] = x[i];")),
      "width 8: x(r) y(w)");
  // A width asked for.
  EXPECT_EQ(
      plan(onePerThread("const float *x, float *y, int n", "y[i] = x[i];"), 2),
      "width 2: x(r) y(w)");
}

TEST(ElementwiseLoopTest, OffsetsAndInPlaceUpdates) {
  EXPECT_EQ(plan(onePerThread("const float *x, float *y, int n, int o",
                              "y[o + i] = x[i + o] + x[i + o];")),
            "width 4: x(r, +o) y(w, +o)");
  EXPECT_EQ(plan(onePerThread("float *y, int n", "y[i] *= 2.0f;")),
            "width 4: y(rw)");
}

TEST(ElementwiseLoopTest, ShiftedStridedAndGatheredReads) {
  // A neighbour's element is a shifted range (checked for alignment at run
  // time); a strided read stays scalar beside a vector store; a gather
  // through a loaded index is refused, with a reason.
  EXPECT_EQ(
      plan(onePerThread("const float *x, float *y, int n", "y[i] = x[i + 1];")),
      "width 4: x(r, +1) y(w)");
  EXPECT_EQ(
      plan(onePerThread("const float *x, float *y, int n", "y[i] = x[2 * i];")),
      "width 4: y(w)");
  EXPECT_EQ(plan(onePerThread("const float *x, float *y, int n",
                              "y[i] = x[(int)x[i]];")),
            "refused: 'x' is accessed at '(int)x[i]' as well as at 'i': its "
            "accesses are not contiguous per thread");
  // Not one element a thread: no region at all.
  EXPECT_EQ(plan("__global__ void k(const float *x, float *y, int n) {\n"
                 "  y[threadIdx.x] = x[threadIdx.x];\n}\n"),
            "no region");
}
