#include "kopt/Eval/ResourceUsage.h"

#include <gtest/gtest.h>

using namespace kopt::eval;

namespace {
TEST(ResourceUsage, ParsesPtxasVerbose) {
  const char *Log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z12axpby_kernelPKfS0_Pfffi' "
      "for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z12axpby_kernelPKfS0_Pfffi\n"
      "    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 14 registers, used 1 barriers, 1024 bytes smem, "
      "380 bytes cmem[0]\n";
  ResourceUsage U;
  parsePtxasLog(Log, U);
  ASSERT_EQ(U.Kernels.size(), 1u);
  const KernelResources &K = U.Kernels[0];
  EXPECT_EQ(K.Name, "axpby_kernel(float const*, float const*, float*, float, "
                    "float, int)");
  EXPECT_EQ(K.Registers, 14);
  EXPECT_EQ(K.SharedBytes, 1024);
  EXPECT_EQ(K.StackFrameBytes, 16);
  EXPECT_EQ(K.SpillStoreBytes, 8);
  EXPECT_EQ(K.SpillLoadBytes, 4);
}

TEST(ResourceUsage, CountsGlobalAccessWidthsInSass) {
  const char *Sass =
      "\tcode for sm_90a\n"
      "\t\tFunction : _Z6axpby4PK6float4S1_PS_ffi\n"
      "        /*0070*/                   LDG.E.128 R4, desc[UR4][R2.64] ;\n"
      "        /*0080*/              @!P0 LDG.E.128.CONSTANT R8, "
      "desc[UR4][R6.64] ;\n"
      "        /*0090*/                   LDG.E R10, desc[UR4][R6.64] ;\n"
      "        /*00a0*/                   LDG.E.U16 R11, desc[UR4][R6.64] ;\n"
      "        /*00b0*/                   STG.E.128 desc[UR4][R12.64], R4 ;\n"
      "        /*00c0*/                   LDS R1, [R2] ;\n";
  ResourceUsage U;
  parseSass(Sass, U);
  EXPECT_TRUE(U.SassAvailable);
  ASSERT_EQ(U.Kernels.size(), 1u);
  EXPECT_EQ(U.Kernels[0].GlobalLoadWidths.at(128), 2);
  EXPECT_EQ(U.Kernels[0].GlobalLoadWidths.at(32), 1);
  EXPECT_EQ(U.Kernels[0].GlobalLoadWidths.at(16), 1);
  EXPECT_EQ(U.Kernels[0].GlobalStoreWidths.at(128), 1);
  EXPECT_EQ(globalAccessWidth("LDG.E.64"), 64);
  EXPECT_EQ(globalAccessWidth("LDS.128"), 0);
}
} // namespace
