//===- PassManagerTest.cpp - Verification and rollback of passes ----------===//

#include "kopt/Pipeline/PassManager.h"
#include "kopt/Pass/Pass.h"

#include "../ParseHelper.h"
#include "../TestHelpers.h"

using namespace kopt;

namespace {

const char *Source = R"cu(
__global__ void k(float *p, int n) {
  int i = threadIdx.x;
  if (i < n) p[i] = 1.0f;
}
void launch(float *p, int n) { k<<<1, 128>>>(p, n); }
)cu";

/// A pass that makes one fixed textual edit, applied or not.
class EditingPass : public Pass {
public:
  EditingPass(std::string Find, std::string Replace)
      : Find(std::move(Find)), Replace(std::move(Replace)) {}
  void run(PassContext &Ctx) override {
    size_t Offset = Ctx.source().Code.find(Find);
    ASSERT_NE(Offset, std::string::npos);
    KOPT_ASSERT_OK(Ctx.edits().replaceChars(Offset, Find.size(), Replace));
    Ctx.applied("k", {}, "edited");
  }
  std::string Find, Replace;
};

OptimizeResult runWith(std::unique_ptr<Pass> P) {
  // A registry of one pass, "edit", that runs P.
  std::shared_ptr<Pass> Shared(std::move(P));
  PassRegistry Registry;
  Registry.addPass({"edit", "a test pass", {}, [Shared] {
                      struct Forward : Pass {
                        std::shared_ptr<Pass> To;
                        void run(PassContext &Ctx) override { To->run(Ctx); }
                      };
                      auto F = std::make_unique<Forward>();
                      F->To = Shared;
                      return std::unique_ptr<Pass>(std::move(F));
                    }});
  llvm::Expected<Pipeline> Pipe = parsePipeline("edit", Registry);
  EXPECT_TRUE(static_cast<bool>(Pipe));
  if (!Pipe)
    return OptimizeResult();
  llvm::Expected<OptimizeResult> R =
      runPipeline(testFrontend(), "/virtual/k.cu", Source, *Pipe);
  EXPECT_TRUE(static_cast<bool>(R)) << messageOf(R.takeError());
  return R ? std::move(*R) : OptimizeResult();
}

TEST(PassManagerTest, KeepsAVerifiedEdit) {
  OptimizeResult R = runWith(std::make_unique<EditingPass>("1.0f", "2.0f"));
  EXPECT_NE(R.Code.find("p[i] = 2.0f"), std::string::npos);
  ASSERT_EQ(R.Remarks.size(), 1u);
  EXPECT_EQ(R.Remarks[0].K, Remark::Applied);
  EXPECT_FALSE(R.Runs[0].RolledBack);
}

TEST(PassManagerTest, RollsBackOutputThatDoesNotParse) {
  OptimizeResult R = runWith(std::make_unique<EditingPass>("1.0f;", "1.0f"));
  EXPECT_EQ(R.Code, Source);
  ASSERT_EQ(R.Remarks.size(), 1u);
  EXPECT_EQ(R.Remarks[0].K, Remark::Missed);
  EXPECT_NE(R.Remarks[0].Message.find("the result does not parse"),
            std::string::npos);
  EXPECT_TRUE(R.Runs[0].RolledBack);
}

TEST(PassManagerTest, RollsBackAChangedKernelSignature) {
  OptimizeResult R = runWith(
      std::make_unique<EditingPass>("float *p, int n)", "float *p, long n)"));
  EXPECT_EQ(R.Code, Source);
  ASSERT_EQ(R.Remarks.size(), 1u);
  EXPECT_NE(R.Remarks[0].Message.find("kernel 'k' changed its signature"),
            std::string::npos)
      << R.Remarks[0].Message;
}

TEST(PassManagerTest, RollsBackAChangedLauncherSignature) {
  OptimizeResult R = runWith(std::make_unique<EditingPass>(
      "launch(float *p, int n)", "launch(float *p, unsigned n)"));
  EXPECT_EQ(R.Code, Source);
  EXPECT_NE(
      R.Remarks[0].Message.find("launcher 'launch' changed its signature"),
      std::string::npos)
      << R.Remarks[0].Message;
}

TEST(PassManagerTest, AllowsAbiCompatibleQualifiers) {
  OptimizeResult R = runWith(
      std::make_unique<EditingPass>("k(float *p", "k(float *__restrict__ p"));
  EXPECT_NE(R.Code.find("__restrict__"), std::string::npos);
  EXPECT_FALSE(R.Runs[0].RolledBack);
}

} // namespace
