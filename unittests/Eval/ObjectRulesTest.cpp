#include "kopt/Eval/ObjectRules.h"

#include <gtest/gtest.h>

using namespace kopt::eval;

namespace {
std::vector<std::string> rules(std::vector<std::string> Imports,
                               std::vector<std::string> Strings = {},
                               const std::string &Disassembly = "",
                               std::vector<std::string> Allow = {}) {
  kopt::spec::Problem P;
  P.AllowLibraries = Allow;
  ObjectImports I{std::move(Imports), std::move(Strings)};
  std::vector<std::string> Names;
  for (const RuleViolation &V : checkObjectRules(I, Disassembly, P)) {
    EXPECT_EQ(V.Origin, "host object");
    Names.push_back(V.Rule);
  }
  return Names;
}

using Rules = std::vector<std::string>;

TEST(ObjectRules, ImportsDecide) {
  // What an honest launcher imports.
  EXPECT_EQ(rules({"cudaLaunchKernel", "__cudaRegisterFatBinary",
                   "cudaEventRecord", "cudaStreamWaitEvent", "memcpy",
                   "__cxa_atexit", "printf"}),
            Rules{});
  EXPECT_EQ(rules({"fork"}), Rules{"process-control"});
  EXPECT_EQ(rules({"_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_"
                   "StateESt14default_deleteIS1_EEPFvvE"}),
            Rules{"process-control"});
  EXPECT_EQ(rules({"cudaDeviceSetLimit"}), Rules{"baseline-interference"});
  EXPECT_EQ(rules({"nvmlDeviceSetApplicationsClocks"}),
            Rules{"baseline-interference"});
  EXPECT_EQ(rules({"dlsym"}), Rules{"vendor-library"});
  EXPECT_EQ(rules({"cuModuleLoadData"}), Rules{"vendor-library"});
  EXPECT_EQ(rules({"clock_gettime"}), Rules{"timer-read"});
  EXPECT_EQ(rules({"_ZNSt6chrono3_V212steady_clock3nowEv"}),
            Rules{"timer-read"});
  EXPECT_EQ(rules({"cublasSgemm_v2"}), Rules{"vendor-library"});
  EXPECT_EQ(rules({"cublasSgemm_v2"}, {}, "", {"cublas"}), Rules{});
  // curand's device API is inlined; its host API is imported.
  EXPECT_EQ(rules({"curandGenerateUniform"}), Rules{"vendor-library"});
}

TEST(ObjectRules, DriverLookupsByTheirStrings) {
  EXPECT_EQ(rules({"cudaGetDriverEntryPoint"}, {"cuMemGetAddressRange"}),
            Rules{});
  EXPECT_EQ(rules({"cudaGetDriverEntryPoint"},
                  {"cuMemGetAddressRange", "cuCtxSetLimit"}),
            Rules{"vendor-library"});
  // A name built at run time leaves no string behind.
  EXPECT_EQ(rules({"cuGetProcAddress_v2"}, {"%s%s"}),
            Rules{"vendor-library"});
  // Strings alone are no call.
  EXPECT_EQ(rules({}, {"cuCtxSetLimit", "fork"}), Rules{});
}

TEST(ObjectRules, HostInstructions) {
  std::string Text = "0000000000001120 <launch>:\n"
                     "    1120:\tpush   %rbp\n"
                     "    1130:\tsyscall\n"
                     "    1132:\tint    $0x80\n"
                     "    1134:\tint    $0x3\n"
                     "    1136:\trdtsc\n";
  EXPECT_EQ(rules({}, {}, Text),
            (Rules{"process-control", "process-control", "timer-read"}));
  EXPECT_EQ(rules({}, {}, "    1120:\tmov    %rdi,%rax\n"), Rules{});
}

TEST(ObjectRules, ReadsTheDynamicSymbolTable) {
  std::string Error;
  EXPECT_FALSE(readObjectImports("not an ELF file", Error));
  EXPECT_FALSE(Error.empty());
}
} // namespace

namespace {
TEST(ObjectRules, SettlesSourceAndObjectFindings) {
  kopt::spec::Problem P;
  RuleViolation Name{"process-control", "acts outside its own thread ('fork')",
                     17};
  Name.SecondOpinion = true;
  RuleViolation Enumerator{"baseline-interference", "asks for L2", 19};
  ObjectInspection Object;
  Object.Inspected = true;
  // The object imports nothing forbidden: the name is a note, the
  // enumerator (no import shows it) still rejects.
  SettledRules S = settleRules({Name, Name, Enumerator}, Object, P);
  ASSERT_EQ(S.Rejections.size(), 1u);
  EXPECT_EQ(S.Rejections[0].Rule, "baseline-interference");
  ASSERT_EQ(S.Notes.size(), 1u);
  EXPECT_EQ(S.Notes[0].Rule, "host-api-source");
  // The object could not be read: the name decides.
  Object.Inspected = false;
  S = settleRules({Name}, Object, P);
  ASSERT_EQ(S.Rejections.size(), 1u);
  EXPECT_EQ(S.Rejections[0].Rule, "process-control");
  // An allowed library's own imports are notes; the source decides.
  Object.Inspected = true;
  RuleViolation Import{"vendor-library", "the compiled library imports 'dlsym'",
                       0};
  Import.Origin = "host object";
  Object.Violations = {Import};
  P.AllowLibraries = {"thrust"};
  S = settleRules({}, Object, P);
  EXPECT_TRUE(S.Rejections.empty());
  ASSERT_EQ(S.Notes.size(), 1u);
  EXPECT_EQ(S.Notes[0].Rule, "host-api-object");
  P.AllowLibraries.clear();
  S = settleRules({}, Object, P);
  ASSERT_EQ(S.Rejections.size(), 1u);
  EXPECT_EQ(S.Rejections[0].Origin, "host object");
}
} // namespace
