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

TEST(StaticChecks, HostApis) {
  // L2 persistence, limits, device selection and NVML touch what the
  // reference runs on next.
  EXPECT_EQ(rules("void f(cudaStream_t s, cudaStreamAttrValue v) { "
                  "cudaStreamSetAttribute(s, "
                  "cudaStreamAttributeAccessPolicyWindow, &v); }"),
            (Rules{"baseline-interference", "baseline-interference"}));
  EXPECT_EQ(rules("void f() { cudaDeviceSetLimit(lim, 0); }"),
            Rules{"baseline-interference"});
  EXPECT_EQ(rules("auto l = cudaLimitPersistingL2CacheSize;"),
            Rules{"baseline-interference"});
  EXPECT_EQ(rules("void f() { cudaSetDevice(1); }"),
            Rules{"baseline-interference"});
  EXPECT_EQ(rules("void f() { nvmlInit_v2(); }"),
            Rules{"baseline-interference"});
  // Processes, threads, page protection, load-time constructors.
  EXPECT_EQ(rules("void f() { if (fork() == 0) g(); }"),
            Rules{"process-control"});
  EXPECT_EQ(rules("void f() { std::thread t(g); t.detach(); }"),
            Rules{"process-control"});
  EXPECT_EQ(rules("void f() { auto r = std::async(g); }"),
            Rules{"process-control"});
  EXPECT_EQ(rules("void f() { pthread_create(&t, 0, g, 0); }"),
            Rules{"process-control"});
  EXPECT_EQ(rules("void f() { mprotect(p, 4096, 7); }"),
            Rules{"process-control"});
  EXPECT_EQ(rules("__attribute__((constructor)) static void init() {}"),
            Rules{"process-control"});
  // The address taken instead of a call; raw system calls from host asm.
  EXPECT_EQ(rules("void f() { auto p = &fork; p(); }"),
            Rules{"process-control"});
  EXPECT_EQ(rules("void f() { long r; asm volatile(\"syscall\" : "
                  "\"=a\"(r) : \"a\"(57)); }"),
            Rules{"process-control"});
  EXPECT_EQ(rules("__device__ unsigned lane() { unsigned r; asm(\"mov.u32 "
                  "%0, %%laneid;\" : \"=r\"(r)); return r; }"),
            Rules{});
  // Code loaded at run time is what dlopen is.
  EXPECT_EQ(rules("void f() { cuModuleLoadData(&m, image); }"),
            Rules{"vendor-library"});
  EXPECT_EQ(rules("void f() { nvrtcCompileProgram(p, 0, 0); }"),
            Rules{"vendor-library"});
  // A driver entry point is any driver call: only pointer queries named by
  // a literal may be looked up.
  EXPECT_EQ(rules("void f() { cudaGetDriverEntryPointByVersion(name, &p, "
                  "12000, 0, &q); }"),
            Rules{"vendor-library"});
  EXPECT_EQ(rules("void f() { cuGetProcAddress(\"cuCtxSetLimit\", &p, "
                  "12000, 0, &q); }"),
            Rules{"vendor-library"});
  EXPECT_EQ(rules("void f() { cudaGetDriverEntryPoint(\"cuMemGetAddress\" "
                  "\"Range\", &p, 0, &q); }"),
            Rules{"vendor-library"});
  EXPECT_EQ(rules("void f() { cudaGetDriverEntryPointByVersion("
                  "\"cuMemGetAddressRange\", &p, 12000, 0, &q); }"),
            Rules{});
  // Names that are not calls of those APIs, members, comments and strings.
  EXPECT_EQ(rules("struct S { int fork; };\nvoid f(S s) { s.fork = 1; "
                  "kernel<<<1, 1>>>(s.fork); }\n// fork()\n"
                  "const char *m = \"cudaSetDevice(1)\";"),
            Rules{});
  EXPECT_EQ(rules("void f() { cudaFuncSetAttribute(k, "
                  "cudaFuncAttributeMaxDynamicSharedMemorySize, 65536); "
                  "std::vector<int> thread_ids; }"),
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

namespace {
TEST(StaticChecks, TimerRegisterSpellings) {
  for (const char *Reg : {"%%clock", "%%clock_hi", "%%clock64", "%%globaltimer",
                          "%%globaltimer_lo", "%%globaltimer_hi"})
    EXPECT_EQ(rules(std::string("__global__ void k() { asm volatile(\"mov.u32 "
                                "%0, ") +
                    Reg + ";\" : \"=r\"(t)); }"),
              Rules{"timer-read"})
        << Reg;
  // Adjacent literals are one PTX string.
  EXPECT_EQ(rules("__global__ void k() { asm(\"mov.u64 %0, %%global\" "
                  "\"timer;\" : \"=l\"(t)); }"),
            Rules{"timer-read"});
}

TEST(StaticChecks, PreprocessedSource) {
  kopt::spec::Problem P;
  // What nvcc -E leaves: line markers, attributes for __global__, a
  // toolkit header (skipped) and a library header included by a user file.
  std::string Text = "# 1 \"/work/c.cu\"\n"
                     "# 1 \"/cuda/include/cuda_runtime.h\" 1\n"
                     "void clock64();\n"
                     "# 2 \"/work/c.cu\" 2\n"
                     "# 1 \"/cuda/include/cublas_v2.h\" 1\n"
                     "int cublasCreate_v2(void*);\n"
                     "# 3 \"/work/c.cu\" 2\n"
                     "__attribute__((global)) void k() {\n"
                     "  long long t = clock64(); printf(\"x\");\n"
                     "}\n"
                     "void h() { printf(\"host\"); }\n";
  std::vector<RuleViolation> V = checkPreprocessedRules(Text, P, {"/cuda"});
  std::vector<std::string> Seen;
  for (const RuleViolation &R : V)
    Seen.push_back(R.Rule + "@" + R.File + ":" + std::to_string(R.Line));
  EXPECT_EQ(Seen, (std::vector<std::string>{"vendor-library@/work/c.cu:2",
                                            "timer-read@/work/c.cu:4",
                                            "device-printf@/work/c.cu:4"}));
}
TEST(StaticChecks, HostNamesAreSecondOpinions) {
  kopt::spec::Problem P;
  auto Second = [&](const std::string &Source) {
    std::vector<bool> Out;
    for (const RuleViolation &V : checkSourceRules(Source, P))
      Out.push_back(V.SecondOpinion);
    return Out;
  };
  // A name the C library also has: the compiled library decides.
  EXPECT_EQ(Second("void f() { cudaEventRecord(fork, s); }"),
            std::vector<bool>{true});
  EXPECT_EQ(Second("void f() { int kill = 3; g(kill); }"),
            std::vector<bool>{true});
  EXPECT_EQ(Second("void f() { cublasCreate(&h); }"), std::vector<bool>{true});
  // What leaves no import behind stays a rule of its own.
  EXPECT_EQ(Second("void f() { thrust::sort(a, b); }"),
            std::vector<bool>{false});
  EXPECT_EQ(Second("__attribute__((constructor)) static void init() {}"),
            std::vector<bool>{false});
  EXPECT_EQ(Second("auto l = cudaLimitPersistingL2CacheSize;"),
            std::vector<bool>{false});
}

} // namespace
