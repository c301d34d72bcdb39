//===- IndexSetsTest.cpp - Affine forms and their Presburger queries ------===//

#include "kopt/Analysis/IndexSets.h"
#include "kopt/Analysis/AffineForm.h"
#include "kopt/Analysis/Matching.h"

#include "../ParseHelper.h"
#include "../TestHelpers.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <fstream>

using namespace kopt;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// A parsed kernel `k(Params)` whose body is Body, and the forms of the
/// initializers of its locals named a, b, c, ... in a context over its body.
class Forms {
public:
  Forms(const std::string &Body,
        const std::string &Params = "float *p, int n, int m",
        const std::string &Prelude = "") {
    std::string Code =
        Prelude + "__global__ void k(" + Params + ") {\n" + Body + "\n}\n";
    llvm::Expected<ParsedSource> P =
        testFrontend().parse("/virtual/k.cu", Code);
    EXPECT_TRUE(static_cast<bool>(P)) << messageOf(P.takeError());
    if (!P)
      return;
    Source = std::make_unique<ParsedSource>(std::move(*P));
    ASTContext &Ctx = Source->Device->getASTContext();
    std::vector<const FunctionDecl *> Kernels = nodesEverywhere<FunctionDecl>(
        functionDecl(hasName("k"), isDefinition()).bind("k"), "k", Ctx);
    Kernel = Kernels.empty() ? nullptr : Kernels[0];
    if (Kernel)
      Context = std::make_unique<AffineContext>(Ctx, Kernel->getBody());
  }

  /// The form of local Name's initializer.
  std::optional<AffineForm> of(llvm::StringRef Name) {
    if (!Kernel)
      return std::nullopt;
    ASTContext &Ctx = Source->Device->getASTContext();
    for (const BoundNodes &N :
         match(findAll(declStmt().bind("s")), *Kernel->getBody(), Ctx))
      for (const Decl *D : N.getNodeAs<DeclStmt>("s")->decls())
        if (const auto *V = dyn_cast<VarDecl>(D);
            V && V->getName() == Name && V->getInit())
          return Context->build(V->getInit());
    ADD_FAILURE() << "no local " << Name.str();
    return std::nullopt;
  }

  AffineContext &context() { return *Context; }

private:
  std::unique_ptr<ParsedSource> Source;
  const FunctionDecl *Kernel = nullptr;
  std::unique_ptr<AffineContext> Context;
};

std::optional<int64_t> strideOf(const std::string &Init) {
  Forms F("int a = " + Init + ";");
  std::optional<AffineForm> A = F.of("a");
  if (!A)
    return std::optional<int64_t>(-999);
  return strideAcrossWarp(F.context(), *A);
}

TEST(AffineFormTest, BuildsAffineIndices) {
  Forms F("int a = 4 * (blockIdx.x * blockDim.x + threadIdx.x) + n - 1;\n"
          "const int row = blockIdx.x;\n"
          "int b = row * n + threadIdx.x;\n"
          "int c = threadIdx.x * n;\n"
          "int d = p[threadIdx.x];");
  std::optional<AffineForm> A = F.of("a");
  ASSERT_TRUE(A.has_value());
  EXPECT_EQ(F.context().str(*A),
            "4*blockIdx.x*blockDim.x + 4*threadIdx.x + n - 1");
  std::optional<AffineForm> B = F.of("b");
  ASSERT_TRUE(B.has_value());
  EXPECT_FALSE(F.context().isUniform(*B));
  std::optional<AffineForm> C = F.of("c");
  ASSERT_TRUE(C.has_value());
  ASSERT_EQ(C->Terms.size(), 1u);
  EXPECT_TRUE(F.context().symbol(C->Terms.begin()->first).ScalesThreadIdx);
  EXPECT_FALSE(F.of("d").has_value()); // a load from memory
}

TEST(AffineFormTest, FollowsOnlyUnchangedLocals) {
  Forms F("int t = threadIdx.x;\nint a = t + 1;\n"
          "int u = threadIdx.x;\nint &r = u;\nr = 7;\nint b = u + 1;");
  EXPECT_TRUE(F.of("a").has_value());
  EXPECT_FALSE(F.of("b").has_value());
}

TEST(IndexSetsTest, StridesAcrossAWarp) {
  EXPECT_EQ(strideOf("threadIdx.x"), 1);
  EXPECT_EQ(strideOf("blockIdx.x * blockDim.x + threadIdx.x"), 1);
  EXPECT_EQ(strideOf("8 * threadIdx.x + n"), 8);
  EXPECT_EQ(strideOf("n"), 0);
  // Remainders within a warp move by one; halves do not move steadily.
  EXPECT_EQ(strideOf("threadIdx.x % 32"), 1);
  EXPECT_EQ(strideOf("threadIdx.x & 31"), 1);
  EXPECT_EQ(strideOf("threadIdx.x / 2"), std::nullopt);
  EXPECT_EQ(strideOf("threadIdx.x % 8"), std::nullopt);
  EXPECT_EQ(strideOf("(threadIdx.x / 32) * 4"), 0);
  EXPECT_EQ(strideOf("threadIdx.y"), std::nullopt);
}

TEST(IndexSetsTest, DisjointPerThreadRanges) {
  Forms F("int a = 4 * threadIdx.x;\nint b = 2 * threadIdx.x;\n"
          "int c = threadIdx.x / 2;");
  std::optional<AffineForm> A = F.of("a"), B = F.of("b"), C = F.of("c");
  ASSERT_TRUE(A && B && C);
  EXPECT_TRUE(disjointAcrossThreads(F.context(), *A, 4));
  EXPECT_FALSE(disjointAcrossThreads(F.context(), *B, 4));
  EXPECT_TRUE(disjointAcrossThreads(F.context(), *B, 2));
  EXPECT_FALSE(disjointAcrossThreads(F.context(), *C, 1));
}

/// Does a grid Grid of Block threads cover n elements?
bool covers(const std::string &Grid, const std::string &Block,
            const std::string &Count = "n") {
  Forms F("int g = " + Grid + ";\nint b = " + Block + ";\nint c = " + Count +
              ";",
          "float *p, int n, int m, int threads");
  std::optional<AffineForm> G = F.of("g"), B = F.of("b"), C = F.of("c");
  if (!G || !B || !C)
    return false;
  return coversCount(F.context(), *G, *B, *C);
}

TEST(IndexSetsTest, ProvesGridCoverage) {
  EXPECT_TRUE(covers("(n + 255) / 256", "256"));
  EXPECT_TRUE(covers("(n + 127) / 128", "256"));
  EXPECT_TRUE(covers("n / 256 + 1", "256"));
  EXPECT_TRUE(covers("(n - 1) / 256 + 1", "256"));
  EXPECT_TRUE(covers("(n + threads - 1) / threads", "threads"));
  EXPECT_FALSE(covers("n / 256", "256"));
  EXPECT_FALSE(covers("(n + 255) / 256", "128"));
  EXPECT_FALSE(covers("1", "256"));
  EXPECT_FALSE(covers("(n + threads - 1) / threads", "256"));
  EXPECT_FALSE(covers("(n + 255) / 256", "threads"));
  // With floor division this grid would cover n (ceil(m/256) -
  // floor((m-n)/256) >= n/256), but C's division truncates: for m = 0,
  // n = 1000 it is 0 - (-3) = 3 blocks. m - n may be negative, so the
  // query must not model it as floor division.
  EXPECT_FALSE(covers("(m + 255) / 256 - (m - n) / 256", "256"));
}

TEST(IndexSetsTest, StaysBelowABound) {
  Forms F("int i = 4 * threadIdx.x;\nint bound = n;\n"
          "int guard = n - 4 * threadIdx.x - 4;\nint loose = n - 4 * "
          "threadIdx.x - 1;");
  std::optional<AffineForm> I = F.of("i"), N = F.of("bound"), G = F.of("guard"),
                            L = F.of("loose");
  ASSERT_TRUE(I && N && G && L);
  EXPECT_TRUE(staysBelow(F.context(), *I, 4, *N, *G));
  EXPECT_FALSE(staysBelow(F.context(), *I, 4, *N, *L));
}

} // namespace

TEST(AffineFormTest, InlinesOneReturnHelpers) {
  // llm.c's ceil_div, a helper of the thread index, and one whose return
  // value has no affine form (x * y).
  Forms F("int g = ceil_div(n, threads);\nint b = threads;\nint c = n;\n"
          "int t = twice(threadIdx.x) + 1;\nint u = mul(n, m);\n"
          "int d = deref(q);",
          "float *p, int n, int m, int threads, const int *q",
          "template <class T> __host__ __device__ T ceil_div(T a, T b) {\n"
          "  return (a + b - 1) / b;\n}\n"
          "__device__ int twice(int x) { return 2 * x; }\n"
          "__device__ int mul(int x, int y) { return x * y; }\n"
          "__device__ int deref(const int *x) { return *x; }\n");
  std::optional<AffineForm> G = F.of("g"), B = F.of("b"), C = F.of("c");
  ASSERT_TRUE(G && B && C);
  EXPECT_TRUE(coversCount(F.context(), *G, *B, *C));
  std::optional<AffineForm> T = F.of("t");
  ASSERT_TRUE(T.has_value());
  EXPECT_EQ(F.context().str(*T), "2*threadIdx.x + 1");
  // mul's value is no affine form of n and m, but mul is a function of its
  // parameters alone: a value uniform across the block, like min(n, m).
  std::optional<AffineForm> U = F.of("u");
  ASSERT_TRUE(U.has_value());
  EXPECT_TRUE(F.context().isUniform(*U));
  EXPECT_EQ(F.context().str(*U), "mul(n,m)");
  // A helper that reads memory is no function of its arguments' values.
  EXPECT_FALSE(F.of("d").has_value());
}

/// A header file of its own (deleted with the object), for sources that
/// include it: kopt parses included headers without function bodies.
class TempHeader {
public:
  explicit TempHeader(llvm::StringRef Text) {
    llvm::SmallString<128> Dir;
    if (llvm::sys::fs::createUniqueDirectory("kopt-header", Dir))
      return;
    Path = (Dir + "/helpers.h").str();
    std::ofstream(Path) << Text.str();
  }
  ~TempHeader() {
    if (!Path.empty()) {
      llvm::sys::fs::remove(Path);
      llvm::sys::fs::remove(llvm::sys::path::parent_path(Path));
    }
  }
  std::string include() const { return "#include \"" + Path + "\"\n"; }

private:
  std::string Path;
};

TEST(AffineFormTest, InlinesHelpersOfHeaders) {
  // The helpers' bodies are not in the AST (the preamble skipped them):
  // their text is read again. One that calls another helper of its header
  // does not parse alone and has no form.
  TempHeader H("template <class T> __host__ __device__ T ceil_div(T a, T b) "
               "{\n  return (a + b - 1) / b;\n}\n"
               "__host__ __device__ inline int up(int n, int m) {\n"
               "  return (n + m - 1) / m * m;\n}\n"
               "__host__ __device__ inline int via(int n, int m) {\n"
               "  return up(n, m) / m;\n}\n");
  Forms F("int g = ceil_div(n, threads);\nint b = threads;\nint c = n;\n"
          "int v = via(n, threads);",
          "float *p, int n, int m, int threads", H.include());
  std::optional<AffineForm> G = F.of("g"), B = F.of("b"), C = F.of("c");
  ASSERT_TRUE(G && B && C);
  EXPECT_TRUE(coversCount(F.context(), *G, *B, *C));
  EXPECT_FALSE(F.of("v").has_value());
}
