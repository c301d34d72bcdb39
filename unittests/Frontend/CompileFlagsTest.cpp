//===- CompileFlagsTest.cpp - nvcc flags to Clang flags -------------------===//

#include "kopt/Frontend/CompileFlags.h"

#include "gtest/gtest.h"

using namespace kopt;

namespace {

using Args = std::vector<std::string>;

TEST(CompileFlagsTest, KeepsIncludesMacrosAndStandard) {
  TranslatedFlags F = translateCompileCommand(
      {"nvcc", "-I/inc", "-DA=1", "--define-macro", "B", "-isystem", "/sys",
       "-std=c++20", "-c", "k.cu", "-o", "k.o"},
      "k.cu");
  EXPECT_EQ(F.ClangArgs, (Args{"-I", "/inc", "-D", "A=1", "-D", "B", "-isystem",
                               "/sys", "-std=c++20"}));
}

TEST(CompileFlagsTest, DropsNvccOnlyFlags) {
  TranslatedFlags F = translateCompileCommand(
      {"/usr/local/cuda/bin/nvcc", "-ccbin", "g++-12", "-rdc=true",
       "--expt-relaxed-constexpr", "--expt-extended-lambda", "-lineinfo",
       "-Xptxas", "-v", "--use_fast_math", "-O3", "k.cu"},
      "k.cu");
  EXPECT_TRUE(F.ClangArgs.empty());
  EXPECT_EQ(F.Dropped.size(), 8u);
}

TEST(CompileFlagsTest, ReadsTheArch) {
  EXPECT_EQ(
      translateCompileCommand({"nvcc", "-arch=sm_80", "k.cu"}, "k.cu").GpuArch,
      std::optional<std::string>("sm_80"));
  EXPECT_EQ(
      translateCompileCommand({"nvcc", "-arch", "compute_75", "k.cu"}, "k.cu")
          .GpuArch,
      std::optional<std::string>("sm_75"));
  EXPECT_EQ(
      translateCompileCommand(
          {"nvcc", "-gencode", "arch=compute_90a,code=sm_90a", "k.cu"}, "k.cu")
          .GpuArch,
      std::optional<std::string>("sm_90a"));
  EXPECT_EQ(
      translateCompileCommand(
          {"clang++", "--cuda-gpu-arch=sm_86", "-x", "cuda", "k.cu"}, "k.cu")
          .GpuArch,
      std::optional<std::string>("sm_86"));
}

TEST(CompileFlagsTest, TranslatesHostCompilerFlags) {
  TranslatedFlags F = translateCompileCommand(
      {"nvcc", "-Xcompiler=-fPIC,-DHOST=1,-Wall", "-Xcompiler", "-I/h", "k.cu"},
      "k.cu");
  EXPECT_EQ(F.ClangArgs, (Args{"-DHOST=1", "-I/h"}));
}

TEST(CompileFlagsTest, MakesRelativeIncludesAbsolute) {
  TranslatedFlags F = translateCompileCommand(
      {"nvcc", "-Iinclude", "-I", "/abs", "k.cu"}, "k.cu", "/build");
  EXPECT_EQ(F.ClangArgs, (Args{"-I", "/build/include", "-I", "/abs"}));
}

TEST(CompileFlagsTest, DoesNotSwallowTheNextFlag) {
  // Clang's command interpolation drops the values of options it does not
  // know: `-ccbin g++` arrives as `-ccbin`.
  TranslatedFlags F = translateCompileCommand(
      {"nvcc", "-ccbin", "-Iinclude", "-gencode", "-DX", "--", "k.cu"}, "k.cu");
  EXPECT_EQ(F.ClangArgs, (Args{"-I", "include", "-D", "X"}));
}

TEST(CompileFlagsTest, KeepsClangFlagsOfClangCommands) {
  TranslatedFlags F = translateCompileCommand(
      {"clang++", "-fno-exceptions", "-Wall", "-c", "k.cu"}, "k.cu");
  EXPECT_EQ(F.ClangArgs, (Args{"-fno-exceptions", "-Wall"}));
}

} // namespace
