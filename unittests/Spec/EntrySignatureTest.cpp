#include "kopt/Spec/EntrySignature.h"
#include "kopt/Spec/ProblemValidator.h"

#include <gtest/gtest.h>

using namespace kopt::spec;

namespace {
std::optional<EntrySignature> find(const std::string &Source,
                                   const std::string &Name) {
  std::string Error;
  return findEntrySignature(tokenizeSource(Source), Name, Error);
}

TEST(EntrySignature, ExternCLauncher) {
  auto Sig = find(R"(
    // launch_axpby(int) in a comment is ignored
    #define launch_axpby(x) nope
    __global__ void k(float *x);
    extern "C" void launch_axpby(const float *__restrict__ x, float* out,
                                 float a, int n = 4, cudaStream_t stream) {
      k<<<1, 1, 0, stream>>>(out);
    })",
                  "launch_axpby");
  ASSERT_TRUE(Sig);
  EXPECT_TRUE(Sig->IsDefinition);
  EXPECT_EQ(Sig->canonical(), "void(float*,float*,float,int,cudaStream_t)");
  ASSERT_EQ(Sig->Params.size(), 5u);
  EXPECT_EQ(Sig->Params[0].ParamKind, EntryParam::Kind::Pointer);
  EXPECT_EQ(Sig->Params[0].BaseType, "float");
  EXPECT_EQ(Sig->Params[0].Name, "x");
  EXPECT_EQ(Sig->Params[2].ParamKind, EntryParam::Kind::Scalar);
  EXPECT_EQ(Sig->Params[4].ParamKind, EntryParam::Kind::Stream);
}

TEST(EntrySignature, CallsAreNotDeclarations) {
  auto Sig = find(R"(
    void run() { launch(a, b); }
    void launch(void *out, void *in);
  )",
                  "launch");
  ASSERT_TRUE(Sig);
  EXPECT_FALSE(Sig->IsDefinition);
  EXPECT_EQ(Sig->canonical(), "void(void*,void*)");
}

TEST(EntrySignature, QualifiedAndUnsigned) {
  auto Sig = find("namespace ns { int launch(unsigned int n, std::int64_t "
                  "m, const __half* h) { return 0; } }",
                  "ns::launch");
  ASSERT_TRUE(Sig);
  EXPECT_EQ(Sig->canonical(), "int(unsigned int,std::int64_t,__half*)");
  EXPECT_TRUE(typeCanCarry("unsigned int", DType::U32, false));
  EXPECT_TRUE(typeCanCarry("std::int64_t", DType::I64, false));
  EXPECT_FALSE(typeCanCarry("int", DType::F32, false));
  EXPECT_TRUE(typeCanCarry("void", DType::BF16, true));
  EXPECT_TRUE(typeCanCarry("MyStruct", DType::F32, true));
}

TEST(EntrySignature, Missing) {
  std::string Error;
  EXPECT_FALSE(
      findEntrySignature(tokenizeSource("void other();"), "launch", Error));
  EXPECT_NE(Error.find("'launch'"), std::string::npos);
}

TEST(SourceTokenizer, CommentsStringsDirectives) {
  auto Tokens = tokenizeSource("#include <a.h>\nint x = 1; /* y */ "
                               "const char *s = \"clock()\"; // z\n"
                               "auto r = R\"(raw \" text)\";");
  ASSERT_GE(Tokens.size(), 3u);
  EXPECT_EQ(Tokens[0].TokKind, Token::Kind::Directive);
  bool SawString = false, SawRaw = false;
  for (const Token &T : Tokens) {
    EXPECT_NE(T.Text, "y");
    EXPECT_NE(T.Text, "z");
    SawString |= T.TokKind == Token::Kind::String && T.Text == "clock()";
    SawRaw |= T.TokKind == Token::Kind::String && T.Text == "raw \" text";
  }
  EXPECT_TRUE(SawString);
  EXPECT_TRUE(SawRaw);
}
} // namespace
