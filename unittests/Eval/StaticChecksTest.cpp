#include "kopt/Eval/StaticChecks.h"

#include <gtest/gtest.h>

using namespace kopt::eval;

namespace {
std::vector<std::string> rules(const std::string &Source,
                               std::vector<std::string> Allow = {}) {
  kopt::spec::Problem P;
  P.AllowLibraries = Allow;
  std::vector<std::string> Names;
  for (const RuleViolation &V : checkSourceRules(Source, P))
    Names.push_back(V.Rule);
  return Names;
}

using Rules = std::vector<std::string>;

TEST(StaticChecks, VendorLibraries) {
  EXPECT_EQ(rules("#include <cublas_v2.h>\n"), Rules{"vendor-library"});
  EXPECT_EQ(rules("#include <cublas_v2.h>\n", {"cublas"}), Rules{});
  EXPECT_EQ(rules("void f() { cudnnCreate(&h); }"), Rules{"vendor-library"});
  EXPECT_EQ(rules("void f() { cutlass::gemm::Gemm g; }"),
            Rules{"vendor-library"});
  EXPECT_EQ(rules("void f() { cub::DeviceReduce::Sum(); }"),
            Rules{"vendor-library"});
  EXPECT_EQ(rules("void f() { cub::BlockReduce<float, 128> r; }"), Rules{});
  EXPECT_EQ(rules("__global__ void k() { curand_init(1, 0, 0, &s); }"),
            Rules{});
  EXPECT_EQ(rules("void f() { dlopen(\"libcublas.so\", 0); }"),
            Rules{"vendor-library"});
}

TEST(StaticChecks, TimersAndPrintf) {
  EXPECT_EQ(rules("__global__ void k() { long long t = clock64(); }"),
            Rules{"timer-read"});
  EXPECT_EQ(rules("__global__ void k() { asm volatile(\"mov.u64 %0, "
                  "%%globaltimer;\" : \"=l\"(t)); }"),
            Rules{"timer-read"});
  EXPECT_EQ(rules("// clock64()\nconst char *s = \"%globaltimer\";"), Rules{});
  EXPECT_EQ(rules("__device__ void d() { printf(\"x\"); }"),
            Rules{"device-printf"});
  EXPECT_EQ(rules("__device__ int counter;\nvoid host() { printf(\"x\"); }"),
            Rules{});
}

TEST(StaticChecks, SassRules) {
  kopt::spec::Problem P;
  EXPECT_EQ(checkSassRules("CS2R R2, SR_CLOCKLO ;", P).size(), 1u);
  EXPECT_EQ(checkSassRules("S2UR UR4, SR_GLOBALTIMERLO ;", P).size(), 1u);
  EXPECT_EQ(checkSassRules("CALL.ABS.NOINC `(vprintf) ;", P).at(0).Rule,
            "device-printf");
  EXPECT_TRUE(checkSassRules("LDG.E R2, desc[UR4][R2.64] ;", P).empty());
}

TEST(StaticChecks, EntrySignature) {
  kopt::spec::Problem P;
  P.Entry = "launch";
  std::string Error;
  auto Reference = kopt::spec::findEntrySignature(
      kopt::spec::tokenizeSource("void launch(const float *x, int n);"),
      "launch", Error);
  ASSERT_TRUE(Reference);
  EXPECT_TRUE(checkEntrySignatureRule(
                  "void launch(float *__restrict__ in, const int count) {}",
                  *Reference, P)
                  .empty());
  auto Changed = checkEntrySignatureRule("void launch(float *x, long n) {}",
                                         *Reference, P);
  ASSERT_EQ(Changed.size(), 1u);
  EXPECT_EQ(Changed[0].Rule, "entry-signature");
  EXPECT_EQ(checkEntrySignatureRule("void other();", *Reference, P).size(), 1u);
}
} // namespace
