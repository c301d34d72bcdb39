//===- StatusLineTest.cpp - Progress of a long command --------------------===//

#include "kopt/Support/StatusLine.h"

#include "gtest/gtest.h"

#include <string>

using namespace kopt;

namespace {

std::string contents(std::FILE *F) {
  std::fflush(F);
  std::rewind(F);
  std::string Out;
  for (int C; (C = std::fgetc(F)) != EOF;)
    Out += static_cast<char>(C);
  return Out;
}

TEST(StatusLineTest, ATerminalRedrawsOneLine) {
  std::FILE *F = std::tmpfile();
  ASSERT_NE(F, nullptr);
  {
    StatusLine L(F, /*Terminal=*/true);
    L.show("compiled 1/2", "log 1");
    L.show(std::string(200, 'x'), "");
    L.finish();
    L.finish(); // once
  }
  EXPECT_EQ(contents(F), "\r\033[Kcompiled 1/2\r\033[K" +
                             std::string(147, 'x') + "...\n");
  std::fclose(F);
}

TEST(StatusLineTest, ALogGetsTheLinesThatSaySomething) {
  std::FILE *F = std::tmpfile();
  ASSERT_NE(F, nullptr);
  {
    StatusLine L(F, /*Terminal=*/false);
    L.show("live 1", "log 1");
    L.show("live 2", "");
    L.show("live 3", "log 3");
  }
  EXPECT_EQ(contents(F), "log 1\nlog 3\n");
  std::fclose(F);
}

} // namespace
